/* load.c - --load: benchmarks from shared objects, registered by their own constructors as dlopen runs them. */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "load.h"
#include "registry.h"

/* What path is, where it cannot be a shared object: "" when it may be.
 * Read before dlopen, whose messages for these cases are the loader's. */
static void not_shared(const char *path, char *why, size_t size)
{
	struct stat st;
	unsigned char h[EI_NIDENT + 4];
	FILE *f;
	size_t n = 0;

	why[0] = 0;
	if (stat(path, &st) != 0) {
		snprintf(why, size, "%s", strerror(errno));
		return;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, size, "not a regular file");
		return;
	}
	f = fopen(path, "rb");
	if (f) {
		n = fread(h, 1, sizeof(h), f);
		fclose(f);
	}
	if (n < EI_NIDENT + 2 || memcmp(h, ELFMAG, SELFMAG) != 0) {
		snprintf(why, size, "not a shared object (not an ELF file)");
		return;
	}
	/* e_type, in the file's byte order: ET_DYN for a shared object. */
	if ((h[EI_DATA] == ELFDATA2LSB ? h[EI_NIDENT] | h[EI_NIDENT + 1] << 8 :
	     h[EI_NIDENT] << 8 | h[EI_NIDENT + 1]) != ET_DYN)
		snprintf(why, size, "an ELF %s, not a shared object",
			 h[EI_NIDENT] == ET_REL || h[EI_NIDENT + 1] == ET_REL ? "object file" : "executable");
}

/* The benchmarks registered since `before` were refused: say why. */
static void refused(const char *path, size_t nrefused, char *err, size_t size)
{
	struct pmb_registry_refusals r = pmb__registry_refusals();

	if (r.first_err == PMB_EABI)
		snprintf(err, size, "--load=%s: built against pmubench.h of major version %d; this pmubench is %d.%d: "
			 "rebuild it with this version's header", path, r.first_abi, PMB_VERSION_MAJOR,
			 PMB_VERSION_MINOR);
	else
		snprintf(err, size, "--load=%s: %zu benchmark definition(s) refused: %s (.size %zu)", path,
			 nrefused, pmb_strerror(r.first_err), r.first_size);
}

/* The objects loaded so far (a second --load of one, or a second
 * pmb_run() naming it, has nothing left to register: it is kept). */
static char **loaded;
static size_t nloaded;

static bool was_loaded(const char *full)
{
	for (size_t i = 0; i < nloaded; i++)
		if (!strcmp(loaded[i], full))
			return true;
	return false;
}

/* Remember full; the run is the loaded benchmarks from the first on (the
 * program's own are hidden).  Returns 0 or -ENOMEM. */
static int remember(const char *full, size_t before)
{
	char **l = realloc(loaded, (nloaded + 1) * sizeof(*l));

	if (!l)
		return -ENOMEM;
	loaded = l;
	if (!(loaded[nloaded] = strdup(full)))
		return -ENOMEM;
	if (nloaded++ == 0)
		pmb__registry_show_from(before);
	return 0;
}

int pmb__load(const char *path, char *err, size_t size)
{
	char full[PATH_MAX], why[160];
	size_t before = pmb__registry_count(), nrefused = pmb__registry_refusals().n;
	void *h;

	not_shared(path, why, sizeof(why));
	if (why[0] || !realpath(path, full)) {
		snprintf(err, size, "--load=%s: %s; expected a shared object built with -shared -fPIC", path,
			 why[0] ? why : strerror(errno));
		return -EINVAL;
	}
	if (was_loaded(full))
		return 0;
	/* RTLD_NOW: a missing symbol is said here, not in the middle of a run. */
	h = dlopen(full, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(err, size, "--load=%s: cannot load it: %s", path, dlerror());
		return -EINVAL;
	}
	if (pmb__registry_refusals().n > nrefused) {
		pmb__registry_truncate(before);
		refused(path, pmb__registry_refusals().n - nrefused, err, size);
		return PMB_EABI;
	}
	if (pmb__registry_count() == before) {
		snprintf(err, size, "--load=%s: registers no benchmark (no PMB_BENCHMARK in it)", path);
		dlclose(h);
		return -ENOENT;
	}
	if (remember(full, before)) {
		snprintf(err, size, "--load=%s: out of memory", path);
		return -ENOMEM;
	}
	return 0; /* never closed: its functions run until the process ends */
}
