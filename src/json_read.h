/* json_read.h - a small strict JSON parser into a tree, with lookup helpers. */
#ifndef PMB_JSON_READ_H
#define PMB_JSON_READ_H

#include <stdbool.h>
#include <stddef.h>

enum pmb_json_type {
	PMB_JSON_NULL,
	PMB_JSON_BOOL,
	PMB_JSON_NUMBER,
	PMB_JSON_STRING,
	PMB_JSON_ARRAY,
	PMB_JSON_OBJECT,
};

/* One value.  Objects keep their keys in document order; a key may appear
 * only once (the parser rejects duplicates). */
struct pmb_json {
	enum pmb_json_type type;
	bool b;                  /* PMB_JSON_BOOL */
	double num;              /* PMB_JSON_NUMBER (nearest double) */
	char *str;               /* PMB_JSON_STRING: UTF-8, NUL-terminated;
	                            \u0000 is rejected: strlen() is its length */
	size_t n;                /* ARRAY, OBJECT: number of members */
	struct pmb_json **items; /* ARRAY: elements; OBJECT: values */
	char **keys;             /* OBJECT: keys, parallel to items */
};

/* Parse text[0..len) (RFC 8259: one value, whitespace around it, nesting up
 * to 200 deep).  Returns 0 and a tree in *out (free with pmb_json_free), or
 * PMB_EBADJSON with "line L, column C: what" in err, or -ENOMEM. */
int pmb_json_parse(const char *text, size_t len, struct pmb_json **out,
		   char *err, size_t errlen);

/* Read and parse a whole file.  Returns 0, PMB_EBADJSON (err as above), or
 * -errno when the file cannot be read (err: strerror). */
int pmb_json_parse_file(const char *path, struct pmb_json **out, char *err,
			size_t errlen);

/* Free a tree; NULL does nothing. */
void pmb_json_free(struct pmb_json *v);

/* Member `key` of an object; NULL if v is NULL, not an object, or has no
 * such key. */
const struct pmb_json *pmb_json_get(const struct pmb_json *v, const char *key);

/* Element i of an array; NULL if v is not an array or i is out of range. */
const struct pmb_json *pmb_json_at(const struct pmb_json *v, size_t i);

/* The number of v in *out: true if v is a number, else false (*out kept). */
bool pmb_json_number(const struct pmb_json *v, double *out);

/* The string of v, or NULL if v is not a string. */
const char *pmb_json_string(const struct pmb_json *v);

/* True if v is the boolean true. */
bool pmb_json_true(const struct pmb_json *v);

/* Shorthands on an object member: number (false when missing or not a
 * number) and string (NULL when missing or not a string). */
bool pmb_json_get_number(const struct pmb_json *obj, const char *key,
			 double *out);
const char *pmb_json_get_string(const struct pmb_json *obj, const char *key);

#endif
