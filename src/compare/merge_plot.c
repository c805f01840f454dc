/* merge_plot.c - `pmubench merge --plot`: the merged sweeps (report's pmb__plot_merge_svg) written atomically, or why there is nothing to plot. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merge.h"
#include "report.h"
#include "base.h"

int pmb__merge_plot(const char *path, const struct pmb_merged *m)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc = f ? pmb__plot_merge_svg(f, m) : -ENOMEM;

	if (f && fclose(f) && !rc)
		rc = -ENOMEM;
	if (rc == -ENODATA) {
		fprintf(stderr, "pmubench: merge: --plot=%s: nothing to plot: the plot draws working-set sweeps "
			"(benchmarks with a family and a working set, such as mem/chase); no file written\n", path);
		rc = 0;
	} else if (rc) {
		pmb__out_error("merge: --plot=%s: %s", path, strerror(-rc));
		rc = 1;
	} else {
		rc = pmb__out_text(path, "--plot", buf, len);
	}
	free(buf);
	return rc;
}
