/* disasm_cfg.c - the disasm module's code side: one function decoded by capstone, its basic blocks and their cycles. */
#include <capstone/capstone.h>
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "disasm_cfg.h"
#include "disasm_internal.h"

int pmb__cfg_arch(int machine, csh *h, char *arch, size_t n)
{
	cs_err err;

	if (machine == EM_X86_64) {
		snprintf(arch, n, "x86-64");
		err = cs_open(CS_ARCH_X86, CS_MODE_64, h);
		/* AT&T, as objdump and perf annotate print it on Linux. */
		if (!err)
			cs_option(*h, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
	} else if (machine == EM_AARCH64) {
		snprintf(arch, n, "aarch64");
		err = cs_open(CS_ARCH_ARM64, CS_MODE_ARM, h);
	} else {
		snprintf(arch, n, "ELF machine %d", machine);
		return -ENOTSUP;
	}
	if (err)
		return -ENOTSUP;
	cs_option(*h, CS_OPT_DETAIL, CS_OPT_ON);
	return 0;
}

static void add_reg(struct pmb__dinsn *d, unsigned reg, bool write)
{
	if (!reg)
		return;
	if (write && d->nwr < PMB__CFG_REGS)
		d->wr[d->nwr++] = (uint16_t)reg;
	else if (!write && d->nrd < PMB__CFG_REGS)
		d->rd[d->nrd++] = (uint16_t)reg;
}

static void x86_ops(struct pmb__dinsn *d, const cs_insn *ci, csh h)
{
	const cs_x86 *x = &ci->detail->x86;

	for (int i = 0; i < x->op_count; i++) {
		const cs_x86_op *op = &x->operands[i];

		if (op->type == X86_OP_REG) {
			if (op->access & CS_AC_READ)
				add_reg(d, op->reg, false);
			if (op->access & CS_AC_WRITE)
				add_reg(d, op->reg, true);
		} else if (op->type == X86_OP_MEM) {
			d->has_mem = true;
			d->mem_base = op->mem.base;
			d->mem_index = op->mem.index != X86_REG_INVALID;
			d->mem_disp = op->mem.disp;
		} else if (op->type == X86_OP_IMM) {
			d->target = (uint64_t)op->imm;
		}
	}
	if (cs_insn_group(h, ci, CS_GRP_CALL)) {
		d->out.kind |= PMB_DA_CALL;
	} else if (cs_insn_group(h, ci, CS_GRP_RET)) {
		d->out.kind |= PMB_DA_JUMP;
		d->ret = true;
	} else if (cs_insn_group(h, ci, CS_GRP_JUMP)) {
		bool uncond = ci->id == X86_INS_JMP || ci->id == X86_INS_LJMP;

		d->out.kind |= uncond ? PMB_DA_JUMP : PMB_DA_COND;
	} else {
		d->target = 0;
	}
	if ((d->out.kind & (PMB_DA_CALL | PMB_DA_JUMP | PMB_DA_COND)) &&
	    (x->op_count != 1 || x->operands[0].type != X86_OP_IMM))
		d->target = 0; /* indirect */
	if (ci->id == X86_INS_NOP || ci->id == X86_INS_ENDBR64)
		d->out.kind |= PMB_DA_NOP;
}

/* capstone 4 leaves most arm64 operands' access unset: the first register
 * of an instruction that writes one is its destination. */
static bool arm64_writes_first(const cs_insn *ci)
{
	static const char *const no[] = { "st", "cmp", "cmn", "tst", "cb", "tb", "b", "ret", "prfm", "nop" };

	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		if (!strncmp(ci->mnemonic, no[i], strlen(no[i])))
			return false;
	return true;
}

static void arm64_kind(struct pmb__dinsn *d, const cs_insn *ci)
{
	const cs_arm64 *a = &ci->detail->arm64;

	switch (ci->id) {
	case ARM64_INS_BL:
	case ARM64_INS_BLR:
		d->out.kind |= PMB_DA_CALL;
		break;
	case ARM64_INS_RET:
		d->ret = true;
		d->out.kind |= PMB_DA_JUMP;
		break;
	case ARM64_INS_B:
		d->out.kind |= a->cc != ARM64_CC_INVALID && a->cc != ARM64_CC_AL ? PMB_DA_COND : PMB_DA_JUMP;
		break;
	case ARM64_INS_BR:
		d->out.kind |= PMB_DA_JUMP;
		break;
	case ARM64_INS_CBZ:
	case ARM64_INS_CBNZ:
	case ARM64_INS_TBZ:
	case ARM64_INS_TBNZ:
		d->out.kind |= PMB_DA_COND;
		break;
	case ARM64_INS_NOP:
		d->out.kind |= PMB_DA_NOP;
		break;
	default:
		d->target = 0;
	}
	if (ci->id == ARM64_INS_BR || ci->id == ARM64_INS_BLR || ci->id == ARM64_INS_RET)
		d->target = 0;
}

static void arm64_ops(struct pmb__dinsn *d, const cs_insn *ci)
{
	const cs_arm64 *a = &ci->detail->arm64;
	bool first = arm64_writes_first(ci);

	for (int i = 0; i < a->op_count; i++) {
		const cs_arm64_op *op = &a->operands[i];

		if (op->type == ARM64_OP_REG) {
			add_reg(d, op->reg, first);
			first = false;
		} else if (op->type == ARM64_OP_MEM) {
			d->has_mem = true;
			d->mem_base = op->mem.base;
			d->mem_index = op->mem.index != ARM64_REG_INVALID;
			d->mem_disp = op->mem.disp;
		} else if (op->type == ARM64_OP_IMM) {
			d->target = (uint64_t)op->imm;
		}
	}
	arm64_kind(d, ci);
}

static void fill(struct pmb__dinsn *d, const cs_insn *ci, csh h, int machine, const struct pmb__elf *e)
{
	char name[128];

	memset(d, 0, sizeof(*d));
	d->out.addr = ci->address;
	d->out.size = (uint8_t)(ci->size > sizeof(d->out.bytes) ? sizeof(d->out.bytes) : ci->size);
	memcpy(d->out.bytes, ci->bytes, d->out.size);
	d->block = -1;
	if (machine == EM_X86_64)
		x86_ops(d, ci, h);
	else
		arm64_ops(d, ci);
	name[0] = '\0';
	d->out.target = d->target;
	if (d->target)
		pmb__elf_name_of(e, d->target, name, sizeof(name));
	/* Named as objdump does: "call 0xa2c0 <pmb_sum_if_branchy>". */
	snprintf(d->out.text, sizeof(d->out.text), "%.16s%s%.56s%s%.60s%s", ci->mnemonic, ci->op_str[0] ? " " : "",
		 ci->op_str, name[0] ? " <" : "", name, name[0] ? ">" : "");
	pmb__elf_line(e, ci->address, d->out.src, sizeof(d->out.src));
	for (int k = 0; k < PMB_DA_NCOUNT; k++)
		d->out.count[k] = __builtin_nan("");
	d->out.share = __builtin_nan("");
}

/* Decode from *code (left bytes at *addr) into f->in, at most max
 * instructions.  Returns 0, -ENOMEM (f freed); *more: the bound stopped it
 * (f->end then where). */
static int decode_into(csh h, const struct pmb__elf *e, const uint8_t **code, size_t *left, uint64_t *addr,
		       size_t max, struct pmb__func *f, size_t *cap, cs_insn *ci, bool *more)
{
	*more = false;
	while (cs_disasm_iter(h, code, left, addr, ci)) {
		if (f->n == max) {
			*more = true;
			f->end = ci->address;
			break;
		}
		if (f->n == *cap) {
			size_t c = *cap ? 2 * *cap : 256;
			void *m = realloc(f->in, c * sizeof(*f->in));

			if (!m) {
				pmb__cfg_free(f);
				return -ENOMEM;
			}
			f->in = m;
			*cap = c;
		}
		memset(&f->in[f->n], 0, sizeof(f->in[0]));
		fill(&f->in[f->n++], ci, h, pmb__elf_machine(e), e);
	}
	return 0;
}

/* Past the first PMB__CFG_MAX_INSNS instructions, with no anchor among
 * them: the rest of the function read once more, each instruction's kind
 * and target only (no name, no line), for the first anchor; the addresses
 * of the last half-window kept in a ring, so the window can start half of
 * it before.  Counts every instruction (f->total).  Returns the window's
 * first address, or 0 where no anchor is found. */
static uint64_t find_window(csh h, const struct pmb__elf *e, const uint8_t *code, size_t left, uint64_t addr,
			    const struct pmb__cfg_anchor *anc, struct pmb__func *f, cs_insn *ci)
{
	enum { HALF = PMB__CFG_MAX_INSNS / 2 };
	static uint64_t ring[HALF]; /* 128 KiB: not on the stack */
	struct pmb__dinsn d;
	uint64_t from = 0;
	size_t k = 0;

	while (cs_disasm_iter(h, &code, &left, &addr, ci)) {
		ring[k % HALF] = ci->address;
		k++;
		f->total++;
		if (from)
			continue;
		memset(&d, 0, sizeof(d));
		if (pmb__elf_machine(e) == EM_X86_64)
			x86_ops(&d, ci, h);
		else
			arm64_ops(&d, ci);
		if (anc->is(&d, anc->arg)) {
			/* HALF instructions up to the anchor: the oldest in the
			 * ring, or some of those decoded before */
			from = k >= HALF ? ring[k % HALF] : f->in[f->n - (HALF - k)].out.addr;
			f->anchor = ci->address;
		}
	}
	return from;
}

int pmb__cfg_decode(csh h, const struct pmb__elf *e, uint64_t start, uint64_t size, struct pmb__func *f,
		    const struct pmb__cfg_anchor *anc)
{
	const uint8_t *code = pmb__elf_code(e, start, size);
	size_t left = size, cap = 0;
	uint64_t addr = start, from;
	cs_insn *ci;
	bool more;
	int rc;

	memset(f, 0, sizeof(*f));
	f->start = start;
	f->end = start + size;
	f->size = size;
	if (!code || !size)
		return -ENOENT;
	ci = cs_malloc(h);
	if (!ci)
		return -ENOMEM;
	/* One instruction at a time: capstone holds one, not all. */
	rc = decode_into(h, e, &code, &left, &addr, PMB__CFG_MAX_INSNS, f, &cap, ci, &more);
	f->total = f->n;
	if (!rc && more) {
		f->cut = true;
		for (size_t i = 0; anc && i < f->n && !f->anchor; i++)
			if (anc->is(&f->in[i], anc->arg))
				f->anchor = f->in[i].out.addr;
		/* The measured loop past the bound: the window is decoded
		 * around it instead (two reads of the function, linear). */
		code = pmb__elf_code(e, start, size);
		from = anc && !f->anchor ? find_window(h, e, code + (f->end - start), size - (f->end - start), f->end,
						       anc, f, ci) : 0;
		if (from) {
			f->n = 0;
			f->from = from;
			code += from - start;
			left = size - (from - start);
			addr = from;
			rc = decode_into(h, e, &code, &left, &addr, PMB__CFG_MAX_INSNS, f, &cap, ci, &more);
			if (!rc && !more)
				f->end = start + size;
		}
	}
	cs_free(ci, 1);
	if (rc)
		return rc;
	if (!f->n)
		return -ENOEXEC;
	return pmb__cfg_blocks(f);
}

void pmb__cfg_free(struct pmb__func *f)
{
	free(f->in);
	free(f->blk);
	f->in = NULL;
	f->blk = NULL;
}

static size_t index_of(const struct pmb__func *f, uint64_t addr)
{
	size_t lo = 0, hi = f->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (f->in[mid].out.addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < f->n && f->in[lo].out.addr == addr ? lo : (size_t)-1;
}

static bool ends_block(const struct pmb__dinsn *d)
{
	return d->out.kind & (PMB_DA_COND | PMB_DA_JUMP | PMB_DA_CALL);
}

/* Leaders: the first instruction, branch targets inside the function,
 * and what follows a branch or call; then each block's successors. */
int pmb__cfg_blocks(struct pmb__func *f)
{
	bool *lead = calloc(f->n + 1, 1);
	int nb = 0;

	if (!lead)
		return -ENOMEM;
	lead[0] = true;
	for (size_t i = 0; i < f->n; i++) {
		size_t t = f->in[i].target ? index_of(f, f->in[i].target) : (size_t)-1;

		if (t != (size_t)-1 && !(f->in[i].out.kind & PMB_DA_CALL))
			lead[t] = true;
		if (ends_block(&f->in[i]))
			lead[i + 1] = true;
	}
	for (size_t i = 0; i < f->n; i++)
		nb += lead[i];
	f->blk = calloc((size_t)nb, sizeof(*f->blk));
	if (!f->blk) {
		free(lead);
		return -ENOMEM;
	}
	for (size_t i = 0; i < f->n; i++) {
		if (lead[i])
			f->blk[f->nblk++].first = i;
		f->in[i].block = f->nblk - 1;
		f->blk[f->nblk - 1].n++;
	}
	free(lead);
	for (int b = 0; b < f->nblk; b++) {
		const struct pmb__dinsn *last = &f->in[f->blk[b].first + f->blk[b].n - 1];
		size_t t = last->target ? index_of(f, last->target) : (size_t)-1;

		f->blk[b].succ[0] = f->blk[b].succ[1] = -1;
		if (t != (size_t)-1 && !(last->out.kind & PMB_DA_CALL))
			f->blk[b].succ[0] = f->in[t].block;
		if (!(last->out.kind & PMB_DA_JUMP) && b + 1 < f->nblk)
			f->blk[b].succ[1] = b + 1;
	}
	return 0;
}

/* The blocks on the stack down to v form component scc. */
static void pop_component(struct pmb__func *f, const int *stack, int *sp, int v, int scc)
{
	int x;

	do {
		x = stack[--*sp];
		f->blk[x].on = false;
		f->blk[x].scc = scc;
	} while (x != v);
}

/* size: scratch for nb counts (the components' sizes, counted once: a
 * count per block over all blocks was quadratic, 72 s for 50 k
 * branches). */
static void mark_cyclic(struct pmb__func *f, int *size)
{
	for (int b = 0; b < f->nblk; b++)
		size[b] = 0;
	for (int b = 0; b < f->nblk; b++)
		size[f->blk[b].scc]++;
	for (int b = 0; b < f->nblk; b++)
		f->blk[b].cyclic = size[f->blk[b].scc] > 1 || f->blk[b].succ[0] == b || f->blk[b].succ[1] == b;
}

/* Tarjan's strongly connected components, iteratively: blk[].scc; a
 * component is cyclic when it has two blocks or a block that is its own
 * successor. */
void pmb__cfg_sccs(struct pmb__func *f)
{
	int nb = f->nblk, idx = 0, sp = 0, wp = 0, nscc = 0;
	int *index = malloc(sizeof(int) * (size_t)nb * 5);
	int *low = index + nb, *stack = low + nb, *work = stack + nb, *edge = work + nb;

	if (!index)
		return;
	for (int b = 0; b < nb; b++) {
		index[b] = -1;
		f->blk[b].scc = -1;
		f->blk[b].on = false;
	}
	for (int root = 0; root < nb; root++) {
		if (index[root] >= 0)
			continue;
		work[wp] = root;
		edge[wp++] = 0;
		index[root] = low[root] = idx++;
		stack[sp++] = root;
		f->blk[root].on = true;
		while (wp) {
			int v = work[wp - 1], w = -1;

			while (edge[wp - 1] < 2 && w < 0)
				w = f->blk[v].succ[edge[wp - 1]++];
			if (w >= 0 && index[w] < 0) {
				index[w] = low[w] = idx++;
				stack[sp++] = w;
				f->blk[w].on = true;
				work[wp] = w;
				edge[wp++] = 0;
				continue;
			}
			if (w >= 0) {
				if (f->blk[w].on && index[w] < low[v])
					low[v] = index[w];
				continue;
			}
			wp--;
			if (wp && low[v] < low[work[wp - 1]])
				low[work[wp - 1]] = low[v];
			if (low[v] == index[v])
				pop_component(f, stack, &sp, v, nscc++);
		}
	}
	mark_cyclic(f, index);
	free(index);
}

/* Conditional branches both of whose ways stay in the cycle around them:
 * choices, or an inner loop's test (as tests/test_disasm.py's "turns"),
 * not the test that leaves the loop. */
int pmb__cfg_decisions(struct pmb__func *f)
{
	int n = 0;

	for (int b = 0; b < f->nblk; b++) {
		struct pmb__dinsn *last = &f->in[f->blk[b].first + f->blk[b].n - 1];
		int s0 = f->blk[b].succ[0], s1 = f->blk[b].succ[1];

		if (!(last->out.kind & PMB_DA_COND) || (last->out.kind & PMB_DA_HARNESS) || !f->blk[b].cyclic ||
		    s0 < 0 || s1 < 0)
			continue;
		if (f->blk[s0].scc == f->blk[b].scc && f->blk[s1].scc == f->blk[b].scc) {
			last->out.kind |= PMB_DA_DECISION;
			n++;
		}
	}
	return n;
}
