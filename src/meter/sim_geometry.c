/* sim_geometry.c - the cache geometry the sim backend gives valgrind, and its one-line description. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "base.h"
#include "sim.h"
#include "sim_internal.h"

static void geom_fix(const struct pmb_cache *c, unsigned dflt_assoc,
		     struct pmb__sim_geom *g)
{
	uint64_t sets, ways;

	g->asked = c->size;
	g->line = c->line >= 16 && !(c->line & (c->line - 1)) ? c->line : 64;
	if (c->assoc > 0)
		ways = (uint64_t)c->assoc;
	else if (c->assoc < 0) /* fully associative: one set */
		ways = c->size / g->line ? c->size / g->line : 1;
	else
		ways = dflt_assoc;
	sets = c->size / (ways * g->line);
	if (sets == 0) { /* fewer lines than ways: one set of what there is */
		sets = 1;
		ways = c->size / g->line ? c->size / g->line : 1;
	}
	while (sets & (sets - 1))
		sets &= sets - 1; /* round down to a power of two */
	g->assoc = (unsigned)ways;
	g->size = sets * ways * g->line;
}

bool pmb__sim_geom_get(const struct pmb_topology_info *info,
		       struct pmb__sim_geom *l1, struct pmb__sim_geom *ll)
{
	if (!info || info->ncaches < 1 || info->cache[0].size == 0)
		return false;
	geom_fix(&info->cache[0], 8, l1);
	if (info->ncaches > 1 && info->cache[info->ncaches - 1].size)
		geom_fix(&info->cache[info->ncaches - 1], 16, ll);
	else
		*ll = *l1; /* one level known: valgrind still needs an LL */
	return true;
}

bool pmb__sim_geom_text(const struct pmb_topology_info *info, char *buf, size_t n)
{
	struct pmb__sim_geom l1, ll;

	buf[0] = '\0';
	if (!pmb__sim_geom_get(info, &l1, &ll))
		return false;
	snprintf(buf, n, "%llu,%u,%u,%llu;%llu,%u,%u,%llu;%d", (unsigned long long)l1.size, l1.assoc, l1.line,
		 (unsigned long long)l1.asked, (unsigned long long)ll.size, ll.assoc, ll.line,
		 (unsigned long long)ll.asked, info->ncaches);
	return true;
}

/* The geometry the parent gave valgrind (PMB__SIM_GEOM_ENV), in the child
 * under valgrind; false where there is none. */
static bool geom_given(struct pmb__sim_geom *l1, struct pmb__sim_geom *ll, int *ncaches)
{
	const char *env = pmb__sim_active() ? getenv(PMB__SIM_GEOM_ENV) : NULL;
	unsigned long long s1, a1, s2, a2;

	if (!env || sscanf(env, "%llu,%u,%u,%llu;%llu,%u,%u,%llu;%d", &s1, &l1->assoc, &l1->line, &a1, &s2,
			   &ll->assoc, &ll->line, &a2, ncaches) != 9)
		return false;
	l1->size = s1;
	l1->asked = a1;
	ll->size = s2;
	ll->asked = a2;
	return true;
}

static size_t fmt_geom(char *buf, size_t n, const char *label,
		       const struct pmb__sim_geom *g)
{
	char sz[32], asked[32];
	int len;

	pmb__format_bytes_sep(sz, sizeof(sz), g->size, " ");
	len = snprintf(buf, n, "%s %s %u-way %u B", label, sz, g->assoc, g->line);
	if (len >= 0 && (size_t)len < n && g->size != g->asked) {
		pmb__format_bytes_sep(asked, sizeof(asked), g->asked, " ");
		len += snprintf(buf + len, n - (size_t)len, " (rounded from %s)",
				asked);
	}
	return len < 0 ? 0 : (size_t)len < n ? (size_t)len : n - 1;
}

void pmb__sim_geometry(const struct pmb_topology_info *info, char *buf, size_t n)
{
	struct pmb__sim_geom l1, ll;
	int ncaches = info ? info->ncaches : 0;
	size_t len;

	if (!n)
		return;
	/* What valgrind was given, where this is the child it was given to;
	 * the same computation elsewhere (the parent, a test). */
	if (!geom_given(&l1, &ll, &ncaches) && !pmb__sim_geom_get(info, &l1, &ll)) {
		snprintf(buf, n, "valgrind's default caches (topology unknown)");
		return;
	}
	len = fmt_geom(buf, n, "L1d", &l1);
	len += (size_t)snprintf(buf + len, n - len, "; ");
	if (len < n)
		len += fmt_geom(buf + len, n - len, "LL", &ll);
	if (len < n)
		len += (size_t)snprintf(buf + len, n - len, "; I1 as L1d");
	if (len < n && ncaches > 2)
		snprintf(buf + len, n - len,
			 "; valgrind simulates 2 levels: %s not simulated",
			 ncaches > 3 ? "L2, L3 are" : "L2 is");
	else if (len < n && ncaches == 1)
		snprintf(buf + len, n - len, "; no LL reported: LL as L1d");
}
