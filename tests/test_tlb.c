/* test_tlb.c - the TLB geometry decoded from CPUID register values (issue 32): AMD's leaves 0x80000005/6 as a Zen 3 returns them, Intel's leaf 0x18 subleaves as the SDM lays them out, leaf 2's descriptor bytes as a Core 2 and a Haswell return them (table 3-12's TLB rows); entries, ways and reach exact; and what this machine's CPU says, read once. */
#include <stdio.h>
#include <string.h>

#include "tlb.h"
#include "tap.h"

static const struct pmb_tlb *find(const struct pmb_tlb_info *t, int level, char kind, unsigned page)
{
	for (int i = 0; i < t->n; i++)
		if (t->tlb[i].level == level && t->tlb[i].kind == kind && (t->tlb[i].pages & page))
			return &t->tlb[i];
	return NULL;
}

static void expect(const struct pmb_tlb_info *t, int level, char kind, unsigned page, int entries, int assoc,
		   uint64_t reach)
{
	const struct pmb_tlb *b = find(t, level, kind, page);

	tap_ok(b && b->entries == entries && b->assoc == assoc && pmb_tlb_reach(b, page) == reach,
	       "L%d %c page bit %u: %d entries, %d ways, reach %llu (got %d, %d, %llu)", level, kind, page, entries,
	       assoc, (unsigned long long)reach, b ? b->entries : -1, b ? b->assoc : -9,
	       b ? (unsigned long long)pmb_tlb_reach(b, page) : 0ull);
}

int main(void)
{
	struct pmb_tlb_info t;

	/* An AMD EPYC (Zen 3) guest's leaves, as read here. */
	const unsigned l5[4] = { 0xff40ff40, 0xff40ff40, 0x20080140, 0x20080140 };
	const unsigned l6[4] = { 0x48002200, 0x68004200, 0x02006140, 0x08009140 };

	memset(&t, 0, sizeof(t));
	pmb__tlb_decode_amd(&t, l5, l6);
	tap_ok(t.n == 8 && !strcmp(t.source, "CPUID leaves 0x80000005/6"), "AMD: 8 TLBs (L1, L2 x data, "
	       "instructions x 4 KiB, 2 MiB) from %s (%d)", t.source, t.n);
	expect(&t, 1, 'd', PMB_TLB_4K, 64, -1, 64 * 4096ull);
	expect(&t, 1, 'd', PMB_TLB_2M, 64, -1, 64ull << 21);
	expect(&t, 2, 'd', PMB_TLB_4K, 2048, 8, 2048 * 4096ull);
	expect(&t, 2, 'd', PMB_TLB_2M, 2048, 4, 2048ull << 21);
	expect(&t, 2, 'i', PMB_TLB_4K, 512, 4, 512 * 4096ull);
	tap_ok(!find(&t, 1, 'd', PMB_TLB_4M) && !find(&t, 1, 'd', PMB_TLB_1G),
	       "AMD: no 4 MiB (32-bit paging) or 1 GiB entries claimed");

	/* Intel leaf 0x18: a null subleaf, a 4-way L1 load TLB of 16 sets
	 * (4 KiB), a fully associative 8-entry L1 instruction TLB (2 MiB), an
	 * 8-way L2 unified TLB of 128 sets (4 KiB and 2 MiB), a store TLB
	 * for 1 GiB pages, a reserved type. */
	const unsigned l18[] = {
		5, 0, 0, 0,
		0, 0x00040001, 16, 4 | 1 << 5,
		0, 0x00080002, 1, 2 | 1 << 5 | 1 << 8,
		0, 0x00080003, 128, 3 | 2 << 5,
		0, 0x00040008, 4, 5 | 1 << 5,
		0, 0x00040001, 16, 9 | 1 << 5,
	};
	memset(&t, 0, sizeof(t));
	pmb__tlb_decode_leaf18(&t, l18, 6);
	tap_ok(t.n == 4 && !strcmp(t.source, "CPUID leaf 0x18"), "Intel: 4 TLBs, the null and reserved "
	       "subleaves skipped (%d)", t.n);
	expect(&t, 1, 'l', PMB_TLB_4K, 64, 4, 64 * 4096ull);
	expect(&t, 1, 'i', PMB_TLB_2M, 8, -1, 8ull << 21);
	expect(&t, 2, 'u', PMB_TLB_4K, 1024, 8, 1024 * 4096ull);
	expect(&t, 2, 'u', PMB_TLB_2M, 1024, 8, 1024ull << 21);
	expect(&t, 1, 's', PMB_TLB_1G, 16, 4, 16ull << 30);

	memset(&t, 0, sizeof(t));
	pmb__tlb_decode_leaf18(&t, l18, 1);
	tap_ok(t.n == 0 && !t.source[0], "Intel: only a null subleaf: no TLB, no source");

	/* Intel leaf 2 with a Core 2 Duo's (Wolfdale) descriptors: EAX 0x05B0B101, EBX
	 * 0x005657F0, ECX 0, EDX 0x2CB4304E.  TLB bytes: 0x05 DTLB1 4 MiB
	 * 32x4, 0xB0 ITLB 4 KiB 128x4, 0xB1 ITLB 2 MiB 8x4, 0x56 DTLB0 4 MiB
	 * 16x4, 0x57 DTLB0 4 KiB 16x4, 0xB4 DTLB1 4 KiB 256x4; 0xF0 (a
	 * prefetch), 0x30, 0x4E, 0x2C (caches) are not TLBs; the low byte of
	 * EAX (1) is the call count, not descriptor 0x01. */
	const unsigned core2[4] = { 0x05B0B101, 0x005657F0, 0, 0x2CB4304E };
	memset(&t, 0, sizeof(t));
	tap_ok(pmb__tlb_decode_leaf2(&t, core2) == 0 && t.n == 6 && !strcmp(t.source, "CPUID leaf 2"),
	       "Intel leaf 2, Core 2: 6 TLBs, no 0xFF (%d from '%s')", t.n, t.source);
	expect(&t, 1, 'd', PMB_TLB_4K, 16, 4, 16 * 4096ull);
	expect(&t, 2, 'd', PMB_TLB_4K, 256, 4, 256 * 4096ull);
	expect(&t, 1, 'd', PMB_TLB_4M, 16, 4, 16ull << 22);
	expect(&t, 2, 'd', PMB_TLB_4M, 32, 4, 32ull << 22);
	expect(&t, 1, 'i', PMB_TLB_4K, 128, 4, 128 * 4096ull);
	expect(&t, 1, 'i', PMB_TLB_2M, 8, 4, 8ull << 21);
	tap_ok(!find(&t, 1, 'i', PMB_TLB_4M), "Intel leaf 2: the call count byte 0x01 is not ITLB descriptor 0x01");

	/* A Haswell: EAX 0x76036301, EBX 0x00F0B5FF, ECX 0, EDX 0x00C10000.
	 * 0x76 ITLB 2 MiB 8 fully assoc., 0x03 DTLB 4 KiB 64x4, 0x63 DTLB
	 * 2 MiB 32x4 and 1 GiB 4x4, 0xB5 ITLB 4 KiB 64x8, 0xC1 STLB 4 KiB/2 MiB
	 * 1024x8; 0xFF: caches in leaf 4. */
	const unsigned hsw[4] = { 0x76036301, 0x00F0B5FF, 0, 0x00C10000 };
	memset(&t, 0, sizeof(t));
	tap_ok(pmb__tlb_decode_leaf2(&t, hsw) == 1 && t.n == 6, "Intel leaf 2, Haswell: 6 TLB arrays, 0xFF seen (%d)",
	       t.n);
	expect(&t, 1, 'i', PMB_TLB_2M, 8, -1, 8ull << 21);
	expect(&t, 1, 'd', PMB_TLB_4K, 64, 4, 64 * 4096ull);
	expect(&t, 1, 'd', PMB_TLB_2M, 32, 4, 32ull << 21);
	expect(&t, 1, 'd', PMB_TLB_1G, 4, 4, 4ull << 30);
	expect(&t, 1, 'i', PMB_TLB_4K, 64, 8, 64 * 4096ull);
	expect(&t, 2, 'u', PMB_TLB_4K, 1024, 8, 1024 * 4096ull);
	expect(&t, 2, 'u', PMB_TLB_2M, 1024, 8, 1024ull << 21);

	/* Only 0xFF, and registers with bit 31 set (no descriptors): no TLB,
	 * the 0xFF said; 0x03 in a bit-31 register is not read. */
	const unsigned only_ff[4] = { 0x00FF0001, 0x80000003, 0x80000300, 0 };
	memset(&t, 0, sizeof(t));
	tap_ok(pmb__tlb_decode_leaf2(&t, only_ff) == 1 && t.n == 0 && !t.source[0],
	       "Intel leaf 2: 0xFF alone and bit-31 registers: no TLB, 0xFF reported (%d)", t.n);

	/* This machine: TLBs, or why none. */
	pmb__tlb_read(&t);
	tap_ok((t.n > 0 && t.source[0] && !t.why[0]) || (t.n == 0 && t.why[0]),
	       "this CPU: %d TLBs from '%s', or why none: '%s'", t.n, t.source, t.why);
	for (int i = 0; i < t.n; i++)
		tap_ok(t.tlb[i].entries > 0 && t.tlb[i].pages && (t.tlb[i].level == 1 || t.tlb[i].level == 2 ||
		       t.tlb[i].level == 3), "this CPU: TLB %d: L%d %c, %d entries", i, t.tlb[i].level, t.tlb[i].kind,
		       t.tlb[i].entries);
	return tap_done();
}
