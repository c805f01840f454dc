/* report_out.c - what the command line writes: error and warning lines, listings, --topology, report files written atomically. */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plot.h"
#include "pmubench.h"
#include "report.h"
#include "report_fmt.h"
#include "report_out.h"
#include "base.h"

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

char *pmb__out_visible(char *dst, size_t size, const char *src)
{
	if (size)
		pmb__text_safe(dst, size, src);
	return dst;
}

/* pmb_run(): errors kept here instead of printed (the first one).  The
 * one state of this file that a caller sets: threading it as a parameter
 * instead would change every error call of the run's path (27 in run.c)
 * and of the file writer under it (13 here, and the callers of
 * pmb__out_check/report/file/text in cli/ and compare/). */
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

/* $COLUMNS where it is a width (40 to 1000), else 0: the user's word on
 * the width, before the terminal's, for the report and the warnings. */
static int columns_env(void)
{
	const char *env = getenv("COLUMNS");
	char *end;
	long v;

	if (!env || !*env)
		return 0;
	v = strtol(env, &end, 10);
	return !*end && v >= 40 && v <= 1000 ? (int)v : 0;
}

/* Where stderr is a terminal, its width (COLUMNS first, as for the
 * report); 0 elsewhere: a log or a pipe keeps each line whole, for grep. */
int pmb__out_stderr_width(void)
{
	struct winsize ws;
	int env = columns_env();

	if (!isatty(2))
		return 0;
	if (env)
		return env;
	if (ioctl(2, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40)
		return ws.ws_col;
	return 0;
}

/* prefix and line on stderr, line wrapped at spaces to width columns (0:
 * not wrapped), each further line indented by 4 spaces. */
static void wrapped(const char *prefix, const char *line, int width)
{
	fputs(prefix, stderr);
	pmb__wrap(stderr, line, pmb__text_width(prefix), 4, width > 0 ? (size_t)width : SIZE_MAX);
}

/* One warning: its first line after "pmubench: warning: ", the lines of
 * its list indented under it, at most WARN_LINES of them (the JSON has
 * all); each line escaped as pmb__out_line does, and wrapped to a
 * terminal's width. */
static void warning_lines(const char *t)
{
	int lines = 0, width = pmb__out_stderr_width();

	for (const char *p = strchr(t, '\n'); p; p = strchr(p + 1, '\n'))
		lines++;
	for (int i = 0; i <= lines && i <= WARN_LINES; i++) {
		size_t len = strcspn(t, "\n"), indent = i ? strspn(t, " ") : 0;
		char *line = strndup(t + indent, len - indent), buf[1024], lead[32];

		if (!line)
			return;
		pmb__text_safe(buf, sizeof(buf), line);
		snprintf(lead, sizeof(lead), "%s%*s", i ? "" : "pmubench: warning: ", (int)(indent < 8 ? indent : 8), "");
		wrapped(lead, buf, width);
		free(line);
		t += len + (t[len] != 0);
	}
	if (lines > WARN_LINES) {
		char more[96];

		snprintf(more, sizeof(more), "and %d more: the JSON report (--format=json) lists every one",
			 lines - WARN_LINES);
		wrapped("  ", more, width);
	}
}

void pmb__out_warnings(char *const *text, int n, int *printed)
{
	for (; *printed < n; (*printed)++)
		warning_lines(text[*printed]);
}

void pmb__out_context_warnings(const struct pmb_context *c, int *printed)
{
	for (; *printed < pmb__context_nwarnings(c); (*printed)++)
		warning_lines(pmb__context_warning(c, *printed));
}

int pmb__out_width(const char *out)
{
	struct winsize ws;
	int env = columns_env();

	if (env)
		return env;
	if (!out && isatty(1) && ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40)
		return ws.ws_col;
	return 100;
}

struct pmb_console_view pmb__console_view(const char *out, const char *columns, bool wide, bool verbose)
{
	struct pmb_console_view v = { .width = pmb__out_width(out), .wide = wide, .verbose = verbose };

	snprintf(v.columns, sizeof(v.columns), "%s", columns ? columns : "");
	return v;
}

int pmb__out_failed_checks(const struct pmb_result *r, size_t n)
{
	char line[sizeof(r->m.inst->name) + sizeof(r->m.reason) + 16];
	int rc = 0;

	for (size_t i = 0; i < n; i++)
		if (r[i].m.status == PMB_EVERIFY) {
			snprintf(line, sizeof(line), "%s failed: %s", r[i].m.inst->name, r[i].m.reason);
			pmb__out_line("", line);
			rc = 1;
		}
	return rc;
}

void pmb__out_interrupted(const char *signal, size_t measured, size_t n)
{
	fprintf(stderr, "pmubench: interrupted by %s: %zu of %zu benchmark%s measured; writing %s, "
		"marked incomplete\n", signal, measured, n, n == 1 ? "" : "s",
		measured == 0 ? "the report" : measured == 1 ? "it" : "them");
}

void pmb__out_incomplete(const char *why)
{
	printf("INCOMPLETE: %s\n", why);
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

/* The TLBs, one line per page size each holds, with the bytes it reaches. */
static void print_tlbs(const struct pmb_tlb_info *t)
{
	if (!t->n) {
		printf("TLBs: not known: %s\n", t->why);
		return;
	}
	printf("TLBs (%s):\n", t->source);
	for (int i = 0; i < t->n; i++) {
		const struct pmb_tlb *b = &t->tlb[i];
		const char *kind = b->kind == 'd' ? "data" : b->kind == 'i' ? "instr" : b->kind == 'u' ? "unified" :
				   b->kind == 'l' ? "loads" : "stores";
		char ways[24], reach[32];

		if (b->assoc < 0)
			snprintf(ways, sizeof(ways), "fully associative");
		else if (b->assoc == 0)
			snprintf(ways, sizeof(ways), "ways unknown");
		else
			snprintf(ways, sizeof(ways), "%d-way", b->assoc);
		for (int p = 0; p < PMB_TLB_NPAGES; p++) {
			/* 4 MiB pages exist in 32-bit paging only */
			if (!(b->pages & (1u << p)) || (1u << p) == PMB_TLB_4M)
				continue;
			pmb__format_bytes(reach, sizeof(reach), pmb_tlb_reach(b, 1u << p));
			printf("  L%d %-7s  %s pages  %5d entries  %-17s  reach %s\n", b->level, kind, pmb_tlb_page_name[p],
			       b->entries, ways, reach);
		}
	}
}

int pmb__out_topology(const struct pmb_context *ctx)
{
	const struct pmb_topology_info *t = &ctx->m.topo;
	char a[32];

	printf("core %d (of %d cores, %d processing units)\n", t->cpu, t->ncores, t->npus);
	for (int i = 0; i < t->ncaches; i++)
		print_cache(t, &t->cache[i]);
	if (t->fallback[0])
		printf("  note: %s\n", t->fallback);
	print_tlbs(&t->tlb);
	pmb__format_bytes(a, sizeof(a), t->numa_memory);
	printf("NUMA node %d, %s\n", t->numa_node, t->numa_memory ? a : "memory unknown");
	/* Where they do not work, why: what the kernel exposes (a PMU
	 * that libpfm4 alone knows, from CPUID, counts nothing). */
	printf("PMU %s (%s): hardware counters %s%s%s\n", ctx->m.plan.pmu_name[0] ? ctx->m.plan.pmu_name : "none",
	       ctx->m.plan.pmu_desc[0] ? ctx->m.plan.pmu_desc : "no description", ctx->m.pmu_ok ? "work" :
	       ctx->m.pmu_denied ? "are NOT PERMITTED here (perf_event_paranoid; sysctl kernel.perf_event_paranoid)" :
	       "do NOT work here", !ctx->m.pmu_ok && ctx->m.pmu_kernel[0] ? ": " : "",
	       !ctx->m.pmu_ok ? ctx->m.pmu_kernel : "");
	for (int e = 0; e < ctx->m.plan.nev; e++)
		if (pmb_context_absent_shown(ctx, e))
			printf("  not counted: %s: %s\n", ctx->m.plan.ev[e].name, ctx->m.event_why[e]);
	/* Under simulation neither is measured (probe.c): said, not 0. */
	if (pmb_context_sim(ctx)) {
		printf("core frequency estimate: not measured under --backend=sim (valgrind times nothing)\n");
		printf("clock: %s, not measured under --backend=sim\n", ctx->m.clock.source);
		return 0;
	}
	printf("core frequency estimate: %.2f GHz (dependent add chain against the clock)\n", ctx->m.ghz);
	printf("clock: %s, resolution %.0f ns, %.1f ns per read\n", ctx->m.clock.source,
	       ctx->m.clock.resolution_ns, ctx->m.clock.read_cost_ns);
	return 0;
}

/* ---- report files --------------------------------------------------------- */

/* Where a report goes, found again each time (the file may change between
 * the check before measuring and the write after it). */
struct target {
	char path[PATH_MAX];  /* the file itself: symlinks followed */
	bool direct;          /* a character device or a FIFO: written in place */
	bool exists;          /* a regular file: replaced, its st kept */
	struct stat st;
};

/* The text of link `at` as a path (relative to the link's folder) into
 * out.  Returns 0 or an errno. */
static int link_target(const char *at, char *out, size_t size)
{
	char text[PATH_MAX];
	const char *slash = strrchr(at, '/');
	ssize_t n = readlink(at, text, sizeof(text) - 1);

	if (n < 0)
		return errno;
	text[n] = '\0';
	if (text[0] == '/' || !slash)
		n = snprintf(out, size, "%s", text);
	else
		n = snprintf(out, size, "%.*s/%s", (int)(slash - at), at, text);
	return (size_t)n >= size ? ENAMETOOLONG : 0;
}

/* Follow path's symlinks to the file a report is written to.  A link to
 * a device or a FIFO (/dev/stdout on a pipe: a /proc link whose text is
 * no path) is written through as it stands.  Returns 0 or an errno. */
static int follow(const char *path, struct target *t)
{
	char next[PATH_MAX];
	struct stat to;
	int err;

	if ((size_t)snprintf(t->path, sizeof(t->path), "%s", path) >= sizeof(t->path))
		return ENAMETOOLONG;
	for (int hops = 0;; hops++) {
		if (lstat(t->path, &t->st)) {
			memset(&t->st, 0, sizeof(t->st)); /* not the link's */
			return errno == ENOENT ? 0 : errno; /* ENOENT: a new file */
		}
		if (!S_ISLNK(t->st.st_mode))
			break;
		if (hops == 40)
			return ELOOP;
		if (stat(t->path, &to) == 0 && !S_ISREG(to.st_mode) && !S_ISDIR(to.st_mode)) {
			t->st = to;
			break;
		}
		if ((err = link_target(t->path, next, sizeof(next))))
			return err;
		memcpy(t->path, next, sizeof(next));
	}
	t->exists = S_ISREG(t->st.st_mode);
	t->direct = S_ISCHR(t->st.st_mode) || S_ISFIFO(t->st.st_mode);
	return 0;
}

/* What follow() found, judged: a directory, a block device or a socket is
 * refused, a device or FIFO must be writable.  Returns 0 or 2 with the
 * error said. */
static int find_target(const char *opt, const char *path, struct target *t)
{
	int err;

	memset(t, 0, sizeof(*t));
	if ((err = follow(path, t)))
		return pmb__out_error("%s=%s: %s; expected a file name", opt, path, strerror(err));
	if (S_ISDIR(t->st.st_mode))
		return pmb__out_error("%s=%s: is a directory; expected a file name", opt, path);
	if (S_ISBLK(t->st.st_mode) || S_ISSOCK(t->st.st_mode))
		return pmb__out_error("%s=%s: is a %s; expected a file, a character device or a FIFO",
				     opt, path, S_ISBLK(t->st.st_mode) ? "block device" : "socket");
	if (t->direct && access(t->path, W_OK))
		return pmb__out_error("%s=%s: cannot write there (%s)", opt, path, strerror(errno));
	return 0;
}

/* The temporary file a regular file's report is written to, beside it:
 * path.pmubench-XXXXXX, with the old file's mode and owner (a new file's:
 * 0666 less the umask).  Returns the descriptor, or -errno (tmp removed). */
static int open_temporary(const struct target *t, char *tmp, size_t size)
{
	mode_t mask = umask(0), mode = t->exists ? t->st.st_mode & 07777 : 0666 & ~mask;
	int fd, err = 0;

	umask(mask);
	if ((size_t)snprintf(tmp, size, "%s.pmubench-XXXXXX", t->path) >= size)
		return -ENAMETOOLONG;
	fd = mkstemp(tmp);
	if (fd < 0)
		return -errno;
	/* Owner first: a chown clears the set-id bits that fchmod sets. */
	if (t->exists && (t->st.st_uid != geteuid() || t->st.st_gid != getegid()) &&
	    fchown(fd, t->st.st_uid, t->st.st_gid))
		err = -errno;
	if (!err && fchmod(fd, mode))
		err = -errno;
	if (err) {
		close(fd);
		unlink(tmp);
		return err;
	}
	return fd;
}

/* Why a temporary file could not be made: the owner that cannot be kept
 * said as such. */
static int say_temporary(const char *opt, const char *path, const struct target *t, int err)
{
	if (err == -EPERM && t->exists)
		return pmb__out_error("%s=%s: cannot keep its owner (uid %u, gid %u) in a new file: %s; "
				     "remove it first or choose another name", opt, path,
				     (unsigned)t->st.st_uid, (unsigned)t->st.st_gid, strerror(-err));
	return pmb__out_error("%s=%s: cannot write there (%s); expected a writable file name", opt,
			     path, strerror(-err));
}

/* Whether t is one of the run's inputs (which the write would destroy).
 * Returns 0 or 2 with the error said. */
static int not_an_input(const char *opt, const char *path, const struct target *t,
			const struct pmb_out_input *in)
{
	struct stat st;

	for (; in && in->what; in++)
		if (in->path && stat(in->path, &st) == 0 && st.st_dev == t->st.st_dev &&
		    st.st_ino == t->st.st_ino)
			return pmb__out_error("%s=%s: is %s, which this run reads; expected another file name",
					     opt, path, in->what);
	return 0;
}

int pmb__out_check(const char *opt, const char *path, const struct pmb_out_input *inputs)
{
	struct target t;
	char tmp[PATH_MAX];
	int fd;

	if (find_target(opt, path, &t))
		return 2;
	if (t.direct)
		return 0;
	if (t.exists && not_an_input(opt, path, &t, inputs))
		return 2;
	fd = open_temporary(&t, tmp, sizeof(tmp));
	if (fd < 0)
		return say_temporary(opt, path, &t, fd);
	close(fd);
	unlink(tmp);
	return 0;
}

/* Flush f and fsync it where sync; err: the first write error already
 * known (0 none).  Returns 0 or 1, the error said. */
static int flush_said(FILE *f, const char *what, bool sync, int err)
{
	if (!err && fflush(f))
		err = errno;
	if (!err && sync && fsync(fileno(f)))
		err = errno;
	if (!err && ferror(f))
		err = EIO; /* an earlier write failed, its errno gone */
	if (err)
		pmb__out_error("%s: write failed: %s", what, strerror(err));
	return err ? 1 : 0;
}

int pmb__out_flush(FILE *f, const char *what, bool sync)
{
	return flush_said(f, what, sync, 0);
}

/* A report file's stream: write(2) through a cookie that keeps the first
 * error's errno, which stdio forgets once its buffer is dropped (a full
 * disk said as ENOSPC, not as a bare failure). */
struct sink {
	int fd;
	int err;
};

static ssize_t sink_write(void *cookie, const char *buf, size_t n)
{
	struct sink *s = cookie;
	size_t done = 0;
	ssize_t w;

	while (done < n) {
		w = write(s->fd, buf + done, n - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (!s->err)
				s->err = w < 0 ? errno : EIO;
			return done ? (ssize_t)done : -1;
		}
		done += (size_t)w;
	}
	return (ssize_t)done;
}

static FILE *sink_open(struct sink *s)
{
	return fopencookie(s, "w", (cookie_io_functions_t){ .write = sink_write });
}

typedef int (*writer_fn)(FILE *f, const struct pmb_context *c, const struct pmb_result *r, size_t n);

/* A report's writer and what it draws, as one pmb_out_fn's argument. */
struct report_job {
	writer_fn fn;
	const struct pmb_context *ctx;
	const struct pmb_result *r;
	size_t n;
};

static int report_job_write(FILE *f, void *arg)
{
	const struct report_job *j = arg;

	return j->fn(f, j->ctx, j->r, j->n);
}

/* "pmubench: WHAT: write failed: REASON".  Returns 1. */
static int write_failed(const char *what, int err)
{
	pmb__out_error("%s: write failed: %s", what, strerror(err));
	return 1;
}

/* The report through f (over descriptor fd), flushed, on disk where sync.
 * Returns 0, 1 (said), or the writer's -ENODATA (nothing written). */
static int write_through(FILE *f, int fd, const struct sink *sink, bool sync, const char *what,
			 pmb_out_fn fn, void *arg)
{
	int rc = fn(f, arg);

	if (rc == -ENODATA)
		return rc;
	if (!sink->err && fflush(f) == 0 && !ferror(f)) {
		if (rc) {
			pmb__out_error("%s: %s", what, pmb_strerror(rc));
			return 1;
		}
		return sync && fsync(fd) ? write_failed(what, errno) : 0;
	}
	return write_failed(what, sink->err ? sink->err : EIO);
}

/* The report into the target: a regular file through a temporary file
 * renamed over it (never half written), a device or FIFO directly.
 * Returns 0, 1 (said), or the writer's -ENODATA (nothing written). */
static int write_target(const char *opt, const char *path, const struct target *t, pmb_out_fn fn,
			void *arg)
{
	char tmp[PATH_MAX] = "", what[PATH_MAX + 32];
	struct sink sink = { .fd = -1 };
	FILE *f;
	int rc;

	snprintf(what, sizeof(what), "%s=%s", opt, path);
	sink.fd = t->direct ? open(t->path, O_WRONLY | O_NOCTTY | O_CLOEXEC) : open_temporary(t, tmp, sizeof(tmp));
	if (sink.fd < 0 && !t->direct) {
		say_temporary(opt, path, t, sink.fd);
		return 1;
	}
	if (sink.fd < 0 || !(f = sink_open(&sink))) {
		pmb__out_error("%s: %s", what, strerror(errno));
		rc = 1;
		goto fail_open;
	}
	/* A device takes no fsync (EINVAL); a regular file is on disk before
	 * it replaces the old one. */
	rc = write_through(f, sink.fd, &sink, !t->direct, what, fn, arg);
	fclose(f); /* the cookie's stream: the descriptor stays open */
	if (close(sink.fd) && !rc)
		rc = write_failed(what, errno);
	sink.fd = -1;
	if (!rc && tmp[0] && rename(tmp, t->path)) {
		pmb__out_error("%s: %s", what, strerror(errno));
		rc = 1;
	}
	if (!rc)
		return 0;
fail_open:
	if (sink.fd >= 0)
		close(sink.fd);
	if (tmp[0])
		unlink(tmp);
	return rc;
}

/* path NULL: standard output.  opt names the option in messages. */
static int write_report(const char *path, const char *opt, pmb_out_fn fn, void *arg)
{
	struct target t;
	int err;

	if (!path) {
		/* Through the sink too, for the reason of a failed write; what
		 * stdout holds goes first. */
		struct sink sink = { .fd = STDOUT_FILENO };
		FILE *f;

		if (pmb__out_flush(stdout, "standard output", false))
			return 1;
		if (!(f = sink_open(&sink)))
			return write_failed("standard output", errno);
		err = write_through(f, sink.fd, &sink, false, "standard output", fn, arg);
		fclose(f);
		return err ? 1 : 0;
	}
	if (find_target(opt, path, &t))
		return 1;
	return write_target(opt, path, &t, fn, arg);
}

int pmb__out_report(enum pmb_format format, const char *out, const char *plot,
		   const struct pmb_context *ctx, const struct pmb_result *r, size_t n)
{
	static const writer_fn writers[] = {
		[PMB_FORMAT_CONSOLE] = pmb__report_text,
		[PMB_FORMAT_JSON] = pmb__report_json,
		[PMB_FORMAT_CSV] = pmb__report_csv,
	};
	struct report_job job = { writers[format], ctx, r, n }, svg = { pmb__plot_svg, ctx, r, n };
	int rc = write_report(out, "--out", report_job_write, &job);

	if (rc == 0 && plot) {
		int err = write_report(plot, "--plot", report_job_write, &svg);

		if (err == -ENODATA)
			fprintf(stderr, "pmubench: --plot=%s: nothing to plot: plots show working-set "
				"sweeps (PMB_TIERS) and branch studies; no file written\n", plot);
		else
			rc = err;
	}
	return rc;
}

int pmb__out_file(const char *opt, const char *path, pmb_out_fn fn, void *arg)
{
	int rc = write_report(path, opt, fn, arg);

	return rc == -ENODATA ? 0 : rc;
}

/* Text made beforehand, as one pmb_out_fn's argument. */
struct text_job {
	const char *text;
	size_t len;
};

static int text_write(FILE *f, void *arg)
{
	const struct text_job *j = arg;

	return fwrite(j->text, 1, j->len, f) == j->len ? 0 : -EIO;
}

int pmb__out_text(const char *out, const char *opt, const char *text, size_t len)
{
	struct text_job job = { text, len };

	return pmb__out_file(opt, out, text_write, &job);
}
