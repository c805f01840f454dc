/* json_read.c - a small strict JSON parser (RFC 8259) into a tree, for pmubench compare. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_read.h"
#include "pmubench.h"

/* Deep enough for any report; shallow enough that recursion cannot
 * exhaust the stack on hostile input. */
#define MAX_DEPTH 200

struct parser {
	const char *s;
	size_t len, pos;
	int depth;
	int err;         /* 0, PMB_EBADJSON or -ENOMEM */
	char *msg;
	size_t msglen;
};

static void fail_at(struct parser *p, size_t at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Only the first error is kept: later ones are consequences of it. */
static void fail_at(struct parser *p, size_t at, const char *fmt, ...)
{
	size_t line = 1, col = 1, i;
	char what[160];
	va_list ap;

	if (p->err)
		return;
	p->err = PMB_EBADJSON;
	for (i = 0; i < at && i < p->len; i++) {
		if (p->s[i] == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (p->msg && p->msglen)
		snprintf(p->msg, p->msglen, "line %zu, column %zu: %s", line,
			 col, what);
}

static void fail_nomem(struct parser *p)
{
	if (p->err)
		return;
	p->err = -ENOMEM;
	if (p->msg && p->msglen)
		snprintf(p->msg, p->msglen, "%s", strerror(ENOMEM));
}

static void skip_ws(struct parser *p)
{
	while (p->pos < p->len) {
		char c = p->s[p->pos];

		if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
			break;
		p->pos++;
	}
}

/* What is at pos, for messages: "end of input" or the character. */
static const char *seen(const struct parser *p, char *buf, size_t n)
{
	unsigned char c;

	if (p->pos >= p->len)
		return "end of input";
	c = (unsigned char)p->s[p->pos];
	if (c >= 0x20 && c < 0x7f)
		snprintf(buf, n, "'%c'", c);
	else
		snprintf(buf, n, "byte 0x%02x", c);
	return buf;
}

static struct pmb_json *new_value(struct parser *p, enum pmb_json_type t)
{
	struct pmb_json *v = calloc(1, sizeof(*v));

	if (!v)
		fail_nomem(p);
	else
		v->type = t;
	return v;
}

static struct pmb_json *parse_value(struct parser *p);

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static struct pmb_json *parse_number(struct parser *p)
{
	size_t start = p->pos, i = p->pos;
	char buf[64], *end, *heap = NULL, *txt;
	struct pmb_json *v;
	double d;

	if (i < p->len && p->s[i] == '-')
		i++;
	if (i < p->len && p->s[i] == '0') {
		i++;
	} else if (i < p->len && is_digit(p->s[i])) {
		while (i < p->len && is_digit(p->s[i]))
			i++;
	} else {
		fail_at(p, i, "expected a digit in number");
		return NULL;
	}
	if (i < p->len && p->s[i] == '.') {
		i++;
		if (i >= p->len || !is_digit(p->s[i])) {
			fail_at(p, i, "expected a digit after '.'");
			return NULL;
		}
		while (i < p->len && is_digit(p->s[i]))
			i++;
	}
	if (i < p->len && (p->s[i] == 'e' || p->s[i] == 'E')) {
		i++;
		if (i < p->len && (p->s[i] == '+' || p->s[i] == '-'))
			i++;
		if (i >= p->len || !is_digit(p->s[i])) {
			fail_at(p, i, "expected a digit in exponent");
			return NULL;
		}
		while (i < p->len && is_digit(p->s[i]))
			i++;
	}
	/* strtod needs a terminated copy: the input is not NUL-terminated
	 * where the number ends. */
	txt = buf;
	if (i - start >= sizeof(buf)) {
		heap = malloc(i - start + 1);
		if (!heap) {
			fail_nomem(p);
			return NULL;
		}
		txt = heap;
	}
	memcpy(txt, p->s + start, i - start);
	txt[i - start] = '\0';
	errno = 0;
	d = strtod(txt, &end);
	if ((size_t)(end - txt) != i - start) {
		free(heap);
		fail_at(p, start, "number not readable in this locale");
		return NULL;
	}
	free(heap);
	if (isinf(d)) {
		fail_at(p, start, "number out of range");
		return NULL;
	}
	v = new_value(p, PMB_JSON_NUMBER);
	if (v)
		v->num = d;
	p->pos = i;
	return v;
}

static int hex4(const char *s)
{
	int v = 0, i;

	for (i = 0; i < 4; i++) {
		char c = s[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	return v;
}

static size_t put_utf8(char *o, uint32_t cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | (cp >> 18));
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* Length of the well-formed UTF-8 sequence at s (n bytes left), 0 if it is
 * not one (overlong forms and surrogates included). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	uint32_t cp;
	size_t k, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		k = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		k = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		k = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (n < k)
		return 0;
	for (i = 1; i < k; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((k == 3 && cp < 0x800) || (k == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return k;
}

/* A string at pos (on the opening quote); returns a malloc'ed copy. */
static char *parse_string(struct parser *p)
{
	size_t i = p->pos + 1, o = 0;
	char *out;

	/* The decoded string is never longer than its source. */
	out = malloc(p->len - p->pos + 1);
	if (!out) {
		fail_nomem(p);
		return NULL;
	}
	for (;;) {
		unsigned char c;

		if (i >= p->len) {
			fail_at(p, i, "unterminated string");
			goto fail;
		}
		c = (unsigned char)p->s[i];
		if (c == '"') {
			i++;
			break;
		}
		if (c < 0x20) {
			fail_at(p, i, "control character 0x%02x in string", c);
			goto fail;
		}
		if (c != '\\') {
			size_t k = utf8_len((const unsigned char *)p->s + i,
					    p->len - i);

			if (!k) {
				fail_at(p, i, "invalid UTF-8 in string");
				goto fail;
			}
			memcpy(out + o, p->s + i, k);
			o += k;
			i += k;
			continue;
		}
		if (++i >= p->len) {
			fail_at(p, i, "unterminated string");
			goto fail;
		}
		switch (p->s[i]) {
		case '"': out[o++] = '"'; break;
		case '\\': out[o++] = '\\'; break;
		case '/': out[o++] = '/'; break;
		case 'b': out[o++] = '\b'; break;
		case 'f': out[o++] = '\f'; break;
		case 'n': out[o++] = '\n'; break;
		case 'r': out[o++] = '\r'; break;
		case 't': out[o++] = '\t'; break;
		case 'u': {
			int hi, lo;
			uint32_t cp;

			if (i + 4 >= p->len || (hi = hex4(p->s + i + 1)) < 0) {
				fail_at(p, i - 1, "bad \\u escape");
				goto fail;
			}
			i += 4;
			cp = (uint32_t)hi;
			if (hi >= 0xdc00 && hi <= 0xdfff) {
				fail_at(p, i - 5, "lone low surrogate");
				goto fail;
			}
			if (hi >= 0xd800 && hi <= 0xdbff) {
				if (i + 6 >= p->len || p->s[i + 1] != '\\' ||
				    p->s[i + 2] != 'u' ||
				    (lo = hex4(p->s + i + 3)) < 0 ||
				    lo < 0xdc00 || lo > 0xdfff) {
					fail_at(p, i - 5,
						"lone high surrogate");
					goto fail;
				}
				i += 6;
				cp = 0x10000 + (((uint32_t)hi - 0xd800) << 10) +
				     ((uint32_t)lo - 0xdc00);
			}
			if (cp == 0) {
				fail_at(p, i - 5, "\\u0000 in string");
				goto fail;
			}
			o += put_utf8(out + o, cp);
			break;
		}
		default:
			fail_at(p, i - 1, "bad escape '\\%c'", p->s[i]);
			goto fail;
		}
		i++;
	}
	out[o] = '\0';
	p->pos = i;
	return out;
fail:
	free(out);
	return NULL;
}

static int push(struct parser *p, struct pmb_json *v, size_t *cap,
		struct pmb_json *item, char *key)
{
	if (v->n == *cap) {
		size_t nc = *cap ? *cap * 2 : 8;
		struct pmb_json **ni = realloc(v->items, nc * sizeof(*ni));

		if (!ni)
			goto nomem;
		v->items = ni;
		if (v->type == PMB_JSON_OBJECT) {
			char **nk = realloc(v->keys, nc * sizeof(*nk));

			if (!nk)
				goto nomem;
			v->keys = nk;
		}
		*cap = nc;
	}
	v->items[v->n] = item;
	if (v->type == PMB_JSON_OBJECT)
		v->keys[v->n] = key;
	v->n++;
	return 0;
nomem:
	fail_nomem(p);
	return -ENOMEM;
}

static struct pmb_json *parse_array(struct parser *p)
{
	struct pmb_json *v = new_value(p, PMB_JSON_ARRAY), *item;
	size_t cap = 0;
	char b[16];

	if (!v)
		return NULL;
	p->pos++; /* '[' */
	skip_ws(p);
	if (p->pos < p->len && p->s[p->pos] == ']') {
		p->pos++;
		return v;
	}
	for (;;) {
		item = parse_value(p);
		if (!item)
			goto fail;
		if (push(p, v, &cap, item, NULL)) {
			pmb_json_free(item);
			goto fail;
		}
		skip_ws(p);
		if (p->pos < p->len && p->s[p->pos] == ',') {
			p->pos++;
			continue;
		}
		if (p->pos < p->len && p->s[p->pos] == ']') {
			p->pos++;
			return v;
		}
		fail_at(p, p->pos, "expected ',' or ']' in array, found %s",
			seen(p, b, sizeof(b)));
		goto fail;
	}
fail:
	pmb_json_free(v);
	return NULL;
}

static struct pmb_json *parse_object(struct parser *p)
{
	struct pmb_json *v = new_value(p, PMB_JSON_OBJECT), *item;
	size_t cap = 0, i, kpos;
	char b[16], *key;

	if (!v)
		return NULL;
	p->pos++; /* '{' */
	skip_ws(p);
	if (p->pos < p->len && p->s[p->pos] == '}') {
		p->pos++;
		return v;
	}
	for (;;) {
		skip_ws(p);
		if (p->pos >= p->len || p->s[p->pos] != '"') {
			fail_at(p, p->pos, "expected a string key, found %s",
				seen(p, b, sizeof(b)));
			goto fail;
		}
		kpos = p->pos;
		key = parse_string(p);
		if (!key)
			goto fail;
		/* Quadratic, but report objects hold tens of keys. */
		for (i = 0; i < v->n; i++) {
			if (!strcmp(v->keys[i], key)) {
				fail_at(p, kpos, "duplicate key \"%.60s\"",
					key);
				free(key);
				goto fail;
			}
		}
		skip_ws(p);
		if (p->pos >= p->len || p->s[p->pos] != ':') {
			fail_at(p, p->pos, "expected ':' after key, found %s",
				seen(p, b, sizeof(b)));
			free(key);
			goto fail;
		}
		p->pos++;
		item = parse_value(p);
		if (!item) {
			free(key);
			goto fail;
		}
		if (push(p, v, &cap, item, key)) {
			pmb_json_free(item);
			free(key);
			goto fail;
		}
		skip_ws(p);
		if (p->pos < p->len && p->s[p->pos] == ',') {
			p->pos++;
			continue;
		}
		if (p->pos < p->len && p->s[p->pos] == '}') {
			p->pos++;
			return v;
		}
		fail_at(p, p->pos, "expected ',' or '}' in object, found %s",
			seen(p, b, sizeof(b)));
		goto fail;
	}
fail:
	pmb_json_free(v);
	return NULL;
}

static bool literal(struct parser *p, const char *word)
{
	size_t n = strlen(word);

	if (p->len - p->pos < n || memcmp(p->s + p->pos, word, n))
		return false;
	p->pos += n;
	return true;
}

static struct pmb_json *parse_value(struct parser *p)
{
	struct pmb_json *v = NULL;
	char b[16];

	skip_ws(p);
	if (p->pos >= p->len) {
		fail_at(p, p->pos, "expected a value, found end of input");
		return NULL;
	}
	if (++p->depth > MAX_DEPTH) {
		fail_at(p, p->pos, "nested deeper than %d", MAX_DEPTH);
		return NULL;
	}
	switch (p->s[p->pos]) {
	case '{':
		v = parse_object(p);
		break;
	case '[':
		v = parse_array(p);
		break;
	case '"': {
		char *s = parse_string(p);

		if (!s)
			break;
		v = new_value(p, PMB_JSON_STRING);
		if (v)
			v->str = s;
		else
			free(s);
		break;
	}
	case 't':
	case 'f':
	case 'n':
		if (literal(p, "true") || literal(p, "false")) {
			v = new_value(p, PMB_JSON_BOOL);
			if (v)
				v->b = p->s[p->pos - 4] == 't';
		} else if (literal(p, "null")) {
			v = new_value(p, PMB_JSON_NULL);
		} else {
			fail_at(p, p->pos, "unknown word (expected true, "
				"false or null)");
		}
		break;
	default:
		if (p->s[p->pos] == '-' || is_digit(p->s[p->pos]))
			v = parse_number(p);
		else
			fail_at(p, p->pos, "expected a value, found %s",
				seen(p, b, sizeof(b)));
	}
	p->depth--;
	return v;
}

int pmb_json_parse(const char *text, size_t len, struct pmb_json **out,
		   char *err, size_t errlen)
{
	struct parser p = { .s = text, .len = len, .msg = err,
			    .msglen = errlen };
	struct pmb_json *v;
	char b[16];

	*out = NULL;
	if (err && errlen)
		err[0] = '\0';
	/* A UTF-8 byte order mark is not JSON, but editors write one. */
	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
		p.pos = 3;
	v = parse_value(&p);
	if (!v)
		return p.err ? p.err : PMB_EBADJSON;
	skip_ws(&p);
	if (p.pos < p.len) {
		fail_at(&p, p.pos, "trailing %s after the value",
			seen(&p, b, sizeof(b)));
		pmb_json_free(v);
		return p.err;
	}
	*out = v;
	return 0;
}

int pmb_json_parse_file(const char *path, struct pmb_json **out, char *err,
			size_t errlen)
{
	FILE *f;
	char *buf = NULL;
	size_t len = 0, cap = 0, got;
	int ret;

	*out = NULL;
	f = fopen(path, "rb");
	if (!f) {
		ret = -errno;
		goto fail_open;
	}
	do {
		if (cap - len < 65536) {
			char *nb = realloc(buf, cap ? cap * 2 : 65536 * 2);

			if (!nb) {
				ret = -ENOMEM;
				goto fail_read;
			}
			buf = nb;
			cap = cap ? cap * 2 : 65536 * 2;
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
	} while (got);
	if (ferror(f)) {
		ret = -EIO;
		goto fail_read;
	}
	fclose(f);
	ret = pmb_json_parse(buf, len, out, err, errlen);
	free(buf);
	return ret;

fail_read:
	free(buf);
	fclose(f);
fail_open:
	if (err && errlen)
		snprintf(err, errlen, "%s", strerror(-ret));
	return ret;
}

void pmb_json_free(struct pmb_json *v)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; i < v->n; i++) {
		pmb_json_free(v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->str);
	free(v);
}

const struct pmb_json *pmb_json_get(const struct pmb_json *v, const char *key)
{
	size_t i;

	if (!v || v->type != PMB_JSON_OBJECT)
		return NULL;
	for (i = 0; i < v->n; i++)
		if (!strcmp(v->keys[i], key))
			return v->items[i];
	return NULL;
}

const struct pmb_json *pmb_json_at(const struct pmb_json *v, size_t i)
{
	if (!v || v->type != PMB_JSON_ARRAY || i >= v->n)
		return NULL;
	return v->items[i];
}

bool pmb_json_number(const struct pmb_json *v, double *out)
{
	if (!v || v->type != PMB_JSON_NUMBER)
		return false;
	*out = v->num;
	return true;
}

const char *pmb_json_string(const struct pmb_json *v)
{
	return v && v->type == PMB_JSON_STRING ? v->str : NULL;
}

bool pmb_json_true(const struct pmb_json *v)
{
	return v && v->type == PMB_JSON_BOOL && v->b;
}

bool pmb_json_get_number(const struct pmb_json *obj, const char *key,
			 double *out)
{
	return pmb_json_number(pmb_json_get(obj, key), out);
}

const char *pmb_json_get_string(const struct pmb_json *obj, const char *key)
{
	return pmb_json_string(pmb_json_get(obj, key));
}
