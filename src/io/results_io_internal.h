/* results_io_internal.h - private declarations of the result-file reader, shared by results_io.c, results_file.c and results_merge.c only. */
#ifndef PMB_RESULTS_IO_INTERNAL_H
#define PMB_RESULTS_IO_INTERNAL_H

/* results_file.c opens and parses the file; results_io.c turns the tree
 * into results_io.h's structs; results_merge.c writes several files as
 * one.  The three are the only users of jansson. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/* Write the detail (printf-style) into err, errlen bytes, when err is
 * given.  Returns ret, for `return pmb__results_fail(...)`. */
int pmb__results_fail(char *err, size_t errlen, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* The JSON tree of the file at path: a regular file of at most
 * PMB_RESULTS_MAX_BYTES (a directory, a FIFO or a device is refused
 * before anything is read), a UTF-8 byte order mark skipped, duplicate
 * keys refused, every number a double.  Returns 0 (*root: json_decref()
 * it), -errno, -EFBIG, -EINVAL, -EISDIR, -ENOMEM or PMB_EBADJSON, with
 * the detail in err. */
int pmb__results_load(const char *path, json_t **root, char *err,
		      size_t errlen);

/* The peak memory of reading a result file is held to this many times
 * the file (issue 33): jansson's tree, estimated before it is parsed
 * (results_file.c), and what the loader builds from it (results_load.c). */
#define PMB__RESULTS_RATIO 10

/* pmb__results_load(), and the file's size and the estimate of what its
 * tree takes in bytes (either pointer may be NULL), for a caller that
 * builds more from the tree and holds the whole to PMB__RESULTS_RATIO. */
int pmb__results_load_cost(const char *path, json_t **root, uint64_t *bytes, uint64_t *cost, char *err,
			   size_t errlen);

/* Whether cost bytes are over PMB__RESULTS_RATIO times a file of bytes
 * (past a floor of 64 MiB, which a small file may always take). */
bool pmb__results_over(uint64_t cost, uint64_t bytes);

#endif
