/* fuzz_pair.c - libFuzzer harness: the pair of files `compare` reads, OLD and NEW, told apart, through the reader and compare. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "compare.h"
#include "results_io.h"

/* The input is OLD, then NEW: its first two bytes (little-endian) say how
 * many bytes OLD has (past the input's end: all of it), so that a mutation
 * changes one file, the other, or where they part.  Each file is a memfd,
 * a regular file as the reader asks. */
static const char *as_file(int k, const uint8_t *data, size_t size)
{
	static char path[2][64];
	static int fd[2] = { -1, -1 };

	if (fd[k] < 0) {
		fd[k] = memfd_create(k ? "fuzz_pair_new" : "fuzz_pair_old", 0);
		snprintf(path[k], sizeof(path[k]), "/proc/self/fd/%d", fd[k]);
	}
	if (fd[k] < 0 || ftruncate(fd[k], 0) || pwrite(fd[k], data, size, 0) != (ssize_t)size)
		__builtin_trap();
	return path[k];
}

/* How many benchmarks the file at path holds (a refusal: -1), each
 * refusal said on one line. */
static long benchmarks(const char *path)
{
	struct pmb_results *r;
	char err[256];
	long n;

	if (pmb__results_read(path, &r, err, sizeof(err))) {
		if (!err[0] || strchr(err, '\n'))
			__builtin_trap(); /* every refusal says why, on one line */
		return -1;
	}
	n = (long)r->nbench;
	pmb__results_free(r);
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t split = size >= 2 ? (size_t)data[0] | (size_t)data[1] << 8 : 0;
	const uint8_t *body = size >= 2 ? data + 2 : data;
	size_t n = size >= 2 ? size - 2 : 0;
	const char *old, *new;
	long nold, nnew;

	if (split > n)
		split = n;
	old = as_file(0, body, split);
	new = as_file(1, body + split, n - split);
	nold = benchmarks(old);
	nnew = benchmarks(new);
	/* compare of the two: matching by name, figures both have, every
	 * statistic (a few benchmarks: 2000 resamples each), the notes on
	 * how their environments differ; a refusal of either said too. */
	if (nold <= 4 && nnew <= 4) {
		char *argv[] = { "compare", (char *)old, (char *)new, NULL };

		pmb__compare_main(3, argv);
	}
	return 0;
}
