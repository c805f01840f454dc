/* sim_instr.c - --disasm under the simulator: callgrind's per-instruction costs of one benchmark's samples. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "disasm.h"
#include "pmubench.h"
#include "sim_internal.h"

/* The costs of each instruction of d, dump by dump (one dump per meter
 * stop: the calibration pass first, then the samples). */
#define MAX_STOPS 64

struct pmb__sim_instr {
	struct pmb_disasm *d;
	const char *exe;
	double *cost[MAX_STOPS]; /* [insn * PMB_DA_NCOUNT + column] */
	int nstops;
	int err;
};

/* callgrind's columns for each count of the listing. */
static const enum pmb__sim_col count_col[PMB_DA_NCOUNT] = {
	[PMB_DA_EXEC] = PMB__COL_IR, [PMB_DA_MISP] = PMB__COL_BCM,
	[PMB_DA_L1D] = PMB__COL_D1MR, [PMB_DA_LL] = PMB__COL_DLMR,
};

/* What one dump's reading keeps between lines. */
struct dump_state {
	int pos[PMB__NCOL + 8], ncols, npos;
	bool ob_match, call_cost;
	char ob_ids[512];  /* 1: object id names the executable, 2: another */
	uint64_t addr;
};

/* "ob=(3) /path" or "ob=(3)" or "ob=/path": whether it is our file. */
static void parse_ob(struct dump_state *st, const char *v, const char *exe)
{
	long id = -1;
	const char *name = v;

	if (*v == '(') {
		id = strtol(v + 1, (char **)&name, 10);
		name += *name == ')';
		name += strspn(name, " ");
	}
	if (*name) {
		const char *b = strrchr(name, '/'), *be = strrchr(exe, '/');

		st->ob_match = !strcmp(name, exe) || (b && be && !strcmp(b, be));
		if (id >= 0 && id < (long)sizeof(st->ob_ids))
			st->ob_ids[id] = st->ob_match ? 1 : 2;
	} else {
		st->ob_match = id >= 0 && id < (long)sizeof(st->ob_ids) && st->ob_ids[id] == 1;
	}
}

/* One position: "0x1a2b", "+7", "-3" or "*"; *p moves past it. */
static uint64_t parse_pos(const char **p, uint64_t last)
{
	char *end;
	uint64_t v = last;

	if (**p == '*')
		(*p)++;
	else if (**p == '+' || **p == '-')
		v = last + (uint64_t)strtoll(*p, &end, 0), *p = end;
	else
		v = strtoull(*p, &end, 0), *p = end;
	*p += strspn(*p, " \t");
	return v;
}

static void cost_line(struct pmb__sim_instr *a, struct dump_state *st, const char *p)
{
	uint64_t v[PMB__NCOL] = { 0 };
	struct pmb_disasm_insn *in;
	double *row;

	st->addr = parse_pos(&p, st->addr);
	for (int k = 1; k < st->npos; k++)
		(void)parse_pos(&p, 0);
	for (int i = 0; i < st->ncols && *p; i++) {
		char *end;
		unsigned long long x = strtoull(p, &end, 10);

		if (end == p)
			break;
		if (st->pos[i] >= 0)
			v[st->pos[i]] = x;
		p = end;
	}
	/* The line after calls= is the call's inclusive cost, not the
	 * instruction's own. */
	if (st->call_cost || !st->ob_match || !(in = pmb__disasm_find(a->d, st->addr)))
		return;
	row = a->cost[a->nstops] + (size_t)(in - a->d->insn) * PMB_DA_NCOUNT;
	for (int k = 0; k < PMB_DA_NCOUNT; k++)
		row[k] += (double)v[count_col[k]];
}

static void read_line(struct pmb__sim_instr *a, struct dump_state *st, const char *line)
{
	if (!strncmp(line, "events:", 7)) {
		const char *p = line + 7;

		st->ncols = 0;
		while (*(p += strspn(p, " \t")) && st->ncols < (int)PMB__ARRAY_LEN(st->pos)) {
			size_t len = strcspn(p, " \t\n");

			st->pos[st->ncols] = -1;
			for (int c = 0; c < PMB__NCOL; c++)
				if (strlen(pmb__sim_col_name[c]) == len && !strncmp(p, pmb__sim_col_name[c], len))
					st->pos[st->ncols] = c;
			st->ncols++;
			p += len;
		}
	} else if (!strncmp(line, "positions:", 10)) {
		st->npos = strstr(line, "line") ? 2 : 1;
	} else if (!strncmp(line, "ob=", 3)) {
		parse_ob(st, line + 3, a->exe);
	} else if (!strncmp(line, "calls=", 6)) {
		st->call_cost = true;
		return;
	} else if (line[0] == '+' || line[0] == '-' || line[0] == '*' || (line[0] >= '0' && line[0] <= '9')) {
		cost_line(a, st, line);
	}
	st->call_cost = false;
}

static void on_dump(void *arg, const char *path)
{
	struct pmb__sim_instr *a = arg;
	struct dump_state st = { .npos = 1 };
	char *line = NULL;
	size_t cap = 0;
	FILE *f;

	if (a->err || a->nstops == MAX_STOPS)
		return;
	a->cost[a->nstops] = calloc(a->d->n * PMB_DA_NCOUNT + 1, sizeof(double));
	f = fopen(path, "r");
	if (!a->cost[a->nstops] || !f) {
		a->err = -errno;
		if (f)
			fclose(f);
		return;
	}
	while (getline(&line, &cap, f) > 0) {
		line[strcspn(line, "\n")] = '\0';
		read_line(a, &st, line);
	}
	free(line);
	fclose(f);
	a->nstops++;
}

/* Counts per item over the samples the runner kept: the last nsamples
 * dumps (the first is the one-pass calibration sample). */
static int fill_counts(struct pmb__sim_instr *a, const struct pmb_result *r)
{
	struct pmb_disasm *d = a->d;
	double items = 0;
	int from = a->nstops - (int)r->nsamples;

	if (r->nsamples == 0 || from < 0)
		return -EPROTO;
	for (size_t s = 0; s < r->nsamples; s++)
		items += (double)r->samples[s].passes * (double)(r->items_per_pass ? r->items_per_pass : 1);
	for (size_t i = 0; i < d->n; i++)
		for (int k = 0; k < PMB_DA_NCOUNT; k++) {
			double sum = 0;

			for (int s = from; s < a->nstops; s++)
				sum += a->cost[s][i * PMB_DA_NCOUNT + (size_t)k];
			d->insn[i].count[k] = sum / items;
		}
	d->counted = true;
	pmb__disasm_counted(d);
	return 0;
}

int pmb__sim_instr_begin(struct pmb__sim_instr **out, struct pmb_meter *m, struct pmb_disasm *d)
{
	struct pmb__sim_instr *a = calloc(1, sizeof(*a));

	*out = a;
	if (!a)
		return -ENOMEM;
	a->d = d;
	a->exe = d->file;
	pmb__sim_meter_on_dump(m, on_dump, a);
	return 0;
}

int pmb__sim_instr_end(struct pmb__sim_instr *a, struct pmb_meter *m, int rc, const struct pmb_result *res,
		       const char *name)
{
	pmb__sim_meter_on_dump(m, NULL, NULL);
	if (!rc)
		rc = a->err;
	if (!rc && res->status == 0)
		rc = fill_counts(a, res);
	if (rc)
		pmb__sim_set_err("per-instruction counts of %s: %s", name,
				 rc == -EPROTO ? "the samples and callgrind's dumps do not match" : pmb_strerror(rc));
	for (int s = 0; s < a->nstops; s++)
		free(a->cost[s]);
	free(a);
	return rc;
}
