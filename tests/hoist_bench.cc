/* hoist_bench.cc - hoist_bench.c built as C++ (g++): issue 34's example and
 * pmb_opaque must behave the same (tests/test_hoist.py). */
#include "hoist_bench.c"
