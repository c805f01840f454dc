/* text.h - text safe to show and to write: valid UTF-8, no control characters. */
#ifndef PMB_TEXT_H
#define PMB_TEXT_H

#include <stddef.h>

/* The length (1 to 4) of the valid UTF-8 character p starts with (no
 * overlong form, no surrogate, at most U+10FFFF), or 0 where it starts
 * none.  p is NUL-terminated. */
size_t pmb__utf8_len(const char *p);

/* in, with each byte that is not part of a valid UTF-8 character and each
 * control character (below 0x20, and 0x7f) written as the four characters
 * \xNN: valid UTF-8 that a terminal shows as it is.  Writes at most n
 * bytes into out (n > 0: always terminated, never in mid-character).
 * Returns the length the whole result needs, as snprintf does. */
size_t pmb__text_safe(char *out, size_t n, const char *in);

/* Whether in holds anything pmb__text_safe would change. */
int pmb__text_needs_escape(const char *in);

#endif
