/* ab_files.c - what `pmubench ab` writes: --out's two files through the safe writer, checked before anything runs, and its folder of turns removed. */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ab_internal.h"

int pmb__ab_out_check(const char *prefix, const char *old, const char *new, char out[2][PATH_MAX])
{
	const struct pmb_out_input in[] = {
		{ "OLD, a side of this run", old },
		{ "NEW, a side of this run", new },
		{ NULL, NULL },
	};

	for (int k = 0; k < 2; k++) {
		if ((size_t)snprintf(out[k], PATH_MAX, "%s-%s.json", prefix, k ? "new" : "old") >= PATH_MAX)
			return fprintf(stderr, "pmubench ab: --out=%s: %s\n", prefix,
				       strerror(ENAMETOOLONG)), 2;
		if (pmb__out_check("ab --out", out[k], in))
			return 2;
	}
	return 0;
}

int pmb__ab_out_write(const char *out, const char *const *turns, size_t n, const char *incomplete,
		      char *err, size_t errlen)
{
	struct pmb_results_merged *m = NULL;
	char why[4096];
	int ret = pmb__results_merge(turns, n, incomplete, &m, why, sizeof(why));

	if (ret) {
		snprintf(err, errlen, "--out: %s", why);
		return -1;
	}
	ret = pmb__out_file("ab --out", out, pmb__results_merged_write, m) ? 1 : 0;
	pmb__results_merged_free(m);
	return ret;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

void pmb__ab_dir_remove(const char *dir)
{
	if (dir && dir[0])
		nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}
