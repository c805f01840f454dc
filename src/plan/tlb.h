/* tlb.h - the core's TLB geometry, read from the CPU (CPUID on x86). */
#ifndef PMB_TLB_H
#define PMB_TLB_H

#include "model.h"

/* The TLBs of the CPU this runs on into *t (n of them), or n == 0 and
 * t->why saying why none could be read. */
void pmb__tlb_read(struct pmb_tlb_info *t);

/* The decoders pmb__tlb_read uses, on register values (EAX, EBX, ECX,
 * EDX), added to *t: Intel's leaf 0x18, its n subleaves (regs[4 * i ..]);
 * AMD's leaves 0x80000005 and 0x80000006 (4 MiB pages, 32-bit paging
 * only, left out). */
void pmb__tlb_decode_leaf18(struct pmb_tlb_info *t, const unsigned *regs, int n);
/* Intel's leaf 2 (EAX..EDX): its TLB descriptors added to *t; returns
 * whether a 0xFF descriptor ("use leaf 4/0x18") was among them. */
int pmb__tlb_decode_leaf2(struct pmb_tlb_info *t, const unsigned regs[4]);
void pmb__tlb_decode_amd(struct pmb_tlb_info *t, const unsigned l5[4], const unsigned l6[4]);

#endif
