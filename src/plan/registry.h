/* registry.h - the benchmark table: definitions, filtering, argument expansion. */
#ifndef PMB_REGISTRY_H
#define PMB_REGISTRY_H

#include <regex.h>
#include <stddef.h>

#include "model.h"

/* All registered definitions (order of registration). */
size_t pmb__registry_count(void);
const struct pmb_benchmark_def *pmb__registry_get(size_t i);

/* Definitions pmb_register() refused: how many, and the first one's error
 * (PMB_EABI, PMB_EDEFSIZE), .abi and .size. */
struct pmb_registry_refusals {
	size_t n;
	int first_err;
	int first_abi;
	size_t first_size;
};
struct pmb_registry_refusals pmb__registry_refusals(void);

/* Forget the definitions registered after the first n (a plugin refused
 * after some of its definitions were registered). */
void pmb__registry_truncate(size_t n);

/* Expand only the definitions from the i-th on (--load: the loaded ones). */
void pmb__registry_show_from(size_t i);

/* Expand every definition into instances (tiers from `tiers`, which may be
 * NULL when no definition uses PMB_TIERS), keep those whose name matches
 * `filter` (NULL: all) plus the baselines and references they name, resolve
 * those links and the interleaving cohorts.  Returns 0 and a malloc'ed
 * array in *out, or -ENOMEM, or PMB_ENOCACHE when PMB_TIERS is used and
 * tiers is NULL, or -EEXIST when two instances share a name
 * (pmb__registry_error() names both definitions). */
int pmb__registry_expand(const regex_t *filter, const struct pmb_tier_point *tiers,
			size_t ntiers, struct pmb_instance **out, size_t *n);

/* The last pmb__registry_expand() error's detail, "" none. */
const char *pmb__registry_error(void);

#endif
