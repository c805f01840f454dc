/* test_events.c - event names to perf_event_attr under forced libpfm4 PMUs: tables, aliases, sets, errors. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <ftw.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "events.h"
#include "pmb_config.h"
#include "pmubench.h"
#include "tap.h"

#define SRC_LINE .line = __LINE__
#define RAW PERF_TYPE_RAW
#define HW PERF_TYPE_HARDWARE
#define SW PERF_TYPE_SOFTWARE
#define HWC PERF_TYPE_HW_CACHE

/* One name and the attr it must encode to.  Expected codes come from the
 * vendors' manuals (Intel SDM event/umask tables, AMD PPR PMCx numbers, the
 * Arm ARM's common event numbers) and linux/perf_event.h, not from running
 * libpfm. */
struct enc_case {
	int line;
	const char *name;
	uint32_t type;
	uint64_t config;
	uint64_t config1;
	enum pmb_event_kind kind;
	bool anchor;
	enum pmb_event_meaning means;
	const char *pmu;  /* expected ev.pmu; NULL: not checked */
	const char *enc;  /* a part of ev.encoding; NULL: not checked */
	const char *unsupported; /* ev.unsupported exactly; NULL: "" */
};

#define OTH PMB_MEANS_OTHER
#define CYC PMB_MEANS_CYCLES
#define INS PMB_MEANS_INSTRUCTIONS
#define BRS PMB_MEANS_BRANCHES
#define BRM PMB_MEANS_BRANCH_MISSES
#define L1M PMB_MEANS_L1D_MISSES
#define LLM PMB_MEANS_LLC_MISSES
#define CAM PMB_MEANS_CACHE_MISSES
#define REF PMB_MEANS_CACHE_REFS
#define L2M PMB_MEANS_L2_MISSES
#define L1I PMB_MEANS_L1I_MISSES

/* Everything not tied to a PMU: the same under any forced PMU. */
static const struct enc_case generic_cases[] = {
	{ SRC_LINE, "cycles", HW, PERF_COUNT_HW_CPU_CYCLES, 0, PMB_EV_HW, true, CYC, "perf" },
	{ SRC_LINE, "cpu-cycles", HW, PERF_COUNT_HW_CPU_CYCLES, 0, PMB_EV_HW, true, CYC, "perf" },
	{ SRC_LINE, "instructions", HW, PERF_COUNT_HW_INSTRUCTIONS, 0, PMB_EV_HW, true, INS, "perf" },
	{ SRC_LINE, "branches", HW, 4, 0, PMB_EV_HW, false, BRS, "perf" },
	{ SRC_LINE, "branch-instructions", HW, 4, 0, PMB_EV_HW, false, BRS, "perf" },
	{ SRC_LINE, "branch-misses", HW, 5, 0, PMB_EV_HW, false, BRM, "perf" },
	{ SRC_LINE, "cache-references", HW, 2, 0, PMB_EV_HW, false, REF, "perf" },
	{ SRC_LINE, "cache-misses", HW, 3, 0, PMB_EV_HW, false, CAM, "perf" },
	{ SRC_LINE, "ref-cycles", HW, 9, 0, PMB_EV_HW, false, OTH, "perf" },
	{ SRC_LINE, "stalled-cycles-backend", HW, 8, 0, PMB_EV_HW, false, OTH, "perf" },
	{ SRC_LINE, "L1-dcache-load-misses", HWC, 0 | (0 << 8) | (1 << 16), 0, PMB_EV_HW, false, L1M, "perf" },
	{ SRC_LINE, "L1-dcache-loads", HWC, 0 | (0 << 8) | (0 << 16), 0, PMB_EV_HW, false, REF, "perf" },
	{ SRC_LINE, "L1-icache-load-misses", HWC, 1 | (0 << 8) | (1 << 16), 0, PMB_EV_HW, false, L1I, "perf" },
	{ SRC_LINE, "LLC-loads", HWC, 2 | (0 << 8) | (0 << 16), 0, PMB_EV_HW, false, REF, "perf" },
	{ SRC_LINE, "LLC-load-misses", HWC, 2 | (0 << 8) | (1 << 16), 0, PMB_EV_HW, false, LLM, "perf" },
	{ SRC_LINE, "LLC-store-misses", HWC, 2 | (1 << 8) | (1 << 16), 0, PMB_EV_HW, false, OTH, "perf" },
	{ SRC_LINE, "dTLB-load-misses", HWC, 3 | (0 << 8) | (1 << 16), 0, PMB_EV_HW, false, OTH, "perf" },
	{ SRC_LINE, "task-clock", SW, 1, 0, PMB_EV_SW, false, OTH, "perf" },
	{ SRC_LINE, "cpu-clock", SW, 0, 0, PMB_EV_SW, false, OTH, "perf" },
	{ SRC_LINE, "page-faults", SW, 2, 0, PMB_EV_SW, false, OTH, "perf" },
	{ SRC_LINE, "context-switches", SW, 3, 0, PMB_EV_SW, false, OTH, "perf" },
	{ SRC_LINE, "cpu-migrations", SW, 4, 0, PMB_EV_SW, false, OTH, "perf" },
	{ SRC_LINE, "minor-faults", SW, 5, 0, PMB_EV_SW, false, OTH, "perf" },
	{ SRC_LINE, "major-faults", SW, 6, 0, PMB_EV_SW, false, OTH, "perf" },
	{ SRC_LINE, "r1c4", RAW, 0x1c4, 0, PMB_EV_HW, false, OTH, NULL },
};

/* Skylake-X: config = event | umask << 8 | edge << 18 | any << 21 | inv << 23 | cmask << 24.
 * Meanings: Intel's architectural events (SDM vol. 3 ch. 20: 3CH/00H core
 * cycles, C0H/00H instructions, C4H/00H branches, C5H/00H mispredicted
 * branches); a cmask, an edge or any-thread makes them other counts. */
static const struct enc_case skx_cases[] = {
	{ SRC_LINE, "BR_MISP_RETIRED:ALL_BRANCHES", RAW, 0xc5, 0, PMB_EV_HW, false, BRM, "skx" },
	{ SRC_LINE, "BR_MISP_RETIRED", RAW, 0xc5, 0, PMB_EV_HW, false, BRM, "skx" },
	{ SRC_LINE, "skx::BR_MISP_RETIRED:ALL_BRANCHES", RAW, 0xc5, 0, PMB_EV_HW, false, BRM, "skx" },
	{ SRC_LINE, "BR_MISP_RETIRED:ALL_BRANCHES:u", RAW, 0xc5, 0, PMB_EV_HW, false, BRM, "skx" },
	{ SRC_LINE, "BR_MISP_RETIRED:CONDITIONAL", RAW, 0x1c5, 0, PMB_EV_HW, false, OTH, "skx" },
	{ SRC_LINE, "BR_MISP_RETIRED:ALL_BRANCHES:c=1", RAW, 0x10000c5, 0, PMB_EV_HW, false, OTH, "skx" },
	{ SRC_LINE, "BR_MISP_RETIRED:ALL_BRANCHES:c=1:i=1", RAW, 0x18000c5, 0, PMB_EV_HW, false, OTH, "skx" },
	{ SRC_LINE, "BR_MISP_RETIRED:e=1:c=2", RAW, 0x20400c5, 0, PMB_EV_HW, false, OTH, "skx" },
	{ SRC_LINE, "BR_MISP_RETIRED:ALL_BRANCHES:t=1", RAW, 0x2000c5, 0, PMB_EV_HW, false, OTH, "skx" },
	{ SRC_LINE, "BR_INST_RETIRED:ALL_BRANCHES", RAW, 0xc4, 0, PMB_EV_HW, false, BRS, "skx" },
	{ SRC_LINE, "UNHALTED_CORE_CYCLES", RAW, 0x3c, 0, PMB_EV_HW, true, CYC, "skx" },
	{ SRC_LINE, "CPU_CLK_THREAD_UNHALTED:THREAD_P", RAW, 0x3c, 0, PMB_EV_HW, true, CYC, "skx" },
	{ SRC_LINE, "UNHALTED_REFERENCE_CYCLES", RAW, 0x300, 0, PMB_EV_HW, false, OTH, "skx" },
	{ SRC_LINE, "INST_RETIRED:ANY_P", RAW, 0xc0, 0, PMB_EV_HW, true, INS, "skx" },
	{ SRC_LINE, "INSTRUCTION_RETIRED", RAW, 0xc0, 0, PMB_EV_HW, true, INS, "skx" },
	{ SRC_LINE, "INST_RETIRED:PREC_DIST", RAW, 0x1c0, 0, PMB_EV_HW, true, INS, "skx" },
	/* cache events: the aliases' own events (D1H/08H, 20H: retired loads
	 * that missed L1, L3), the kernel's L1-dcache-load-misses (51H/01H) and
	 * cache-misses (2EH/41H, architectural); a cmask makes them other counts */
	{ SRC_LINE, "MEM_LOAD_RETIRED:L1_MISS", RAW, 0x08d1, 0, PMB_EV_HW, false, L1M, "skx" },
	{ SRC_LINE, "MEM_LOAD_RETIRED:L3_MISS", RAW, 0x20d1, 0, PMB_EV_HW, false, LLM, "skx" },
	{ SRC_LINE, "MEM_LOAD_RETIRED:L3_MISS:c=1", RAW, 0x10020d1, 0, PMB_EV_HW, false, OTH, "skx" },
	{ SRC_LINE, "L1D:REPLACEMENT", RAW, 0x0151, 0, PMB_EV_HW, false, L1M, "skx" },
	{ SRC_LINE, "L1D:REPLACEMENT:e=1:c=1", RAW, 0x1040151, 0, PMB_EV_HW, false, OTH, "skx" },
	{ SRC_LINE, "LONGEST_LAT_CACHE:MISS", RAW, 0x412e, 0, PMB_EV_HW, false, CAM, "skx" },
	{ SRC_LINE, "LLC_MISSES", RAW, 0x20d1, 0, PMB_EV_HW, false, LLM, "skx", .enc = "(as alias llc-misses)" },
	/* lookups, a middle level, instruction fetch: SDM 2EH/4FH, 24H/3FH,
	 * D1H/10H, 83H/02H */
	{ SRC_LINE, "LONGEST_LAT_CACHE:REFERENCE", RAW, 0x4f2e, 0, PMB_EV_HW, false, REF, "skx" },
	{ SRC_LINE, "L2_RQSTS:MISS", RAW, 0x3f24, 0, PMB_EV_HW, false, L2M, "skx" },
	{ SRC_LINE, "MEM_LOAD_RETIRED:L2_MISS", RAW, 0x10d1, 0, PMB_EV_HW, false, L2M, "skx" },
	{ SRC_LINE, "ICACHE_64B:IFTAG_MISS", RAW, 0x0283, 0, PMB_EV_HW, false, L1I, "skx" },
	{ SRC_LINE, "OFFCORE_RESPONSE_0:DMND_DATA_RD:ANY_RESPONSE", RAW, 0x01b7, 0x10001, PMB_EV_HW, false, OTH, "skx" },
	/* raw codes read as the core's */
	{ SRC_LINE, "r3c", RAW, 0x3c, 0, PMB_EV_HW, true, CYC, "skx" },
	{ SRC_LINE, "rc0", RAW, 0xc0, 0, PMB_EV_HW, true, INS, "skx" },
	{ SRC_LINE, "rc4", RAW, 0xc4, 0, PMB_EV_HW, false, BRS, "skx" },
	{ SRC_LINE, "rC5", RAW, 0xc5, 0, PMB_EV_HW, false, BRM, "skx" },
	{ SRC_LINE, "r76", RAW, 0x76, 0, PMB_EV_HW, false, OTH, "skx" },
	{ SRC_LINE, "r11", RAW, 0x11, 0, PMB_EV_HW, false, OTH, "skx" },
	{ SRC_LINE, "r412e", RAW, 0x412e, 0, PMB_EV_HW, false, CAM, "skx" },
	{ SRC_LINE, "r151", RAW, 0x151, 0, PMB_EV_HW, false, L1M, "skx" },
	{ SRC_LINE, "r20d1", RAW, 0x20d1, 0, PMB_EV_HW, false, LLM, "skx" },
	/* aliases (events/aliases.txt) on Skylake-X */
	{ SRC_LINE, "l1d-loads", RAW, 0x81d0, 0, PMB_EV_HW, false, OTH, "skx" },
	{ SRC_LINE, "l1d-misses", RAW, 0x08d1, 0, PMB_EV_HW, false, L1M, "skx" },
	{ SRC_LINE, "l2-misses", RAW, 0x10d1, 0, PMB_EV_HW, false, L2M, "skx" },
	{ SRC_LINE, "llc-loads", RAW, 0x10d1, 0, PMB_EV_HW, false, L2M, "skx" },
	{ SRC_LINE, "llc-misses", RAW, 0x20d1, 0, PMB_EV_HW, false, LLM, "skx" },
	{ SRC_LINE, "dtlb-misses", RAW, 0x0e08, 0, PMB_EV_HW, false, OTH, "skx" },
	{ SRC_LINE, "br-misp-retired", RAW, 0xc5, 0, PMB_EV_HW, false, BRM, "skx" },
	{ SRC_LINE, "br-inst-retired", RAW, 0xc4, 0, PMB_EV_HW, false, BRS, "skx" },
	{ SRC_LINE, "stalls", RAW, 0x040004a3, 0, PMB_EV_HW, false, OTH, "skx" },
};

/* Ice Lake and Sapphire Rapids: libpfm4 encodes the fixed counters'
 * events with the kernel's pseudo-codes (event 0, umask 1: INST_RETIRED.ANY,
 * umask 2: CPU_CLK_UNHALTED.THREAD), or, on spr, INST_RETIRED.ANY as C0H/01H. */
static const struct enc_case icl_cases[] = {
	{ SRC_LINE, "INST_RETIRED:ANY", RAW, 0x100, 0, PMB_EV_HW, true, INS, "icl" },
	{ SRC_LINE, "INST_RETIRED:ANY_P", RAW, 0xc0, 0, PMB_EV_HW, true, INS, "icl" },
	{ SRC_LINE, "CPU_CLK_UNHALTED:THREAD_P", RAW, 0x3c, 0, PMB_EV_HW, true, CYC, "icl" },
	{ SRC_LINE, "TOPDOWN:SLOTS", RAW, 0x400, 0, PMB_EV_HW, false, OTH, "icl" },
};

/* Cache events of older and smaller Intel cores (SDM): Sandy Bridge's
 * libpfm4 LLC_MISSES is LAST_LEVEL_CACHE_MISSES, the architectural 2EH/41H
 * (every last-level miss), where Skylake's is the alias of retired loads;
 * Haswell's load events are MEM_LOAD_UOPS_RETIRED (D1H), of no alias row;
 * Goldmont's 51H/01H is DL1.DIRTY_EVICTION, no L1D replacement. */
static const struct enc_case snb_cases[] = {
	{ SRC_LINE, "LLC_MISSES", RAW, 0x412e, 0, PMB_EV_HW, false, CAM, "snb", .enc = "LAST_LEVEL_CACHE_MISSES" },
	{ SRC_LINE, "L1D:REPLACEMENT", RAW, 0x0151, 0, PMB_EV_HW, false, L1M, "snb" },
	{ SRC_LINE, "ICACHE:MISSES", RAW, 0x0280, 0, PMB_EV_HW, false, L1I, "snb" },
};

static const struct enc_case hsw_cases[] = {
	{ SRC_LINE, "MEM_LOAD_UOPS_RETIRED:L1_MISS", RAW, 0x08d1, 0, PMB_EV_HW, false, L1M, "hsw" },
	{ SRC_LINE, "MEM_LOAD_UOPS_RETIRED:L2_MISS", RAW, 0x10d1, 0, PMB_EV_HW, false, L2M, "hsw" },
	{ SRC_LINE, "MEM_LOAD_UOPS_RETIRED:L3_MISS", RAW, 0x20d1, 0, PMB_EV_HW, false, LLM, "hsw" },
	{ SRC_LINE, "LONGEST_LAT_CACHE:MISS", RAW, 0x412e, 0, PMB_EV_HW, false, CAM, "hsw" },
	{ SRC_LINE, "L1D:REPLACEMENT", RAW, 0x0151, 0, PMB_EV_HW, false, L1M, "hsw" },
	/* no alias row: the '*' row, perf's generic LLC-load-misses */
	{ SRC_LINE, "LLC_MISSES", HWC, 2 | (0 << 8) | (1 << 16), 0, PMB_EV_HW, false, LLM, "perf" },
};

static const struct enc_case glm_cases[] = {
	{ SRC_LINE, "LONGEST_LAT_CACHE:MISS", RAW, 0x412e, 0, PMB_EV_HW, false, CAM, "glm" },
	{ SRC_LINE, "DL1:DIRTY_EVICTION", RAW, 0x0151, 0, PMB_EV_HW, false, OTH, "glm" },
	{ SRC_LINE, "r151", RAW, 0x0151, 0, PMB_EV_HW, false, OTH, "glm" },
};

static const struct enc_case spr_cases[] = {
	{ SRC_LINE, "INST_RETIRED:ANY", RAW, 0x1c0, 0, PMB_EV_HW, true, INS, "spr" },
	{ SRC_LINE, "CPU_CLK_UNHALTED:THREAD", RAW, 0x200, 0, PMB_EV_HW, true, CYC, "spr" },
	{ SRC_LINE, "CPU_CLK_UNHALTED:THREAD_P", RAW, 0x3c, 0, PMB_EV_HW, true, CYC, "spr" },
	{ SRC_LINE, "BR_MISP_RETIRED:ALL_BRANCHES", RAW, 0xc5, 0, PMB_EV_HW, false, BRM, "spr" },
};

/* AMD Zen 1 (PPR 17h): config = event[7:0] | umask << 8 | event[11:8] << 32.
 * PMCx076 cycles not halted, PMCx0C0 instructions, PMCx0C2 branches and
 * PMCx0C3 mispredicted branches retired, the same since family 10h. */
static const struct enc_case zen1_cases[] = {
	{ SRC_LINE, "CYCLES_NOT_IN_HALT", RAW, 0x76, 0, PMB_EV_HW, true, CYC, "amd64_fam17h" },
	{ SRC_LINE, "RETIRED_INSTRUCTIONS", RAW, 0xc0, 0, PMB_EV_HW, true, INS, "amd64_fam17h" },
	{ SRC_LINE, "RETIRED_BRANCH_INSTRUCTIONS", RAW, 0xc2, 0, PMB_EV_HW, false, BRS, "amd64_fam17h" },
	{ SRC_LINE, "RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED", RAW, 0xc3, 0, PMB_EV_HW, false, BRM, "amd64_fam17h" },
	{ SRC_LINE, "amd64_fam17h::RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED:u", RAW, 0xc3, 0, PMB_EV_HW, false, BRM, "amd64_fam17h" },
	{ SRC_LINE, "LS_DISPATCH:LD_DISPATCH", RAW, 0x0129, 0, PMB_EV_HW, false, OTH, "amd64_fam17h" },
	/* raw codes read as AMD's, not Intel's */
	{ SRC_LINE, "r76", RAW, 0x76, 0, PMB_EV_HW, true, CYC, "amd64_fam17h" },
	{ SRC_LINE, "rc3", RAW, 0xc3, 0, PMB_EV_HW, false, BRM, "amd64_fam17h" },
	{ SRC_LINE, "rC5", RAW, 0xc5, 0, PMB_EV_HW, false, OTH, "amd64_fam17h" },
	{ SRC_LINE, "r3c", RAW, 0x3c, 0, PMB_EV_HW, false, OTH, "amd64_fam17h" },
	/* aliases: Zen 1 has no demand-fill event in libpfm: perf's generic
	 * cache events stand in (the '*' rows) */
	{ SRC_LINE, "l1d-loads", RAW, 0x0129, 0, PMB_EV_HW, false, OTH, "amd64_fam17h" },
	{ SRC_LINE, "l1d-misses", HWC, 0 | (0 << 8) | (1 << 16), 0, PMB_EV_HW, false, L1M, "perf" },
	{ SRC_LINE, "l2-misses", RAW, 0x0864, 0, PMB_EV_HW, false, L2M, "amd64_fam17h" },
	{ SRC_LINE, "llc-misses", HWC, 2 | (0 << 8) | (1 << 16), 0, PMB_EV_HW, false, LLM, "perf" },
	/* Intel's architectural cache-miss code is no AMD event */
	{ SRC_LINE, "r412e", RAW, 0x412e, 0, PMB_EV_HW, false, OTH, "amd64_fam17h" },
	{ SRC_LINE, "dtlb-misses", RAW, 0xf045, 0, PMB_EV_HW, false, OTH, "amd64_fam17h" },
	{ SRC_LINE, "br-misp-retired", RAW, 0xc3, 0, PMB_EV_HW, false, BRM, "amd64_fam17h" },
	{ SRC_LINE, "br-inst-retired", RAW, 0xc2, 0, PMB_EV_HW, false, BRS, "amd64_fam17h" },
	{ SRC_LINE, "stalls", HW, PERF_COUNT_HW_STALLED_CYCLES_BACKEND, 0, PMB_EV_HW, false, OTH, "perf" },
};

/* AMD Zen 3 (PPR 19h): PMCx043 demand data-cache fills by source; the
 * aliases take the sources beyond L2 (l1d-misses) and beyond the CCX's L3
 * (llc-misses), in any spelling of the code.  One source alone is no
 * alias's count. */
static const struct enc_case zen3_cases[] = {
	{ SRC_LINE, "LLC_MISSES", RAW, 0x5843, 0, PMB_EV_HW, false, LLM, "amd64_fam19h_zen3",
	  .enc = "(as alias llc-misses)" },
	{ SRC_LINE, "r5843", RAW, 0x5843, 0, PMB_EV_HW, false, LLM, "amd64_fam19h_zen3" },
	{ SRC_LINE, "l1d-misses", RAW, 0x5f43, 0, PMB_EV_HW, false, L1M, "amd64_fam19h_zen3" },
	{ SRC_LINE, "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:MEM_IO_LCL", RAW, 0x0843, 0, PMB_EV_HW, false, OTH,
	  "amd64_fam19h_zen3" },
};

static const struct enc_case zen4_cases[] = {
	{ SRC_LINE, "CYCLES_NOT_IN_HALT", RAW, 0x76, 0, PMB_EV_HW, true, CYC, "amd64_fam19h_zen4" },
	{ SRC_LINE, "RETIRED_INSTRUCTIONS", RAW, 0xc0, 0, PMB_EV_HW, true, INS, "amd64_fam19h_zen4" },
	{ SRC_LINE, "RETIRED_BRANCH_INSTRUCTIONS", RAW, 0xc2, 0, PMB_EV_HW, false, BRS, "amd64_fam19h_zen4" },
	{ SRC_LINE, "RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED", RAW, 0xc3, 0, PMB_EV_HW, false, BRM, "amd64_fam19h_zen4" },
	{ SRC_LINE, "RETIRED_OPS", RAW, 0xc1, 0, PMB_EV_HW, false, OTH, "amd64_fam19h_zen4" },
};

/* Arm cores of libpfm4 (aarch64 builds only).  perf's raw type, config = the
 * event number (Arm ARM, common events: 0x03 L1D_CACHE_REFILL, 0x04
 * L1D_CACHE, 0x08 INST_RETIRED, 0x10 BR_MIS_PRED, 0x11 CPU_CYCLES, 0x12
 * BR_PRED, 0x21 BR_RETIRED, 0x22 BR_MIS_PRED_RETIRED; Cortex-A57 TRM:
 * 0x40 L1D read access, 0x42 L1D read refill).  No sysfs here: the suites
 * read an empty folder, so libpfm4's table is the only judge. */
static const struct enc_case ac57_cases[] = {
	{ SRC_LINE, "CPU_CYCLES", RAW, 0x11, 0, PMB_EV_HW, true, CYC, "arm_ac57" },
	{ SRC_LINE, "arm_ac57::CPU_CYCLES", RAW, 0x11, 0, PMB_EV_HW, true, CYC, "arm_ac57" },
	{ SRC_LINE, "INST_RETIRED", RAW, 0x08, 0, PMB_EV_HW, true, INS, "arm_ac57" },
	{ SRC_LINE, "BR_MIS_PRED", RAW, 0x10, 0, PMB_EV_HW, false, BRM, "arm_ac57",
	  .enc = "arm_ac57::BRANCH_MISPRED:u=1:k=0:h=0:excl=0:mg=0:mh=1 (Arm BR_MIS_PRED, event 0x10)" },
	{ SRC_LINE, "br_mis_pred", RAW, 0x10, 0, PMB_EV_HW, false, BRM, "arm_ac57", .enc = "BRANCH_MISPRED" },
	{ SRC_LINE, "BRANCH_MISPRED", RAW, 0x10, 0, PMB_EV_HW, false, BRM, "arm_ac57" },
	{ SRC_LINE, "BR_PRED", RAW, 0x12, 0, PMB_EV_HW, false, OTH, "arm_ac57", .enc = "BRANCH_PRED" },
	{ SRC_LINE, "L1D_CACHE", RAW, 0x04, 0, PMB_EV_HW, false, REF, "arm_ac57", .enc = "L1D_CACHE_ACCESS" },
	{ SRC_LINE, "L1D_CACHE_REFILL", RAW, 0x03, 0, PMB_EV_HW, false, L1M, "arm_ac57" },
	{ SRC_LINE, "BR_MISP_RETIRED", RAW, 0x10, 0, PMB_EV_HW, false, BRM, "arm_ac57",
	  .enc = "BRANCH_MISPRED:u=1:k=0:h=0:excl=0:mg=0:mh=1 (as alias br-misp-retired)" },
	{ SRC_LINE, "br-misp-retired", RAW, 0x10, 0, PMB_EV_HW, false, BRM, "arm_ac57" },
	{ SRC_LINE, "br-inst-retired", RAW, 0x12, 0, PMB_EV_HW, false, OTH, "arm_ac57" },
	{ SRC_LINE, "l1d-loads", RAW, 0x40, 0, PMB_EV_HW, false, OTH, "arm_ac57" },
	{ SRC_LINE, "l1d-misses", RAW, 0x42, 0, PMB_EV_HW, false, L1M, "arm_ac57" },
	{ SRC_LINE, "r10", RAW, 0x10, 0, PMB_EV_HW, false, BRM, "arm_ac57" },
	{ SRC_LINE, "r3c", RAW, 0x3c, 0, PMB_EV_HW, false, OTH, "arm_ac57",
	  .unsupported = "arm_ac57 does not implement STALL (event 0x3c is not in libpfm4's table for it)" },
	/* Armv8.1's retired-branch events: the A57 has none */
	{ SRC_LINE, "BR_RETIRED", RAW, 0x21, 0, PMB_EV_HW, false, BRS, "arm_ac57",
	  .enc = "raw 0x21 (Arm BR_RETIRED, which arm_ac57 does not list)",
	  .unsupported = "arm_ac57 does not implement BR_RETIRED (event 0x21 is not in libpfm4's table for it)" },
	/* llc-loads has no A57 row: the armv8_pmuv3 row's LL_CACHE_RD, reported */
	{ SRC_LINE, "llc-loads", RAW, 0x36, 0, PMB_EV_HW, false, REF, "arm_ac57",
	  .unsupported = "arm_ac57 does not implement LL_CACHE_RD (event 0x36 is not in libpfm4's table for it)" },
};

static const struct enc_case ac53_cases[] = {
	{ SRC_LINE, "CPU_CYCLES", RAW, 0x11, 0, PMB_EV_HW, true, CYC, "arm_ac53" },
	{ SRC_LINE, "INST_RETIRED", RAW, 0x08, 0, PMB_EV_HW, true, INS, "arm_ac53" },
	{ SRC_LINE, "BR_MIS_PRED", RAW, 0x10, 0, PMB_EV_HW, false, BRM, "arm_ac53", .enc = "arm_ac53::BRANCH_MISPRED" },
	{ SRC_LINE, "BR_PRED", RAW, 0x12, 0, PMB_EV_HW, false, OTH, "arm_ac53", .enc = "arm_ac53::BRANCH_PRED" },
	{ SRC_LINE, "L1D_CACHE", RAW, 0x04, 0, PMB_EV_HW, false, REF, "arm_ac53", .enc = "L1D_CACHE_ACCESS" },
	{ SRC_LINE, "L1D_CACHE_REFILL", RAW, 0x03, 0, PMB_EV_HW, false, L1M, "arm_ac53" },
	{ SRC_LINE, "br-misp-retired", RAW, 0x10, 0, PMB_EV_HW, false, BRM, "arm_ac53" },
	{ SRC_LINE, "l1d-loads", RAW, 0x04, 0, PMB_EV_HW, false, REF, "arm_ac53" },
};

static const struct enc_case n1_cases[] = {
	{ SRC_LINE, "CPU_CYCLES", RAW, 0x11, 0, PMB_EV_HW, true, CYC, "arm_n1" },
	{ SRC_LINE, "INST_RETIRED", RAW, 0x08, 0, PMB_EV_HW, true, INS, "arm_n1" },
	{ SRC_LINE, "BR_MIS_PRED", RAW, 0x10, 0, PMB_EV_HW, false, BRM, "arm_n1", .enc = "arm_n1::BR_MIS_PRED:" },
	{ SRC_LINE, "BR_PRED", RAW, 0x12, 0, PMB_EV_HW, false, OTH, "arm_n1" },
	{ SRC_LINE, "BR_RETIRED", RAW, 0x21, 0, PMB_EV_HW, false, BRS, "arm_n1" },
	{ SRC_LINE, "BR_MIS_PRED_RETIRED", RAW, 0x22, 0, PMB_EV_HW, false, BRM, "arm_n1" },
	{ SRC_LINE, "L1D_CACHE", RAW, 0x04, 0, PMB_EV_HW, false, REF, "arm_n1" },
	{ SRC_LINE, "L1D_CACHE_REFILL", RAW, 0x03, 0, PMB_EV_HW, false, L1M, "arm_n1" },
	{ SRC_LINE, "BR_MISP_RETIRED", RAW, 0x22, 0, PMB_EV_HW, false, BRM, "arm_n1", .enc = "(as alias br-misp-retired)" },
	{ SRC_LINE, "br-misp-retired", RAW, 0x22, 0, PMB_EV_HW, false, BRM, "arm_n1" },
	{ SRC_LINE, "br-inst-retired", RAW, 0x21, 0, PMB_EV_HW, false, BRS, "arm_n1" },
	{ SRC_LINE, "l1d-misses", RAW, 0x42, 0, PMB_EV_HW, false, L1M, "arm_n1" },
	{ SRC_LINE, "LL_CACHE_MISS_RD", RAW, 0x37, 0, PMB_EV_HW, false, LLM, "arm_n1" },
	{ SRC_LINE, "llc-misses", RAW, 0x37, 0, PMB_EV_HW, false, LLM, "arm_n1" },
	{ SRC_LINE, "L2D_CACHE_REFILL", RAW, 0x17, 0, PMB_EV_HW, false, L2M, "arm_n1" },
};

static char events_dir[4096];
static char no_sysfs[4200]; /* an empty folder: no sysfs PMUs */

/* Run fn in a child process with libpfm forced to pmu: libpfm detects its
 * PMUs once per process (a second pfm_initialize() keeps the first PMU), so
 * each forced PMU gets a fresh process.  The child's TAP points go to the
 * shared stdout; its counters come back through a pipe.  Returns fn's value. */
static int under_pmu(const char *pmu, int (*fn)(void))
{
	int fd[2], msg[3] = { 0, 0, 0 }, status;
	pid_t pid;

	if (pipe(fd) < 0)
		return tap_ok(0, "pipe: %s", strerror(errno)), 0;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int err;

		close(fd[0]);
		setenv("LIBPFM_FORCE_PMU", pmu, 1);
		/* this machine's own sysfs PMUs (hybrid x86, an Arm guest's)
		 * stay out of the forced PMU's cases */
		pmb__events_set_sysfs_root(no_sysfs);
		err = pmb__events_init(NULL);
		tap_ok(err == 0 && !strcmp(pmb__events_dir(), events_dir),
		       "init under LIBPFM_FORCE_PMU=%s, tables from $PMUBENCH_EVENTS_DIR (%d %s)", pmu,
		       err, pmb__events_error());
		msg[2] = fn();
		pmb__events_fini();
		fflush(stdout);
		msg[0] = tap__n;
		msg[1] = tap__failed;
		if (write(fd[1], msg, sizeof(msg)) != (ssize_t)sizeof(msg))
			_exit(1);
		_exit(0);
	}
	close(fd[1]);
	if (pid < 0 || read(fd[0], msg, sizeof(msg)) != (ssize_t)sizeof(msg)) {
		close(fd[0]);
		if (pid > 0)
			waitpid(pid, &status, 0);
		return tap_ok(0, "child process for %s", pmu), 0;
	}
	close(fd[0]);
	waitpid(pid, &status, 0);
	tap__n = msg[0];
	tap__failed = msg[1];
	return msg[2];
}

static bool contains(const char *hay, const char *needle)
{
	return strstr(hay, needle) != NULL;
}

static void check_case(const struct enc_case *c, bool kernel)
{
	struct pmb_event_plan p;
	const struct pmb_event *e = &p.ev[0];
	int err = pmb__events_resolve(c->name, 0, kernel, &p);

	if (!tap_ok_at(c->line, err == 0 && p.nev == 1, "%s%s resolves to one event (err %d: %s)",
		       c->name, kernel ? " --kernel" : "", err, pmb__events_error()))
		return;
	tap_ok_at(c->line, e->attr.type == c->type && e->attr.config == c->config &&
		  e->attr.config1 == c->config1,
		  "%s -> type %u config %#llx config1 %#llx (got %u %#llx %#llx)", c->name,
		  c->type, (unsigned long long)c->config, (unsigned long long)c->config1,
		  e->attr.type, (unsigned long long)e->attr.config,
		  (unsigned long long)e->attr.config1);
	tap_ok_at(c->line, e->kind == c->kind && e->anchor == c->anchor && e->means == c->means,
		  "%s: kind %d anchor %d means %d (got %d %d %d)", c->name, c->kind, c->anchor,
		  c->means, e->kind, e->anchor, e->means);
	if (c->pmu)
		tap_ok_at(c->line, !strcmp(e->pmu, c->pmu), "%s: pmu %s (got %s)", c->name,
			  c->pmu, e->pmu);
	tap_ok_at(c->line, !strcmp(e->name, c->name) && e->encoding[0] &&
		  (!c->enc || contains(e->encoding, c->enc)),
		  "%s: name kept, encoding '%s'%s%s", c->name, e->encoding,
		  c->enc ? " has " : "", c->enc ? c->enc : "");
	tap_ok_at(c->line, !strcmp(e->unsupported, c->unsupported ? c->unsupported : ""),
		  "%s: unsupported '%s'", c->name, e->unsupported);
	tap_ok_at(c->line, e->attr.exclude_kernel == !kernel && e->attr.exclude_hv == 1 &&
		  e->attr.exclude_user == 0 && e->attr.disabled == 0 && e->attr.read_format == 0 &&
		  e->attr.size == sizeof(e->attr),
		  "%s: user%s only, hv excluded, not disabled, no read_format", c->name,
		  kernel ? "+kernel" : "");
}

static void check_cases(const struct enc_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++)
		check_case(&cases[i], false);
}

static int find(const struct pmb_event_plan *p, const char *name)
{
	for (int e = 0; e < p->nev; e++)
		if (!strcmp(p->ev[e].name, name))
			return e;
	return -1;
}

static const struct pmb_derived *derived(const struct pmb_event_plan *p, const char *name)
{
	for (int d = 0; d < p->nder; d++)
		if (!strcmp(p->der[d].name, name))
			return &p->der[d];
	return NULL;
}

static bool has_derived(const struct pmb_event_plan *p, const char *name, const char *num,
			const char *den, double scale)
{
	const struct pmb_derived *d = derived(p, name);

	return d && d->num == find(p, num) && d->num >= 0 &&
	       (den ? d->den == find(p, den) && d->den >= 0 : d->den == -1) && d->scale == scale;
}

/* A list and a derived figure it must get (num and den: event names; den
 * NULL: per item), or must not get (num NULL). */
struct der_case {
	int line;
	const char *list;
	const char *fig;
	const char *num, *den;
	double scale;
};

static void check_derived_cases(const struct der_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct der_case *c = &cases[i];
		struct pmb_event_plan p;
		const struct pmb_derived *d;
		int err = pmb__events_resolve(c->list, -1, false, &p);

		d = err ? NULL : derived(&p, c->fig);
		if (c->num)
			tap_ok_at(c->line, has_derived(&p, c->fig, c->num, c->den, c->scale),
				  "%s: %s = %s / %s * %g (err %d '%s', got %d / %d)", c->list, c->fig, c->num,
				  c->den ? c->den : "items", c->scale, err, pmb__events_error(),
				  d ? d->num : -9, d ? d->den : -9);
		else
			tap_ok_at(c->line, err == 0 && !d, "%s: no %s (err %d '%s')", c->list, c->fig, err,
				  pmb__events_error());
	}
}

/* Derived figures find their events by what they count, not only by name:
 * the PMU's own cycles and instructions give ipc. */
static const struct der_case skx_derived[] = {
	{ SRC_LINE, "skx::UNHALTED_CORE_CYCLES,skx::INST_RETIRED:ANY_P", "ipc",
	  "skx::INST_RETIRED:ANY_P", "skx::UNHALTED_CORE_CYCLES", 1 },
	{ SRC_LINE, "UNHALTED_CORE_CYCLES,INST_RETIRED:ANY_P,BR_INST_RETIRED:ALL_BRANCHES,"
		    "BR_MISP_RETIRED:ALL_BRANCHES", "ipc", "INST_RETIRED:ANY_P", "UNHALTED_CORE_CYCLES", 1 },
	{ SRC_LINE, "UNHALTED_CORE_CYCLES,INST_RETIRED:ANY_P,BR_INST_RETIRED:ALL_BRANCHES,"
		    "BR_MISP_RETIRED:ALL_BRANCHES", "mpki", "BR_MISP_RETIRED:ALL_BRANCHES", "INST_RETIRED:ANY_P", 1000 },
	{ SRC_LINE, "UNHALTED_CORE_CYCLES,INST_RETIRED:ANY_P,BR_INST_RETIRED:ALL_BRANCHES,"
		    "BR_MISP_RETIRED:ALL_BRANCHES", "mispredict_ratio", "BR_MISP_RETIRED:ALL_BRANCHES",
	  "BR_INST_RETIRED:ALL_BRANCHES", 1 },
	{ SRC_LINE, "rc0,r3c", "ipc", "rc0", "r3c", 1 },
	{ SRC_LINE, "l1d-misses,INST_RETIRED:ANY_P", "l1d_mpki", "l1d-misses", "INST_RETIRED:ANY_P", 1000 },
	/* a name in the plan wins over an event that only means the same */
	{ SRC_LINE, "UNHALTED_CORE_CYCLES,cycles,INST_RETIRED:ANY_P", "ipc", "INST_RETIRED:ANY_P", "cycles", 1 },
	{ SRC_LINE, "INST_RETIRED:ANY_P,BR_MISP_RETIRED:ALL_BRANCHES,branch-misses", "mpki", "branch-misses",
	  "INST_RETIRED:ANY_P", 1000 },
	/* cycles with a misprediction (c=1) are no branch misses */
	{ SRC_LINE, "INST_RETIRED:ANY_P,BR_MISP_RETIRED:ALL_BRANCHES:c=1", "mpki" },
	{ SRC_LINE, "UNHALTED_CORE_CYCLES,task-clock", "ipc" },
};

static void test_sets(void)
{
	static const char *branch[] = { "cycles", "instructions", "branches", "branch-misses" };
	static const char *cache[] = { "l1d-misses", "l2-misses", "llc-misses", "cycles", "instructions" };
	struct pmb_event_plan p;
	int err;

	err = pmb__events_resolve("@branch", -1, false, &p);
	tap_ok(err == 0 && p.nev == 4, "@branch: 4 events (err %d %s)", err, pmb__events_error());
	for (int i = 0; i < 4 && p.nev == 4; i++)
		tap_ok(!strcmp(p.ev[i].name, branch[i]), "@branch event %d is %s", i, branch[i]);
	tap_ok(p.nder == 3, "@branch: 3 derived figures (got %d)", p.nder);
	tap_ok(has_derived(&p, "ipc", "instructions", "cycles", 1), "@branch: ipc = instructions / cycles");
	tap_ok(has_derived(&p, "mpki", "branch-misses", "instructions", 1000),
	       "@branch: mpki = branch-misses * 1000 / instructions");
	tap_ok(has_derived(&p, "mispredict_ratio", "branch-misses", "branches", 1),
	       "@branch: mispredict_ratio = branch-misses / branches");
	tap_ok(p.ev[0].anchor && p.ev[1].anchor && !p.ev[2].anchor, "@branch: cycles and instructions anchor");

	err = pmb__events_resolve("@cache", -1, false, &p);
	tap_ok(err == 0 && p.nev == 5, "@cache: 5 events (err %d %s)", err, pmb__events_error());
	for (int i = 0; i < 5 && p.nev == 5; i++)
		tap_ok(!strcmp(p.ev[i].name, cache[i]), "@cache event %d is %s", i, cache[i]);
	tap_ok(has_derived(&p, "ipc", "instructions", "cycles", 1), "@cache: ipc");
	tap_ok(has_derived(&p, "l1d_mpki", "l1d-misses", "instructions", 1000), "@cache: l1d_mpki");
	tap_ok(has_derived(&p, "l2_mpki", "l2-misses", "instructions", 1000), "@cache: l2_mpki");
	tap_ok(has_derived(&p, "llc_mpki", "llc-misses", "instructions", 1000), "@cache: llc_mpki");
	tap_ok(!derived(&p, "mpki"), "@cache: no branch figure without branch events");

	err = pmb__events_resolve("@tlb", -1, false, &p);
	tap_ok(err == 0 && find(&p, "dtlb-misses") == 0, "@tlb starts with dtlb-misses");

	err = pmb__events_resolve("@default", -1, false, &p);
	tap_ok(err == 0 && p.nev == 4 && !strcmp(p.ev[3].name, "branch-misses"), "@default is the default list");
	err = pmb__events_resolve(NULL, -1, false, &p);
	tap_ok(err == 0 && p.nev == 4 && !strcmp(p.ev[0].name, "cycles"), "NULL list: PMB_DEFAULT_COUNTERS");

	/* plain lists get the figures of the events they hold */
	err = pmb__events_resolve("instructions,cycles", -1, false, &p);
	tap_ok(err == 0 && p.nder == 1 && has_derived(&p, "ipc", "instructions", "cycles", 1),
	       "plain list with cycles and instructions gets ipc");
	err = pmb__events_resolve("branch-misses,instructions", -1, false, &p);
	tap_ok(err == 0 && p.nder == 1 && has_derived(&p, "mpki", "branch-misses", "instructions", 1000),
	       "plain list gets mpki only");
	err = pmb__events_resolve("br-misp-retired,br-inst-retired", -1, false, &p);
	tap_ok(err == 0 && has_derived(&p, "mispredict_ratio", "br-misp-retired", "br-inst-retired", 1),
	       "mispredict_ratio from the aliases too");
	err = pmb__events_resolve("cycles,task-clock", -1, false, &p);
	tap_ok(err == 0 && p.nder == 0, "no figure without its events");

	/* duplicates */
	err = pmb__events_resolve("cycles,instructions,cycles,cpu-cycles,@branch", -1, false, &p);
	tap_ok(err == 0 && p.nev == 4 && find(&p, "cpu-cycles") < 0,
	       "duplicates (same name, same counter) are kept once: %d events", p.nev);
	err = pmb__events_resolve(" cycles , ,instructions ", -1, false, &p);
	tap_ok(err == 0 && p.nev == 2, "blanks and empty items are ignored");
}

static void test_errors(void)
{
	struct pmb_event_plan p;
	const char *msg;
	int err;

	err = pmb__events_resolve("cycles,BR_MISP_RETIRD", -1, false, &p);
	msg = pmb__events_error();
	if (!msg)
		msg = "";
	tap_ok(err == PMB_EBADEVENT && p.nev == 0, "unknown event: PMB_EBADEVENT, empty plan (%d)", err);
	tap_ok(contains(msg, "'BR_MISP_RETIRD'") && contains(msg, "BR_MISP_RETIRED") &&
	       !strchr(msg, '\n'), "message names it and suggests BR_MISP_RETIRED: %s", msg);
	tap_ok(contains(msg, "BR_INST_RETIRED"), "and another close match: %s", msg);

	err = pmb__events_resolve("brnch-misses", -1, false, &p);
	msg = pmb__events_error();
	tap_ok(err == PMB_EBADEVENT && contains(msg, "branch-misses"), "generic names are suggested: %s", msg);

	err = pmb__events_resolve("l1d-mises", -1, false, &p);
	msg = pmb__events_error();
	tap_ok(err == PMB_EBADEVENT && contains(msg, "l1d-misses"), "aliases are suggested: %s", msg);

	err = pmb__events_resolve("BR_MISP_RETIRED:ALL_BRANCHE", -1, false, &p);
	msg = pmb__events_error();
	tap_ok(err == PMB_EBADEVENT && contains(msg, "BR_MISP_RETIRED:ALL_BRANCHES"),
	       "a bad umask suggests the umasks: %s", msg);

	err = pmb__events_resolve("@nosuchset", -1, false, &p);
	msg = pmb__events_error();
	tap_ok(err == PMB_EBADEVENT && contains(msg, "@nosuchset"), "unknown set: %s", msg);
	err = pmb__events_resolve("@brnch", -1, false, &p);
	msg = pmb__events_error();
	tap_ok(err == PMB_EBADEVENT && contains(msg, "@branch"), "unknown set suggests @branch: %s", msg);

	err = pmb__events_resolve("cycles,instructions,branches,branch-misses,cache-references,"
				 "cache-misses,ref-cycles,bus-cycles,stalled-cycles-frontend,"
				 "stalled-cycles-backend,task-clock,cpu-clock,page-faults,"
				 "minor-faults,major-faults,context-switches", -1, false, &p);
	tap_ok(err == 0 && p.nev == PMB_MAX_EVENTS, "%d events fit (err %d)", PMB_MAX_EVENTS, err);
	err = pmb__events_resolve("cycles,instructions,branches,branch-misses,cache-references,"
				 "cache-misses,ref-cycles,bus-cycles,stalled-cycles-frontend,"
				 "stalled-cycles-backend,task-clock,cpu-clock,page-faults,"
				 "minor-faults,major-faults,context-switches,cpu-migrations", -1, false, &p);
	msg = pmb__events_error();
	tap_ok(err == -E2BIG && p.nev == 0 && contains(msg, "16"), "one more: -E2BIG: %s", msg);
}

static void test_kernel(void)
{
	struct pmb_event_plan p;
	int err = pmb__events_resolve("cycles,r1c4,BR_MISP_RETIRED,l1d-misses,task-clock", -1, true, &p);
	bool ok = err == 0 && p.nev == 5 && p.kernel;

	for (int e = 0; ok && e < p.nev; e++)
		ok = !p.ev[e].attr.exclude_kernel && !p.ev[e].attr.exclude_user && p.ev[e].attr.exclude_hv;
	tap_ok(ok, "--kernel: every kind counts user and kernel, never hv (err %d)", err);
	err = pmb__events_resolve("BR_MISP_RETIRED:k", -1, false, &p);
	tap_ok(err == 0 && !p.ev[0].attr.exclude_kernel && p.ev[0].attr.exclude_user,
	       "an explicit :k modifier wins over the default");
}

struct listed {
	int n, bad, found_event, found_umask, found_generic, found_alias, found_set;
	const char *pattern;
};

static void on_event(void *ctx, const char *pmu, const char *name, const char *desc)
{
	struct listed *l = ctx;

	l->n++;
	/* as --counters compares names: case ignored, '_' equal to '-' */
	if (l->pattern && !pmb__near_contains(name, l->pattern))
		l->bad++;
	if (!desc || !pmu)
		l->bad++;
	if (!strcmp(pmu, "skx") && !strcmp(name, "BR_MISP_RETIRED") && desc[0])
		l->found_event++;
	if (!strcmp(pmu, "skx") && !strcmp(name, "BR_MISP_RETIRED:ALL_BRANCHES"))
		l->found_umask++;
	if (!strcmp(pmu, "perf") && !strcmp(name, "branch-misses"))
		l->found_generic++;
	if (!strcmp(pmu, "alias") && !strcmp(name, "br-misp-retired") && contains(desc, "BR_MISP_RETIRED"))
		l->found_alias++;
	if (!strcmp(pmu, "set") && !strcmp(name, "@branch"))
		l->found_set++;
}

static void test_list(void)
{
	struct listed l;
	int n;

	memset(&l, 0, sizeof(l));
	l.pattern = "br_misp";
	n = pmb__events_list("br_misp", on_event, &l);
	tap_ok(n == l.n && n >= 2 && !l.bad, "list br_misp: %d events, all matching, with descriptions", n);
	tap_ok(l.found_event == 1 && l.found_umask == 1, "... BR_MISP_RETIRED and its umask :ALL_BRANCHES");

	memset(&l, 0, sizeof(l));
	n = pmb__events_list(NULL, on_event, &l);
	tap_ok(n == l.n && n > 100 && l.found_generic == 1 && l.found_alias == 1 && l.found_set == 1,
	       "list all: %d entries with generic names, aliases (with this PMU's event) and sets", n);

	memset(&l, 0, sizeof(l));
	n = pmb__events_list("no_such_event_anywhere", on_event, &l);
	tap_ok(n == 0 && l.n == 0, "list of a pattern matching nothing: 0");
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw);

/* A made-up hybrid machine: cpu_core owns cpus 0-1, cpu_atom cpus 2-3. */
static void test_hybrid(const char *tmp)
{
	static const struct {
		const char *dir, *cpus, *type;
	} pmu[] = { { "cpu_core", "0-1", "4" }, { "cpu_atom", "2-3,6", "10" } };
	char path[4200];
	struct pmb_event_plan p;
	int err;

	snprintf(path, sizeof(path), "%s/sys", tmp);
	mkdir(path, 0700);
	for (int i = 0; i < 2; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/sys/%s", tmp, pmu[i].dir);
		mkdir(path, 0700);
		snprintf(path, sizeof(path), "%s/sys/%s/cpus", tmp, pmu[i].dir);
		if ((f = fopen(path, "w")))
			fprintf(f, "%s\n", pmu[i].cpus), fclose(f);
		snprintf(path, sizeof(path), "%s/sys/%s/type", tmp, pmu[i].dir);
		if ((f = fopen(path, "w")))
			fprintf(f, "%s\n", pmu[i].type), fclose(f);
	}
	snprintf(path, sizeof(path), "%s/sys", tmp);
	pmb__events_set_sysfs_root(path);

	err = pmb__events_resolve("cycles,r1c4,task-clock,L1-dcache-load-misses", 1, false, &p);
	tap_ok(err == 0 && p.nev == 4, "hybrid cpu 1: resolves (err %d %s)", err, pmb__events_error());
	tap_ok(p.ev[0].attr.type == PERF_TYPE_HARDWARE && p.ev[0].attr.config == (4ull << 32 | 0),
	       "hybrid cpu 1: cycles carries cpu_core's type 4 in config[63:32] (%#llx)",
	       (unsigned long long)p.ev[0].attr.config);
	tap_ok(p.ev[0].anchor, "hybrid cycles is still an anchor");
	tap_ok(p.ev[1].attr.type == 4 && p.ev[1].attr.config == 0x1c4, "hybrid raw event: type is the PMU's");
	tap_ok(p.ev[2].attr.type == PERF_TYPE_SOFTWARE && p.ev[2].attr.config == 1,
	       "software events are not extended");
	tap_ok(p.ev[3].attr.config == (4ull << 32 | 0x10000), "hw-cache events are extended");

	err = pmb__events_resolve("cycles", 6, false, &p);
	tap_ok(err == 0 && p.ev[0].attr.config == 10ull << 32 && !strcmp(p.pmu_name, "cpu_atom"),
	       "hybrid cpu 6: cpu_atom's type 10, pmu_name %s", p.pmu_name);
	err = pmb__events_resolve("cycles", -1, false, &p);
	tap_ok(err == 0 && p.ev[0].attr.config == 4ull << 32 && !strcmp(p.pmu_name, "cpu_core"),
	       "hybrid, no cpu: cpu_core (%s)", p.pmu_name);
	err = pmb__events_resolve("cycles,instructions,r3c,r1c4", 1, false, &p);
	tap_ok(err == 0 && p.nev == 4 && p.ev[0].means == PMB_MEANS_CYCLES &&
	       p.ev[1].means == PMB_MEANS_INSTRUCTIONS && p.ev[2].attr.type == 4 &&
	       p.ev[2].means == PMB_MEANS_CYCLES && p.ev[2].anchor && p.ev[3].means == PMB_MEANS_OTHER,
	       "hybrid: meanings of extended generic and of raw codes of the PMU's type");

	char kernel[512], want[4400];

	pmb__events_kernel_pmu(kernel, sizeof(kernel));
	tap_ok(!strcmp(kernel, "the kernel's cpu PMU: cpu_atom"), "--topology: a hybrid kernel's cpu PMU named (%s)",
	       kernel);
	pmb__events_set_sysfs_root(no_sysfs);
	pmb__events_kernel_pmu(kernel, sizeof(kernel));
	snprintf(want, sizeof(want), "the kernel exposes no cpu PMU (%s: nothing)", no_sysfs);
	tap_ok(!strcmp(kernel, want), "--topology: no PMU in sysfs, said with the folder read (%s)", kernel);
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/sys/%s", tmp, i ? "tracepoint" : "software");
		mkdir(path, 0700);
		snprintf(path, sizeof(path), "%s/sys/%s", tmp, pmu[i].dir);
		nftw(path, remove_one, 4, FTW_DEPTH | FTW_PHYS);
	}
	snprintf(path, sizeof(path), "%s/sys", tmp);
	pmb__events_set_sysfs_root(path);
	pmb__events_kernel_pmu(kernel, sizeof(kernel));
	snprintf(want, sizeof(want), "the kernel exposes no cpu PMU (%s: software, tracepoint)", path);
	tap_ok(!strcmp(kernel, want), "--topology: a kernel without a cpu PMU: what it exposes, sorted (%s)", kernel);
	pmb__events_set_sysfs_root(no_sysfs);
}

static void remove_in(const char *dir, const char *rel)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	remove(path);
}

static int write_file(const char *dir, const char *name, const char *text)
{
	char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!(f = fopen(path, "w")))
		return -errno;
	fputs(text, f);
	fclose(f);
	return 0;
}

static void bad_table(const char *tmp, const char *aliases, const char *sets, const char *where,
		      const char *what)
{
	int err;

	write_file(tmp, "aliases.txt", aliases);
	write_file(tmp, "sets.txt", sets);
	err = pmb__events_init(tmp);
	tap_ok(err == PMB_EBADTABLE && contains(pmb__events_error(), where),
	       "%s: PMB_EBADTABLE naming %s (%d: %s)", what, where, err, pmb__events_error());
}

static void test_tables(const char *tmp)
{
	static const char good_sets[] = "set s cycles\n";
	static const char good_aliases[] = "# ok\nmap foo skl CYCLE_ACTIVITY:STALLS_TOTAL\n";
	struct pmb_event_plan p;
	int err;

	bad_table(tmp, "# c\n\nmap l1d-misses skx\n", good_sets, "/aliases.txt:3:", "map with a field missing");
	bad_table(tmp, "frob x y z\n", good_sets, "/aliases.txt:1:", "unknown keyword");
	bad_table(tmp, "map cycles skx X\n", good_sets, "/aliases.txt:1:", "alias hiding a generic name");
	bad_table(tmp, "map a skx X\nmap a clx,skx Y\n", good_sets, "/aliases.txt:2:", "mapped twice");
	bad_table(tmp, good_aliases, "set a cycles\n\nderive ipc = instructions cycles\n",
		  "/sets.txt:3:", "derive without '/'");
	bad_table(tmp, good_aliases, "derive x = a / b * zero\n", "/sets.txt:1:", "derive with a bad scale");
	bad_table(tmp, good_aliases, "set a cycles\nset a instructions\n", "/sets.txt:2:", "set defined twice");
	bad_table(tmp, good_aliases, "set a cycles,@b\n", "/sets.txt:1:", "set using an unknown set");

	/* good tables in the temp dir: an alias with no row for skx, a set
	 * that nests itself, a per-item figure */
	write_file(tmp, "aliases.txt", "map foo skl CYCLE_ACTIVITY:STALLS_TOTAL\n"
				       "map misses * branch-misses\nmap brs skx BR_INST_RETIRED:ALL_BRANCHES\n");
	write_file(tmp, "sets.txt", "set loop cycles,@loop\nset s cycles, instructions\n"
				    "derive cpi = cycles / instructions\nderive per_item = cycles / items * 2\n"
				    "derive miss_rate = misses / items\nderive br_rate = brs / items\n");
	err = pmb__events_init(tmp);
	tap_ok(err == 0 && !strcmp(pmb__events_dir(), tmp), "temp tables load (%d %s)", err, pmb__events_error());
	err = pmb__events_resolve("foo", -1, false, &p);
	tap_ok(err == PMB_EBADEVENT && contains(pmb__events_error(), "'foo'") &&
	       contains(pmb__events_error(), "skx"), "alias without a row for this PMU: %s", pmb__events_error());
	err = pmb__events_resolve("@loop", -1, false, &p);
	tap_ok(err == PMB_EBADEVENT && contains(pmb__events_error(), "@loop"), "a set including itself: %s",
	       pmb__events_error());
	err = pmb__events_resolve("@s", -1, false, &p);
	tap_ok(err == 0 && p.nev == 2 && p.nder == 2 && has_derived(&p, "cpi", "cycles", "instructions", 1) &&
	       has_derived(&p, "per_item", "cycles", NULL, 2), "derive rules of the table, 'items' is -1");
	/* an alias's '*' row says what it counts, its PMU rows do not */
	err = pmb__events_resolve("UNHALTED_CORE_CYCLES,INST_RETIRED:ANY_P,BR_MISP_RETIRED:ALL_BRANCHES", -1,
				 false, &p);
	tap_ok(err == 0 && p.nder == 3 && has_derived(&p, "cpi", "UNHALTED_CORE_CYCLES", "INST_RETIRED:ANY_P", 1) &&
	       has_derived(&p, "per_item", "UNHALTED_CORE_CYCLES", NULL, 2) &&
	       has_derived(&p, "miss_rate", "BR_MISP_RETIRED:ALL_BRANCHES", NULL, 1),
	       "operands by meaning, an alias through its '*' row (%d %s, %d figures)", err,
	       pmb__events_error(), p.nder);
	err = pmb__events_resolve("BR_INST_RETIRED:ALL_BRANCHES", -1, false, &p);
	tap_ok(err == 0 && p.nder == 0, "an alias without a '*' row matches by name only");
	err = pmb__events_resolve("brs", -1, false, &p);
	tap_ok(err == 0 && has_derived(&p, "br_rate", "brs", NULL, 1), "and by name it does");

	remove_in(tmp, "aliases.txt");
	err = pmb__events_init(tmp);
	tap_ok(err == PMB_ENOTABLE, "a folder without tables: PMB_ENOTABLE (%d)", err);
	remove_in(tmp, "sets.txt");
}

/* ---- made-up sysfs trees ------------------------------------------------------ */

/* One file of a fake /sys/bus/event_source/devices, as the kernel writes it
 * (a trailing newline is added). */
struct sysfs_file {
	const char *path, *text;
};

/* QEMU's -cpu cortex-a57 guest: its PMU implements SW_INCR, INST_RETIRED
 * (with -icount) and CPU_CYCLES; the armv8 driver lists only those. */
static const struct sysfs_file qemu_tree[] = {
	{ "armv8_pmuv3/type", "8" },
	{ "armv8_pmuv3/cpus", "0-3" },
	{ "armv8_pmuv3/format/event", "config:0-15" },
	{ "armv8_pmuv3/events/sw_incr", "event=0x0000" },
	{ "armv8_pmuv3/events/inst_retired", "event=0x0008" },
	{ "armv8_pmuv3/events/cpu_cycles", "event=0x0011" },
	{ "software/type", "1" },
};

/* An Armv8.0 core libpfm4 4.13 has no tables for (a Cortex-A72, say): no
 * BR_RETIRED or BR_MIS_PRED_RETIRED; one event of the 0x4000 range. */
static const struct sysfs_file a72_tree[] = {
	{ "armv8_cortex_a72/type", "10" },
	{ "armv8_cortex_a72/cpus", "0-5" },
	{ "armv8_cortex_a72/events/sw_incr", "event=0x0000" },
	{ "armv8_cortex_a72/events/l1d_cache_refill", "event=0x0003" },
	{ "armv8_cortex_a72/events/l1d_cache", "event=0x0004" },
	{ "armv8_cortex_a72/events/inst_retired", "event=0x0008" },
	{ "armv8_cortex_a72/events/br_mis_pred", "event=0x0010" },
	{ "armv8_cortex_a72/events/cpu_cycles", "event=0x0011" },
	{ "armv8_cortex_a72/events/br_pred", "event=0x0012" },
	{ "armv8_cortex_a72/events/l2d_cache_refill", "event=0x0017" },
	{ "armv8_cortex_a72/events/sample_pop", "event=0x4000" },
};

/* Every event the armv8_pmuv3 rows of aliases.txt name, and more. */
static const struct sysfs_file full_tree[] = {
	{ "armv8_pmuv3_0/type", "9" },
	{ "armv8_pmuv3_0/events/l1d_cache_refill", "event=0x0003" },
	{ "armv8_pmuv3_0/events/l1d_cache", "event=0x0004" },
	{ "armv8_pmuv3_0/events/inst_retired", "event=0x0008" },
	{ "armv8_pmuv3_0/events/br_mis_pred", "event=0x0010" },
	{ "armv8_pmuv3_0/events/cpu_cycles", "event=0x0011" },
	{ "armv8_pmuv3_0/events/br_pred", "event=0x0012" },
	{ "armv8_pmuv3_0/events/l2d_cache_refill", "event=0x0017" },
	{ "armv8_pmuv3_0/events/br_retired", "event=0x0021" },
	{ "armv8_pmuv3_0/events/br_mis_pred_retired", "event=0x0022" },
	{ "armv8_pmuv3_0/events/stall_backend", "event=0x0024" },
	{ "armv8_pmuv3_0/events/dtlb_walk", "event=0x0034" },
	{ "armv8_pmuv3_0/events/ll_cache_rd", "event=0x0036" },
	{ "armv8_pmuv3_0/events/ll_cache_miss_rd", "event=0x0037" },
};

/* big.LITTLE: one PMU per cluster. */
static const struct sysfs_file biglittle_tree[] = {
	{ "armv8_cortex_a53/type", "8" },
	{ "armv8_cortex_a53/cpus", "0-3" },
	{ "armv8_cortex_a53/events/cpu_cycles", "event=0x0011" },
	{ "armv8_cortex_a72/type", "9" },
	{ "armv8_cortex_a72/cpus", "4-5" },
	{ "armv8_cortex_a72/events/cpu_cycles", "event=0x0011" },
};

/* x86: cpu/events/ holds perf's aliases, not what the core implements. */
static const struct sysfs_file x86_tree[] = {
	{ "cpu/type", "4" },
	{ "cpu/events/branch-instructions", "event=0xc4" },
	{ "cpu/events/branch-misses", "event=0xc5" },
	{ "cpu/events/cpu-cycles", "event=0x3c" },
	{ "cpu/events/instructions", "event=0xc0" },
	{ "cpu/events/ref-cycles", "event=0x00,umask=0x03" },
};

static char tmp_dir[] = "/tmp/pmb_test_events.XXXXXX";
static char qemu_sys[4200], a72_sys[4200], full_sys[4200], bl_sys[4200],
	x86_sys[4200];

#define NFILES(t) (sizeof(t) / sizeof((t)[0]))

/* Write the files of tree under tmp_dir/name (folders made as needed) into
 * out; false if some could not be written. */
static bool make_sysfs(const char *name, const struct sysfs_file *tree, size_t n, char *out)
{
	bool ok = true;

	snprintf(out, 4200, "%s/%s", tmp_dir, name);
	mkdir(out, 0700);
	for (size_t i = 0; i < n; i++) {
		char path[4400], *slash;
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s", out, tree[i].path);
		for (slash = strchr(path + strlen(out) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
			*slash = '\0';
			mkdir(path, 0700);
			*slash = '/';
		}
		if (!(f = fopen(path, "w"))) {
			ok = false;
			continue;
		}
		fprintf(f, "%s\n", tree[i].text);
		fclose(f);
	}
	return ok;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

/* ---- which PMUs this build can force ------------------------------------------ */

/* libpfm4 builds an architecture's PMUs into that architecture's library
 * only: LIBPFM_FORCE_PMU=arm_ac57 finds nothing on x86, skx nothing on
 * aarch64.  Where a PMU must be there, its absence is a failure. */
#if defined(__x86_64__) || defined(__i386__)
static const bool x86_pmus = true, arm_pmus = false;
#elif defined(__aarch64__)
static const bool x86_pmus = false, arm_pmus = true;
#else
static const bool x86_pmus = false, arm_pmus = false;
#endif

/* In a child under LIBPFM_FORCE_PMU=want: whether libpfm4 made it the core
 * PMU; if not, one skip, or a failure where expected. */
static bool have_pmu(const char *want, bool expected)
{
	struct pmb_event_plan p;

	pmb__events_resolve("task-clock", -1, false, &p);
	if (!strcmp(p.pmu_name, want))
		return true;
	if (expected)
		tap_ok(0, "libpfm4 of this build encodes for %s (plan PMU '%s')", want, p.pmu_name);
	else
		tap_skip("this build's libpfm4 has no %s: each architecture's PMUs are only in its own libpfm4",
			 want);
	return false;
}

/* ---- alias rows against libpfm ------------------------------------------------ */

/* Every row of aliases.txt for the forced PMU encodes with this libpfm,
 * on that PMU, as an event it implements. */
static const char *cur_pmu;

static int check_rows_of_pmu(void)
{
	char path[4200], line[1024];
	int checked = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/aliases.txt", events_dir);
	if (!(f = fopen(path, "r")))
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char kw[16], name[64], pmus[512], ev[256], *save, *pmu;
		struct pmb_event_plan p;
		int err;

		if (sscanf(line, "%15s %63s %511s %255s", kw, name, pmus, ev) != 4 || strcmp(kw, "map"))
			continue;
		for (pmu = strtok_r(pmus, ",", &save); pmu; pmu = strtok_r(NULL, ",", &save)) {
			if (strcmp(pmu, cur_pmu))
				continue;
			err = pmb__events_resolve(name, -1, false, &p);
			if (strcmp(p.pmu_name, cur_pmu))
				break; /* adl_*: not in libpfm4 4.13 */
			checked++;
			tap_ok(err == 0 && !strcmp(p.ev[0].pmu, cur_pmu) && p.ev[0].attr.config &&
			       !p.ev[0].unsupported[0],
			       "alias %s encodes on %s as %s (%d %s%s)", name, cur_pmu,
			       p.ev[0].encoding, err, pmb__events_error(), p.ev[0].unsupported);
		}
	}
	fclose(f);
	return checked;
}

static void test_alias_rows(void)
{
	static const char *const pmus[] = {
		"skl", "skx", "clx", "icl", "icx", "spr", "amd64_fam17h", "amd64_fam17h_zen1",
		"amd64_fam17h_zen2", "amd64_fam19h_zen3", "amd64_fam19h_zen4",
		"arm_ac53", "arm_ac57", "arm_a64fx", "arm_kunpeng", "arm_n1", "arm_n2",
		"arm_thunderx2", "arm_v1", "arm_v2", "arm_xgene",
	};
	/* Under memcheck (test_memcheck.py sets PMB_TEST_MEMCHECK) one PMU of
	 * each vendor: every PMU's rows take the same code, and each forced PMU
	 * is a process of its own that starts libpfm4 and reads the tables
	 * again, most of this test's time under valgrind.  The native run and
	 * the aarch64 guest (the only check of the Arm rows) check them all. */
	static const char *const one_each[] = { "skx", "amd64_fam19h_zen3", "arm_ac57" };
	bool few = getenv("PMB_TEST_MEMCHECK") != NULL;
	int x86 = 0, arm = 0;

	for (size_t i = 0; i < sizeof(pmus) / sizeof(pmus[0]); i++) {
		int n;

		if (few) {
			bool keep = false;

			for (size_t j = 0; j < sizeof(one_each) / sizeof(one_each[0]); j++)
				keep |= !strcmp(pmus[i], one_each[j]);
			if (!keep)
				continue;
		}
		cur_pmu = pmus[i];
		n = under_pmu(pmus[i], check_rows_of_pmu);
		if (!strncmp(pmus[i], "arm_", 4))
			arm += n;
		else
			x86 += n;
	}
	if (few) {
		tap_skip("the number of alias rows checked (%d Intel and AMD, %d Arm): PMB_TEST_MEMCHECK, one PMU "
			 "of each vendor; the native run counts every PMU's", x86, arm);
		return;
	}
	if (x86_pmus)
		tap_ok(x86 >= 80, "%d Intel and AMD alias rows checked against libpfm", x86);
	else
		tap_skip("Intel and AMD alias rows: no x86 PMUs in this build's libpfm4 (%d checked)", x86);
	if (arm_pmus)
		tap_ok(arm >= 70, "%d Arm alias rows checked against libpfm", arm);
	else
		tap_skip("Arm alias rows: no Arm PMUs in this build's libpfm4 (%d checked)", arm);
}

/* ---- suites, one process per forced PMU -------------------------------------- */

static int skx_suite(void)
{
	struct pmb_event_plan p;
	int err;

	if (!have_pmu("skx", x86_pmus))
		return 0;
	err = pmb__events_resolve("cycles", -1, false, &p);
	tap_ok(err == 0 && !strcmp(p.pmu_name, "skx") && contains(p.pmu_desc, "Skylake") &&
	       p.pmu_counters >= 4 && p.pmu_fixed == 3,
	       "plan PMU: %s '%s', %d counters, %d fixed", p.pmu_name, p.pmu_desc, p.pmu_counters,
	       p.pmu_fixed);
	check_cases(generic_cases, sizeof(generic_cases) / sizeof(generic_cases[0]));
	check_cases(skx_cases, sizeof(skx_cases) / sizeof(skx_cases[0]));
	check_case(&generic_cases[0], true);
	check_case(&skx_cases[0], true);
	test_sets();
	check_derived_cases(skx_derived, sizeof(skx_derived) / sizeof(skx_derived[0]));
	test_errors();
	test_kernel();
	test_list();
	test_hybrid(tmp_dir);

	/* x86's cpu/events/ is no list of what the core implements, and an
	 * Arm PMU in sysfs is no business of an x86 core's */
	pmb__events_set_sysfs_root(x86_sys);
	err = pmb__events_resolve("r1c4,BR_MISP_RETIRED:CONDITIONAL,rc5,UNHALTED_CORE_CYCLES", -1, false, &p);
	tap_ok(err == 0 && p.nev == 4 && !p.ev[0].unsupported[0] && !p.ev[1].unsupported[0] &&
	       !p.ev[2].unsupported[0] && p.ev[2].means == PMB_MEANS_BRANCH_MISSES && p.ev[3].anchor,
	       "skx with an x86 sysfs: nothing judged from cpu/events/ (%d %s)", err, pmb__events_error());
	pmb__events_set_sysfs_root(a72_sys);
	err = pmb__events_resolve("r10,r21", -1, false, &p);
	tap_ok(err == 0 && p.nev == 2 && !strcmp(p.pmu_name, "skx") && !p.ev[0].unsupported[0] &&
	       !p.ev[1].unsupported[0] && p.ev[0].means == PMB_MEANS_OTHER &&
	       p.ev[1].means == PMB_MEANS_OTHER,
	       "skx with an Arm PMU in sysfs: r10, r21 are Intel codes, not judged (%s)", p.pmu_name);
	pmb__events_set_sysfs_root(no_sysfs);

	test_tables(tmp_dir);
	return 0;
}

static int zen1_suite(void)
{
	struct pmb_event_plan p;
	int err;

	if (!have_pmu("amd64_fam17h", x86_pmus))
		return 0;
	err = pmb__events_resolve("cycles", -1, false, &p);
	tap_ok(err == 0 && !strcmp(p.pmu_name, "amd64_fam17h") && p.pmu_counters == 6 && p.pmu_fixed == 0,
	       "plan PMU: %s, %d counters, %d fixed", p.pmu_name, p.pmu_counters, p.pmu_fixed);
	check_cases(zen1_cases, sizeof(zen1_cases) / sizeof(zen1_cases[0]));
	check_cases(generic_cases, sizeof(generic_cases) / sizeof(generic_cases[0]));
	err = pmb__events_resolve("BR_MISP_RETIRED:ALL_BRANCHES", -1, false, &p);
	tap_ok(err == PMB_EBADEVENT, "an Intel event is unknown on AMD: %s", pmb__events_error());
	err = pmb__events_resolve("BR_MIS_PRED", -1, false, &p);
	tap_ok(err == PMB_EBADEVENT, "an Arm name is unknown on AMD: %s", pmb__events_error());
	err = pmb__events_resolve("@branch,@cache", -1, false, &p);
	tap_ok(err == 0 && p.nev == 7, "@branch,@cache resolve on Zen 1 (%d %s)", err, pmb__events_error());
	return 0;
}

/* A table of cases under one forced PMU. */
static const struct pmu_cases {
	const char *pmu;
	const struct enc_case *cases;
	size_t n;
} *cur_cases;

static int cases_suite(void)
{
	if (have_pmu(cur_cases->pmu, !strncmp(cur_cases->pmu, "arm_", 4) ? arm_pmus : x86_pmus))
		check_cases(cur_cases->cases, cur_cases->n);
	return 0;
}

/* libpfm4's Cortex-A57 with QEMU's sysfs beside it, as in the guest: the
 * kernel's list decides. */
static const struct enc_case ac57_qemu_cases[] = {
	{ SRC_LINE, "CPU_CYCLES", RAW, 0x11, 0, PMB_EV_HW, true, CYC, "arm_ac57" },
	{ SRC_LINE, "INST_RETIRED", RAW, 0x08, 0, PMB_EV_HW, true, INS, "arm_ac57" },
	{ SRC_LINE, "BR_MIS_PRED", RAW, 0x10, 0, PMB_EV_HW, false, BRM, "arm_ac57",
	  .unsupported = "armv8_pmuv3 does not implement BR_MIS_PRED (event 0x10 is not in its sysfs events/, which a hypervisor may trim)" },
	{ SRC_LINE, "BR_MISP_RETIRED", RAW, 0x10, 0, PMB_EV_HW, false, BRM, "arm_ac57",
	  .enc = "(as alias br-misp-retired)",
	  .unsupported = "armv8_pmuv3 does not implement BR_MIS_PRED (event 0x10 is not in its sysfs events/, which a hypervisor may trim)" },
	{ SRC_LINE, "r8", RAW, 0x08, 0, PMB_EV_HW, true, INS, "arm_ac57" },
	{ SRC_LINE, "r40", RAW, 0x40, 0, PMB_EV_HW, false, OTH, "arm_ac57" },
	{ SRC_LINE, "branch-misses", HW, 5, 0, PMB_EV_HW, false, BRM, "perf" },
};

static const struct der_case ac57_derived[] = {
	{ SRC_LINE, "arm_ac57::CPU_CYCLES,arm_ac57::INST_RETIRED", "ipc", "arm_ac57::INST_RETIRED",
	  "arm_ac57::CPU_CYCLES", 1 },
	{ SRC_LINE, "CPU_CYCLES,INST_RETIRED,BR_MIS_PRED", "ipc", "INST_RETIRED", "CPU_CYCLES", 1 },
	{ SRC_LINE, "CPU_CYCLES,INST_RETIRED,BR_MIS_PRED", "mpki", "BR_MIS_PRED", "INST_RETIRED", 1000 },
	{ SRC_LINE, "r11,r8", "ipc", "r8", "r11", 1 },
	/* BR_PRED counts wrong-path branches too: no branches, so no ratio */
	{ SRC_LINE, "BR_MIS_PRED,BR_PRED", "mispredict_ratio" },
	/* the aliases' consistent pair, by name */
	{ SRC_LINE, "br-misp-retired,br-inst-retired", "mispredict_ratio", "br-misp-retired",
	  "br-inst-retired", 1 },
};

static int ac57_suite(void)
{
	struct pmb_event_plan p;
	int err;

	if (!have_pmu("arm_ac57", arm_pmus))
		return 0;
	check_cases(ac57_cases, sizeof(ac57_cases) / sizeof(ac57_cases[0]));
	check_cases(generic_cases, sizeof(generic_cases) / sizeof(generic_cases[0]));
	err = pmb__events_resolve("arm_ac57::CPU_CYCLES,arm_ac57::INST_RETIRED,BR_MIS_PRED", -1, false, &p);
	tap_ok(err == 0 && p.nev == 3 && p.ev[0].anchor && p.ev[1].anchor && !p.ev[2].anchor &&
	       p.ev[0].means == PMB_MEANS_CYCLES && p.ev[1].means == PMB_MEANS_INSTRUCTIONS,
	       "arm_ac57::CPU_CYCLES and arm_ac57::INST_RETIRED are the group's two anchors (%d %s)",
	       err, pmb__events_error());
	err = pmb__events_resolve("BR_MIS_PRD", -1, false, &p);
	tap_ok(err == PMB_EBADEVENT && contains(pmb__events_error(), "BR_MIS_PRED"),
	       "a misspelt Arm name gets the architectural one: %s", pmb__events_error());
	check_derived_cases(ac57_derived, sizeof(ac57_derived) / sizeof(ac57_derived[0]));
	pmb__events_set_sysfs_root(qemu_sys);
	check_cases(ac57_qemu_cases, sizeof(ac57_qemu_cases) / sizeof(ac57_qemu_cases[0]));
	pmb__events_set_sysfs_root(no_sysfs);
	return 0;
}

/* No core PMU for libpfm4 (LIBPFM_FORCE_PMU=perf, as on QEMU's -cpu max):
 * the kernel's sysfs Arm PMU is the core's.  Types are the trees'. */
static const struct enc_case a72_cases[] = {
	{ SRC_LINE, "BR_MIS_PRED", 10, 0x10, 0, PMB_EV_HW, false, BRM, "armv8_cortex_a72",
	  .enc = "armv8_cortex_a72/br_mis_pred (sysfs event=0x10)" },
	{ SRC_LINE, "br_mis_pred", 10, 0x10, 0, PMB_EV_HW, false, BRM, "armv8_cortex_a72" },
	{ SRC_LINE, "BR_PRED", 10, 0x12, 0, PMB_EV_HW, false, OTH, "armv8_cortex_a72" },
	{ SRC_LINE, "CPU_CYCLES", 10, 0x11, 0, PMB_EV_HW, true, CYC, "armv8_cortex_a72",
	  .enc = "armv8_cortex_a72/cpu_cycles (sysfs event=0x11)" },
	{ SRC_LINE, "INST_RETIRED", 10, 0x08, 0, PMB_EV_HW, true, INS, "armv8_cortex_a72" },
	{ SRC_LINE, "L1D_CACHE", 10, 0x04, 0, PMB_EV_HW, false, REF, "armv8_cortex_a72" },
	{ SRC_LINE, "L1D_CACHE_REFILL", 10, 0x03, 0, PMB_EV_HW, false, L1M, "armv8_cortex_a72" },
	/* the A72's last level is its L2, but not every core's: a middle level */
	{ SRC_LINE, "L2D_CACHE_REFILL", 10, 0x17, 0, PMB_EV_HW, false, L2M, "armv8_cortex_a72" },
	{ SRC_LINE, "r33", RAW, 0x33, 0, PMB_EV_HW, false, CAM, "armv8_cortex_a72",
	  .unsupported = "armv8_cortex_a72 does not implement LL_CACHE_MISS (event 0x33 is not in its sysfs events/, which a hypervisor may trim)" },
	{ SRC_LINE, "sample_pop", 10, 0x4000, 0, PMB_EV_HW, false, OTH, "armv8_cortex_a72" },
	{ SRC_LINE, "BR_RETIRED", 10, 0x21, 0, PMB_EV_HW, false, BRS, "armv8_cortex_a72",
	  .enc = "raw 0x21 (Arm BR_RETIRED, which armv8_cortex_a72 does not list)",
	  .unsupported = "armv8_cortex_a72 does not implement BR_RETIRED (event 0x21 is not in its sysfs events/, which a hypervisor may trim)" },
	/* the armv8_pmuv3 rows: the first alternative the core implements */
	{ SRC_LINE, "br-misp-retired", 10, 0x10, 0, PMB_EV_HW, false, BRM, "armv8_cortex_a72",
	  .enc = "armv8_cortex_a72/br_mis_pred (sysfs event=0x10)" },
	{ SRC_LINE, "br-inst-retired", 10, 0x12, 0, PMB_EV_HW, false, OTH, "armv8_cortex_a72" },
	{ SRC_LINE, "BR_MISP_RETIRED", 10, 0x10, 0, PMB_EV_HW, false, BRM, "armv8_cortex_a72",
	  .enc = "armv8_cortex_a72/br_mis_pred (sysfs event=0x10) (as alias br-misp-retired)" },
	{ SRC_LINE, "l1d-misses", 10, 0x03, 0, PMB_EV_HW, false, L1M, "armv8_cortex_a72" },
	{ SRC_LINE, "l2-misses", 10, 0x17, 0, PMB_EV_HW, false, L2M, "armv8_cortex_a72" },
	{ SRC_LINE, "llc-loads", 10, 0x36, 0, PMB_EV_HW, false, REF, "armv8_cortex_a72",
	  .unsupported = "armv8_cortex_a72 does not implement LL_CACHE_RD (event 0x36 is not in its sysfs events/, which a hypervisor may trim)" },
	/* raw codes: judged by the list too, within the common ranges only */
	{ SRC_LINE, "r11", RAW, 0x11, 0, PMB_EV_HW, true, CYC, "armv8_cortex_a72" },
	{ SRC_LINE, "r22", RAW, 0x22, 0, PMB_EV_HW, false, BRM, "armv8_cortex_a72",
	  .unsupported = "armv8_cortex_a72 does not implement BR_MIS_PRED_RETIRED (event 0x22 is not in its sysfs events/, which a hypervisor may trim)" },
	{ SRC_LINE, "r4000", RAW, 0x4000, 0, PMB_EV_HW, false, OTH, "armv8_cortex_a72" },
	{ SRC_LINE, "r4007", RAW, 0x4007, 0, PMB_EV_HW, false, OTH, "armv8_cortex_a72",
	  .unsupported = "armv8_cortex_a72 does not implement common event 0x4007 (it is not in its sysfs events/, which a hypervisor may trim)" },
	{ SRC_LINE, "r40", RAW, 0x40, 0, PMB_EV_HW, false, OTH, "armv8_cortex_a72" },
	/* generic events: the kernel refuses what the core lacks (ENOENT) */
	{ SRC_LINE, "cycles", HW, PERF_COUNT_HW_CPU_CYCLES, 0, PMB_EV_HW, true, CYC, "perf" },
	{ SRC_LINE, "branches", HW, 4, 0, PMB_EV_HW, false, BRS, "perf" },
};

static const struct enc_case qemu_cases[] = {
	{ SRC_LINE, "CPU_CYCLES", 8, 0x11, 0, PMB_EV_HW, true, CYC, "armv8_pmuv3",
	  .enc = "armv8_pmuv3/cpu_cycles (sysfs event=0x11)" },
	{ SRC_LINE, "INST_RETIRED", 8, 0x08, 0, PMB_EV_HW, true, INS, "armv8_pmuv3" },
	{ SRC_LINE, "BR_MIS_PRED", 8, 0x10, 0, PMB_EV_HW, false, BRM, "armv8_pmuv3",
	  .enc = "raw 0x10 (Arm BR_MIS_PRED, which armv8_pmuv3 does not list)",
	  .unsupported = "armv8_pmuv3 does not implement BR_MIS_PRED (event 0x10 is not in its sysfs events/, which a hypervisor may trim)" },
	/* implemented: neither alternative; the last is reported */
	{ SRC_LINE, "br-misp-retired", 8, 0x10, 0, PMB_EV_HW, false, BRM, "armv8_pmuv3",
	  .unsupported = "armv8_pmuv3 does not implement BR_MIS_PRED (event 0x10 is not in its sysfs events/, which a hypervisor may trim)" },
	{ SRC_LINE, "br-inst-retired", 8, 0x12, 0, PMB_EV_HW, false, OTH, "armv8_pmuv3",
	  .unsupported = "armv8_pmuv3 does not implement BR_PRED (event 0x12 is not in its sysfs events/, which a hypervisor may trim)" },
	{ SRC_LINE, "branch-misses", HW, 5, 0, PMB_EV_HW, false, BRM, "perf" },
};

/* A core whose sysfs lists the last-level events (Arm ARM: 0x36
 * LL_CACHE_RD, 0x37 LL_CACHE_MISS_RD, what the kernel counts for LLC-loads
 * and LLC-load-misses). */
static const struct enc_case full_cases[] = {
	{ SRC_LINE, "LL_CACHE_MISS_RD", 9, 0x37, 0, PMB_EV_HW, false, LLM, "armv8_pmuv3_0" },
	{ SRC_LINE, "ll_cache_miss_rd", 9, 0x37, 0, PMB_EV_HW, false, LLM, "armv8_pmuv3_0" },
	{ SRC_LINE, "llc-misses", 9, 0x37, 0, PMB_EV_HW, false, LLM, "armv8_pmuv3_0" },
	{ SRC_LINE, "LLC_MISSES", 9, 0x37, 0, PMB_EV_HW, false, LLM, "armv8_pmuv3_0", .enc = "(as alias llc-misses)" },
	{ SRC_LINE, "LL_CACHE_RD", 9, 0x36, 0, PMB_EV_HW, false, REF, "armv8_pmuv3_0" },
	{ SRC_LINE, "L1D_CACHE_REFILL", 9, 0x03, 0, PMB_EV_HW, false, L1M, "armv8_pmuv3_0" },
};

/* Derived figures from the sysfs events (types of the trees). */
static const struct der_case a72_derived[] = {
	{ SRC_LINE, "CPU_CYCLES,INST_RETIRED,BR_MIS_PRED,BR_RETIRED", "ipc", "INST_RETIRED", "CPU_CYCLES", 1 },
	{ SRC_LINE, "CPU_CYCLES,INST_RETIRED,BR_MIS_PRED,BR_RETIRED", "mpki", "BR_MIS_PRED", "INST_RETIRED", 1000 },
	/* the only branch count, though the core lacks it: the figure is n/a */
	{ SRC_LINE, "CPU_CYCLES,INST_RETIRED,BR_MIS_PRED,BR_RETIRED", "mispredict_ratio", "BR_MIS_PRED",
	  "BR_RETIRED", 1 },
	/* an event the core implements before one it lacks (r22) */
	{ SRC_LINE, "r22,BR_MIS_PRED,INST_RETIRED", "mpki", "BR_MIS_PRED", "INST_RETIRED", 1000 },
	{ SRC_LINE, "cpu_cycles,inst_retired", "ipc", "inst_retired", "cpu_cycles", 1 },
};

static const struct der_case qemu_derived[] = {
	{ SRC_LINE, "CPU_CYCLES,INST_RETIRED", "ipc", "INST_RETIRED", "CPU_CYCLES", 1 },
};

struct listed_arm {
	int armv8, found, other;
};

static void on_arm_event(void *ctx, const char *pmu, const char *name, const char *desc)
{
	struct listed_arm *l = ctx;

	if (strcmp(pmu, "armv8_cortex_a72")) {
		/* br_ also finds the aliases br-misp-retired, br-inst-retired */
		l->other += strcmp(pmu, "alias") || !pmb__near_contains(name, "br_");
		return;
	}
	l->armv8++;
	if (!strcmp(name, "br_mis_pred") && contains(desc, "BR_MIS_PRED") && contains(desc, "0x10"))
		l->found++;
}

/* Every armv8_pmuv3 row resolves through sysfs where the core lists all. */
static void check_family_rows(void)
{
	char path[4200], line[1024];
	int checked = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/aliases.txt", events_dir);
	if (!(f = fopen(path, "r")))
		return;
	while (fgets(line, sizeof(line), f)) {
		char kw[16], name[64], pmus[512], ev[256];
		struct pmb_event_plan p;
		int err;

		if (sscanf(line, "%15s %63s %511s %255s", kw, name, pmus, ev) != 4 || strcmp(kw, "map") ||
		    strcmp(pmus, "armv8_pmuv3"))
			continue;
		checked++;
		err = pmb__events_resolve(name, -1, false, &p);
		tap_ok(err == 0 && p.ev[0].attr.type == 9 && !strcmp(p.ev[0].pmu, "armv8_pmuv3_0") &&
		       contains(p.ev[0].encoding, "(sysfs event=") && !p.ev[0].unsupported[0],
		       "armv8_pmuv3 row %s (%s) resolves through sysfs: %s (%d %s%s)", name, ev,
		       p.ev[0].encoding, err, pmb__events_error(), p.ev[0].unsupported);
	}
	fclose(f);
	tap_ok(checked >= 9, "%d armv8_pmuv3 alias rows checked", checked);
}

static int arm_sysfs_suite(void)
{
	struct pmb_event_plan p;
	struct listed_arm l;
	int err, n;

	err = pmb__events_resolve("cycles", -1, false, &p);
	tap_ok(err == 0 && !p.pmu_name[0], "LIBPFM_FORCE_PMU=perf, no sysfs: no core PMU ('%s')",
	       p.pmu_name);
	err = pmb__events_resolve("BR_MIS_PRED", -1, false, &p);
	tap_ok(err == PMB_EBADEVENT, "no Arm PMU: BR_MIS_PRED is unknown (%s)", pmb__events_error());

	pmb__events_set_sysfs_root(a72_sys);
	err = pmb__events_resolve("cycles", -1, false, &p);
	tap_ok(err == 0 && !strcmp(p.pmu_name, "armv8_cortex_a72") &&
	       contains(p.pmu_desc, "not known to libpfm4"),
	       "sysfs Arm PMU as the plan's: %s '%s'", p.pmu_name, p.pmu_desc);
	check_cases(a72_cases, sizeof(a72_cases) / sizeof(a72_cases[0]));
	err = pmb__events_resolve("BR_MIS_PRD", -1, false, &p);
	tap_ok(err == PMB_EBADEVENT && contains(pmb__events_error(), "BR_MIS_PRED"),
	       "a misspelt Arm name gets its close match: %s", pmb__events_error());
	err = pmb__events_resolve("BR_MIS_PRED:u", -1, false, &p);
	tap_ok(err == PMB_EBADEVENT, "Arm names take no modifiers: %s", pmb__events_error());
	err = pmb__events_resolve("../type", -1, false, &p);
	tap_ok(err == PMB_EBADEVENT, "no path out of events/: %s", pmb__events_error());
	err = pmb__events_resolve("CPU_CYCLES,INST_RETIRED,BR_MIS_PRED,BR_RETIRED", -1, false, &p);
	tap_ok(err == 0 && p.nev == 4 && !p.ev[2].unsupported[0] && p.ev[3].unsupported[0],
	       "an unimplemented event is resolved, not refused (%d %s)", err, pmb__events_error());
	check_derived_cases(a72_derived, sizeof(a72_derived) / sizeof(a72_derived[0]));
	memset(&l, 0, sizeof(l));
	n = pmb__events_list("br_", on_arm_event, &l);
	tap_ok(n >= 2 && l.armv8 == 2 && l.found == 1 && l.other == 0,
	       "--list-events br_: the sysfs events br_mis_pred, br_pred, besides aliases (%d, %d other)", n,
	       l.other);

	pmb__events_set_sysfs_root(qemu_sys);
	check_cases(qemu_cases, sizeof(qemu_cases) / sizeof(qemu_cases[0]));
	check_derived_cases(qemu_derived, sizeof(qemu_derived) / sizeof(qemu_derived[0]));
	err = pmb__events_resolve("CPU_CYCLES,INST_RETIRED", -1, false, &p);
	tap_ok(err == 0 && p.nev == 2 && p.ev[0].anchor && p.ev[1].anchor && !p.ev[0].unsupported[0] &&
	       !p.ev[1].unsupported[0] && p.ev[0].means == PMB_MEANS_CYCLES &&
	       p.ev[1].means == PMB_MEANS_INSTRUCTIONS,
	       "QEMU's a57: CPU_CYCLES, INST_RETIRED are two anchors, counted");

	pmb__events_set_sysfs_root(full_sys);
	check_family_rows();
	err = pmb__events_resolve("br-misp-retired,br-inst-retired", -1, false, &p);
	tap_ok(err == 0 && p.nev == 2 && p.ev[0].attr.config == 0x22 && p.ev[1].attr.config == 0x21 &&
	       p.ev[0].means == PMB_MEANS_BRANCH_MISSES && p.ev[1].means == PMB_MEANS_BRANCHES &&
	       p.nder == 1,
	       "a core with BR_RETIRED: the first alternatives, retired counts, mispredict_ratio");
	check_cases(full_cases, sizeof(full_cases) / sizeof(full_cases[0]));

	pmb__events_set_sysfs_root(bl_sys);
	err = pmb__events_resolve("CPU_CYCLES", 4, false, &p);
	tap_ok(err == 0 && p.ev[0].attr.type == 9 && !strcmp(p.pmu_name, "armv8_cortex_a72"),
	       "big.LITTLE cpu 4: the A72 cluster's PMU (%s)", p.pmu_name);
	err = pmb__events_resolve("CPU_CYCLES", 1, false, &p);
	tap_ok(err == 0 && p.ev[0].attr.type == 8 && !strcmp(p.pmu_name, "armv8_cortex_a53"),
	       "big.LITTLE cpu 1: the A53 cluster's PMU (%s)", p.pmu_name);
	err = pmb__events_resolve("CPU_CYCLES", -1, false, &p);
	tap_ok(err == 0 && !strcmp(p.pmu_name, "armv8_cortex_a53"),
	       "big.LITTLE, no cpu: the first by name (%s)", p.pmu_name);
	pmb__events_set_sysfs_root(no_sysfs);
	return 0;
}

int main(void)
{
	static const struct pmu_cases tables[] = {
		{ "icl", icl_cases, sizeof(icl_cases) / sizeof(icl_cases[0]) },
		{ "spr", spr_cases, sizeof(spr_cases) / sizeof(spr_cases[0]) },
		{ "snb", snb_cases, sizeof(snb_cases) / sizeof(snb_cases[0]) },
		{ "hsw", hsw_cases, sizeof(hsw_cases) / sizeof(hsw_cases[0]) },
		{ "glm", glm_cases, sizeof(glm_cases) / sizeof(glm_cases[0]) },
		{ "amd64_fam19h_zen3", zen3_cases, sizeof(zen3_cases) / sizeof(zen3_cases[0]) },
		{ "amd64_fam19h_zen4", zen4_cases, sizeof(zen4_cases) / sizeof(zen4_cases[0]) },
		{ "arm_ac53", ac53_cases, sizeof(ac53_cases) / sizeof(ac53_cases[0]) },
		{ "arm_n1", n1_cases, sizeof(n1_cases) / sizeof(n1_cases[0]) },
	};
	bool trees;

	/* meson sets it to the source tree's events/ */
	setenv("PMUBENCH_EVENTS_DIR", PMB_EVENTS_SOURCE_DIR, 0);
	snprintf(events_dir, sizeof(events_dir), "%s", getenv("PMUBENCH_EVENTS_DIR"));
	if (!mkdtemp(tmp_dir))
		tap_skip_all("cannot make a temp folder");
	snprintf(no_sysfs, sizeof(no_sysfs), "%s/sys-none", tmp_dir);
	mkdir(no_sysfs, 0700);
	trees = make_sysfs("sys-qemu", qemu_tree, NFILES(qemu_tree), qemu_sys) &&
		make_sysfs("sys-a72", a72_tree, NFILES(a72_tree), a72_sys) &&
		make_sysfs("sys-full", full_tree, NFILES(full_tree), full_sys) &&
		make_sysfs("sys-bl", biglittle_tree, NFILES(biglittle_tree), bl_sys) &&
		make_sysfs("sys-x86", x86_tree, NFILES(x86_tree), x86_sys);
	tap_ok(trees, "made-up sysfs trees in %s", tmp_dir);

	under_pmu("skx", skx_suite);
	under_pmu("amd64_fam17h", zen1_suite);
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		cur_cases = &tables[i];
		under_pmu(tables[i].pmu, cases_suite);
	}
	under_pmu("arm_ac57", ac57_suite);
	under_pmu("perf", arm_sysfs_suite);
	test_alias_rows();

	nftw(tmp_dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	return tap_done();
}
