/* events.h - event names to perf_event_attr: libpfm4, Arm sysfs PMUs, aliases and sets from events/. */
#ifndef PMB_EVENTS_H
#define PMB_EVENTS_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>

#include "model.h" /* struct pmb_event_plan */

/* Default counters when --counters is not given. */
#define PMB_DEFAULT_COUNTERS "cycles,instructions,branches,branch-misses"

/* Load libpfm4 and the tables of events/.  dir: the tables' folder, or NULL
 * to search $PMUBENCH_EVENTS_DIR, the build tree, the install prefix and
 * ../share/pmubench/events beside the executable.  Calling it again reloads
 * the tables (libpfm4 keeps the PMUs it detected first, LIBPFM_FORCE_PMU
 * included: a process sees one forced PMU).  pmb__events_resolve() and
 * pmb__events_list() call it with NULL if nobody did; without tables they still
 * know generic, raw and libpfm4 names.
 * Returns 0, PMB_ENOTABLE, or PMB_EBADTABLE (detail names file:line). */
int pmb__events_init(const char *dir);
/* Unload libpfm4 and the tables; safe to call when not loaded. */
void pmb__events_fini(void);

/* Resolve a comma-separated list (generic perf names, libpfm4 strings with
 * modifiers, raw rNNNN, aliases, @sets) for the core PMU of `cpu` (-1: any)
 * into plan (list NULL: PMB_DEFAULT_COUNTERS).  On Arm cores, the Arm
 * architectural names of the common events (BR_MIS_PRED, CPU_CYCLES, in any
 * case) are taken too, whatever libpfm4 calls them, and so are the files of
 * the core PMU's sysfs events/ (br_mis_pred); a core libpfm4 cannot identify
 * (QEMU's -cpu max, a core newer than its tables) is encoded for through
 * its sysfs PMU alone (armv8_pmuv3_0, armv8_cortex_a72: type and event
 * numbers from sysfs; alias rows of the armv8_pmuv3 family).  An event the
 * core does not implement (an Arm common event missing from its sysfs
 * events/, or from libpfm4's table of the core) is resolved and marked, not
 * refused: its `unsupported` says why, and it is not opened.  Events count
 * user space only (exclude_kernel, exclude_hv) unless kernel; explicit
 * libpfm :u/:k win.  A name given twice, or two names of one counter, are
 * kept once.  Every event gets its `means` and `anchor` from its encoding.
 * Derived figures (events/sets.txt "derive" lines) are added for every pair
 * present, by name or, for the generic names, by meaning (struct
 * pmb_derived).  Returns 0, PMB_EBADEVENT (detail: the bad name and up to
 * three close matches, or the PMU a qualified name names that this machine
 * lacks), PMB_EBADTABLE, or -E2BIG for more than PMB_MAX_EVENTS events. */
int pmb__events_resolve(const char *list, int cpu, bool kernel,
		       struct pmb_event_plan *plan);

/* libpfm4's name of the core PMU of `cpu` (-1: any) into name ("icl",
 * "adl_glc"; "" where libpfm4 knows none: an Arm core only sysfs shows).
 * --backend=sim forces it on its child, whose CPUID valgrind emulates
 * (libpfm4 would take an Ice Lake for ix86arch there), so that a name means
 * under sim what it means to the perf backend.  Returns 0 or a negative
 * errno. */
int pmb__events_core_pmu(int cpu, char *name, size_t size);

/* What the kernel exposes of the core PMU, for --topology, into buf: "the
 * kernel's cpu PMU: cpu" (cpu, cpu_core, cpu_atom, an Arm PMUv3), or "the
 * kernel exposes no cpu PMU (/sys/bus/event_source/devices: breakpoint,
 * software, ...)", naming what it does expose. */
void pmb__events_kernel_pmu(char *buf, size_t size);

/* For --backend=sim, which reads a PMU's event name alike on every host:
 * the core PMUs of this libpfm4 build, present here or not, whose tables
 * have the event name begins with (its part before any ':'), in libpfm4's
 * order, into pmus[0..max); returns how many (0: none, or libpfm4 is not
 * usable).  From the first call on, libpfm4 encodes for every PMU it
 * knows, so that "icl::NAME" resolves on any host: the process must open
 * no perf event it resolves afterwards (the sim backend opens none). */
int pmb__events_pmus_knowing(const char *name, char (*pmus)[32], int max);

/* Call fn for every event of this machine's PMUs (and the generic and
 * software ones) whose name contains pattern (NULL: all, case-insensitive).
 * pmu is the libpfm PMU name, "perf" for generic names, "alias" for the
 * aliases of events/aliases.txt, "set" for the @sets of events/sets.txt, and
 * on an Arm core the sysfs PMU's name for the events its events/ lists;
 * PMU events come with their umasks as separate "EVENT:UMASK" entries.
 * Returns the number of calls made (0: nothing matched), or a negative errno
 * or PMB_EBADTABLE. */
int pmb__events_list(const char *pattern,
		    void (*fn)(void *ctx, const char *pmu, const char *name,
			       const char *desc),
		    void *ctx);

/* Human-readable detail of the last error of this module (file:line of a
 * bad table, the bad name and its close matches); "" if none. */
const char *pmb__events_error(void);

/* Folder the tables were read from ("" before init). */
const char *pmb__events_dir(void);

/* Tests only: read the sysfs PMU folder (/sys/bus/event_source/devices)
 * from dir instead, to fake a hybrid CPU; NULL restores the real one. */
void pmb__events_set_sysfs_root(const char *dir);

#endif
