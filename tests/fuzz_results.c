/* fuzz_results.c - libFuzzer harness: a result file through the readers (results_io.c, results_load.c, results_host.c), `compare`, `report` and `merge`. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analysis.h"
#include "compare.h"
#include "plot.h"
#include "report.h"
#include "results_io.h"
#include "results_load.h"
#include "results_host.h"
#include "analysis_merge.h"

/* The input as a file: a memfd is a regular file, as the reader asks. */
static const char *as_file(const uint8_t *data, size_t size)
{
	static char path[64];
	static int fd = -1;

	if (fd < 0) {
		fd = memfd_create("fuzz_results", 0);
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (fd < 0 || ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		__builtin_trap();
	return path;
}

/* Everything read must be reachable and findable by its own name. */
static void walk(const struct pmb_results *r)
{
	for (size_t i = 0; i < r->nbench; i++) {
		const struct pmb_results_bench *b = &r->bench[i];

		if (pmb__results_find(r, b->name) != b)
			__builtin_trap();
		for (size_t k = 0; k < b->nrun; k++)
			for (size_t f = 0; f < b->run[k].nfig; f++)
				if (pmb__results_figure(&b->run[k], b->run[k].fig[f].key) == NULL)
					__builtin_trap();
	}
}

/* What `pmubench report` does with the file: read back, analysed again,
 * every format drawn (to /dev/null); a refusal says why on one line. */
static void report_again(const char *path)
{
	struct pmb_loaded_run run;
	char err[512];
	FILE *f;

	if (pmb__results_load_run(path, &run, err, sizeof(err))) {
		if (!err[0] || strchr(err, '\n'))
			__builtin_trap();
		return;
	}
	f = run.n <= 4 ? fopen("/dev/null", "w") : NULL;
	if (f) {
		run.ctx->view.width = 100;
		pmb__analyze(run.ctx, run.res, run.n, run.reps);
		pmb__report_text(f, run.ctx, run.res, run.n);
		pmb__report_csv(f, run.ctx, run.res, run.n);
		pmb__report_json(f, run.ctx, run.res, run.n);
		pmb__plot_svg(f, run.ctx, run.res, run.n);
		fclose(f);
	}
	pmb__loaded_run_free(&run);
}

/* What `pmubench merge` does with the file given twice: two hosts of one
 * group, every format drawn (to /dev/null); a refusal says why on one
 * line. */
static void merge_again(const char *path)
{
	struct pmb_host_run hosts[2];
	struct pmb_merged m = { .hosts = hosts };
	char err[512];
	FILE *f;

	for (int i = 0; i < 2; i++) {
		if (pmb__results_host_read(path, &hosts[i], err, sizeof(err))) {
			if (!err[0] || strchr(err, '\n'))
				__builtin_trap();
			goto out;
		}
		m.nhosts++;
	}
	if (pmb__merge_analyse(&m, "A", err, sizeof(err)))
		__builtin_trap(); /* group A always exists */
	f = fopen("/dev/null", "w");
	if (f) {
		for (int fmt = PMB_FORMAT_CONSOLE; fmt <= PMB_FORMAT_CSV; fmt++)
			pmb__report_merge(f, (enum pmb_format)fmt, &m);
		fclose(f);
	}
	pmb__merge_analysis_free(&m);
out:
	for (size_t i = 0; i < m.nhosts; i++)
		pmb__host_run_free(&hosts[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = as_file(data, size);
	struct pmb_results *r;
	char err[256];

	if (pmb__results_read(path, &r, err, sizeof(err)) == 0) {
		walk(r);
		/* compare with itself: every figure's statistics, the U test
		 * and the bootstrap on what the file holds (a few benchmarks:
		 * 2000 resamples each) */
		if (r->nbench <= 4) {
			char *argv[] = { "compare", (char *)path, (char *)path, NULL };

			pmb__compare_main(3, argv);
		}
		pmb__results_free(r);
		report_again(path);
		merge_again(path);
	} else if (!err[0] || strchr(err, '\n')) {
		__builtin_trap(); /* every refusal says why, on one line */
	}
	return 0;
}
