/* sim.h - the valgrind/callgrind backend: exact instructions, simulated branches and caches. */
#ifndef PMB_SIM_H
#define PMB_SIM_H

#include <stdbool.h>

#include "model.h"

struct pmb_meter;

/* True when this process runs under valgrind (the child side). */
bool pmb__sim_active(void);

/* Parent side of --backend=sim: re-run argv under
 * `valgrind --tool=callgrind --branch-sim=yes --cache-sim=yes
 * --collect-atstart=no` with cache geometry from info (NULL: valgrind's
 * defaults), and --dump-instr=yes where instr (--disasm), and return the child's exit status.  Returns PMB_ENOVALGRIND
 * when valgrind is not installed (the caller prints the package to install
 * and exits 2).  pmu: libpfm4's name of the core PMU, forced on the child
 * (LIBPFM_FORCE_PMU), since its CPUID is valgrind's; NULL or "" none. */
int pmb__sim_exec(int argc, char **argv, const struct pmb_topology_info *info, const char *pmu, bool instr);

/* --backend=sim's parent: pmb__sim_exec, and what came of it said.  Returns
 * the child's exit status (valgrind's own last words on stderr where it
 * failed otherwise than by the child's one-line error or a signal), or a
 * negative code with the one-line error in err, for the caller to say. */
int pmb__sim_rerun(int argc, char **argv, const struct pmb_topology_info *info, const char *pmu, bool instr,
		   char *err, size_t size);

/* The simulated cache geometry, for the output ("L1d 32 KiB 8-way 64 B
 * lines, LL 16 MiB ..."), from info the same way pmb__sim_exec passes it. */
void pmb__sim_geometry(const struct pmb_topology_info *info, char *buf, size_t n);

/* What a PMU's event name counts, as the perf backend reads it: the plan's
 * events module (plan/events.h), handed in by whoever resolves the
 * simulator's events (run.c), since the meter does not reach into the plan.
 * resolve: pmb__events_resolve; pmus_knowing: pmb__events_pmus_knowing. */
struct pmb_sim_names {
	int (*resolve)(const char *list, int cpu, bool kernel, struct pmb_event_plan *plan);
	int (*pmus_knowing)(const char *name, char (*pmus)[32], int max);
};

/* Resolve a counter list for the simulator (the same portable names as the
 * perf backend: instructions, branches, branch-misses, l1d-misses, ...),
 * a PMU's names read through names.  list NULL: the default simulated set.
 * Returns 0, or PMB_ENOSIM with detail (pmb__sim_error()) naming the event
 * and listing what it can give. */
int pmb__sim_resolve(const char *list, const struct pmb_sim_names *names, struct pmb_event_plan *plan);
const char *pmb__sim_error(void);

/* --list-events under --backend=sim: fn for each name the simulator
 * counts (its quantities, their other names, its sets) that contains
 * pattern (case ignored, '_' equal to '-'; NULL or "" every one), with
 * what it counts and callgrind's columns.  Returns how many. */
int pmb__sim_list(const char *pattern, void (*fn)(void *ctx, const char *pmu, const char *name, const char *desc),
		  void *ctx);

/* A meter whose start/stop switch callgrind collection on and off around
 * each sample and read the sample's counts from the dump it writes. */
int pmb__sim_meter(struct pmb_meter *m, const struct pmb_event_plan *plan);
void pmb__sim_meter_close(struct pmb_meter *m);

struct pmb_disasm;
struct pmb_result;

/* --disasm under the simulator, around the run of one instance through
 * the sim meter m (measure's pmb__sim_annotate runs it): begin hooks m so
 * that each sample's dump is read for the per-instruction costs of d's
 * instructions (returns 0 or -ENOMEM); end unhooks it and, where rc (the
 * run's) is 0 and the result res was measured, gives each instruction of
 * d its counts per item.  end frees what begin made and returns 0 or
 * -errno (pmb__sim_error() says why, naming the instance `name`). */
struct pmb__sim_instr;
int pmb__sim_instr_begin(struct pmb__sim_instr **a, struct pmb_meter *m, struct pmb_disasm *d);
int pmb__sim_instr_end(struct pmb__sim_instr *a, struct pmb_meter *m, int rc, const struct pmb_result *res,
		       const char *name);

#endif
