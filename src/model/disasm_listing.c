/* disasm_listing.c - the annotated loop's names (count columns, part kinds, instruction roles) and its release. */
#include <stdlib.h>
#include <string.h>

#include "disasm_listing.h"

const char *const pmb__da_count_name[PMB_DA_NCOUNT] = { "exec", "misp", "l1d", "ll" };

void pmb__disasm_free(struct pmb_disasm *d)
{
	if (!d)
		return;
	free(d->insn);
	free(d);
}

static const struct {
	const char *name;
	bool callee, found;
} part_kinds[] = { { "loop", false, false }, { "called", true, false }, { "found", true, true } };

/* A role's bit, the first that an instruction's kind holds wins: a
 * decision that is also the harness's is drawn as a choice. */
static const struct {
	const char *name;
	unsigned bit;
} roles[] = { { "choice", PMB_DA_DECISION }, { "loop", PMB_DA_HARNESS }, { "body", 0 } };

#define NAMES(t) (sizeof(t) / sizeof((t)[0]))

const char *pmb__da_part_kind_name(const struct pmb_disasm_part *pt)
{
	return pt->found ? "found" : pt->callee ? "called" : "loop";
}

int pmb__da_part_kind_of(const char *name, struct pmb_disasm_part *pt)
{
	for (size_t i = 0; name && i < NAMES(part_kinds); i++)
		if (!strcmp(name, part_kinds[i].name)) {
			pt->callee = part_kinds[i].callee;
			pt->found = part_kinds[i].found;
			return 0;
		}
	return -1;
}

const char *pmb__da_role_name(unsigned kind)
{
	size_t i = 0;

	while (roles[i].bit && !(kind & roles[i].bit))
		i++;
	return roles[i].name;
}

int pmb__da_role_of(const char *name)
{
	for (size_t i = 0; name && i < NAMES(roles); i++)
		if (!strcmp(name, roles[i].name))
			return (int)roles[i].bit;
	return -1;
}
