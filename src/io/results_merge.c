/* results_merge.c - several result files written as one, their runs as repetitions (what `pmubench ab` keeps of each side). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

struct pmb_results_merged {
	json_t *root;
};

/* The first file's context marked incomplete, with why. */
static int mark_incomplete(json_t *root, const char *why)
{
	json_t *cx = json_object_get(root, "context");

	if (!json_is_object(cx)) {
		cx = json_object();
		if (!cx || json_object_set_new(root, "context", cx))
			return -ENOMEM;
	}
	if (json_object_set_new(cx, "incomplete", json_true()) ||
	    json_object_set_new(cx, "incomplete_reason", json_string(why)))
		return -ENOMEM;
	return 0;
}

int pmb__results_merge(const char *const *paths, size_t n, const char *incomplete,
		       struct pmb_results_merged **out, char *err, size_t errlen)
{
	json_t *all = json_array(), *seen = json_object(), *first = NULL;
	int ret;

	*out = NULL;
	if (!all || !seen) {
		ret = pmb__results_fail(err, errlen, -ENOMEM, "%s", strerror(ENOMEM));
		goto out;
	}
	ret = gather(paths, n, all, &first, err, errlen);
	if (!ret && !first)
		ret = pmb__results_fail(err, errlen, -EINVAL, "no result file to merge");
	if (!ret && (number_runs(all, seen) || json_object_set(first, "benchmarks", all) ||
		     (incomplete && mark_incomplete(first, incomplete))))
		ret = pmb__results_fail(err, errlen, -ENOMEM, "%s", strerror(ENOMEM));
	if (!ret && !(*out = malloc(sizeof(**out))))
		ret = pmb__results_fail(err, errlen, -ENOMEM, "%s", strerror(ENOMEM));
	if (ret)
		goto out;
	(*out)->root = first;
	first = NULL;
out:
	json_decref(first);
	json_decref(all);
	json_decref(seen);
	return ret;
}

int pmb__results_merged_write(FILE *f, void *merged)
{
	const struct pmb_results_merged *m = merged;

	return json_dumpf(m->root, f, JSON_INDENT(1) | JSON_REAL_PRECISION(17)) ? -EIO : 0;
}

void pmb__results_merged_free(struct pmb_results_merged *m)
{
	if (!m)
		return;
	json_decref(m->root);
	free(m);
}
