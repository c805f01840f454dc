/* tap.h - a tiny TAP producer for the C tests (meson protocol: 'tap'). */
#ifndef PMB_TAP_H
#define PMB_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static int tap__n, tap__failed;

/* A point's message is one line: TAP reads a line after it as output it
 * does not know (meson: "Unknown TAP output lines").  One with a newline
 * fails, its newlines shown as "\\n"; what takes lines goes in tap_diag. */
static inline __attribute__((format(printf, 3, 0))) int
tap_vok_at(int line, int cond, const char *fmt, va_list ap)
{
	char *msg = NULL;
	size_t len = 0, lines = 0;
	FILE *m = open_memstream(&msg, &len);

	if (m) {
		vfprintf(m, fmt, ap);
		fclose(m);
	}
	for (size_t i = 0; msg && i < len; i++)
		lines += msg[i] == '\n';
	cond = cond && msg && !lines;
	printf("%s %d - ", cond ? "ok" : "not ok", ++tap__n);
	for (size_t i = 0; msg && i < len; i++)
		fputs(msg[i] == '\n' ? "\\n" : (char[]){ msg[i], 0 }, stdout);
	if (!cond) {
		printf(" (line %d%s)", line, lines ? "; the message has a newline: tap_diag the rest" : "");
		tap__failed++;
	}
	printf("\n");
	fflush(stdout);
	free(msg);
	return cond;
}

/* Record one test point; prints "ok N - what" or "not ok N - what" with
 * the source line of the check, so a failing table row points at itself. */
static inline __attribute__((format(printf, 3, 4))) int
tap_ok_at(int line, int cond, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	cond = tap_vok_at(line, cond, fmt, ap);
	va_end(ap);
	return cond;
}
#define tap_ok(cond, ...) tap_ok_at(__LINE__, !!(cond), __VA_ARGS__)

/* What else the machine did while timed figures were measured, the C side
 * of tests/pmbtap.py's Load: the share of all cores that work other than
 * this process took (/proc/stat less getrusage, steal included).  Above
 * TAP_BUSY (test_figures' bound: 90 % idle) a timing point is not judged
 * but skipped, saying the share measured: "too busy to judge" is not "the
 * figure is wrong". */
#define TAP_BUSY 0.10
struct tap_load {
	double t0, busy0, ours0;
	double other, wall; /* other < 0: not known, so not judged */
};

static inline double tap__machine_busy_s(void)
{
	unsigned long long v[8];
	FILE *f = fopen("/proc/stat", "r");
	int n = f ? fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
			   &v[3], &v[4], &v[5], &v[6], &v[7]) : 0;

	if (f)
		fclose(f);
	/* user nice system idle iowait irq softirq steal: all but idle, iowait */
	return n == 8 ? (double)(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / (double)sysconf(_SC_CLK_TCK) : -1;
}

static inline double tap__ours_s(void)
{
	struct rusage r;

	getrusage(RUSAGE_SELF, &r);
	return (double)(r.ru_utime.tv_sec + r.ru_stime.tv_sec) +
	       (double)(r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e6;
}

static inline double tap__now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline void tap_load_begin(struct tap_load *l)
{
	l->t0 = tap__now_s();
	l->busy0 = tap__machine_busy_s();
	l->ours0 = tap__ours_s();
	l->other = -1;
	l->wall = 0;
}

static inline void tap_load_end(struct tap_load *l)
{
	double busy = tap__machine_busy_s(), ours = tap__ours_s(), other;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	l->wall = tap__now_s() - l->t0;
	if (busy < 0 || l->busy0 < 0 || l->wall <= 0 || ncpu < 1)
		return;
	other = (busy - l->busy0) - (ours - l->ours0);
	l->other = (other > 0 ? other : 0) / (l->wall * (double)ncpu);
}

/* A timing point: judged as tap_ok where the machine was idle enough over
 * l, else skipped with what was measured. */
static inline __attribute__((format(printf, 4, 5))) int
tap_timed_at(int line, const struct tap_load *l, int cond, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (l->other >= 0 && l->other <= TAP_BUSY) {
		cond = tap_vok_at(line, cond, fmt, ap);
	} else {
		printf("ok %d - ", ++tap__n);
		vprintf(fmt, ap);
		printf(" # SKIP the machine was too busy to judge: other work took ");
		if (l->other >= 0)
			printf("%.0f %%", 100 * l->other);
		else
			printf("an unknown share");
		printf(" of its %ld cores over the %.0f s run; figures are judged below %.0f %%\n",
		       sysconf(_SC_NPROCESSORS_ONLN), l->wall, 100 * TAP_BUSY);
		fflush(stdout);
		cond = 1;
	}
	va_end(ap);
	return cond;
}
#define tap_timed(l, cond, ...) tap_timed_at(__LINE__, (l), !!(cond), __VA_ARGS__)

/* A diagnostic line. */
#define tap_diag(...) (printf("# "), printf(__VA_ARGS__), printf("\n"))

/* Text of many lines as diagnostics: "# LABEL" then "#   LINE" each. */
static inline void tap_diag_lines(const char *label, const char *text)
{
	printf("# %s\n", label);
	for (const char *p = text ? text : ""; *p;) {
		size_t n = strcspn(p, "\n");

		printf("#   %.*s\n", (int)n, p);
		p += n + (p[n] == '\n');
	}
}

/* Skip one test point with a reason. */
#define tap_skip(...) (printf("ok %d # SKIP ", ++tap__n), printf(__VA_ARGS__), printf("\n"))

/* Skip the whole file: must be called before any point. */
#define tap_skip_all(...) (printf("1..0 # SKIP "), printf(__VA_ARGS__), printf("\n"), exit(0))

/* One dependent multiply, x = x * x: a fixed cost per step that the
 * optimizer cannot shorten, on x86-64 and aarch64 alike. */
#if defined(__x86_64__)
#define TAP_MUL_STEP(x) __asm__ volatile("imul %0, %0" : "+r"(x))
#elif defined(__aarch64__)
#define TAP_MUL_STEP(x) __asm__ volatile("mul %0, %0, %0" : "+r"(x))
#else
#define TAP_MUL_STEP(x) ((x) = (x) * (x) + 1, __asm__ volatile("" : "+r"(x)))
#endif

/* Print the plan and return the exit status. */
static inline int tap_done(void)
{
	printf("1..%d\n", tap__n);
	return tap__failed ? 1 : 0;
}

#endif
