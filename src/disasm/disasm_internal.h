/* disasm_internal.h - the disasm module's ELF side (disasm_elf.c), for disasm.c only. */
#ifndef PMB_DISASM_INTERNAL_H
#define PMB_DISASM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pmb__elf;

/* Open an ELF file with its symbol table and, where present, its DWARF
 * line table.  Returns 0, or a negative errno with err saying why (a
 * stripped file: -ENOENT, "has no symbol table"). */
int pmb__elf_open(const char *path, struct pmb__elf **e, char *err, size_t n);
void pmb__elf_close(struct pmb__elf *e);

/* EM_X86_64, EM_AARCH64, ... */
int pmb__elf_machine(const struct pmb__elf *e);

/* The function symbol named name: its address and size. */
bool pmb__elf_sym_named(const struct pmb__elf *e, const char *name, uint64_t *addr, uint64_t *size);

/* The function symbol holding addr: its name, address and size. */
bool pmb__elf_sym_at(const struct pmb__elf *e, uint64_t addr, char *name, size_t n, uint64_t *start,
		     uint64_t *size);

/* The code bytes [addr, addr + size) inside one section of the file, or
 * NULL. */
const uint8_t *pmb__elf_code(const struct pmb__elf *e, uint64_t addr, uint64_t size);

/* A branch target's name: "sym", "sym+0x4a", or "memcpy@plt"; "" where
 * none is known. */
void pmb__elf_name_of(const struct pmb__elf *e, uint64_t addr, char *buf, size_t n);

/* "file.c:12" from the line table, "" without debug info. */
void pmb__elf_line(const struct pmb__elf *e, uint64_t addr, char *buf, size_t n);

/* What went wrong last, for pmb__disasm_error() (disasm.c). */
extern char pmb__da_err[512];

/* Append the instructions of f (of component scc; -1 all) to d as one
 * part, d->insn growing past *cap (what it holds) as needed.  Returns 0,
 * or -ENOMEM. */
struct pmb_disasm;
struct pmb__func;
int pmb__disasm_add_part(struct pmb_disasm *d, size_t *cap, const struct pmb__func *f, int scc, bool callee,
			 const char *name);

/* The notes of d, from its instructions and what is known of which loop
 * it runs (disasm_check.c). */
void pmb__disasm_check(struct pmb_disasm *d);

#endif
