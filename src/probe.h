/* probe.h - the environment probe, once per run: measured, not assumed. */
#ifndef PMB_PROBE_H
#define PMB_PROBE_H

#include "counters.h"
#include "result.h"

/* Clock resolution and read cost, core frequency estimate, CPU governor,
 * turbo, load average, perf_event_paranoid, host, date, executable, and
 * whether another process keeps the pinned core (ctx->cpu) busy; the
 * warnings a user must see about them go into ctx. */
void pmb_probe_environment(struct pmb_context *ctx);

/* Cost of what the runner does to a counter group per sample on its read
 * path (read(): reset, enable, disable, one read; self-read: two user-space
 * snapshots), in ns: median of 201 rounds; -1 without a group.  *inside_ns:
 * the share inside the timed window (the self-read snapshots; about one
 * clock read by read()), -1 without a group. */
double pmb_probe_group_read(struct pmb_counters *c, double *inside_ns);

#endif
