/* disasm_found.c - --disasm's parts found by counts or samples: functions of any loaded file the loop reached with no direct call, and what could not be placed. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "disasm.h"
#include "disasm_cfg.h"
#include "disasm_internal.h"

/* Whether two paths name the same file: equal, or (a file reached by
 * another path: /proc/self/exe, a link) equal in their last component. */
static bool same_file(const char *a, const char *b)
{
	const char *x = strrchr(a, '/'), *y = strrchr(b, '/');

	return !strcmp(a, b) || !strcmp(x ? x + 1 : a, y ? y + 1 : b);
}

struct pmb_disasm_insn *pmb__disasm_find_in(struct pmb_disasm *d, const char *file, uint64_t addr)
{
	for (int p = 0; p < d->nparts; p++) {
		const struct pmb_disasm_part *pt = &d->part[p];

		if (addr < pt->lo || addr >= pt->hi || !same_file(pt->file, file))
			continue;
		for (size_t i = pt->first; i < pt->first + pt->n; i++)
			if (d->insn[i].addr == addr)
				return &d->insn[i];
	}
	return NULL;
}

struct pmb_disasm_insn *pmb__disasm_find_ip(struct pmb_disasm *d, uintptr_t ip)
{
	for (int p = 0; p < d->nparts; p++) {
		const struct pmb_disasm_part *pt = &d->part[p];
		uint64_t addr = (uint64_t)ip - pt->bias;

		if (addr < pt->lo || addr >= pt->hi)
			continue;
		for (size_t i = pt->first; i < pt->first + pt->n; i++)
			if (d->insn[i].addr == addr)
				return &d->insn[i];
	}
	return NULL;
}

bool pmb__disasm_name_at(const char *file, uint64_t addr, char *buf, size_t n)
{
	struct pmb__elf *e;
	uint64_t start, size;
	char err[256];
	bool found;

	buf[0] = '\0';
	if (pmb__elf_open(file, &e, err, sizeof(err)))
		return false;
	found = pmb__elf_sym_at(e, addr, buf, n, &start, &size);
	pmb__elf_close(e);
	return found;
}

/* The part of file that starts at start, or -1. */
static int part_at(const struct pmb_disasm *d, const char *file, uint64_t start)
{
	for (int p = 0; p < d->nparts; p++)
		if (d->part[p].callee && d->part[p].lo == start && same_file(d->part[p].file, file))
			return p;
	return -1;
}

int pmb__disasm_add_found(struct pmb_disasm *d, const char *file, uint64_t addr, uint64_t bias)
{
	struct pmb__elf *e;
	csh h;
	size_t cap = d->n; /* at least what d->insn holds */
	struct pmb__func g;
	uint64_t start, size;
	char name[128], arch[16];
	int rc, p;

	if (d->nparts >= PMB_DA_MAX_PARTS)
		return -ENOSPC;
	rc = pmb__elf_open(file, &e, pmb__da_err, sizeof(pmb__da_err));
	if (rc)
		return rc;
	rc = -ENOENT;
	if (!pmb__elf_sym_at(e, addr, name, sizeof(name), &start, &size))
		goto fail_sym;
	p = part_at(d, file, start);
	if (p >= 0) {
		rc = p;
		goto fail_sym;
	}
	rc = pmb__cfg_arch(pmb__elf_machine(e), &h, arch, sizeof(arch));
	if (rc)
		goto fail_sym;
	rc = pmb__cfg_decode(h, e, start, size, &g, NULL);
	if (!rc) {
		pmb__cfg_sccs(&g);
		pmb__cfg_decisions(&g);
		p = d->nparts;
		rc = pmb__disasm_add_part(d, &cap, &g, -1, true, name);
		pmb__cfg_free(&g);
		if (!rc) {
			d->part[p].found = true;
			d->part[p].lo = start; /* a function's part is named by its start */
			snprintf(d->part[p].file, sizeof(d->part[p].file), "%s", file);
			d->part[p].bias = bias;
			rc = p;
		}
	}
	cs_close(&h);
fail_sym:
	pmb__elf_close(e);
	return rc;
}

void pmb__disasm_unplaced(struct pmb_disasm *d, const char *name, const char *file, const char *why,
			  double share)
{
	struct pmb_disasm_unplaced *u = NULL;
	int k;

	for (k = 0; k < d->nunplaced && !u; k++)
		if (!strcmp(d->unplaced[k].name, name) && !strcmp(d->unplaced[k].file, file))
			u = &d->unplaced[k];
	if (!u && d->nunplaced == PMB_DA_MAX_UNPLACED) {
		d->unplaced_rest += share;
		return;
	}
	if (!u) {
		u = &d->unplaced[d->nunplaced++];
		memset(u, 0, sizeof(*u));
		snprintf(u->name, sizeof(u->name), "%s", name);
		snprintf(u->file, sizeof(u->file), "%s", file);
		snprintf(u->why, sizeof(u->why), "%s", why);
	}
	u->share += share;
}
