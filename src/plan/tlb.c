/* tlb.c - the core's TLBs from the CPU itself (CPUID leaf 0x18, else leaf 2's descriptors, on Intel; 0x80000005/6 on AMD): entries per page size, ways. */
#include <stdio.h>
#include <string.h>

#include "tlb.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

static void add(struct pmb_tlb_info *t, int level, char kind, unsigned pages, int entries, int assoc)
{
	if (entries <= 0 || !pages || t->n == PMB_MAX_TLBS)
		return;
	t->tlb[t->n++] = (struct pmb_tlb){ .level = level, .kind = kind, .pages = pages,
					   .entries = entries, .assoc = assoc };
}

void pmb__tlb_decode_leaf18(struct pmb_tlb_info *t, const unsigned *regs, int n)
{
	static const char kinds[] = { 0, 'd', 'i', 'u', 'l', 's' };

	for (int i = 0; i < n; i++) {
		unsigned b = regs[4 * i + 1], c = regs[4 * i + 2], d = regs[4 * i + 3], type = d & 0x1f;

		if (type == 0 || type >= sizeof(kinds))
			continue;
		int ways = (int)(b >> 16), full = (d >> 8) & 1;
		add(t, (int)((d >> 5) & 7), kinds[type], b & 0xf, ways * (int)c, full ? -1 : ways);
	}
	if (t->n)
		snprintf(t->source, sizeof(t->source), "CPUID leaf 0x18");
}

/* Intel's leaf 2 TLB descriptors (SDM Vol. 2A, CPUID, table 3-12), the
 * TLB ones only: level, kind, pages, entries, ways (-1 fully associative,
 * 0 not given).  A descriptor naming two arrays (0x63, 0xC3) has two
 * rows; "2 MiB or 4 MiB" pages count as 2 MiB ones (4 MiB pages are
 * 32-bit paging's), and 0xB1's 2 MiB figure is the one kept. */
static const struct leaf2_tlb {
	unsigned char code;
	signed char level;
	char kind;
	unsigned char pages;
	short entries;
	signed char assoc;
} leaf2_tlbs[] = {
	{ 0x01, 1, 'i', PMB_TLB_4K, 32, 4 },
	{ 0x02, 1, 'i', PMB_TLB_4M, 2, -1 },
	{ 0x03, 1, 'd', PMB_TLB_4K, 64, 4 },
	{ 0x04, 1, 'd', PMB_TLB_4M, 8, 4 },
	{ 0x05, 2, 'd', PMB_TLB_4M, 32, 4 },
	{ 0x0B, 1, 'i', PMB_TLB_4M, 4, 4 },
	{ 0x4F, 1, 'i', PMB_TLB_4K, 32, 0 },
	{ 0x50, 1, 'i', PMB_TLB_4K | PMB_TLB_2M, 64, 0 },
	{ 0x51, 1, 'i', PMB_TLB_4K | PMB_TLB_2M, 128, 0 },
	{ 0x52, 1, 'i', PMB_TLB_4K | PMB_TLB_2M, 256, 0 },
	{ 0x55, 1, 'i', PMB_TLB_2M, 7, -1 },
	{ 0x56, 1, 'd', PMB_TLB_4M, 16, 4 },
	{ 0x57, 1, 'd', PMB_TLB_4K, 16, 4 },
	{ 0x59, 1, 'd', PMB_TLB_4K, 16, -1 },
	{ 0x5A, 1, 'd', PMB_TLB_2M, 32, 4 },
	{ 0x5B, 1, 'd', PMB_TLB_4K | PMB_TLB_4M, 64, 0 },
	{ 0x5C, 1, 'd', PMB_TLB_4K | PMB_TLB_4M, 128, 0 },
	{ 0x5D, 1, 'd', PMB_TLB_4K | PMB_TLB_4M, 256, 0 },
	{ 0x61, 1, 'i', PMB_TLB_4K, 48, -1 },
	{ 0x63, 1, 'd', PMB_TLB_2M, 32, 4 },
	{ 0x63, 1, 'd', PMB_TLB_1G, 4, 4 },
	{ 0x64, 1, 'd', PMB_TLB_4K, 512, 4 },
	{ 0x6A, 1, 'l', PMB_TLB_4K, 64, 8 },
	{ 0x6B, 1, 'd', PMB_TLB_4K, 256, 8 },
	{ 0x6C, 1, 'd', PMB_TLB_2M, 128, 8 },
	{ 0x6D, 1, 'd', PMB_TLB_1G, 16, -1 },
	{ 0x76, 1, 'i', PMB_TLB_2M, 8, -1 },
	{ 0xA0, 1, 'd', PMB_TLB_4K, 32, -1 },
	{ 0xB0, 1, 'i', PMB_TLB_4K, 128, 4 },
	{ 0xB1, 1, 'i', PMB_TLB_2M, 8, 4 },
	{ 0xB2, 1, 'i', PMB_TLB_4K, 64, 4 },
	{ 0xB3, 1, 'd', PMB_TLB_4K, 128, 4 },
	{ 0xB4, 2, 'd', PMB_TLB_4K, 256, 4 },
	{ 0xB5, 1, 'i', PMB_TLB_4K, 64, 8 },
	{ 0xB6, 1, 'i', PMB_TLB_4K, 128, 8 },
	{ 0xBA, 2, 'd', PMB_TLB_4K, 64, 4 },
	{ 0xC0, 1, 'd', PMB_TLB_4K | PMB_TLB_4M, 8, 4 },
	{ 0xC1, 2, 'u', PMB_TLB_4K | PMB_TLB_2M, 1024, 8 },
	{ 0xC2, 1, 'd', PMB_TLB_4K | PMB_TLB_2M, 16, 4 },
	{ 0xC3, 2, 'u', PMB_TLB_4K | PMB_TLB_2M, 1536, 6 },
	{ 0xC3, 2, 'u', PMB_TLB_1G, 16, 4 },
	{ 0xC4, 1, 'd', PMB_TLB_2M, 32, 4 },
	{ 0xCA, 2, 'u', PMB_TLB_4K, 512, 4 },
};

int pmb__tlb_decode_leaf2(struct pmb_tlb_info *t, const unsigned regs[4])
{
	int ff = 0;

	for (int r = 0; r < 4; r++) {
		/* Bit 31 set: the register holds no descriptors. */
		if (regs[r] >> 31)
			continue;
		/* EAX's low byte is the count of calls (1), not a descriptor. */
		for (int i = r ? 0 : 1; i < 4; i++) {
			unsigned code = (regs[r] >> (8 * i)) & 0xff;

			ff |= code == 0xff;
			for (size_t k = 0; k < sizeof(leaf2_tlbs) / sizeof(leaf2_tlbs[0]); k++)
				if (leaf2_tlbs[k].code == code)
					add(t, leaf2_tlbs[k].level, leaf2_tlbs[k].kind, leaf2_tlbs[k].pages,
					    leaf2_tlbs[k].entries, leaf2_tlbs[k].assoc);
		}
	}
	if (t->n)
		snprintf(t->source, sizeof(t->source), "CPUID leaf 2");
	return ff;
}

/* AMD's L2 TLB ways, 4-bit coded (0x80000006). */
static int amd_ways(unsigned code)
{
	static const int w[16] = { 0, 1, 2, 3, 4, 6, 8, 0, 16, 0, 32, 48, 64, 96, 128, -1 };

	return w[code & 0xf];
}

void pmb__tlb_decode_amd(struct pmb_tlb_info *t, const unsigned l5[4], const unsigned l6[4])
{
	for (int level = 1; level <= 2; level++)
		for (int half = 0; half < 2; half++) {   /* data (high half), then instructions */
			unsigned sh = half ? 0 : 16;

			for (int p = 0; p < 2; p++) {    /* EBX 4 KiB pages, EAX 2 MiB */
				unsigned r = level == 1 ? l5[p ? 0 : 1] : l6[p ? 0 : 1];
				unsigned pages = p ? PMB_TLB_2M : PMB_TLB_4K, ways = (r >> (sh + 8)) & 0xff;

				if (level == 1)
					add(t, 1, half ? 'i' : 'd', pages, (int)((r >> sh) & 0xff),
					    ways == 0xff ? -1 : (int)ways);
				else
					add(t, 2, half ? 'i' : 'd', pages, (int)((r >> sh) & 0xfff),
					    amd_ways((r >> (sh + 12)) & 0xf));
			}
		}
	if (t->n)
		snprintf(t->source, sizeof(t->source), "CPUID leaves 0x80000005/6");
}

#if defined(__x86_64__) || defined(__i386__)

/* Intel's deterministic address translation leaf: one subleaf per TLB. */
static void intel(struct pmb_tlb_info *t)
{
	unsigned regs[64 * 4], max, b, c, d;
	int n = 0;

	if (__get_cpuid_max(0, NULL) >= 0x18 && __get_cpuid_count(0x18, 0, &max, &b, &c, &d))
		for (unsigned sub = 0; sub <= max && n < 64; sub++, n++)
			__cpuid_count(0x18, sub, regs[4 * n], regs[4 * n + 1], regs[4 * n + 2], regs[4 * n + 3]);
	pmb__tlb_decode_leaf18(t, regs, n);
	if (t->n)
		return;
	/* Without leaf 0x18: leaf 2's one-byte descriptors. */
	int ff = __get_cpuid(2, &regs[0], &regs[1], &regs[2], &regs[3]) ? pmb__tlb_decode_leaf2(t, regs) : 0;

	if (!t->n)
		snprintf(t->why, sizeof(t->why), ff ? "this Intel CPU's CPUID leaf 2 says 'use leaf 4/0x18' (0xFF) "
			 "and leaf 0x18 describes no TLB" : "this Intel CPU's CPUID leaves 0x18 and 2 describe no TLB "
			 "(a hypervisor may hide them)");
}

static void amd(struct pmb_tlb_info *t)
{
	unsigned l5[4] = { 0 }, l6[4] = { 0 };

	if (__get_cpuid_max(0x80000000, NULL) >= 0x80000006) {
		__cpuid(0x80000005, l5[0], l5[1], l5[2], l5[3]);
		__cpuid(0x80000006, l6[0], l6[1], l6[2], l6[3]);
	}
	pmb__tlb_decode_amd(t, l5, l6);
	if (!t->n)
		snprintf(t->why, sizeof(t->why), "CPUID leaves 0x80000005/6 describe no TLB here (a hypervisor "
			 "may hide them)");
}

void pmb__tlb_read(struct pmb_tlb_info *t)
{
	char vendor[13] = "";
	unsigned a, b, c, d;

	memset(t, 0, sizeof(*t));
	__cpuid(0, a, b, c, d);
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	if (!strcmp(vendor, "GenuineIntel"))
		intel(t);
	else if (!strcmp(vendor, "AuthenticAMD") || !strcmp(vendor, "HygonGenuine"))
		amd(t);
	else
		snprintf(t->why, sizeof(t->why), "CPU vendor '%s': no CPUID leaf pmubench knows describes its TLBs",
			 vendor);
}

#else

void pmb__tlb_read(struct pmb_tlb_info *t)
{
	memset(t, 0, sizeof(*t));
	/* Arm's ID registers describe caches, not TLB sizes, and Linux
	 * exposes none in sysfs. */
	snprintf(t->why, sizeof(t->why), "this architecture describes no TLB geometry to programs (Arm's ID "
		 "registers and sysfs give cache sizes only)");
}

#endif
