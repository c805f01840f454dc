/* sim_internal.h - the sim backend's private declarations, shared by sim.c and sim_*.c only. */
#ifndef PMB_SIM_INTERNAL_H
#define PMB_SIM_INTERNAL_H

/* The sim backend is sim.c (the simulated events, the error detail),
 * sim_geometry.c (the cache geometry valgrind is given), sim_exec.c (the
 * parent: re-run under callgrind) and sim_meter.c (the child: one dump
 * per sample). */
#include <stdbool.h>
#include <stdint.h>

#include "meter.h"

/* The environment variable naming the dump folder: set by the parent, read
 * by the child. */
#define PMB__SIM_DIR_ENV "PMB_SIM_DIR"
/* The cache geometry the parent gave valgrind, for the child to state
 * (its own topology, read without hwloc's x86 backend, may differ):
 * "SIZE,ASSOC,LINE,ASKED;SIZE,ASSOC,LINE,ASKED;NCACHES", L1d then LL. */
#define PMB__SIM_GEOM_ENV "PMB_SIM_GEOMETRY"
#define PMB__SIM_DUMP "cg.out"
#define PMB__SIM_LOG "valgrind.log"

#define PMB__ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* ---- error detail (sim.c) ------------------------------------------------- */

/* What pmb__sim_error() returns; the parent appends valgrind's log to it. */
#define PMB__SIM_ERR_LEN 1536
extern char pmb__sim_err[PMB__SIM_ERR_LEN];

void pmb__sim_set_err(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* "event NAME cannot be simulated", with every name the backend gives. */
void pmb__sim_err_nosim(const char *name);

/* ---- callgrind columns (sim.c) -------------------------------------------- */

/* The columns of `callgrind --cache-sim=yes --branch-sim=yes`, in the order
 * it writes them; bit i of sim_mask is column i. */
enum pmb__sim_col {
	PMB__COL_IR, PMB__COL_DR, PMB__COL_DW, PMB__COL_I1MR, PMB__COL_D1MR,
	PMB__COL_D1MW, PMB__COL_ILMR, PMB__COL_DLMR, PMB__COL_DLMW,
	PMB__COL_BC, PMB__COL_BCM, PMB__COL_BI, PMB__COL_BIM, PMB__NCOL
};

/* Their names in a dump's "events:" line. */
extern const char *const pmb__sim_col_name[PMB__NCOL];

/* ---- per-instruction counts (sim_meter.c, sim_instr.c) -------------------- */

/* Call fn with each sample's dump file before it is removed (NULL: stop). */
void pmb__sim_meter_on_dump(struct pmb_meter *m, void (*fn)(void *arg, const char *path), void *arg);

/* ---- cache geometry (sim_geometry.c) ------------------------------------- */

/* A geometry valgrind accepts: line a power of two >= 16, and a power-of-two
 * number of sets.  Sizes that are not (24.75 MiB 11-way L3s) keep their
 * line and ways and round the sets down. */
struct pmb__sim_geom {
	uint64_t size, asked;
	unsigned line, assoc;
};

/* The L1d and last-level geometries of info; false when info has no caches
 * (valgrind then keeps its own defaults). */
bool pmb__sim_geom_get(const struct pmb_topology_info *info,
		       struct pmb__sim_geom *l1, struct pmb__sim_geom *ll);

/* The geometry of pmb__sim_geom_get(info) as PMB__SIM_GEOM_ENV holds it,
 * into buf; false (buf "") where valgrind keeps its defaults. */
bool pmb__sim_geom_text(const struct pmb_topology_info *info, char *buf, size_t n);

#endif
