/* event_tables.h - the text tables of events/ (aliases.txt, sets.txt): loading and lookups. */
#ifndef PMB_EVENT_TABLES_H
#define PMB_EVENT_TABLES_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

/* Longest alias, set or PMU name of the tables, with its '\0'. */
#define PMB_TABLE_NAME_LEN 48

/* "map NAME PMU[,PMU...] EVENT" gives one row per PMU. */
struct pmb_alias_row {
	char name[PMB_TABLE_NAME_LEN];
	char pmu[PMB_TABLE_NAME_LEN];  /* libpfm PMU name, "armv8_pmuv3" or "*" */
	char event[192];               /* "EVENT" or "EVENT|EVENT...": the first
	                                  the core implements (events.c) */
	int line;                      /* of aliases.txt, for messages */
};

/* "about NAME TEXT": the text --list-events shows; sets as "@name". */
struct pmb_about_text {
	char name[PMB_TABLE_NAME_LEN];
	char text[160];
};

/* "set NAME EVENT[,EVENT...]" of sets.txt; members may name @sets. */
struct pmb_set_def {
	char name[PMB_TABLE_NAME_LEN];
	char members[512];
	int line;
};

/* "derive FIGURE = NUM / DEN [* SCALE]" of sets.txt. */
struct pmb_derive_rule {
	char fig[32];
	char num[96], den[96];  /* "a|b" alternatives; den "items" */
	double scale;
};

/* An open-addressing hash table of row indices (slot: index + 1, 0
 * empty), at most half full: lookups by name stay O(1) however long the
 * tables (50 000 alias lines took minutes when each line searched all). */
struct pmb_table_index {
	int *slot;
	size_t cap, used;  /* cap: 0 or a power of two */
};

/* The tables in memory; all zero when none are loaded. */
struct pmb_tables {
	char dir[PATH_MAX];     /* folder they came from; "" */
	struct pmb_alias_row *alias;
	int nalias;
	struct pmb_about_text *about;
	int nabout;
	struct pmb_set_def *set;
	int nset;
	struct pmb_derive_rule *rule;
	int nrule;
	struct pmb_table_index alias_name;  /* first row of each name */
	struct pmb_table_index alias_pmu;   /* the row of each name and PMU */
	struct pmb_table_index set_name;    /* each set */
	struct pmb_table_index about_name;  /* the last about text of a name */
};

/* Largest events table read. */
#define PMB_TABLE_MAX_BYTES ((long long)16 << 20)

/* Load aliases.txt and sets.txt from dir (NULL or "": $PMUBENCH_EVENTS_DIR
 * where it is set, which must hold them; else the source tree, the install
 * prefix and ../share/pmubench/events beside the executable) into t,
 * replacing what t held.  Each must be a regular file of at most
 * PMB_TABLE_MAX_BYTES of text (a control character is an error, naming its
 * line).  reserved(name) true refuses an alias of that name (a perf generic
 * event it would hide).  Returns 0, PMB_ENOTABLE, PMB_EBADTABLE (error detail
 * names file:line) or -ENOMEM; on error t is left empty. */
int pmb__tables_load(struct pmb_tables *t, const char *dir,
		     bool (*reserved)(const char *name));
/* Free what t holds and empty it; an empty t is fine. */
void pmb__tables_free(struct pmb_tables *t);

/* Whether aliases.txt maps name (case-insensitive) for any PMU. */
bool pmb__tables_has_alias(const struct pmb_tables *t, const char *name);
/* The index of name's first row (case-insensitive), or -1. */
int pmb__tables_alias_first(const struct pmb_tables *t, const char *name);
/* The row of alias name for PMU pmu, else for the PMU family family (the
 * "armv8_pmuv3" rows, for every Arm core without rows of its own), else its
 * "*" row; NULL if none.  pmu and family may be NULL or "" (none). */
const struct pmb_alias_row *pmb__tables_alias(const struct pmb_tables *t,
					      const char *name, const char *pmu,
					      const char *family);
/* The set called name (without '@', case-insensitive), or NULL. */
const struct pmb_set_def *pmb__tables_set(const struct pmb_tables *t,
					  const char *name);
/* The about text of an alias or "@set"; "" if it has none. */
const char *pmb__tables_about(const struct pmb_tables *t, const char *name);

/* The longest error detail, bad names of a whole list included. */
#define PMB_EVENTS_ERROR_LEN 1536

/* The module's one error detail, read through pmb__events_error(): set it
 * (printf-style, truncated at PMB_EVENTS_ERROR_LEN - 1 characters) or
 * clear it. */
__attribute__((format(printf, 1, 2)))
void pmb__events_set_error(const char *fmt, ...);
void pmb__events_clear_error(void);

/* Copy src into dst of size bytes, truncating; always terminated. */
void pmb__str_copy(char *dst, size_t size, const char *src);
/* Cut trailing white space off s in place. */
void pmb__str_trim_end(char *s);

#endif
