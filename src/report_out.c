/* report_out.c - what the command line writes: error and warning lines, progress, listings, --topology, report files written atomically. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plot.h"
#include "registry.h"
#include "report.h"
#include "report_out.h"

/* Length of the UTF-8 sequence at s that prints (2 to 4 bytes: no
 * overlong form, no surrogate, nothing past U+10FFFF, no C1 control), or
 * 0. */
static size_t utf8_printable(const unsigned char *s)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (*s >= 0xc2 && *s <= 0xdf)
		n = 2, lo = *s == 0xc2 ? 0xa0 : 0x80; /* C2 80..9F: C1 controls */
	else if (*s >= 0xe0 && *s <= 0xef)
		n = 3, lo = *s == 0xe0 ? 0xa0 : 0x80, hi = *s == 0xed ? 0x9f : 0xbf;
	else if (*s >= 0xf0 && *s <= 0xf4)
		n = 4, lo = *s == 0xf0 ? 0x90 : 0x80, hi = *s == 0xf4 ? 0x8f : 0xbf;
	else
		return 0;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

char *pmb__out_visible(char *dst, size_t size, const char *src)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t k = 0, n;

	if (!size)
		return dst;
	while (*s && k + 1 < size) {
		if (*s >= 0x20 && *s < 0x7f)
			n = 1;
		else if (*s < 0x80 || !(n = utf8_printable(s)))
			n = 0;
		if (n && k + n < size) {
			memcpy(dst + k, s, n);
			k += n;
			s += n;
		} else if (!n && k + 4 < size) {
			snprintf(dst + k, 5, "\\x%02x", *s++);
			k += 4;
		} else {
			break; /* what does not fit whole is left out */
		}
	}
	dst[k] = '\0';
	return dst;
}

/* One line on stderr: prefix, then text made visible. */
static void say(const char *prefix, const char *text)
{
	size_t size = 4 * strlen(text) + 1;
	char small[1024], *buf = size <= sizeof(small) ? small : malloc(size);

	fprintf(stderr, "%s%s\n", prefix, buf ? pmb__out_visible(buf, size, text) : "(out of memory)");
	if (buf != small)
		free(buf);
}

int pmb__out_error(const char *fmt, ...)
{
	char *text = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	say("pmubench: ", n >= 0 ? text : "(out of memory)");
	if (n >= 0)
		free(text);
	return 2;
}

void pmb__out_warnings(char *const *text, int n, int *printed)
{
	for (; *printed < n; (*printed)++)
		say("pmubench: warning: ", text[*printed]);
}

void pmb__out_progress(void *unused, const char *name, size_t done, size_t total)
{
	(void)unused;
	fprintf(stderr, "\r\033[K[%zu/%zu] %s", done, total, name);
	if (done == total)
		fprintf(stderr, "\r\033[K");
	fflush(stderr);
}

void pmb__out_event(void *unused, const char *pmu, const char *name, const char *desc)
{
	(void)unused;
	printf("%s::%s\n    %s\n", pmu, name, desc && *desc ? desc : "");
}

static void print_cache(const struct pmb_topology_info *t, const struct pmb_cache *c)
{
	char size[32], ways[24], share[40];

	pmb__format_bytes(size, sizeof(size), c->size);
	if (c->assoc < 0)
		snprintf(ways, sizeof(ways), "fully associative");
	else if (c->assoc == 0)
		snprintf(ways, sizeof(ways), "ways unknown");
	else
		snprintf(ways, sizeof(ways), "%d-way", c->assoc);
	if (t->caches_assumed)
		snprintf(share, sizeof(share), "ASSUMED");
	else
		snprintf(share, sizeof(share), "shared by %d core%s", c->sharing_cores,
			 c->sharing_cores == 1 ? "" : "s");
	printf("  L%d%s  %9s  line %u B  %s  %s (PUs %s)\n", c->level, c->level == 1 ? "d" : " ", size,
	       c->line, ways, share, c->shared_with);
}

int pmb__out_topology(const struct pmb_context *ctx)
{
	const struct pmb_topology_info *t = &ctx->topo;
	char a[32];

	printf("core %d (of %d cores, %d processing units)\n", t->cpu, t->ncores, t->npus);
	for (int i = 0; i < t->ncaches; i++)
		print_cache(t, &t->cache[i]);
	if (t->fallback[0])
		printf("  note: %s\n", t->fallback);
	pmb__format_bytes(a, sizeof(a), t->numa_memory);
	printf("NUMA node %d, %s\n", t->numa_node, t->numa_memory ? a : "memory unknown");
	printf("PMU %s (%s): hardware counters %s\n", ctx->plan.pmu_name[0] ? ctx->plan.pmu_name : "none",
	       ctx->plan.pmu_desc, ctx->pmu_ok ? "work" : "do NOT work here");
	for (int e = 0; e < ctx->plan.nev; e++)
		if (pmb_context_absent_shown(ctx, e))
			printf("  not counted: %s: %s\n", ctx->plan.ev[e].name, ctx->event_why[e]);
	printf("core frequency estimate: %.2f GHz (dependent add chain against the clock)\n", ctx->ghz);
	printf("clock: %s, resolution %.0f ns, %.1f ns per read\n", ctx->clock.source,
	       ctx->clock.resolution_ns, ctx->clock.read_cost_ns);
	return 0;
}

int pmb__out_check(const char *opt, const char *path)
{
	char probe[PATH_MAX];
	struct stat st;
	int fd;

	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return pmb__out_error("%s=%s: is a directory; expected a file name", opt, path);
	snprintf(probe, sizeof(probe), "%s.pmubench-XXXXXX", path);
	fd = mkstemp(probe);
	if (fd < 0)
		return pmb__out_error("%s=%s: cannot write there (%s); expected a writable file name",
				     opt, path, strerror(errno));
	close(fd);
	unlink(probe);
	return 0;
}

typedef int (*writer_fn)(FILE *f, const struct pmb_context *c, const struct pmb_result *r, size_t n);

/* The temporary file a report is written to: path.pmubench-XXXXXX, mode
 * 0644.  Returns it open, or NULL with the error said. */
static FILE *open_temporary(const char *path, const char *opt, char *tmp, size_t size)
{
	FILE *f = NULL;
	int fd;

	snprintf(tmp, size, "%s.pmubench-XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd >= 0 && (f = fdopen(fd, "w")))
		fchmod(fd, 0644);
	if (!f) {
		fprintf(stderr, "pmubench: %s=%s: %s\n", opt, path, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
	}
	return f;
}

/* Write through a temporary file and rename: never a half-written file.
 * path NULL: standard output.  opt names the option in messages.  Returns
 * 0, 1 on a write error, or the writer's -ENODATA (nothing written). */
static int write_atomic(const char *path, const char *opt, writer_fn fn,
			const struct pmb_context *ctx, const struct pmb_result *r, size_t n)
{
	char tmp[PATH_MAX];
	FILE *f;
	int err;

	if (!path) {
		err = fn(stdout, ctx, r, n);
		return fflush(stdout) || err ? 1 : 0;
	}
	f = open_temporary(path, opt, tmp, sizeof(tmp));
	if (!f)
		return 1;
	err = fn(f, ctx, r, n);
	if (err == -ENODATA || fflush(f) || fsync(fileno(f)) || ferror(f) || err) {
		fclose(f);
		unlink(tmp);
		if (err != -ENODATA)
			fprintf(stderr, "pmubench: %s=%s: write failed\n", opt, path);
		return err == -ENODATA ? err : 1;
	}
	fclose(f);
	if (rename(tmp, path)) {
		unlink(tmp);
		fprintf(stderr, "pmubench: %s=%s: %s\n", opt, path, strerror(errno));
		return 1;
	}
	return 0;
}

int pmb__out_report(enum pmb_format format, const char *out, const char *plot,
		   const struct pmb_context *ctx, const struct pmb_result *r, size_t n)
{
	static const writer_fn writers[] = {
		[PMB_FORMAT_CONSOLE] = pmb__report_text,
		[PMB_FORMAT_JSON] = pmb__report_json,
		[PMB_FORMAT_CSV] = pmb__report_csv,
	};
	int rc = write_atomic(out, "--out", writers[format], ctx, r, n);

	if (rc == 0 && plot) {
		int err = write_atomic(plot, "--plot", pmb__plot_svg, ctx, r, n);

		if (err == -ENODATA)
			fprintf(stderr, "pmubench: --plot=%s: nothing to plot: plots show working-set "
				"sweeps (PMB_TIERS) and branch studies; no file written\n", plot);
		else
			rc = err;
	}
	return rc;
}
