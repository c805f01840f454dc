/* disasm.c - --disasm: find a benchmark's measured loop in its ELF file, mark the loop's own instructions. */
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "disasm.h"
#include "disasm_cfg.h"
#include "disasm_internal.h"

char pmb__da_err[512];

const char *pmb__disasm_error(void)
{
	return pmb__da_err;
}

static int fail(int rc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(pmb__da_err, sizeof(pmb__da_err), fmt, ap);
	va_end(ap);
	return rc;
}

/* What one search needs: the file, capstone, and the result growing. */
struct da {
	struct pmb__elf *e;
	csh h;
	struct pmb_disasm *d;
	size_t cap;
};

static bool is_loop_next(const struct da *a, const struct pmb__dinsn *in)
{
	char name[128];

	if (!(in->out.kind & PMB_DA_CALL) || !in->target)
		return false;
	pmb__elf_name_of(a->e, in->target, name, sizeof(name));
	return !strcmp(name, "pmb__loop_next") || !strcmp(name, "pmb__loop_next@plt");
}

static int first_arg_reg(int machine)
{
	return machine == EM_X86_64 ? X86_REG_RDI : ARM64_REG_X0;
}

static bool has(const uint16_t *r, int n, int reg)
{
	for (int i = 0; i < n; i++)
		if (r[i] == reg)
			return true;
	return false;
}

/* Registers a call may change (the ABI's caller-saved ones, as capstone
 * numbers them). */
static bool clobbered_by_call(int machine, int reg)
{
	static const int x86[] = { X86_REG_RAX, X86_REG_RCX, X86_REG_RDX, X86_REG_RSI, X86_REG_RDI,
				   X86_REG_R8, X86_REG_R9, X86_REG_R10, X86_REG_R11 };

	if (machine != EM_X86_64)
		return reg >= ARM64_REG_X0 && reg <= ARM64_REG_X18;
	for (size_t i = 0; i < sizeof(x86) / sizeof(x86[0]); i++)
		if (reg == x86[i])
			return true;
	return false;
}

/* What the marking knows: the registers that hold the state pointer (the
 * loop counter is at offset 0 of what it points to) and those that hold
 * the counter's value now. */
struct marks {
	uint16_t state[8], val[16];
	int nstate, nval, machine;
};

static void set_add(uint16_t *set, int *n, int cap, int reg)
{
	if (reg && !has(set, *n, reg) && *n < cap)
		set[(*n)++] = (uint16_t)reg;
}

static void set_del(uint16_t *set, int *n, int reg)
{
	for (int i = 0; i < *n; i++)
		if (set[i] == reg)
			set[i--] = set[--(*n)];
}

/* The slow path: the block ending in the call to pmb__loop_next and the
 * block its return value is tested in; the state pointer is in the first
 * argument register there, and in any register moved into it. */
static void mark_slow_path(const struct da *a, struct pmb__func *f, int scc, struct marks *m)
{
	int arg = first_arg_reg(m->machine);

	for (int b = 0; b < f->nblk; b++) {
		struct pmb__block *bk = &f->blk[b];

		if (bk->scc != scc || !is_loop_next(a, &f->in[bk->first + bk->n - 1]))
			continue;
		set_add(m->state, &m->nstate, 8, arg);
		for (size_t i = bk->first; i < bk->first + bk->n; i++) {
			struct pmb__dinsn *in = &f->in[i];

			in->out.kind |= PMB_DA_HARNESS;
			if (has(in->wr, in->nwr, arg) && in->nrd == 1 && !in->has_mem)
				set_add(m->state, &m->nstate, 8, in->rd[0]);
		}
		if (bk->succ[1] >= 0 && f->blk[bk->succ[1]].scc == scc)
			for (size_t i = 0; i < f->blk[bk->succ[1]].n; i++)
				f->in[f->blk[bk->succ[1]].first + i].out.kind |= PMB_DA_HARNESS;
	}
}

/* Whether in is one of the counter's own: its load or store (memory at
 * the state pointer, offset 0), or an instruction that reads the counter's
 * value alone (the decrement, the test). */
static bool counter_insn(const struct marks *m, const struct pmb__dinsn *in)
{
	bool all = in->nrd > 0;

	if (in->out.kind & PMB_DA_CALL)
		return false;
	if (in->has_mem)
		return has(m->state, m->nstate, in->mem_base) && !in->mem_index && in->mem_disp == 0;
	/* What it writes holds a value made of the counter's alone (arm64
	 * decrements into another register: sub x0, x1, #1). */
	for (int k = 0; k < in->nrd; k++)
		all &= has(m->val, m->nval, in->rd[k]);
	return all;
}

/* One instruction of the walk below: marked the counter's own, with the
 * registers it sets holding the counter's value; or not, and they do not. */
static void counter_step(struct pmb__func *f, size_t i, struct marks *m)
{
	struct pmb__dinsn *in = &f->in[i];
	bool mine = counter_insn(m, in) || ((in->out.kind & PMB_DA_COND) && i > 0 &&
					    f->in[i - 1].block == in->block &&
					    (f->in[i - 1].out.kind & PMB_DA_HARNESS));

	if (mine && !(in->out.kind & PMB_DA_CALL)) {
		in->out.kind |= PMB_DA_HARNESS;
		for (int k = 0; k < in->nwr; k++)
			set_add(m->val, &m->nval, 16, in->wr[k]);
		return;
	}
	for (int k = 0; k < in->nwr; k++)
		set_del(m->val, &m->nval, in->wr[k]);
	for (int r = 0; (in->out.kind & PMB_DA_CALL) && r < m->nval; r++)
		if (clobbered_by_call(m->machine, m->val[r]))
			set_del(m->val, &m->nval, m->val[r--]);
}

/* The pass counter's own instructions, and the branch that follows them:
 * which registers hold the counter's value flows from block to block
 * (into a block, what any block before it in the loop left), a few rounds,
 * so that a loop rotated to decrement at its top sees the value the load
 * at its bottom left. */
/* The predecessors of each block: those of b are pred[at[b] .. at[b + 1]).
 * Each block has at most two successors, so 2 nblk entries do.  Returns
 * at (pred follows it in the one allocation), or NULL. */
static int *preds(const struct pmb__func *f, int **pred)
{
	int nb = f->nblk, *at = calloc((size_t)nb * 3 + 2, sizeof(int));

	if (!at)
		return NULL;
	*pred = at + nb + 1;
	for (int p = 0; p < nb; p++)
		for (int k = 0; k < 2; k++)
			if (f->blk[p].succ[k] >= 0)
				at[f->blk[p].succ[k] + 1]++;
	for (int b = 0; b < nb; b++)
		at[b + 1] += at[b];
	for (int p = 0; p < nb; p++)
		for (int k = 0; k < 2; k++) {
			int s = f->blk[p].succ[k];

			/* at[s] moves up as s's predecessors are put, and is
			 * put back below. */
			if (s >= 0)
				(*pred)[at[s]++] = p;
		}
	for (int b = nb; b > 0; b--)
		at[b] = at[b - 1];
	at[0] = 0;
	return at;
}

static void mark_counter(struct pmb__func *f, int scc, struct marks *m)
{
	struct vset {
		uint16_t r[16];
		int n;
	} *out = calloc((size_t)f->nblk, sizeof(*out));
	int *pred = NULL, *at = out ? preds(f, &pred) : NULL;

	/* Predecessors by list: scanning every block for those of each was
	 * quadratic (a loop of 50 k branches took 72 s). */
	for (int round = 0; at && round < 4 && m->nstate; round++)
		for (int b = 0; b < f->nblk; b++) {
			if (f->blk[b].scc != scc)
				continue;
			m->nval = 0;
			for (int j = at[b]; j < at[b + 1]; j++) {
				int p = pred[j];

				if (f->blk[p].scc == scc && (j == at[b] || pred[j - 1] != p))
					for (int k = 0; k < out[p].n; k++)
						set_add(m->val, &m->nval, 16, out[p].r[k]);
			}
			for (size_t i = f->blk[b].first; i < f->blk[b].first + f->blk[b].n; i++)
				counter_step(f, i, m);
			memcpy(out[b].r, m->val, sizeof(out[b].r));
			out[b].n = m->nval;
		}
	free(at);
	free(out);
}

int pmb__disasm_add_part(struct pmb_disasm *d, size_t *cap, const struct pmb__func *f, int scc, bool callee,
			 const char *name)
{
	struct pmb_disasm_part *p = &d->part[d->nparts];

	if (d->nparts >= PMB_DA_MAX_PARTS)
		return 0;
	memset(p, 0, sizeof(*p));
	p->callee = callee;
	snprintf(p->name, sizeof(p->name), "%s", name);
	memcpy(p->file, d->file, sizeof(p->file)); /* both 256, d->file terminated */
	p->bias = d->bias;
	p->first = d->n;
	p->lo = UINT64_MAX;
	if (f->cut && d->ncut++ == 0) {
		snprintf(d->cut_func, sizeof(d->cut_func), "%s", name);
		d->cut_at = f->end;
		d->cut_size = f->size;
		d->cut_from = f->from;
		d->cut_loop = f->from ? f->anchor : 0;
		d->cut_n = f->n;
		d->cut_total = f->total;
	}
	for (size_t i = 0; i < f->n; i++) {
		if (scc >= 0 && f->blk[f->in[i].block].scc != scc)
			continue;
		if (d->n == *cap) {
			size_t c = *cap ? 2 * *cap : 256;
			void *m = realloc(d->insn, c * sizeof(*d->insn));

			if (!m)
				return -ENOMEM;
			d->insn = m;
			*cap = c;
		}
		d->insn[d->n] = f->in[i].out;
		d->insn[d->n].part = d->nparts;
		if (f->in[i].out.addr < p->lo)
			p->lo = f->in[i].out.addr;
		if (f->in[i].out.addr + f->in[i].out.size > p->hi)
			p->hi = f->in[i].out.addr + f->in[i].out.size;
		d->n++;
	}
	p->n = d->n - p->first;
	d->nparts++;
	return 0;
}

/* Whether block b ends in a call to pmb__loop_next in a cycle, the first
 * such block of its cycle. */
static bool loop_head(const struct da *a, const struct pmb__func *f, int b)
{
	if (!f->blk[b].cyclic || !is_loop_next(a, &f->in[f->blk[b].first + f->blk[b].n - 1]))
		return false;
	for (int c = 0; c < b; c++)
		if (f->blk[c].scc == f->blk[b].scc && is_loop_next(a, &f->in[f->blk[c].first + f->blk[c].n - 1]))
			return false;
	return true;
}

/* Mnemonics (x86-64 AT&T with its size suffix, aarch64) of instructions
 * that compute a value: what the work of a loop body is made of, and what
 * is left of it when the compiler hoisted it before the loop.  Moves,
 * compares, branches, calls and address-forming adrp/adr are not. */
static const char *const computing[] = {
	"imul", "mul", "idiv", "div", "shr", "shl", "sar", "sal", "rol", "ror", "neg", "not",
	"and", "or", "xor", "eor", "add", "sub", "adc", "sbb", "lea", "popcnt", "lzcnt", "tzcnt",
	"madd", "msub", "umulh", "smulh", "udiv", "sdiv", "lsl", "lsr", "asr", "bsf", "bsr",
	"pdep", "pext", "sqrt", "fmadd", "fmul", "fadd", "fsub", "fdiv",
};

/* Whether in computes a value: a computing mnemonic that neither moves
 * the stack pointer, nor zeroes a register (xor %eax, %eax), nor forms an
 * address from the program counter (leaq 0x2b9(%rip), %rax). */
static bool computes(const char *text)
{
	char op[16];
	const char *args = strchr(text, ' ');
	size_t n = args ? (size_t)(args - text) : strlen(text);
	bool stem = false;

	if (!args || n >= sizeof(op))
		return false;
	memcpy(op, text, n);
	op[n] = '\0';
	for (size_t i = 0; i < sizeof(computing) / sizeof(computing[0]) && !stem; i++)
		stem = !strncmp(op, computing[i], strlen(computing[i]));
	if (!stem || strstr(args, "sp") || strstr(args, "%rip"))
		return false;
	if (!strncmp(op, "xor", 3) || !strncmp(op, "eor", 3)) {
		const char *comma = strchr(args, ',');
		size_t first = comma ? (size_t)(comma - args - 1) : 0;

		/* "xorl %esi, %esi": the same register twice */
		return !comma || strlen(comma + 2) != first || strncmp(comma + 2, args + 1, first) != 0;
	}
	return true;
}

static bool ends_path(const struct pmb__dinsn *in)
{
	return (in->out.kind & PMB_DA_CALL) || in->ret;
}

/* reach[b]: from the start of block b, a measured loop (an SCC flagged in
 * measured[]) is reached on some path that passes no call and no return:
 * a value computed on the way can then only be the loop's, not a call's
 * argument (setup: a malloc size, a seed passed on).  Backwards from the
 * loops over the predecessors, each block once.  Returns 0 or -ENOMEM. */
static int reach_loops(const struct pmb__func *f, const bool *measured, bool *reach)
{
	int nb = f->nblk, *start = calloc((size_t)nb + 1, sizeof(int));
	int *pred = malloc(((size_t)2 * nb + 1) * sizeof(int)), *work = malloc(((size_t)nb + 1) * sizeof(int));
	int nwork = 0;

	if (!start || !pred || !work) {
		free(start);
		free(pred);
		free(work);
		return -ENOMEM;
	}
	/* The predecessors of each block, packed: pred[start[b] .. start[b + 1]). */
	for (int b = 0; b < nb; b++)
		for (int s = 0; s < 2; s++)
			if (f->blk[b].succ[s] >= 0)
				start[f->blk[b].succ[s] + 1]++;
	for (int b = 0; b < nb; b++)
		start[b + 1] += start[b];
	memcpy(work, start, (size_t)nb * sizeof(int)); /* each range's fill cursor */
	for (int b = 0; b < nb; b++)
		for (int s = 0; s < 2; s++)
			if (f->blk[b].succ[s] >= 0)
				pred[work[f->blk[b].succ[s]]++] = b;
	for (int b = 0; b < nb; b++) {
		reach[b] = f->blk[b].scc >= 0 && measured[f->blk[b].scc];
		if (reach[b])
			work[nwork++] = b;
	}
	while (nwork) {
		int b = work[--nwork];

		for (int k = start[b]; k < start[b + 1]; k++) {
			int p = pred[k];
			bool clean = true;

			for (size_t i = f->blk[p].first; clean && i < f->blk[p].first + f->blk[p].n; i++)
				clean = !ends_path(&f->in[i]);
			if (!reach[p] && clean) {
				reach[p] = true;
				work[nwork++] = p;
			}
		}
	}
	free(start);
	free(pred);
	free(work);
	return 0;
}

/* The computing instructions of f that run outside every cycle of it
 * (neither a measured loop nor a setup loop) and reach a measured loop on
 * a path with no call: where work that the compiler hoisted before a
 * measured loop sits, computed once from inputs the same every pass.
 * Setup computes too (a size passed to malloc, a seed passed on), but its
 * values go to a call first, so it is not counted here (issue 34: setup
 * arithmetic read as hoisted work). */
static void find_outside(struct pmb_disasm *d, const struct pmb__func *f, const bool *reach)
{
	d->outside = 0;
	d->outside_lo = UINT64_MAX;
	d->outside_hi = 0;
	for (int b = 0; b < f->nblk; b++) {
		const struct pmb__block *k = &f->blk[b];
		/* Reached from its end: a successor reaches a loop, and nothing
		 * after instruction i in the block ends the path (walked back). */
		bool on = (k->succ[0] >= 0 && reach[k->succ[0]]) || (k->succ[1] >= 0 && reach[k->succ[1]]);

		if (k->cyclic)
			continue;
		for (size_t i = k->first + k->n; on && i-- > k->first;) {
			if (ends_path(&f->in[i]))
				break;
			if (!computes(f->in[i].out.text))
				continue;
			d->outside++;
			if (f->in[i].out.addr < d->outside_lo)
				d->outside_lo = f->in[i].out.addr;
			if (f->in[i].out.addr > d->outside_hi)
				d->outside_hi = f->in[i].out.addr;
		}
	}
}

/* The measured loops of f (cycles holding a call to pmb__loop_next):
 * every loop's own instructions marked first, then the decisions (which
 * are not the loops' own), then each loop added as a part.  Returns how
 * many, or -errno. */
static int find_loops(struct da *a, struct pmb__func *f, const char *name)
{
	int found = 0, rc;

	pmb__cfg_sccs(f);
	for (int b = 0; b < f->nblk; b++)
		if (loop_head(a, f, b)) {
			struct marks m = { .machine = pmb__elf_machine(a->e) };

			mark_slow_path(a, f, f->blk[b].scc, &m);
			mark_counter(f, f->blk[b].scc, &m);
		}
	pmb__cfg_decisions(f);
	/* An SCC's id is below the block count: flags per block serve both. */
	bool *measured = calloc((size_t)f->nblk + 1, sizeof(*measured));
	bool *reach = calloc((size_t)f->nblk + 1, sizeof(*reach));

	if (!measured || !reach) {
		free(measured);
		free(reach);
		return -ENOMEM;
	}
	for (int b = 0; b < f->nblk; b++) {
		if (!loop_head(a, f, b))
			continue;
		measured[f->blk[b].scc] = true;
		rc = pmb__disasm_add_part(a->d, &a->cap, f, f->blk[b].scc, false, name);
		if (rc) {
			free(measured);
			free(reach);
			return rc;
		}
		found++;
	}
	rc = found ? reach_loops(f, measured, reach) : 0;
	if (found && !rc)
		find_outside(a->d, f, reach);
	free(measured);
	free(reach);
	return rc ? rc : found;
}

static bool anchor_is(const struct pmb__dinsn *in, void *arg)
{
	return is_loop_next(arg, in);
}

/* The function at addr, decoded around its measured loop (its call to
 * pmb__loop_next) where that lies past the bound of instructions. */
static int decode_sym(struct da *a, uint64_t addr, struct pmb__func *f, char *name, size_t n)
{
	struct pmb__cfg_anchor anc = { .is = anchor_is, .arg = a };
	uint64_t start, size;

	if (!pmb__elf_sym_at(a->e, addr, name, n, &start, &size))
		return -ENOENT;
	return pmb__cfg_decode(a->h, a->e, start, size, f, &anc);
}

static bool have_part(const struct pmb_disasm *d, const char *name, bool callee)
{
	for (int p = 0; p < d->nparts; p++)
		if (d->part[p].callee == callee && !strcmp(d->part[p].name, name))
			return true;
	return false;
}

/* The functions the loops call directly, each whole, one level deep; a
 * shared library's (through the PLT) by name only: what runs there is
 * found by its counts (callgrind counts no PLT slot of its own). */
static int add_callees(struct da *a)
{
	size_t nloop = a->d->n;
	char name[128];
	uint64_t start, size;
	int rc = 0;

	for (size_t i = 0; i < nloop && !rc; i++) {
		const struct pmb_disasm_insn *in = &a->d->insn[i];
		struct pmb__func g;

		if (!(in->kind & PMB_DA_CALL) || (in->kind & PMB_DA_HARNESS) || !in->target ||
		    !pmb__elf_sym_at(a->e, in->target, name, sizeof(name), &start, &size) ||
		    start != in->target || strstr(name, "@plt") || have_part(a->d, name, true))
			continue;
		if (pmb__cfg_decode(a->h, a->e, start, size, &g, NULL))
			continue;
		pmb__cfg_sccs(&g);
		pmb__cfg_decisions(&g);
		rc = pmb__disasm_add_part(a->d, &a->cap, &g, -1, true, name);
		pmb__cfg_free(&g);
	}
	return rc;
}

/* Whether the instruction at addr is a direct call or unconditional jump
 * to the start of another function of the file: its name. */
static bool calls_function(const struct da *a, const struct pmb__dinsn *in, char *name, size_t n)
{
	uint64_t start, size;

	return in->target && (in->out.kind & (PMB_DA_CALL | PMB_DA_JUMP)) &&
	       pmb__elf_sym_at(a->e, in->target, name, n, &start, &size) && start == in->target &&
	       !is_loop_next(a, in);
}

/* The loops of the function at addr or, where it has none, of the first
 * function it calls or tail-calls that has. */
static int loops_from(struct da *a, uint64_t addr)
{
	struct pmb_disasm *d = a->d;
	struct pmb__func f, g;
	char gname[128];
	uint64_t anchor;
	bool cut;
	int n, rc = decode_sym(a, addr, &f, d->func, sizeof(d->func));

	if (rc)
		return fail(rc, "no function at 0x%llx in %s", (unsigned long long)addr, d->file);
	n = find_loops(a, &f, d->func);
	cut = f.cut;
	anchor = f.cut ? f.anchor : 0;
	for (size_t i = 0; n == 0 && i < f.n; i++) {
		if (!calls_function(a, &f.in[i], gname, sizeof(gname)))
			continue;
		if (decode_sym(a, f.in[i].target, &g, gname, sizeof(gname)))
			continue;
		n = find_loops(a, &g, gname);
		if (n > 0)
			snprintf(d->via, sizeof(d->via), "%s %s", f.in[i].out.kind & PMB_DA_CALL ? "calls" : "tail call to",
				 gname);
		pmb__cfg_free(&g);
	}
	pmb__cfg_free(&f);
	if (n < 0)
		return fail(n, "out of memory");
	if (n == 0 && anchor)
		return fail(-E2BIG, "%s: the measured loop of %s (its call to pmb__loop_next at 0x%llx) is longer "
			    "than the %d instructions read around that call: no loop closes within them, and a "
			    "loop that long is not listed", d->file, d->func, (unsigned long long)anchor, PMB__CFG_MAX_INSNS);
	if (n == 0 && cut)
		return fail(-ENOENT, "%s: no loop calling pmb__loop_next in the first %d instructions of %s "
			    "(nor in the functions it calls), nor around a call to it further on: is it a "
			    "benchmark function?", d->file, PMB__CFG_MAX_INSNS, d->func);
	if (n == 0)
		return fail(-ENOENT, "%s: no loop calling pmb__loop_next in %s (nor in the functions it calls): "
			    "is it a benchmark function?", d->file, d->func);
	d->nloops = d->nparts;
	return add_callees(a);
}

struct pmb_disasm_insn *pmb__disasm_find(struct pmb_disasm *d, uint64_t addr)
{
	return pmb__disasm_find_in(d, d->file, addr);
}

/* Open file, find the function (by name where sym is given, else at
 * addr) and its loops. */
static int disasm_at(const char *file, const char *sym, uint64_t addr, enum pmb_role role,
		     struct pmb_disasm **out)
{
	struct da a = { 0 };
	uint64_t size;
	int rc;

	*out = NULL;
	pmb__da_err[0] = '\0';
	a.d = calloc(1, sizeof(*a.d));
	if (!a.d)
		return fail(-ENOMEM, "out of memory");
	snprintf(a.d->file, sizeof(a.d->file), "%s", file);
	a.d->role = role;
	a.d->site_part = -1;
	a.d->rank_col = PMB_DA_EXEC;
	a.d->accounted_share = NAN;
	a.d->misp_measured = NAN;
	rc = pmb__elf_open(file, &a.e, pmb__da_err, sizeof(pmb__da_err));
	if (rc)
		goto fail_elf;
	rc = pmb__cfg_arch(pmb__elf_machine(a.e), &a.h, a.d->arch, sizeof(a.d->arch));
	if (rc) {
		fail(rc, "%s: cannot disassemble %s code", file, a.d->arch);
		goto fail_arch;
	}
	if (sym && !pmb__elf_sym_named(a.e, sym, &addr, &size))
		rc = fail(-ENOENT, "no function named '%s' in %s's symbol table", sym, file);
	if (!rc)
		rc = loops_from(&a, addr);
	cs_close(&a.h);
	if (!rc)
		pmb__disasm_check(a.d);
fail_arch:
	pmb__elf_close(a.e);
fail_elf:
	if (rc) {
		pmb__disasm_free(a.d);
		return rc;
	}
	*out = a.d;
	return 0;
}

int pmb__disasm_symbol(const char *file, const char *sym, enum pmb_role role, struct pmb_disasm **out)
{
	return disasm_at(file, sym, 0, role, out);
}

struct find_obj {
	uintptr_t addr, lo, hi;
	char path[256];
	uintptr_t bias;
	bool found;
};

static int find_obj(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct find_obj *o = arg;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD || o->addr < lo || o->addr >= lo + ph->p_memsz)
			continue;
		o->bias = info->dlpi_addr;
		o->lo = lo;
		o->hi = lo + ph->p_memsz;
		o->found = true;
		if (info->dlpi_name && info->dlpi_name[0]) {
			snprintf(o->path, sizeof(o->path), "%s", info->dlpi_name);
		} else {
			ssize_t n = readlink("/proc/self/exe", o->path, sizeof(o->path) - 1);

			o->path[n > 0 ? n : 0] = '\0';
		}
		return 1;
	}
	return 0;
}

bool pmb__disasm_locate(uintptr_t ip, char *file, size_t n, uint64_t *addr, uint64_t *bias)
{
	struct find_obj o = { .addr = ip };

	dl_iterate_phdr(find_obj, &o);
	if (!o.found || !o.path[0])
		return false;
	snprintf(file, n, "%s", o.path);
	*addr = (uint64_t)(ip - o.bias);
	*bias = o.bias;
	return true;
}

int pmb__disasm_benchmark(void (*fn)(struct pmb_state *), const char *fname, enum pmb_role role,
			  struct pmb_disasm **out)
{
	struct find_obj o = { .addr = (uintptr_t)fn };
	int rc;

	dl_iterate_phdr(find_obj, &o);
	if (!o.found || !o.path[0])
		return fail(-ENOENT, "%s: no loaded file holds its code", fname);
	rc = disasm_at(o.path, NULL, o.addr - o.bias, role, out);
	if (!rc) {
		(*out)->bias = o.bias;
		for (int p = 0; p < (*out)->nparts; p++)
			(*out)->part[p].bias = o.bias;
		(*out)->code_lo = o.lo;
		(*out)->code_hi = o.hi;
	}
	if (rc == -ENOENT && !strstr(pmb__da_err, "stripped") && !strstr(pmb__da_err, "no loop"))
		fail(rc, "%s (the function %s at 0x%llx): no symbol holds it in %s", fname, fname,
		     (unsigned long long)(o.addr - o.bias), o.path);
	return rc;
}
