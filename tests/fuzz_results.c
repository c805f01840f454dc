/* fuzz_results.c - libFuzzer harness: a result file through the reader (results_io.c) and `compare`. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "compare.h"
#include "results_io.h"

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
	} else if (!err[0] || strchr(err, '\n')) {
		__builtin_trap(); /* every refusal says why, on one line */
	}
	return 0;
}
