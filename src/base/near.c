/* near.c - names near a mistyped one: one edit distance for options, events and sets alike. */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "near.h"

static int fold(int ch)
{
	ch = tolower(ch);
	return ch == '_' ? '-' : ch;
}

int pmb__near_distance(const char *a, const char *b)
{
	int prev[PMB_NEAR_LEN + 1], cur[PMB_NEAR_LEN + 1];
	size_t la = strlen(a), lb = strlen(b);

	if (la > PMB_NEAR_LEN || lb > PMB_NEAR_LEN)
		return INT_MAX;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int sub = prev[j - 1] + (fold((unsigned char)a[i - 1]) != fold((unsigned char)b[j - 1]));
			int del = prev[j] + 1, ins = cur[j - 1] + 1;

			cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
		}
		memcpy(prev, cur, sizeof(int) * (lb + 1));
	}
	return prev[lb];
}

void pmb__near_start(struct pmb_near *s, const char *bad)
{
	int len = (int)strlen(bad);

	memset(s, 0, sizeof(*s));
	s->bad = bad;
	s->max = len / 3 > 2 ? len / 3 : 2;
}

void pmb__near_consider(struct pmb_near *s, const char *cand)
{
	pmb__near_consider_as(s, cand, cand);
}

void pmb__near_consider_as(struct pmb_near *s, const char *cand, const char *shown)
{
	int d = pmb__near_distance(s->bad, cand), i;

	if (d > s->max)
		return;
	/* BR_MISP_RETIRED and the alias br-misp-retired: suggest one */
	for (i = 0; i < s->n; i++)
		if (!pmb__near_distance(s->name[i], shown))
			return;
	/* keep the PMB_NEAR_MAX closest, first seen first among equals */
	for (i = s->n; i > 0 && s->d[i - 1] > d; i--) {
		if (i < PMB_NEAR_MAX) {
			s->d[i] = s->d[i - 1];
			memcpy(s->name[i], s->name[i - 1], PMB_NEAR_LEN);
		}
	}
	if (i >= PMB_NEAR_MAX)
		return;
	s->d[i] = d;
	snprintf(s->name[i], PMB_NEAR_LEN, "%s", shown);
	if (s->n < PMB_NEAR_MAX)
		s->n++;
}

void pmb__near_join(const struct pmb_near *s, char *out, size_t size)
{
	size_t len = 0;

	out[0] = '\0';
	for (int i = 0; i < s->n && len < size; i++)
		len += (size_t)snprintf(out + len, size - len, "%s%s", i ? ", " : "", s->name[i]);
}

bool pmb__near_contains(const char *name, const char *pattern)
{
	size_t lp = pattern ? strlen(pattern) : 0;

	if (!lp)
		return true;
	for (; *name; name++) {
		size_t k = 0;

		while (k < lp && name[k] && fold((unsigned char)name[k]) == fold((unsigned char)pattern[k]))
			k++;
		if (k == lp)
			return true;
	}
	return false;
}

const char *pmb__near_as_typed(const char *bad, const char *cand, bool underscore_ok, char *buf,
			       size_t size)
{
	bool upper = false, lower = false, under = false, dash = false;
	size_t i;

	for (const char *p = bad; *p; p++) {
		upper |= isupper((unsigned char)*p) != 0;
		lower |= islower((unsigned char)*p) != 0;
		under |= *p == '_';
		dash |= *p == '-';
	}
	for (i = 0; cand[i] && i + 1 < size; i++) {
		char ch = cand[i];

		if (upper && !lower)
			ch = (char)toupper((unsigned char)ch);
		else if (lower && !upper)
			ch = (char)tolower((unsigned char)ch);
		if (underscore_ok && under && !dash && ch == '-')
			ch = '_';
		buf[i] = ch;
	}
	buf[i] = '\0';
	return buf;
}
