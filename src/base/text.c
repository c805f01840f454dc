/* text.c - text safe to show and to write: valid UTF-8, no control characters. */
#include <stdio.h>
#include <string.h>

#include "text.h"

/* Names come from users' programs and command lines, paths from the file
 * system: any byte may be there.  Every output (terminal, JSON, CSV)
 * needs UTF-8, and an escape sequence in a name must not reach a
 * terminal, so such bytes are written as \xNN, visible and reversible. */

size_t pmb__utf8_len(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned c = p[0], len, min;
	unsigned long cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, min = 0x80, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, min = 0x800, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, min = 0x10000, cp = c & 0x07;
	else
		return 0;
	for (unsigned i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80) /* also the terminating NUL */
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* A C0 control or DEL at in, or a C1 control (U+0080..U+009F, C2 80..9F
 * in UTF-8: CSI is one), which a terminal obeys as an escape. */
static int is_control(const char *in)
{
	const unsigned char *c = (const unsigned char *)in;

	return c[0] < 0x20 || c[0] == 0x7f || (c[0] == 0xc2 && c[1] >= 0x80 && c[1] <= 0x9f);
}

int pmb__text_needs_escape(const char *in)
{
	for (size_t k; *in; in += k) {
		k = pmb__utf8_len(in);
		if (k == 0 || is_control(in))
			return 1;
	}
	return 0;
}

size_t pmb__text_safe(char *out, size_t n, const char *in)
{
	size_t need = 0, k;
	char esc[5];

	for (; *in; in += k ? k : 1) {
		const char *piece = in;
		size_t len;

		k = pmb__utf8_len(in);
		if (k == 0 || is_control(in)) {
			snprintf(esc, sizeof(esc), "\\x%02x", (unsigned char)*in);
			piece = esc;
			len = 4;
			k = 1;
		} else {
			len = k;
		}
		if (n && need + len < n)
			memcpy(out + need, piece, len);
		else if (n && need < n)
			n = need + 1; /* full: nothing after a cut character */
		need += len;
	}
	if (n)
		out[need < n ? need : n - 1] = '\0';
	return need;
}
