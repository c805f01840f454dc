/* disasm_elf.c - the disasm module's ELF side: symbols, PLT names, code bytes, source lines (libelf, libdw). */
#include <elf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "disasm_internal.h"

struct pmb__elf {
	int fd;
	Elf *elf;
	Dwarf *dw;         /* NULL: no debug info */
	int machine;
	Elf_Data *sym;     /* .symtab */
	size_t nsym, symstr;
	/* PLT slots: the i-th relocation of .rela.plt names the i-th slot */
	uint64_t plt, plt_entry;
	Elf_Data *rela, *dynsym;
	size_t nrela, dynstr;
};

static Elf_Scn *section_named(Elf *elf, const char *name, GElf_Shdr *sh)
{
	size_t shstr;
	Elf_Scn *s = NULL;

	if (elf_getshdrstrndx(elf, &shstr))
		return NULL;
	while ((s = elf_nextscn(elf, s)))
		if (gelf_getshdr(s, sh)) {
			const char *n = elf_strptr(elf, shstr, sh->sh_name);

			if (n && !strcmp(n, name))
				return s;
		}
	return NULL;
}

/* .rela.plt and where its slots lie: .plt.sec where the linker made one
 * (x86-64 with IBT: 16-byte slots), else after .plt's first entry (x86-64:
 * 16 bytes; aarch64: 32). */
static void find_plt(struct pmb__elf *e)
{
	GElf_Shdr rh, ph, dh;
	Elf_Scn *r = section_named(e->elf, ".rela.plt", &rh);
	Elf_Scn *p = section_named(e->elf, ".plt.sec", &ph);
	Elf_Scn *d;

	if (!r || !rh.sh_entsize)
		return;
	if (p) {
		e->plt = ph.sh_addr;
	} else if ((p = section_named(e->elf, ".plt", &ph))) {
		e->plt = ph.sh_addr + (e->machine == EM_AARCH64 ? 32 : 16);
	} else {
		return;
	}
	d = elf_getscn(e->elf, rh.sh_link);
	if (!d || !gelf_getshdr(d, &dh))
		return;
	e->plt_entry = 16;
	e->rela = elf_getdata(r, NULL);
	e->nrela = rh.sh_size / rh.sh_entsize;
	e->dynsym = elf_getdata(d, NULL);
	e->dynstr = dh.sh_link;
}

static int open_symtab(struct pmb__elf *e, const char *path, char *err, size_t n)
{
	GElf_Shdr sh;
	Elf_Scn *s = NULL;

	while ((s = elf_nextscn(e->elf, s)))
		if (gelf_getshdr(s, &sh) && sh.sh_type == SHT_SYMTAB && sh.sh_entsize) {
			e->sym = elf_getdata(s, NULL);
			e->nsym = sh.sh_size / sh.sh_entsize;
			e->symstr = sh.sh_link;
			return 0;
		}
	snprintf(err, n, "%s has no symbol table (the binary is stripped): build it without -s "
		 "and do not strip it to see its loops", path);
	return -ENOENT;
}

int pmb__elf_open(const char *path, struct pmb__elf **out, char *err, size_t n)
{
	struct pmb__elf *e = calloc(1, sizeof(*e));
	GElf_Ehdr eh;
	int rc;

	*out = NULL;
	if (!e)
		return -ENOMEM;
	elf_version(EV_CURRENT);
	e->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (e->fd < 0) {
		rc = -errno;
		snprintf(err, n, "cannot open %s: %s", path, strerror(errno));
		goto fail_open;
	}
	e->elf = elf_begin(e->fd, ELF_C_READ, NULL);
	if (!e->elf || elf_kind(e->elf) != ELF_K_ELF || !gelf_getehdr(e->elf, &eh)) {
		snprintf(err, n, "%s is not an ELF file: %s", path, elf_errmsg(-1));
		rc = -ENOEXEC;
		goto fail_elf;
	}
	e->machine = eh.e_machine;
	rc = open_symtab(e, path, err, n);
	if (rc)
		goto fail_elf;
	find_plt(e);
	e->dw = dwarf_begin_elf(e->elf, DWARF_C_READ, NULL);
	*out = e;
	return 0;
fail_elf:
	if (e->elf)
		elf_end(e->elf);
	close(e->fd);
fail_open:
	free(e);
	return rc;
}

void pmb__elf_close(struct pmb__elf *e)
{
	if (!e)
		return;
	if (e->dw)
		dwarf_end(e->dw);
	elf_end(e->elf);
	close(e->fd);
	free(e);
}

int pmb__elf_machine(const struct pmb__elf *e)
{
	return e->machine;
}

/* Function symbol i: false where it is none (or has no address). */
static bool func_sym(const struct pmb__elf *e, size_t i, GElf_Sym *s, const char **name)
{
	if (!gelf_getsym(e->sym, (int)i, s) || GELF_ST_TYPE(s->st_info) != STT_FUNC || !s->st_value)
		return false;
	*name = elf_strptr(e->elf, e->symstr, s->st_name);
	return *name != NULL;
}

bool pmb__elf_sym_named(const struct pmb__elf *e, const char *name, uint64_t *addr, uint64_t *size)
{
	GElf_Sym s;
	const char *nm;

	for (size_t i = 0; i < e->nsym; i++)
		if (func_sym(e, i, &s, &nm) && !strcmp(nm, name)) {
			*addr = s.st_value;
			*size = s.st_size;
			return true;
		}
	return false;
}

static bool plt_name(const struct pmb__elf *e, uint64_t addr, char *buf, size_t n);

/* Where no symbol holds addr: a PLT slot ("memcpy@plt"), which a call
 * into a shared library runs through. */
bool pmb__elf_sym_at(const struct pmb__elf *e, uint64_t addr, char *name, size_t n, uint64_t *start,
		     uint64_t *size)
{
	GElf_Sym s;
	const char *nm;

	for (size_t i = 0; i < e->nsym; i++)
		if (func_sym(e, i, &s, &nm) && addr >= s.st_value && addr < s.st_value + s.st_size) {
			snprintf(name, n, "%s", nm);
			*start = s.st_value;
			*size = s.st_size;
			return true;
		}
	if (!e->rela || addr < e->plt)
		return false;
	*start = addr - (addr - e->plt) % e->plt_entry;
	*size = e->plt_entry;
	return plt_name(e, *start, name, n);
}

const uint8_t *pmb__elf_code(const struct pmb__elf *e, uint64_t addr, uint64_t size)
{
	Elf_Scn *s = NULL;
	GElf_Shdr sh;

	while ((s = elf_nextscn(e->elf, s))) {
		Elf_Data *d;

		if (!gelf_getshdr(s, &sh) || sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR) ||
		    addr < sh.sh_addr || addr + size > sh.sh_addr + sh.sh_size)
			continue;
		d = elf_getdata(s, NULL);
		if (!d || !d->d_buf || d->d_size < sh.sh_size)
			return NULL;
		return (const uint8_t *)d->d_buf + (addr - sh.sh_addr);
	}
	return NULL;
}

static bool plt_name(const struct pmb__elf *e, uint64_t addr, char *buf, size_t n)
{
	GElf_Rela r;
	GElf_Sym s;
	uint64_t i;
	const char *nm;

	if (!e->rela || addr < e->plt || (addr - e->plt) % e->plt_entry)
		return false;
	i = (addr - e->plt) / e->plt_entry;
	if (i >= e->nrela || !gelf_getrela(e->rela, (int)i, &r) ||
	    !gelf_getsym(e->dynsym, (int)GELF_R_SYM(r.r_info), &s))
		return false;
	nm = elf_strptr(e->elf, e->dynstr, s.st_name);
	if (!nm || !*nm)
		return false;
	snprintf(buf, n, "%s@plt", nm);
	return true;
}

void pmb__elf_name_of(const struct pmb__elf *e, uint64_t addr, char *buf, size_t n)
{
	char nm[128];
	uint64_t start, size;

	buf[0] = '\0';
	if (plt_name(e, addr, buf, n))
		return;
	if (!pmb__elf_sym_at(e, addr, nm, sizeof(nm), &start, &size))
		return;
	if (addr == start)
		snprintf(buf, n, "%s", nm);
	else
		snprintf(buf, n, "%s+0x%llx", nm, (unsigned long long)(addr - start));
}

void pmb__elf_line(const struct pmb__elf *e, uint64_t addr, char *buf, size_t n)
{
	Dwarf_Die cu;
	Dwarf_Line *l;
	const char *file, *base;
	int line;

	buf[0] = '\0';
	if (!e->dw || !dwarf_addrdie(e->dw, addr, &cu))
		return;
	l = dwarf_getsrc_die(&cu, addr);
	if (!l || dwarf_lineno(l, &line) || !(file = dwarf_linesrc(l, NULL, NULL)))
		return;
	base = strrchr(file, '/');
	snprintf(buf, n, "%s:%d", base ? base + 1 : file, line);
}
