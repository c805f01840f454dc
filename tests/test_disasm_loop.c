/* test_disasm_loop.c - --disasm's module on this test's own benchmark functions: the loop found, its own instructions marked, the checks, the errors. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "disasm.h"
#include "tap.h"

/* The work is a sum nobody reads: the compiler removes it, and the loop
 * is the primitives alone. */
static __attribute__((noinline)) void bm_removed(struct pmb_state *s)
{
	uint64_t x = 0;

	while (pmb_loop(s))
		x += 3;
}

/* The same sum kept: one add per pass, nothing else.  (KEPT_LINE: the
 * line of the add, which the test is built with -g to find.) */
enum { KEPT_LINE = __LINE__ + 6 };
static __attribute__((noinline)) void bm_kept(struct pmb_state *s)
{
	uint64_t x = 0;

	while (pmb_loop(s)) {
		x += 3;
		pmb_do_not_optimize(x);
	}
}

static __attribute__((noinline)) uint64_t helper(uint64_t x)
{
	pmb_do_not_optimize(x);
	return x * 7;
}

/* A call the compiler may not inline. */
static __attribute__((noinline)) void bm_calls(struct pmb_state *s)
{
	uint64_t x = 1;

	while (pmb_loop(s)) {
		x = helper(x);
		pmb_do_not_optimize(x);
	}
}

/* Issue 34's example: the work is kept, but its input is the same every
 * pass, so the compiler computes it once before the loop. */
static __attribute__((noinline)) void bm_hoisted(struct pmb_state *s)
{
	uint64_t a = (uint64_t)pmb_arg(s, 0);

	while (pmb_loop(s)) {
		uint64_t r = a * a * a + 3 * a / 7;

		pmb_do_not_optimize(r);
	}
}

static bool has_note(const struct pmb_disasm *d, const char *text)
{
	for (int i = 0; i < d->nnotes; i++)
		if (strstr(d->note[i], text))
			return true;
	return false;
}

/* The loop's instructions that are neither its own nor no-ops nor jumps. */
static int body_of(const struct pmb_disasm *d, const struct pmb_disasm_insn **first)
{
	int n = 0;

	for (size_t i = 0; i < d->part[0].n; i++) {
		const struct pmb_disasm_insn *in = &d->insn[d->part[0].first + i];

		if (in->kind & (PMB_DA_HARNESS | PMB_DA_NOP | PMB_DA_JUMP))
			continue;
		if (!n++)
			*first = in;
	}
	return n;
}

/* The loop's own: exactly one call (to pmb__loop_next), and at least the
 * counter's load, test and branch besides it. */
static void check_harness(const struct pmb_disasm *d, const char *name)
{
	int calls = 0, own = 0;

	for (size_t i = 0; i < d->part[0].n; i++) {
		const struct pmb_disasm_insn *in = &d->insn[d->part[0].first + i];

		own += (in->kind & PMB_DA_HARNESS) != 0;
		calls += (in->kind & PMB_DA_HARNESS) && (in->kind & PMB_DA_CALL) &&
			 strstr(in->text, "<pmb__loop_next>");
	}
	tap_ok(calls == 1 && own >= 4, "%s: the loop's own instructions: %d, one of them the call to "
	       "pmb__loop_next (%d)", name, own, calls);
}

/* The code is there, outside the loop: hoisted, not removed (issue 34). */
static void hoisted(void)
{
	struct pmb_disasm *d = NULL;
	int rc = pmb__disasm_benchmark(bm_hoisted, "bm_hoisted", PMB_ROLE_NONE, &d);

	if (!tap_ok(rc == 0 && d, "bm_hoisted: found (%s)", rc ? pmb__disasm_error() : "ok"))
		return;
	/* a*a*a and the division by 7 (a multiplication) at least. */
	tap_ok(d->body_empty && d->outside >= 3 && d->outside_lo < d->part[0].lo,
	       "bm_hoisted: the body is empty and %d computing instructions sit outside the loop, from 0x%llx",
	       d->outside, (unsigned long long)d->outside_lo);
	tap_ok(has_note(d, "the work was hoisted before the loop") && has_note(d, "pmb_opaque()") &&
		       !has_note(d, "removed"),
	       "bm_hoisted: the note says hoisted, with the fix, and not removed (%s)", d->nnotes ? d->note[0] : "-");
	pmb__disasm_free(d);
}

static void removed(void)
{
	struct pmb_disasm *d = NULL;
	int rc = pmb__disasm_benchmark(bm_removed, "bm_removed", PMB_ROLE_NONE, &d);
	const struct pmb_disasm_insn *in = NULL;

	if (!tap_ok(rc == 0 && d, "bm_removed: found (%s)", rc ? pmb__disasm_error() : "ok"))
		return;
	tap_ok(d->nloops == 1 && !strcmp(d->func, "bm_removed") && !d->via[0],
	       "bm_removed: one measured loop, in the function itself (%d, %s)", d->nloops, d->func);
	check_harness(d, "bm_removed");
	tap_ok(d->body_empty && body_of(d, &in) == 0, "bm_removed: the body is empty (%s)",
	       in ? in->text : "-");
	tap_ok(has_note(d, "the compiler removed the work") && !has_note(d, "hoisted") && d->outside == 0,
	       "bm_removed: it computes nothing outside its loop (%d), and the note says the compiler removed "
	       "the work", d->outside);
	/* Counts that disagree: 3 instructions per item beside the loop's
	 * own (work the listing does not show) win over "removed". */
	d->counted = true;
	d->accounted_all = 3;
	d->accounted_share = 0;
	pmb__disasm_counted(d);
	tap_ok(has_note(d, "the counts win") && !has_note(d, "the compiler removed the work"),
	       "bm_removed with 3 instructions per item counted elsewhere: the counts win");
	pmb__disasm_free(d);
}

static void kept(void)
{
	struct pmb_disasm *d = NULL;
	const struct pmb_disasm_insn *in = NULL;
	int rc = pmb__disasm_benchmark(bm_kept, "bm_kept", PMB_ROLE_BRANCHY, &d), n;
	char line[64];
	const char *text;

	if (!tap_ok(rc == 0 && d, "bm_kept: found (%s)", rc ? pmb__disasm_error() : "ok"))
		return;
	check_harness(d, "bm_kept");
	n = body_of(d, &in);
	text = in ? in->text : "-";
	/* Whatever the compiler, the pass's work is one add of 3. */
	tap_ok(n == 1 && text[0] == 'a' && text[1] == 'd' && text[2] == 'd' && strchr(text, '3'),
	       "bm_kept: the body is exactly one add of 3 (%d: %s)", n, text);
	snprintf(line, sizeof(line), "test_disasm_loop.c:%d", KEPT_LINE);
	tap_ok(in && !strcmp(in->src, line), "bm_kept: the add's source line is %s (%s)", line, in ? in->src : "-");
	tap_ok(!d->body_empty && !has_note(d, "removed"), "bm_kept: no empty-body note");
	tap_ok(d->decisions == 0 && has_note(d, "made it branchless"),
	       "bm_kept as a branchy benchmark: no conditional branch but the loop's, and the note says so");
	pmb__disasm_free(d);
	rc = pmb__disasm_benchmark(bm_kept, "bm_kept", PMB_ROLE_NONE, &d);
	tap_ok(rc == 0 && !has_note(d, "branchless"), "bm_kept without a role: no branchy note");
	pmb__disasm_free(d);
}

static void calls(void)
{
	struct pmb_disasm *d = NULL;
	int rc = pmb__disasm_benchmark(bm_calls, "bm_calls", PMB_ROLE_NONE, &d);
	bool listed = false;

	if (!tap_ok(rc == 0 && d, "bm_calls: found (%s)", rc ? pmb__disasm_error() : "ok"))
		return;
	for (int p = 0; p < d->nparts; p++)
		listed |= d->part[p].callee && !strcmp(d->part[p].name, "helper");
	tap_ok(listed, "bm_calls: the function it calls is listed by name, disassembled");
	tap_ok(has_note(d, "the loop calls helper, not inlined"), "bm_calls: the note names the call");
	pmb__disasm_free(d);
}

/* Counts set by hand on bm_kept as a branchy benchmark (as sim_instr.c
 * sets them): the static claim "made it branchless" stands only where the
 * counts agree with it (issue 26: 0.17 mispredictions per byte counted
 * while the note said branchless). */
static void counts_win(void)
{
	struct pmb_disasm *d = NULL;
	int rc = pmb__disasm_benchmark(bm_kept, "bm_kept", PMB_ROLE_BRANCHY, &d), p;
	uint64_t bias;
	struct pmb_disasm_insn *in;

	if (!tap_ok(rc == 0 && d, "counts: bm_kept found (%s)", rc ? pmb__disasm_error() : "ok"))
		return;
	for (size_t i = 0; i < d->n; i++)
		d->insn[i].count[PMB_DA_EXEC] = 1;
	d->counted = true;
	d->accounted_all = 7.5;
	d->accounted_share = 0.2;
	d->misp_all = 0.17;
	pmb__disasm_counted(d);
	tap_ok(has_note(d, "the counts win") && has_note(d, "0.17 mispredictions per item") &&
	       !has_note(d, "made it branchless"),
	       "counts: mispredictions counted outside the listing win over the static claim");
	d->misp_all = 0;
	pmb__disasm_counted(d);
	tap_ok(has_note(d, "accounts for 20.0 %") && !has_note(d, "made it branchless"),
	       "counts: a listing holding 20 %% of the counted instructions makes no claim");
	d->accounted_share = 1;
	pmb__disasm_counted(d);
	tap_ok(has_note(d, "made it branchless (the counts agree"),
	       "counts: all placed, none mispredicted: the claim, with its evidence");
	/* A function found by counts, from this very file. */
	bias = d->bias;
	p = pmb__disasm_add_found(d, d->file, (uint64_t)(uintptr_t)helper - bias, bias);
	in = pmb__disasm_find_ip(d, (uintptr_t)helper);
	tap_ok(p > 0 && d->part[p].found && !strcmp(d->part[p].name, "helper") && in && in->part == p &&
	       pmb__disasm_add_found(d, d->file, (uint64_t)(uintptr_t)helper - bias, bias) == p,
	       "found by counts: helper added once, from its file, its instructions found by run-time address (%d)",
	       p);
	pmb__disasm_free(d);
}

/* Perf: samples place the code, the benchmark's counted mispredictions
 * are the evidence (issue 26: a branchless claim made without any). */
static void samples_and_misp(void)
{
	struct pmb_disasm *d = NULL;
	int rc = pmb__disasm_benchmark(bm_kept, "bm_kept", PMB_ROLE_BRANCHY, &d);

	if (!tap_ok(rc == 0 && d, "samples: bm_kept found (%s)", rc ? pmb__disasm_error() : "ok"))
		return;
	for (size_t i = 0; i < d->n; i++)
		d->insn[i].share = 1.0 / (double)d->n;
	d->sampled = true;
	d->accounted_all = 1000;
	d->accounted_share = 1;
	pmb__disasm_counted(d);
	tap_ok(has_note(d, "made it branchless (no misprediction count here to confirm it)"),
	       "samples, no mispredictions counted: the static claim, saying nothing confirms it");
	pmb__disasm_misp(d, 0.31);
	tap_ok(has_note(d, "yet 0.31 mispredictions per item were counted for the benchmark: the counts win") &&
	       !has_note(d, "made it branchless"),
	       "samples, 0.31 mispredictions per item counted: the counts win over the static claim");
	pmb__disasm_misp(d, 0.0002);
	tap_ok(has_note(d, "made it branchless (the counts agree: 0.0002 mispredictions per item counted)"),
	       "samples, 0.0002 mispredictions per item counted: the claim, with its evidence");
	pmb__disasm_misp(d, NAN);
	tap_ok(has_note(d, "no misprediction count here to confirm it"), "samples, the count withdrawn: unconfirmed again");
	pmb__disasm_free(d);
}

static void errors(const char *exe)
{
	struct pmb_disasm *d = NULL;
	int rc = pmb__disasm_symbol(exe, "no_such_function_here", PMB_ROLE_NONE, &d);

	tap_ok(rc == -ENOENT && !d && strstr(pmb__disasm_error(), "no function named 'no_such_function_here'"),
	       "an unknown symbol: -ENOENT, named (%s)", pmb__disasm_error());
	rc = pmb__disasm_symbol(exe, "helper", PMB_ROLE_NONE, &d);
	tap_ok(rc == -ENOENT && !d && strstr(pmb__disasm_error(), "no loop calling pmb__loop_next"),
	       "a function that is no benchmark: said so (%s)", pmb__disasm_error());
	rc = pmb__disasm_symbol("/nonexistent/pmubench", "bm_kept", PMB_ROLE_NONE, &d);
	tap_ok(rc < 0 && !d && strstr(pmb__disasm_error(), "cannot open /nonexistent/pmubench"),
	       "a missing file: said so (%s)", pmb__disasm_error());
	rc = pmb__disasm_symbol(exe, "bm_kept", PMB_ROLE_NONE, &d);
	tap_ok(rc == 0 && d && d->nloops == 1, "by name from the file: bm_kept (%s)", rc ? pmb__disasm_error() : "ok");
	pmb__disasm_free(d);
	pmb__disasm_free(NULL);
}

int main(void)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		tap_skip_all("cannot read /proc/self/exe");
	exe[n] = '\0';
	removed();
	hoisted();
	kept();
	calls();
	counts_win();
	samples_and_misp();
	errors(exe);
	return tap_done();
}
