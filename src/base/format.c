/* format.c - sizes in bytes as people read them: the one byte formatter. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#include "format.h"

int pmb__format_bytes_sep(char *buf, size_t n, uint64_t b, const char *sep)
{
	static const char *unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int u = 0;
	uint64_t v = b;

	while (u < 4 && v >= 1024 && v % 1024 == 0) {
		v /= 1024;
		u++;
	}
	if (u < 4 && v >= 1024) {
		/* Not a whole number of the next unit: one decimal, which the
		 * tier points (multiples of lines) keep readable. */
		double d = (double)v;
		int k = u;

		while (k < 4 && d >= 1024) {
			d /= 1024;
			k++;
		}
		return snprintf(buf, n, "%.4g%s%s", d, sep, unit[k]);
	}
	return snprintf(buf, n, "%" PRIu64 "%s%s", v, sep, unit[u]);
}

