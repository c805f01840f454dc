/* report_disasm.c - the console's --disasm section: each benchmark's measured loop, its counts per instruction, ranked. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "disasm.h"
#include "report.h"

#define TOP 5

static bool insn_shown(const struct pmb_disasm *d, const struct pmb_disasm_insn *in)
{
	if (!(in->kind & PMB_DA_NOP))
		return true;
	/* A nop is padding unless the counts say it ran. */
	return (d->counted && in->count[PMB_DA_EXEC] > 0) || (d->sampled && in->share > 0);
}

static void legend(FILE *f, const struct pmb_disasm *d)
{
	if (d->sampled)
		fprintf(f, "  share: of the %llu samples of %s (one every %llu, user mode) taken while the samples ran;\n"
			   "  %llu in this code, %llu in the program's code, %llu delivered only in the kernel (the\n"
			   "  overflow came late)%s.  A sample\n"
			   "  lands a few instructions after the one that caused it (skid): read a share as\n"
			   "  belonging to the instructions just before it\n",
			(unsigned long long)d->samples_all, d->sample_event, (unsigned long long)d->sample_period,
			(unsigned long long)d->samples_in, (unsigned long long)d->samples_program,
			(unsigned long long)d->samples_kernel,
			d->samples_lost ? ", some lost" : "");
	if (d->counted)
		fprintf(f, "  simulated per item (callgrind): exec executions, misp conditional-branch mispredictions,\n"
			   "  l1d and ll L1d and last-level read misses; 'loop' marks the harness's own instructions,\n"
			   "  'choice' a conditional branch that stays in the loop\n");
	else
		fprintf(f, "  'loop' marks the harness's own instructions, 'choice' a conditional branch that stays in\n"
			   "  the loop (counts per instruction: --backend=sim)\n");
}

static void header_row(FILE *f, const struct pmb_disasm *d)
{
	fputs("  ", f);
	if (d->counted)
		for (int k = 0; k < PMB_DA_NCOUNT; k++)
			fprintf(f, "%7s ", pmb__da_count_name[k]);
	if (d->sampled)
		fprintf(f, "%7s ", "share");
	fprintf(f, "%8s %-6s %s\n", "address", "", "instruction");
}

static void insn_line(FILE *f, const struct pmb_disasm *d, const struct pmb_disasm_insn *in)
{
	const char *what = in->kind & PMB_DA_DECISION ? "choice" : in->kind & PMB_DA_HARNESS ? "loop" : "";

	fputs("  ", f);
	if (d->counted)
		for (int k = 0; k < PMB_DA_NCOUNT; k++)
			fprintf(f, "%7.3f ", in->count[k]);
	if (d->sampled)
		fprintf(f, "%6.1f%% ", 100 * in->share);
	if (in->src[0])
		fprintf(f, "%8llx %-6s %-44s %s\n", (unsigned long long)in->addr, what, in->text, in->src);
	else
		fprintf(f, "%8llx %-6s %s\n", (unsigned long long)in->addr, what, in->text);
}

/* text as lines of at most WIDTH columns, the first after lead, the
 * others indented as deep. */
#define WIDTH 96
static void wrapped(FILE *f, const char *lead, const char *text)
{
	size_t indent = strlen(lead), col = indent;

	fputs(lead, f);
	while (*text) {
		size_t w = strcspn(text, " ");

		if (col > indent && col + 1 + w > WIDTH) {
			fprintf(f, "\n%*s", (int)indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', f);
			col++;
		}
		fprintf(f, "%.*s", (int)w, text);
		col += w;
		text += w;
		text += strspn(text, " ");
	}
	fputc('\n', f);
}

static void part(FILE *f, const struct pmb_disasm *d, int p)
{
	const struct pmb_disasm_part *pt = &d->part[p];

	if (pt->found)
		fprintf(f, "  ran in the measured loop, reached by no direct call (found by its counts): %s in %s\n",
			pt->name, pt->file);
	else if (pt->callee)
		fprintf(f, "  called from the loop: %s\n", pt->name);
	else
		fprintf(f, "  measured loop in %s, 0x%llx..0x%llx:\n", pt->name, (unsigned long long)pt->lo,
			(unsigned long long)pt->hi);
	for (size_t i = pt->first; i < pt->first + pt->n; i++)
		if (insn_shown(d, &d->insn[i]))
			insn_line(f, d, &d->insn[i]);
}

/* What the listing accounts for of what was counted (sim) or sampled,
 * what it could not place, and (sampled) how many samples landed of
 * those the period implies. */
static void accounting(FILE *f, const struct pmb_disasm *d)
{
	char line[1024];
	size_t len = 0;
	double expected = d->sample_period ? d->sampled_count / (double)d->sample_period : 0;

	if (isnan(d->accounted_share))
		return;
	if (d->counted)
		fprintf(f, "  accounted: the listing holds %.3f of the %.3f instructions per item counted (%.1f %%)\n",
			d->accounted_share * d->accounted_all, d->accounted_all, 100 * d->accounted_share);
	else
		fprintf(f, "  accounted: the listing holds %llu of the %llu samples (%.1f %%)\n",
			(unsigned long long)d->samples_in, (unsigned long long)d->samples_all,
			100 * d->accounted_share);
	for (int k = 0; k < d->nunplaced && len < sizeof(line); k++) {
		const struct pmb_disasm_unplaced *u = &d->unplaced[k];
		const char *b = strrchr(u->file, '/');

		len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%s%s%s %.3g %% (%s)", k ? "; " : "",
					u->name, u->file[0] ? " in " : "", b ? b + 1 : u->file, 100 * u->share,
					u->why);
	}
	if (d->unplaced_rest > 0 && len < sizeof(line))
		snprintf(line + len, sizeof(line) - len, "; others %.3g %%", 100 * d->unplaced_rest);
	if (d->nunplaced)
		wrapped(f, "  not placed: ", line);
	if (d->sampled && expected >= 1 && (double)d->samples_all < 0.5 * expected)
		fprintf(f, "  thin sampling: %llu samples landed of the %.0f expected (%.4g %s counted / one "
			"every %llu): the shares rest on few samples\n", (unsigned long long)d->samples_all,
			expected, d->sampled_count, d->sample_event, (unsigned long long)d->sample_period);
}

/* The ranking value: a count per item, or (rank_col -1) a share. */
static double rank_of(const struct pmb_disasm *d, const struct pmb_disasm_insn *in)
{
	return d->rank_col < 0 ? in->share : in->count[d->rank_col];
}

static int by_rank(const void *a, const void *b, void *arg)
{
	const struct pmb_disasm *d = arg;
	double x = rank_of(d, *(const struct pmb_disasm_insn *const *)a);
	double y = rank_of(d, *(const struct pmb_disasm_insn *const *)b);

	return (x < y) - (x > y);
}

/* The instructions with the most of the ranking count, highest first. */
static void ranking(FILE *f, const struct pmb_disasm *d)
{
	const struct pmb_disasm_insn **v = malloc(d->n * sizeof(*v) + 1);
	size_t n = 0;

	if (!v)
		return;
	for (size_t i = 0; i < d->n; i++)
		if (pmb__disasm_part_shown(d, d->insn[i].part) && insn_shown(d, &d->insn[i]) &&
		    rank_of(d, &d->insn[i]) > 0)
			v[n++] = &d->insn[i];
	qsort_r(v, n, sizeof(*v), by_rank, (void *)d);
	fprintf(f, "  ranked by %s%s:", d->rank_by, d->rank_col < 0 ? "" : " per item");
	if (!n)
		fprintf(f, " none counted");
	for (size_t i = 0; i < n && i < TOP; i++)
		fprintf(f, d->rank_col < 0 ? "%s %zu. %llx %.1f%%" : "%s %zu. %llx %.3g", i ? ";" : "", i + 1,
			(unsigned long long)v[i]->addr, (d->rank_col < 0 ? 100 : 1) * rank_of(d, v[i]));
	fputc('\n', f);
	free(v);
}

static void one(FILE *f, const char *name, const struct pmb_disasm *d)
{
	int hidden = 0;

	fprintf(f, "\n--disasm %s: %s%s%s\n  (%s code of %s)\n", name, d->func, d->via[0] ? ", " : "", d->via,
		d->arch, d->file);
	legend(f, d);
	header_row(f, d);
	for (int p = 0; p < d->nparts; p++) {
		if (!pmb__disasm_part_shown(d, p)) {
			hidden++;
			continue;
		}
		part(f, d, p);
	}
	if (hidden)
		fprintf(f, "  (%d loop%s or function%s of the same code that this benchmark does not run: not "
			"shown)\n", hidden, hidden > 1 ? "s" : "", hidden > 1 ? "s" : "");
	if (d->counted || d->sampled) {
		accounting(f, d);
		ranking(f, d);
	}
	for (int i = 0; i < d->nnotes; i++)
		wrapped(f, "  note: ", d->note[i]);
}

void pmb__report_disasm(FILE *f, const struct pmb_result *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (r[i].disasm && r[i].m.repetition == 0)
			one(f, r[i].m.inst->name, r[i].disasm);
}
