/* add_chain.h - 64 dependent adds as one asm string, for the frequency estimate, the self-check, the calib kernels and the tests' hidden-cost benchmarks: macros only, no API. */
#ifndef PMB_ADD_CHAIN_H
#define PMB_ADD_CHAIN_H

/* Operands %0 (the chain, "+r") and %1 (the addend, "r"): one cycle per
 * add on every x86-64 and Arm core of the last decade, and exactly one
 * instruction each.  Undefined on other architectures. */
#if defined(__x86_64__)
#define PMB__ADD8 "add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\t" \
		  "add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\t"
#elif defined(__aarch64__)
#define PMB__ADD8 "add %0, %0, %1\n\tadd %0, %0, %1\n\tadd %0, %0, %1\n\tadd %0, %0, %1\n\t" \
		  "add %0, %0, %1\n\tadd %0, %0, %1\n\tadd %0, %0, %1\n\tadd %0, %0, %1\n\t"
#endif
#ifdef PMB__ADD8
#define PMB__ADD64 PMB__ADD8 PMB__ADD8 PMB__ADD8 PMB__ADD8 PMB__ADD8 PMB__ADD8 PMB__ADD8 PMB__ADD8
#endif

#endif
