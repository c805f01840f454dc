/* near.h - names near a mistyped one: edit distance, the closest candidates, and matching a pattern as names are compared. */
#ifndef PMB_NEAR_H
#define PMB_NEAR_H

#include <stdbool.h>
#include <stddef.h>

#define PMB_NEAR_MAX 3   /* candidates kept */
#define PMB_NEAR_LEN 96  /* longest name compared, and kept */

/* The closest candidates to a bad name seen so far, closest first. */
struct pmb_near {
	const char *bad;   /* the name as given */
	int max;           /* farthest distance still worth suggesting */
	int n;
	int d[PMB_NEAR_MAX];
	char name[PMB_NEAR_MAX][PMB_NEAR_LEN];
};

/* Edit distance between a and b with case ignored and '_' equal to '-'
 * (BR_MISP_RETIRED is br-misp-retired); INT_MAX for a name longer than
 * PMB_NEAR_LEN.  O(|a| * |b|). */
int pmb__near_distance(const char *a, const char *b);

/* Start s for bad: suggestions up to a third of its length away (at least 2). */
void pmb__near_start(struct pmb_near *s, const char *bad);

/* cand as a candidate: kept if among the PMB_NEAR_MAX closest (the first
 * seen wins among equals) and no kept name is the same under the
 * comparison above. */
void pmb__near_consider(struct pmb_near *s, const char *cand);

/* cand compared, shown kept in its place (an option compared by its name,
 * shown with the value given: "--filter=x"). */
void pmb__near_consider_as(struct pmb_near *s, const char *cand, const char *shown);

/* The kept names as "a, b, c" into out (size > 0); "" for none. */
void pmb__near_join(const struct pmb_near *s, char *out, size_t size);

/* cand written as the user wrote bad, which is how it will be typed next:
 * upper case where bad has no lower-case letter, lower case where it has no
 * upper-case one (a name with both is left as it is), and '_' for '-' where bad
 * has '_' and no '-' and underscore_ok says the name accepts that
 * spelling.  Only for names compared without regard to case.  Writes at most size bytes into buf (size > 0); returns buf. */
const char *pmb__near_as_typed(const char *bad, const char *cand, bool underscore_ok, char *buf,
			       size_t size);

/* Whether name contains pattern, compared as pmb__near_distance compares
 * (case ignored, '_' equal to '-'); an empty or NULL pattern matches all. */
bool pmb__near_contains(const char *name, const char *pattern);

#endif
