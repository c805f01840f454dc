/* format.h - sizes in bytes as people read them: the one byte formatter. */
#ifndef PMB_FORMAT_H
#define PMB_FORMAT_H

#include <stddef.h>
#include <stdint.h>

/* "32KiB", "1.5MiB": bytes in binary units, shortest exact form (a whole
 * number of the largest unit that divides it, else %.4g of the next one),
 * sep between number and unit ("": "32KiB", " ": "32 KiB").  Returns what
 * snprintf returns. */
int pmb__format_bytes_sep(char *buf, size_t n, uint64_t bytes, const char *sep);

/* The same without a separator: "32KiB", as names and tables show sizes. */
static inline void pmb__format_bytes(char *buf, size_t n, uint64_t bytes)
{
	(void)pmb__format_bytes_sep(buf, n, bytes, "");
}

#endif
