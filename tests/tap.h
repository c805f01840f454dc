/* tap.h - a tiny TAP producer for the C tests (meson protocol: 'tap'). */
#ifndef PMB_TAP_H
#define PMB_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int tap__n, tap__failed;

/* Record one test point; prints "ok N - what" or "not ok N - what" with
 * the source line of the check, so a failing table row points at itself. */
static inline __attribute__((format(printf, 3, 4))) int
tap_ok_at(int line, int cond, const char *fmt, ...)
{
	va_list ap;
	printf("%s %d - ", cond ? "ok" : "not ok", ++tap__n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (!cond) {
		printf(" (line %d)", line);
		tap__failed++;
	}
	printf("\n");
	fflush(stdout);
	return cond;
}
#define tap_ok(cond, ...) tap_ok_at(__LINE__, !!(cond), __VA_ARGS__)

/* A diagnostic line. */
#define tap_diag(...) (printf("# "), printf(__VA_ARGS__), printf("\n"))

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
