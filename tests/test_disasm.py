#!/usr/bin/env python3
"""test_disasm.py - the branch kernels branch, or not, in the binary as named.

Reads `objdump -d` of $PMUBENCH, finds each kernel by its symbol, finds its
loops in its control-flow graph (cyclic strongly connected components,
nested, so that loops entered in the middle count too) and checks that:
  - a branchy kernel's loop holds a conditional jump both of whose ways stay
    in the loop: a decision, not the test that ends the loop;
  - a branchless kernel's loops each hold one conditional jump, their exit
    or back-edge, and compute the choice with a flag-consuming instruction
    (cmov, setcc, sbb, adc) or, for varint, pext;
  - a speed-of-light kernel is branchless the same way and does its memory
    traffic itself: no call, no jump out of it (a loop the compiler turned
    into memcpy would measure libc's copy, not the loop).
The optimizer decides this, not the source: GCC if-converts and vectorizes
small loops at -O2/-O3, which is why the kernels pin their code generation
and why this test reads the code that actually runs.
Prints TAP; skips all when objdump or $PMUBENCH is missing or the binary is
not x86-64 (a cross build's $PMUBENCH is a wrapper: the binary is then
$PMB_PMUBENCH_BINARY).
"""
import os
import re
import shutil
import subprocess
import sys

from pmbtap import binary, binary_arch  # noqa: E402

FLAG_IDIOMS = re.compile(r"^(cmov[a-z]+|set[a-z]+|sbb[a-z]?|adc[a-z]?)$")
PEXT = re.compile(r"^pext[a-z]?$")

# symbol, expected form, idiom its loop must use (branchless only); the
# speed-of-light ("sol") kernels must be free of decisions too, and of calls.
KERNELS = [
    ("pmb_sum_if_branchy", "branchy", None),
    ("pmb_sum_if_branchless", "branchless", FLAG_IDIOMS),
    ("pmb_sum_if_sol", "sol", None),
    ("pmb_filter_branchy", "branchy", None),
    ("pmb_filter_branchless", "branchless", FLAG_IDIOMS),
    ("pmb_filter_sol", "sol", None),
    ("pmb_varint_branchy", "branchy", None),
    ("pmb_varint_branchless", "branchless", PEXT),
    ("pmb_varint_sol", "sol", None),
    ("pmb_bsearch_branchy", "branchy", None),
    ("pmb_bsearch_branchless", "branchless", FLAG_IDIOMS),
    ("pmb_bsearch_sol", "sol", None),
]

FUNC_RE = re.compile(r"^([0-9a-f]+) <([^>]+)>:$")
INSN_RE = re.compile(r"^\s+([0-9a-f]+):\s+(.*)$")
PREFIXES = {"bnd", "notrack", "ds", "cs", "rep", "repz", "repnz", "lock"}

n_tests = 0
failed = 0


def tap(cond, what, diag=None):
    global n_tests, failed
    n_tests += 1
    print(("ok" if cond else "not ok") + " %d - %s" % (n_tests, what))
    if not cond:
        failed += 1
        for line in diag or []:
            print("# " + line)
    sys.stdout.flush()


def skip_all(reason):
    print("1..0 # SKIP " + reason)
    sys.exit(0)


class Insn:
    def __init__(self, addr, mnem, ops, text):
        self.addr = addr
        self.mnem = mnem
        self.text = text
        self.target = None
        self.is_jump = mnem.startswith("j") or mnem in ("loop", "loope",
                                                        "loopne")
        self.cond = self.is_jump and mnem not in ("jmp", "jmpq")
        if self.is_jump:
            m = re.match(r"^([0-9a-f]+)\b", ops)
            if m:
                self.target = int(m.group(1), 16)


def parse(text):
    """{symbol: [Insn]} of every function in objdump -d output."""
    funcs = {}
    cur = None
    for line in text.splitlines():
        m = FUNC_RE.match(line)
        if m:
            cur = funcs.setdefault(m.group(2), [])
            continue
        m = INSN_RE.match(line)
        if not m or cur is None:
            continue
        body = m.group(2).split("#")[0].strip()
        words = body.split()
        while words and words[0] in PREFIXES:
            words = words[1:]
        if not words:
            continue
        cur.append(Insn(int(m.group(1), 16), words[0],
                        " ".join(words[1:]), body))
    return funcs


class Block:
    def __init__(self, insns):
        self.insns = insns
        self.start = insns[0].addr
        self.succ = []


def blocks_of(insns):
    """Basic blocks of one function and their successors inside it."""
    addrs = {i.addr for i in insns}
    leaders = {insns[0].addr}
    for k, i in enumerate(insns):
        if i.is_jump or i.mnem.startswith("ret") or i.mnem in ("ud2", "hlt"):
            if i.target in addrs:
                leaders.add(i.target)
            if k + 1 < len(insns):
                leaders.add(insns[k + 1].addr)
    blocks = []
    for i in insns:
        if i.addr in leaders:
            blocks.append(Block([i]))
        else:
            blocks[-1].insns.append(i)
    by_start = {b.start: b for b in blocks}
    for k, b in enumerate(blocks):
        last = b.insns[-1]
        falls = k + 1 < len(blocks)
        if last.is_jump:
            if last.target in by_start:
                b.succ.append(by_start[last.target])
            if last.cond and falls:
                b.succ.append(blocks[k + 1])
        elif not (last.mnem.startswith("ret") or last.mnem in ("ud2", "hlt")):
            if falls:
                b.succ.append(blocks[k + 1])
    return blocks


def sccs(nodes, succ):
    """Tarjan's strongly connected components of the graph (nodes, succ)."""
    index, low, on, stack, out = {}, {}, set(), [], []

    def visit(v):
        # Iterative, so that a long function cannot exhaust the stack.
        work = [(v, iter(succ(v)))]
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(succ(w))))
                    advanced = True
                    break
                if w in on:
                    low[node] = min(low[node], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w is node:
                        break
                out.append(comp)

    for v in nodes:
        if v not in index:
            visit(v)
    return out


class Loop:
    def __init__(self, blocks, depth):
        self.blocks = set(blocks)
        self.depth = depth
        self.inner = []


def loop_forest(nodes, preds, cut, depth, entry):
    """Loops among nodes: each cyclic SCC is a loop; its headers are the
    blocks entered from outside it; without the edges back into them the
    rest of the SCC gives the inner loops.  Handles loops entered in the
    middle (clang rotates loops that way), which dominators would miss."""
    inside = set(nodes)

    def succ(b):
        return [s for s in b.succ if s in inside and (b, s) not in cut]

    loops = []
    for comp in sccs(nodes, succ):
        cset = set(comp)
        if len(comp) == 1 and comp[0] not in succ(comp[0]):
            continue
        heads = {b for b in comp
                 if b is entry or any(p not in cset for p in preds[b])}
        if not heads:
            heads = {min(comp, key=lambda b: b.start)}
        loop = Loop(comp, depth)
        inner_cut = set(cut) | {(b, s) for b in comp for s in b.succ
                                if s in heads and s in cset}
        loop.inner = loop_forest(sorted(comp, key=lambda b: b.start), preds,
                                 inner_cut, depth + 1, None)
        loops.append(loop)
    return loops


def all_loops(loops):
    for lp in loops:
        yield lp
        yield from all_loops(lp.inner)


def analyse(insns):
    """The outermost loops of a function, each as (loop, turns, decisions,
    extra_exits).  turns: conditional jumps whose two ways both stay in the
    outermost loop (a branchy kernel's choice, or the back-edge of an inner
    loop with a data-dependent trip count, as in the byte-by-byte varint
    loop).  decisions: the same relative to the innermost loop holding the
    jump, so inner loop control is not one; extra_exits: exits beyond the
    one each loop needs.  A branchless kernel has no decision and no extra
    exit."""
    blocks = blocks_of(insns)
    preds = {b: [] for b in blocks}
    for b in blocks:
        for s in b.succ:
            preds[s].append(b)
    forest = loop_forest(blocks, preds, set(), 0, blocks[0])
    result = []
    for top in forest:
        loops = list(all_loops([top]))
        decisions, extra = [], []
        for lp in loops:
            own = [b for b in lp.blocks
                   if not any(b in q.blocks for q in lp.inner)]
            conds = [b for b in own if b.insns[-1].cond]
            exits = []
            for b in conds:
                ways = b.succ if len(b.succ) == 2 else b.succ + [None]
                if all(w in lp.blocks for w in ways):
                    decisions.append(b.insns[-1])
                else:
                    exits.append(b.insns[-1])
            extra.extend(sorted(exits, key=lambda i: i.addr)[1:])
        turns = [b.insns[-1] for b in top.blocks if b.insns[-1].cond
                 and len(b.succ) == 2 and all(w in top.blocks for w in b.succ)]
        result.append((top, turns, decisions, extra))
    return result


def main():
    exe = binary()
    if not exe or not os.path.isfile(exe):
        skip_all("$PMUBENCH is not set or not a file")
    # Before objdump: the host's objdump may not read another architecture.
    arch = binary_arch()
    if arch not in ("x86-64", None):
        skip_all("the kernels' instruction checks are written for x86-64, "
                 "binary is %s" % arch)
    objdump = shutil.which("objdump")
    if not objdump:
        skip_all("objdump is not installed")
    try:
        out = subprocess.run([objdump, "-d", "--no-show-raw-insn", exe],
                             check=True, capture_output=True, text=True,
                             timeout=300).stdout
    except (subprocess.SubprocessError, OSError) as e:
        tap(False, "objdump reads %s" % exe, [str(e)])
        print("1..%d" % n_tests)
        return 1
    fmt = re.search(r"file format (\S+)", out)
    if not fmt or fmt.group(1) != "elf64-x86-64":
        skip_all("the kernels' instruction checks are written for x86-64, "
                 "binary is %s" % (fmt.group(1) if fmt else "unknown"))
    funcs = parse(out)

    for sym, form, idiom in KERNELS:
        insns = funcs.get(sym)
        tap(bool(insns), "%s: symbol found in %s" % (sym, exe),
            ["symbols like it: %s" % ", ".join(
                sorted(f for f in funcs if sym.split("_")[1] in f)[:10])])
        if not insns:
            continue
        if form == "sol":
            addrs = {i.addr for i in insns}
            leave = [i for i in insns if i.mnem.startswith("call")
                     or (i.is_jump and i.target not in addrs)]
            tap(not leave, "%s: no call, no jump out of the kernel%s"
                % (sym, "" if not leave else " (found: %s)" % "; ".join(
                    "%x %s" % (i.addr, i.text) for i in leave)))
        hot = analyse(insns)
        tap(bool(hot), "%s: has a loop" % sym)
        if not hot:
            continue
        diag = []
        turns, decisions, extra = [], [], []
        idiom_seen = False
        for loop, trn, dec, ext in hot:
            body = sorted((i for b in loop.blocks for i in b.insns),
                          key=lambda i: i.addr)
            diag.append("loop of %d blocks:" % len(loop.blocks))
            diag.extend("  %x: %s" % (i.addr, i.text) for i in body)
            turns += trn
            decisions += dec
            extra += ext
            if idiom and any(idiom.match(i.mnem) for i in body):
                idiom_seen = True
        if form == "branchy":
            tap(bool(turns),
                "%s: loop holds a conditional jump besides its loop control"
                % sym, diag)
        else:
            found = sorted(decisions + extra, key=lambda i: i.addr)
            tap(not found,
                "%s: loop holds no conditional jump but its loop control%s"
                % (sym, "" if not found else " (found: %s)" % "; ".join(
                    "%x %s" % (i.addr, i.text) for i in found)), diag)
            if idiom:
                tap(idiom_seen, "%s: loop chooses with %s"
                    % (sym, "pext" if idiom is PEXT
                       else "cmov/setcc/sbb/adc"), diag)

    print("1..%d" % n_tests)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
