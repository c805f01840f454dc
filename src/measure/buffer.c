/* buffer.c - a benchmark's buffers: 2 MiB-aligned, huge pages on request, and how much of one huge pages back. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "runner.h"

#define HUGE_ALIGN ((size_t)2 << 20)

static size_t page_size(void)
{
	long p = sysconf(_SC_PAGESIZE);

	return p > 0 ? (size_t)p : 4096;
}

/* Mapped length of a buffer of `bytes`: whole 2 MiB units, so that its last
 * part can be a huge page too. */
static size_t map_len(size_t bytes)
{
	return (bytes + HUGE_ALIGN - 1) & ~(HUGE_ALIGN - 1);
}

void *pmb__buffer_map(size_t bytes, bool huge)
{
	size_t pg = page_size(), len, raw_len, head, tail, off;
	char *raw, *p;

	if (bytes == 0 || bytes > SIZE_MAX - 2 * HUGE_ALIGN - 2 * pg) {
		errno = EINVAL;
		return NULL;
	}
	len = map_len(bytes);
	/* Over-allocate to align, keeping one PROT_NONE guard page on each
	 * side: the kernel then never merges the buffer's VMA with a
	 * neighbour, so its smaps entry (and AnonHugePages) is its own. */
	raw_len = len + HUGE_ALIGN + 2 * pg;
	/* PROT_NONE is not charged to the commit limit; mprotect below is,
	 * so a strict-overcommit refusal comes back as NULL, not as a kill
	 * while touching. */
	raw = mmap(NULL, raw_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		return NULL;
	p = (char *)(((uintptr_t)raw + pg + HUGE_ALIGN - 1) &
		     ~(uintptr_t)(HUGE_ALIGN - 1));
	head = (size_t)(p - raw) - pg;
	tail = raw_len - head - len - 2 * pg;
	if (head)
		munmap(raw, head);
	if (tail)
		munmap(p + len + pg, tail);
	if (mprotect(p, len, PROT_READ | PROT_WRITE) < 0) {
		int e = errno;

		munmap(p - pg, len + 2 * pg);
		errno = e;
		return NULL;
	}
	/* NOHUGEPAGE as well, so that "off" means 4 KiB pages even where THP
	 * is "always".  Either fails harmlessly on kernels without THP. */
	(void)madvise(p, len, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	/* Writes, not reads: a read fault would map the shared zero page. */
	for (off = 0; off < bytes; off += pg)
		((volatile char *)p)[off] = 0;
	return p;
}

void pmb__buffer_unmap(void *p, size_t bytes)
{
	size_t pg = page_size();

	if (!p || bytes == 0)
		return;
	munmap((char *)p - pg, map_len(bytes) + 2 * pg);
}

double pmb__buffer_huge_fraction(const void *p, size_t bytes)
{
	uintptr_t a = (uintptr_t)p, b = a + bytes;
	uintptr_t vs = 0, ve = 0;
	double huge = 0;
	bool in = false;
	char line[512];
	FILE *f;

	if (!p || bytes == 0)
		return 0;
	f = fopen("/proc/self/smaps", "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long s, e, kb;

		if (sscanf(line, "%lx-%lx ", &s, &e) == 2 && strchr(line, ' ') &&
		    strchr(line, '-') < strchr(line, ' ')) {
			vs = s;
			ve = e;
			in = vs < b && ve > a;
			continue;
		}
		if (in && sscanf(line, "AnonHugePages: %lu kB", &kb) == 1) {
			uintptr_t os = vs > a ? vs : a, oe = ve < b ? ve : b;

			/* A mapping reaching past the range: count its huge
			 * pages in proportion to the overlap. */
			huge += (double)kb * 1024 * (double)(oe - os) /
				(double)(ve - vs);
			in = false;
		}
	}
	fclose(f);
	huge /= (double)bytes;
	return huge > 1 ? 1 : huge;
}
