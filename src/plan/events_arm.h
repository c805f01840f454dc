/* events_arm.h - the events module: the Arm PMUv3 common events, numbers and architectural names (a table for events_encode.c). */
#ifndef PMB_EVENTS_ARM_H
#define PMB_EVENTS_ARM_H

#include <stdint.h>

/* A table in a header, included by events_encode.c only, as libpfm4 keeps its
 * lib/events/arm_*_events.h.  The names are the Arm ARM's (and perf's: the
 * kernel's sysfs events/ spells them in lower case, "br_mis_pred"); the
 * numbers are the same on every Armv8/Armv9 core that implements the event,
 * which libpfm4 does not assume: Cortex-A53/A57 call 0x10 BRANCH_MISPRED.
 * Common events are 0x0000-0x003f and 0x4000-0x403f; the gaps are reserved.
 * Source: the Arm ARM (DDI 0487) "Common event numbers" and the kernel's
 * include/linux/perf/arm_pmuv3.h. */
struct pmb_arm_event {
	uint16_t code;
	const char *name;
};

static const struct pmb_arm_event pmb_arm_events[] = {
	{ 0x0000, "SW_INCR" },
	{ 0x0001, "L1I_CACHE_REFILL" },
	{ 0x0002, "L1I_TLB_REFILL" },
	{ 0x0003, "L1D_CACHE_REFILL" },
	{ 0x0004, "L1D_CACHE" },
	{ 0x0005, "L1D_TLB_REFILL" },
	{ 0x0006, "LD_RETIRED" },
	{ 0x0007, "ST_RETIRED" },
	{ 0x0008, "INST_RETIRED" },
	{ 0x0009, "EXC_TAKEN" },
	{ 0x000a, "EXC_RETURN" },
	{ 0x000b, "CID_WRITE_RETIRED" },
	{ 0x000c, "PC_WRITE_RETIRED" },
	{ 0x000d, "BR_IMMED_RETIRED" },
	{ 0x000e, "BR_RETURN_RETIRED" },
	{ 0x000f, "UNALIGNED_LDST_RETIRED" },
	{ 0x0010, "BR_MIS_PRED" },
	{ 0x0011, "CPU_CYCLES" },
	{ 0x0012, "BR_PRED" },
	{ 0x0013, "MEM_ACCESS" },
	{ 0x0014, "L1I_CACHE" },
	{ 0x0015, "L1D_CACHE_WB" },
	{ 0x0016, "L2D_CACHE" },
	{ 0x0017, "L2D_CACHE_REFILL" },
	{ 0x0018, "L2D_CACHE_WB" },
	{ 0x0019, "BUS_ACCESS" },
	{ 0x001a, "MEMORY_ERROR" },
	{ 0x001b, "INST_SPEC" },
	{ 0x001c, "TTBR_WRITE_RETIRED" },
	{ 0x001d, "BUS_CYCLES" },
	{ 0x001e, "CHAIN" },
	{ 0x001f, "L1D_CACHE_ALLOCATE" },
	{ 0x0020, "L2D_CACHE_ALLOCATE" },
	{ 0x0021, "BR_RETIRED" },
	{ 0x0022, "BR_MIS_PRED_RETIRED" },
	{ 0x0023, "STALL_FRONTEND" },
	{ 0x0024, "STALL_BACKEND" },
	{ 0x0025, "L1D_TLB" },
	{ 0x0026, "L1I_TLB" },
	{ 0x0027, "L2I_CACHE" },
	{ 0x0028, "L2I_CACHE_REFILL" },
	{ 0x0029, "L3D_CACHE_ALLOCATE" },
	{ 0x002a, "L3D_CACHE_REFILL" },
	{ 0x002b, "L3D_CACHE" },
	{ 0x002c, "L3D_CACHE_WB" },
	{ 0x002d, "L2D_TLB_REFILL" },
	{ 0x002e, "L2I_TLB_REFILL" },
	{ 0x002f, "L2D_TLB" },
	{ 0x0030, "L2I_TLB" },
	{ 0x0031, "REMOTE_ACCESS" },
	{ 0x0032, "LL_CACHE" },
	{ 0x0033, "LL_CACHE_MISS" },
	{ 0x0034, "DTLB_WALK" },
	{ 0x0035, "ITLB_WALK" },
	{ 0x0036, "LL_CACHE_RD" },
	{ 0x0037, "LL_CACHE_MISS_RD" },
	{ 0x0038, "REMOTE_ACCESS_RD" },
	{ 0x0039, "L1D_CACHE_LMISS_RD" },
	{ 0x003a, "OP_RETIRED" },
	{ 0x003b, "OP_SPEC" },
	{ 0x003c, "STALL" },
	{ 0x003d, "STALL_SLOT_BACKEND" },
	{ 0x003e, "STALL_SLOT_FRONTEND" },
	{ 0x003f, "STALL_SLOT" },
	{ 0x4000, "SAMPLE_POP" },
	{ 0x4001, "SAMPLE_FEED" },
	{ 0x4002, "SAMPLE_FILTRATE" },
	{ 0x4003, "SAMPLE_COLLISION" },
	{ 0x4004, "CNT_CYCLES" },
	{ 0x4005, "STALL_BACKEND_MEM" },
	{ 0x4006, "L1I_CACHE_LMISS" },
	{ 0x4009, "L2D_CACHE_LMISS_RD" },
	{ 0x400a, "L2I_CACHE_LMISS" },
	{ 0x400b, "L3D_CACHE_LMISS_RD" },
	{ 0x400c, "TRB_WRAP" },
	{ 0x400e, "TRB_TRIG" },
	{ 0x4010, "TRCEXTOUT0" },
	{ 0x4011, "TRCEXTOUT1" },
	{ 0x4012, "TRCEXTOUT2" },
	{ 0x4013, "TRCEXTOUT3" },
	{ 0x4018, "CTI_TRIGOUT4" },
	{ 0x4019, "CTI_TRIGOUT5" },
	{ 0x401a, "CTI_TRIGOUT6" },
	{ 0x401b, "CTI_TRIGOUT7" },
	{ 0x4020, "LDST_ALIGN_LAT" },
	{ 0x4021, "LD_ALIGN_LAT" },
	{ 0x4022, "ST_ALIGN_LAT" },
	{ 0x4024, "MEM_ACCESS_CHECKED" },
	{ 0x4025, "MEM_ACCESS_CHECKED_RD" },
	{ 0x4026, "MEM_ACCESS_CHECKED_WR" },
};

#define PMB_NARM_EVENTS (int)(sizeof(pmb_arm_events) / sizeof(pmb_arm_events[0]))

#endif
