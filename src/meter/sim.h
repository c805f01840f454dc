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
 * and exits 2). */
int pmb__sim_exec(int argc, char **argv, const struct pmb_topology_info *info, bool instr);

/* The simulated cache geometry, for the output ("L1d 32 KiB 8-way 64 B
 * lines, LL 16 MiB ..."), from info the same way pmb__sim_exec passes it. */
void pmb__sim_geometry(const struct pmb_topology_info *info, char *buf, size_t n);

/* Resolve a counter list for the simulator (the same portable names as the
 * perf backend: instructions, branches, branch-misses, l1d-misses, ...).
 * list NULL: the default simulated set.  Returns 0, or PMB_ENOSIM with
 * detail (pmb__sim_error()) naming the event and listing what it can give. */
int pmb__sim_resolve(const char *list, struct pmb_event_plan *plan);
const char *pmb__sim_error(void);

/* A meter whose start/stop switch callgrind collection on and off around
 * each sample and read the sample's counts from the dump it writes. */
int pmb__sim_meter(struct pmb_meter *m, const struct pmb_event_plan *plan);
void pmb__sim_meter_close(struct pmb_meter *m);

/* The sim backend's error detail (what pmb__sim_error() returns), for
 * measure's --disasm under the simulator (sim_instr.c) too. */
void pmb__sim_set_err(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
/* Call fn with each sample's dump file before it is removed (NULL: stop). */
void pmb__sim_meter_on_dump(struct pmb_meter *m, void (*fn)(void *arg, const char *path), void *arg);

#endif
