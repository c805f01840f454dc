/* merged.h - many hosts' result files side by side (`pmubench merge`): what each file says of its host, the host groups, the figures per group and the gaps between them. */
#ifndef PMB_MERGED_H
#define PMB_MERGED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The longest text a merge keeps of one name or reason. */
#define PMB_MERGE_TEXT 256
/* The most cache levels a merge keeps of one host's topology. */
#define PMB_MERGE_CACHES 8

/* How a host's cycles and events were had: counted by its PMU, estimated
 * from time (no PMU, or one it may not use: est_cycles_per_item), or
 * simulated (--backend=sim).  Hosts of one kind only are grouped, so an
 * estimated figure is never averaged with a counted one. */
enum pmb_host_counting { PMB_HOST_COUNTED, PMB_HOST_ESTIMATED, PMB_HOST_SIMULATED };

/* One "<x>_per_item" figure of a benchmark on one host: the median over
 * its repetitions, and the envelope of their 95 % intervals (NAN: the file
 * gives none). */
struct pmb_host_figure {
	char key[64];
	double value, lo, hi;
};

/* One benchmark of one host's file. */
struct pmb_host_bench {
	char name[PMB_MERGE_TEXT];
	char family[PMB_MERGE_TEXT]; /* instance.family ("" absent) */
	uint64_t working_set;        /* instance.working_set in bytes, 0: none */
	char why[PMB_MERGE_TEXT];    /* "": measured; else why not (its status) */
	struct pmb_host_figure *fig;  /* in the file's order */
	size_t nfig, figcap;
	size_t *by_key;              /* fig's first nsorted indices by key */
	size_t nsorted;
};

/* Figure key of b (NULL none) among its first nsorted, by bisection:
 * lookups stay n log n in the figures of a file however many it has. */
static inline const struct pmb_host_figure *pmb__host_figure(const struct pmb_host_bench *b, const char *key)
{
	size_t lo = 0, hi = b ? b->nsorted : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(b->fig[b->by_key[mid]].key, key);

		if (!c)
			return &b->fig[b->by_key[mid]];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* What one result file says of its host (io/results_host.c). */
struct pmb_host_run {
	char file[PMB_MERGE_TEXT];
	char host[PMB_MERGE_TEXT];    /* context.host_name */
	char version[64];             /* context.pmubench_version ("" absent) */
	char date[64];                /* context.date: when the run began */
	char backend[32];             /* "perf", "sim" */
	char cpu[PMB_MERGE_TEXT];     /* the CPU model, else the PMU's description */
	char pmu[128];                /* context.pmu.name */
	enum pmb_host_counting counting;
	char pmu_why[PMB_MERGE_TEXT]; /* estimated: "no PMU", "PMU forbidden: perf_event_paranoid=3" */
	struct pmb_host_cache {
		int level;
		uint64_t size;
	} cache[PMB_MERGE_CACHES];    /* context.topology.caches (hwloc's) */
	size_t ncache;
	struct pmb_host_bench *bench; /* in file order, one per name */
	size_t nbench;
};

/* A file given that could not be merged, or a fleet task that left none
 * (merge --fleet), with its reason. */
struct pmb_merge_missing {
	char file[PMB_MERGE_TEXT];    /* "" where the task left no file name */
	char reason[2 * PMB_MERGE_TEXT];
	char node[128];               /* the task's node ("" not a fleet task's) */
	int task;                     /* the array task, -1 not a fleet task's */
};

/* Hosts of one CPU model, PMU, backend and counting. */
struct pmb_merge_group {
	char label[24];               /* "A", "B", ..., "A1" in order of first file */
	char cpu[PMB_MERGE_TEXT], pmu[128], backend[32];
	enum pmb_host_counting counting;
	char pmu_why[PMB_MERGE_TEXT];
	char versions[PMB_MERGE_TEXT]; /* the pmubench versions, ", "-joined */
	size_t *host;                  /* indices into the merge's hosts */
	size_t nhost;
};

enum pmb_merge_cell_state {
	PMB_CELL_VALUE,     /* measured on at least one host of the group */
	PMB_CELL_NO_BENCH,  /* no host of the group ran the benchmark */
	PMB_CELL_FAILED,    /* the group's hosts ran it, none measured it */
	PMB_CELL_NO_FIGURE, /* measured, but this figure not: other counters */
};

/* One figure of one benchmark in one group. */
struct pmb_merge_cell {
	enum pmb_merge_cell_state state;
	const char *why;           /* FAILED: a host's reason */
	double value;              /* the median over the group's hosts */
	double lo, hi;             /* one host: its interval; several: the
	                              envelope of their intervals (NAN none) */
	double spread_lo, spread_hi; /* the lowest and highest host value */
	size_t nhost;              /* hosts with a value */
	double ratio, ratio_lo, ratio_hi; /* value / baseline's, and the ratio
	                              of the bounds (lo / base hi, hi / base lo);
	                              NAN where either has no value; the
	                              baseline's own: 1, its bounds NAN */
};

/* One row: a benchmark's figure over every group. */
struct pmb_merge_row {
	const char *bench;         /* points into a host's bench name */
	const char *family;
	uint64_t working_set;
	char key[64];
	struct pmb_merge_cell *cell; /* one per group */
};

/* The whole merge: what every stage after the read hands on. */
struct pmb_merged {
	struct pmb_host_run *hosts;
	size_t nhosts;
	struct pmb_merge_missing *missing;
	size_t nmissing;
	struct pmb_merge_group *group;
	size_t ngroup;
	size_t baseline;           /* index into group */
	struct pmb_merge_row *row;
	size_t nrow;
	char (*gap)[2 * PMB_MERGE_TEXT]; /* the gaps in words, one each */
	size_t ngap;
	char (*note)[4 * PMB_MERGE_TEXT]; /* files given twice (one run), one line each */
	size_t nnote;
};

#endif
