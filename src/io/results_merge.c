/* results_merge.c - several result files written as one, their runs as repetitions (what `pmubench ab` keeps of each side). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "pmubench.h"
#include "results_io.h"
#include "results_io_internal.h"

/* Number run k of each benchmark in all (name -> count so far in seen). */
static int number_runs(json_t *all, json_t *seen)
{
	size_t i;
	json_t *b;

	json_array_foreach(all, i, b) {
		const char *name = json_string_value(json_object_get(b, "name"));
		json_int_t k = json_integer_value(json_object_get(seen, name ? name : ""));

		if (!name)
			continue;
		if (json_object_set_new(b, "repetition_index", json_integer(k)) ||
		    json_object_set_new(seen, name, json_integer(k + 1)))
			return -ENOMEM;
	}
	json_array_foreach(all, i, b) {
		const char *name = json_string_value(json_object_get(b, "name"));

		if (name && json_object_set(b, "repetitions", json_object_get(seen, name)))
			return -ENOMEM;
	}
	return 0;
}

/* The benchmarks of paths[0..n) appended to all; *first: the first file's
 * tree (its context is the merged file's). */
static int gather(const char *const *paths, size_t n, json_t *all, json_t **first,
		  char *err, size_t errlen)
{
	char why[256];
	json_t *root;
	int ret;

	for (size_t i = 0; i < n; i++) {
		ret = pmb__results_load(paths[i], &root, why, sizeof(why));
		if (ret)
			return pmb__results_fail(err, errlen, ret, "%s: %s", paths[i], why);
		if (!json_is_array(json_object_get(root, "benchmarks"))) {
			json_decref(root);
			return pmb__results_fail(err, errlen, PMB_EBADJSON, "%s: no \"benchmarks\" array",
						 paths[i]);
		}
		if (json_array_extend(all, json_object_get(root, "benchmarks"))) {
			json_decref(root);
			return pmb__results_fail(err, errlen, -ENOMEM, "%s", strerror(ENOMEM));
		}
		if (!*first)
			*first = root;
		else
			json_decref(root);
	}
	return 0;
}

int pmb__results_merge(const char *const *paths, size_t n, const char *out,
		       char *err, size_t errlen)
{
	json_t *all = json_array(), *seen = json_object(), *first = NULL;
	char tmp[4096];
	int ret;

	if (!all || !seen) {
		ret = pmb__results_fail(err, errlen, -ENOMEM, "%s", strerror(ENOMEM));
		goto out;
	}
	ret = gather(paths, n, all, &first, err, errlen);
	if (!ret && !first)
		ret = pmb__results_fail(err, errlen, -EINVAL, "no result file to merge");
	if (!ret && (number_runs(all, seen) || json_object_set(first, "benchmarks", all)))
		ret = pmb__results_fail(err, errlen, -ENOMEM, "%s", strerror(ENOMEM));
	if (ret)
		goto out;
	snprintf(tmp, sizeof(tmp), "%s.tmp", out);
	if (json_dump_file(first, tmp, JSON_INDENT(1) | JSON_REAL_PRECISION(17)) ||
	    rename(tmp, out)) {
		ret = pmb__results_fail(err, errlen, -(errno ? errno : EIO), "%s: %s", out,
					strerror(errno ? errno : EIO));
		unlink(tmp);
	}
out:
	json_decref(first);
	json_decref(all);
	json_decref(seen);
	return ret;
}
