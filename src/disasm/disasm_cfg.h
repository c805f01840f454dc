/* disasm_cfg.h - one function decoded by capstone, its blocks and cycles (disasm_cfg.c), for disasm.c only. */
#ifndef PMB_DISASM_CFG_H
#define PMB_DISASM_CFG_H

#include <capstone/capstone.h>
#include <stdbool.h>
#include <stdint.h>

#include "disasm.h"

struct pmb__elf;

#define PMB__CFG_REGS 6

/* One decoded instruction: what is shown, and what the loop analysis
 * needs (registers read and written, the memory operand, the target). */
struct pmb__dinsn {
	struct pmb_disasm_insn out;
	uint64_t target;  /* direct branch or call target; 0 none */
	int block;
	bool ret, has_mem, mem_index;
	int mem_base;
	int64_t mem_disp;
	uint16_t rd[PMB__CFG_REGS], wr[PMB__CFG_REGS];
	uint8_t nrd, nwr;
};

struct pmb__block {
	size_t first, n;  /* instructions in[first .. first + n) */
	int succ[2];      /* -1 none: [0] the branch target, [1] the next block */
	int scc;
	bool on, cyclic;
};

/* The instructions of one function decoded at most: a function of 200 k
 * instructions cost 500 MB (capstone's details of all of them at once) and
 * 25 MB of listing.  Decoded one at a time, each costs its pmb__dinsn
 * (about 350 bytes); past the bound the function is cut (f->cut), and the
 * listing says so.  4x the largest benchmark function seen (a loop of
 * 3 k branches, 9.4 k instructions, its loop's end at its end). */
#define PMB__CFG_MAX_INSNS 32768

struct pmb__func {
	uint64_t start, end;
	struct pmb__dinsn *in;
	size_t n;
	bool cut;           /* decoded up to PMB__CFG_MAX_INSNS: end is where
	                       the cut is, size the function's own bytes */
	uint64_t size;
	/* Cut, with an anchor (the measured loop's call to pmb__loop_next)
	 * only past the bound: in[] is the window of PMB__CFG_MAX_INSNS
	 * around it, from `from` (0: from start) to end; anchor its address
	 * (0 none found); total the function's instructions where it was
	 * read to its end (else the bound). */
	uint64_t from, anchor;
	uint64_t total;
	struct pmb__block *blk;
	int nblk;
};

/* A capstone handle for the ELF machine (x86-64, aarch64), details on. */
int pmb__cfg_arch(int machine, csh *h, char *arch, size_t n);

/* What the measured loop is made around: an instruction is() is true of
 * (decoded for its kind and target only, without names or lines). */
struct pmb__cfg_anchor {
	bool (*is)(const struct pmb__dinsn *in, void *arg);
	void *arg;
};

/* Decode [start, start + size) into f, with its blocks: its first
 * PMB__CFG_MAX_INSNS instructions or, where anc is given and none of
 * those is an anchor, that many around the first anchor past them (the
 * rest read once more, kinds only: linear).  Returns 0, -ENOENT (no
 * code), -ENOEXEC (nothing decoded), -ENOMEM. */
int pmb__cfg_decode(csh h, const struct pmb__elf *e, uint64_t start, uint64_t size, struct pmb__func *f,
		    const struct pmb__cfg_anchor *anc);
void pmb__cfg_free(struct pmb__func *f);
int pmb__cfg_blocks(struct pmb__func *f);
void pmb__cfg_sccs(struct pmb__func *f);
/* Mark PMB_DA_DECISION branches; returns how many. */
int pmb__cfg_decisions(struct pmb__func *f);

#endif
