/* disasm_lib.c - a shared library holding disasm_bench's kernel, reached through the PLT (tests/test_disasm_reach.py). */
#include "disasm_kernel.h"

PMBT_BRANCHY uint64_t pmbt_count_hi_lib(const uint8_t *p, size_t n)
PMBT_COUNT_HI_BODY(p, n)
