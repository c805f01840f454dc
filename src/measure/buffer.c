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

static size_t round_pages(size_t bytes, size_t pg)
{
	return (bytes + pg - 1) / pg * pg;
}

/* A PROT_NONE range of len (whole 2 MiB units) bytes at a 2 MiB-aligned
 * address, with one PROT_NONE guard page on each side; NULL if none. */
static char *reserve(size_t len)
{
	size_t pg = page_size(), raw_len, head, tail;
	char *raw, *p;

	/* Over-allocate to align, keeping one PROT_NONE guard page on each
	 * side: the kernel then never merges the buffer's VMA with a
	 * neighbour, so its smaps entry (and AnonHugePages) is its own. */
	raw_len = len + HUGE_ALIGN + 2 * pg;
	/* PROT_NONE is not charged to the commit limit; mprotect is (in
	 * open_pages), so a strict-overcommit refusal comes back as NULL,
	 * not as a kill while touching. */
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
	return p;
}

/* Makes [p, p + len) of a reserved range readable and writable, of the page
 * size asked, and faults in its first `bytes`; -1 (errno set) if refused. */
static int open_pages(char *p, size_t len, size_t bytes, bool huge)
{
	size_t pg = page_size(), off;

	if (mprotect(p, len, PROT_READ | PROT_WRITE) < 0)
		return -1;
	/* NOHUGEPAGE as well, so that "off" means 4 KiB pages even where THP
	 * is "always".  Either fails harmlessly on kernels without THP. */
	(void)madvise(p, len, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	/* Writes, not reads: a read fault would map the shared zero page.
	 * MADV_POPULATE_WRITE (Linux 5.14) faults them in without a trap per
	 * page: 0.5 instead of 0.7 ms per MiB on 4 KiB pages here; where the
	 * kernel lacks it, a write per page. */
#ifdef MADV_POPULATE_WRITE
	if (bytes == 0 || madvise(p, round_pages(bytes, pg), MADV_POPULATE_WRITE) == 0)
		return 0;
#endif
	for (off = 0; off < bytes; off += pg)
		((volatile char *)p)[off] = 0;
	return 0;
}

/* A fresh mapping of len (whole 2 MiB units) bytes, the pages of its first
 * `bytes` faulted in. */
static char *map_fresh(size_t len, size_t bytes, bool huge)
{
	size_t pg = page_size();
	char *p = reserve(len);

	if (p && open_pages(p, len, bytes, huge) < 0) {
		int e = errno;

		munmap(p - pg, len + 2 * pg);
		errno = e;
		return NULL;
	}
	return p;
}

static void unmap_region(char *p, size_t len)
{
	size_t pg = page_size();

	munmap(p - pg, len + 2 * pg);
}

/* The mappings handed out (a benchmark's buffers: a few at a time), and
 * one kept when freed, the spare: the next buffer of its page size is
 * made from it, its pages already there, grown first (spare_grow) if it is
 * smaller.  Faulting pages in is most of what a DRAM point's setup costs:
 * 3.9 ms per MiB on huge pages in a KVM guest whose host takes freed
 * memory back (0.14 ms per MiB for memory freed a moment ago), 0.5 ms on
 * 4 KiB pages; the default run's sweeps ask for 2.1 GiB per page size
 * (64, 128, 640 MiB and 1.25 GiB on a 300 MiB L3), of which 1.25 GiB is
 * faulted in, once.  One spare, the largest freed, bounds what the pool
 * holds to the largest working set; a buffer of the other page size up to
 * a quarter of it is made beside it (the run's peak at most 1.25 x the
 * largest working set), a larger one after it is unmapped.  The runner
 * runs benchmarks one thread at a time, so no lock. */
#define MAX_LIVE 64
static struct region {
	char *p;
	size_t len;
	bool huge;
} live[MAX_LIVE], spare;

static void live_add(char *p, size_t len, bool huge)
{
	for (int i = 0; i < MAX_LIVE; i++)
		if (!live[i].p) {
			live[i] = (struct region){ p, len, huge };
			return;
		}
	/* Untracked: unmapped, not kept, when freed. */
}

/* The spare grown to len bytes (whole 2 MiB units), its first `bytes`
 * resident and zero; NULL (the spare untouched) if the kernel refuses.
 * Its pages move, not copied, to the start of a new range (mremap moves
 * page tables; a 2 MiB-aligned huge page moves whole, so huge pages stay
 * huge), and only the new tail is faulted in: each page size faults its
 * largest buffer in once, where a fresh mapping per size faulted 64, 128
 * and 640 MiB again before 1.25 GiB.  In the KVM guest above those were
 * mostly pages freed a moment before, cheap to fault again: the default
 * run's buffer sequence took 4.4-4.6 s instead of 4.6-4.7 s, almost all
 * of it the 1.25 GiB of huge pages the host had taken back, which both
 * pay; on hardware that clears a page at the same cost whoever freed it
 * last, the 832 MiB saved per page size are the whole difference. */
static char *spare_grow(size_t len, size_t bytes)
{
	size_t pg = page_size(), old = spare.len;
	char *p = reserve(len);

	if (!p)
		return NULL;
	/* The tail first: refused (commit limit), the spare is as it was. */
	if (open_pages(p + old, len - old, bytes > old ? bytes - old : 0, spare.huge) < 0 ||
	    mremap(spare.p, old, old, MREMAP_MAYMOVE | MREMAP_FIXED, p) == MAP_FAILED) {
		munmap(p - pg, len + 2 * pg);
		return NULL;
	}
	/* The old range is empty now; its guard pages go with it. */
	unmap_region(spare.p, old);
	spare.p = NULL;
	/* As a fresh mapping reads: zeros (the tail came from the kernel). */
	memset(p, 0, bytes < old ? bytes : old);
	return p;
}

void *pmb__buffer_map(size_t bytes, bool huge)
{
	size_t pg = page_size(), len;
	char *p;

	if (bytes == 0 || bytes > SIZE_MAX - 2 * HUGE_ALIGN - 2 * pg) {
		errno = EINVAL;
		return NULL;
	}
	len = map_len(bytes);
	if (spare.p && spare.huge == huge && spare.len >= len) {
		p = spare.p;
		live_add(p, spare.len, huge);
		spare.p = NULL;
		/* As a fresh mapping reads: zeros. */
		memset(p, 0, bytes);
		return p;
	}
	if (spare.p && spare.huge == huge) {
		p = spare_grow(len, bytes);
		if (p) {
			live_add(p, len, huge);
			return p;
		}
	}
	if (spare.p && len > spare.len / 4) {
		unmap_region(spare.p, spare.len);
		spare.p = NULL;
	}
	p = map_fresh(len, bytes, huge);
	if (p)
		live_add(p, len, huge);
	return p;
}

void pmb__buffer_unmap(void *p, size_t bytes)
{
	struct region r = { NULL, 0, false };

	if (!p || bytes == 0)
		return;
	for (int i = 0; i < MAX_LIVE; i++)
		if (live[i].p == p) {
			r = live[i];
			live[i].p = NULL;
			break;
		}
	if (!r.p) {
		unmap_region(p, map_len(bytes));
		return;
	}
	if (spare.p && spare.len >= r.len) {
		unmap_region(r.p, r.len);
		return;
	}
	if (spare.p)
		unmap_region(spare.p, spare.len);
	spare = r;
}

void pmb__buffer_trim(void)
{
	if (spare.p)
		unmap_region(spare.p, spare.len);
	spare.p = NULL;
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
