/* report_out.c - what the command line writes: error and warning lines, progress, listings, --topology, report files written atomically. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plot.h"
#include "registry.h"
#include "report.h"
#include "report_out.h"
#include "text.h"

void pmb__out_line(const char *prefix, const char *msg)
{
	char buf[1024];
	size_t need = pmb__text_safe(buf, sizeof(buf), msg);
	char *big = need < sizeof(buf) ? NULL : malloc(need + 1);

	if (big)
		pmb__text_safe(big, need + 1, msg);
	fprintf(stderr, "pmubench: %s%s\n", prefix, big ? big : buf);
	free(big);
}

/* pmb_run(): errors kept here instead of printed (the first one). */
static char *capture;
static size_t capture_size;

void pmb__out_capture(char *buf, size_t size)
{
	capture = buf;
	capture_size = size;
}

int pmb__out_error(const char *fmt, ...)
{
	va_list ap;
	char *msg = NULL;
	int len;

	if (capture) {
		if (!capture[0]) {
			va_start(ap, fmt);
			vsnprintf(capture, capture_size, fmt, ap);
			va_end(ap);
		}
		return 2;
	}
	va_start(ap, fmt);
	len = vasprintf(&msg, fmt, ap);
	va_end(ap);
	pmb__out_line("", len >= 0 ? msg : fmt);
	if (len >= 0)
		free(msg);
	return 2;
}

/* The console shows this many of a warning's lines per benchmark; the
 * JSON report's context/warnings holds them all. */
#define WARN_LINES 6

/* One warning: its first line after "pmubench: warning: ", the lines of
 * its list indented under it, at most WARN_LINES of them (the JSON has
 * all); each line escaped as pmb__out_line does. */
static void warning_lines(const char *t)
{
	int lines = 0;

	for (const char *p = strchr(t, '\n'); p; p = strchr(p + 1, '\n'))
		lines++;
	for (int i = 0; i <= lines && i <= WARN_LINES; i++) {
		size_t len = strcspn(t, "\n");
		char *line = strndup(t, len), buf[1024];

		if (!line)
			return;
		pmb__text_safe(buf, sizeof(buf), line);
		fprintf(stderr, i ? "%s\n" : "pmubench: warning: %s\n", buf);
		free(line);
		t += len + (t[len] != 0);
	}
	if (lines > WARN_LINES)
		fprintf(stderr, "  and %d more: the JSON report (--format=json) lists every one\n", lines - WARN_LINES);
}

void pmb__out_warnings(char *const *text, int n, int *printed)
{
	for (; *printed < n; (*printed)++)
		if (!capture)
			warning_lines(text[*printed]);
}

/* Whether a progress line stands on the terminal now. */
static bool progress_drawn;

void pmb__out_progress(void *unused, const char *name, size_t done, size_t total)
{
	(void)unused;
	progress_drawn = true;
	fprintf(stderr, "\r\033[K[%zu/%zu] %s", done, total, name);
	fflush(stderr);
	if (done == total)
		pmb__out_progress_end();
}

void pmb__out_progress_end(void)
{
	if (!progress_drawn)
		return;
	fprintf(stderr, "\r\033[K");
	fflush(stderr);
	progress_drawn = false;
}

int pmb__out_width(const char *out)
{
	const char *env = getenv("COLUMNS");
	struct winsize ws;
	char *end;

	if (env && *env) {
		long v = strtol(env, &end, 10);

		if (!*end && v >= 40 && v <= 1000)
			return (int)v;
	}
	if (!out && isatty(1) && ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40)
		return ws.ws_col;
	return 100;
}

void pmb__out_progress_erase(void)
{
	fputs("\r\033[K", stderr);
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
