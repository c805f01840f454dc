/* fuzz_results.c - libFuzzer harness: a result file through the readers (results_io.c, results_load.c, results_host.c), `compare`, `report`, `merge` and ab's merge of turns (results_merge.c). */
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

/* What `pmubench ab --out` does with a side's turns: the file merged with
 * itself (two turns), marked incomplete, written, read back.  A file the
 * reader took must merge, and read back with the same benchmarks, each
 * with twice its runs; a refusal of the merge says why on one line. */
static void merge_twice(const char *path, const struct pmb_results *r)
{
	static char out[64];
	static int fd = -1;
	const char *const paths[2] = { path, path };
	struct pmb_results_merged *m;
	struct pmb_results *back;
	char err[256];
	FILE *f;

	if (fd < 0) {
		fd = memfd_create("fuzz_results_merged", 0);
		snprintf(out, sizeof(out), "/proc/self/fd/%d", fd);
	}
	err[0] = '\0';
	if (pmb__results_merge(paths, 2, "interrupted by SIGINT", &m, err, sizeof(err))) {
		if (!err[0] || strchr(err, '\n'))
			__builtin_trap();
		return;
	}
	if (fd < 0 || ftruncate(fd, 0) || !(f = fopen(out, "w")))
		__builtin_trap();
	if (pmb__results_merged_write(f, m) || fclose(f))
		__builtin_trap();
	pmb__results_merged_free(m);
	if (pmb__results_read(out, &back, err, sizeof(err)))
		__builtin_trap();
	if (back->nbench != r->nbench)
		__builtin_trap();
	for (size_t i = 0; i < r->nbench; i++) {
		const struct pmb_results_bench *b = pmb__results_find(back, r->bench[i].name);

		if (!b || b->nrun != 2 * r->bench[i].nrun)
			__builtin_trap();
	}
	pmb__results_free(back);
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
 * group, every format and the plot drawn (to /dev/null); a refusal says
 * why on one line. */
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
		pmb__plot_merge_svg(f, &m);
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
		merge_twice(path, r);
		pmb__results_free(r);
		report_again(path);
		merge_again(path);
	} else if (!err[0] || strchr(err, '\n')) {
		__builtin_trap(); /* every refusal says why, on one line */
	}
	return 0;
}
