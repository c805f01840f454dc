/* report_progress.c - the runner's progress line on a terminal: what is measured, how many are done, the time left; erased before anything else is written. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "base.h"
#include "report_fmt.h"
#include "report_out.h"

/* Whether a progress line stands on the terminal now. */
static bool progress_drawn;
/* When the first benchmark started (the call with done 0), for the
 * estimate of the time left. */
static uint64_t progress_t0;

/* "about 1 min 05 s left": the time the done benchmarks took per
 * benchmark, times those left (an estimate; benchmarks differ); "" before
 * the first is done. */
static void time_left(char *b, size_t size, size_t done, size_t total)
{
	double left;

	b[0] = 0;
	if (!done || !progress_t0 || done >= total)
		return;
	left = (double)(pmb_clock_ns() - progress_t0) / 1e9 / (double)done * (double)(total - done);
	if (left < 60)
		snprintf(b, size, ", about %.0f s left", ceil(left));
	else
		snprintf(b, size, ", about %.0f min %02.0f s left", floor(left / 60), fmod(floor(left), 60));
}

void pmb__out_progress(void *unused, const char *name, size_t done, size_t total)
{
	char safe[4 * 192 + 1], left[48], line[1024];
	int width = pmb__out_stderr_width();

	(void)unused;
	if (done >= total) {
		pmb__out_progress_end();
		return;
	}
	if (!done || !progress_t0)
		progress_t0 = pmb_clock_ns();
	time_left(left, sizeof(left), done, total);
	pmb__text_safe(safe, sizeof(safe), name ? name : "");
	snprintf(line, sizeof(line), "[%zu/%zu] %s%s", done, total, safe, left);
	/* One line of the terminal: a wrapped line would not be erased.  The
	 * name is cut (at a whole character) to what is left of the width. */
	if (width > 1 && pmb__text_width(line) > (size_t)width - 1) {
		int room = width - 1 - (int)pmb__text_width(line) + (int)pmb__text_width(safe) - 2;
		char cut[sizeof(safe)];

		pmb__text_safe(cut, room > 0 ? (size_t)room + 1 : 1, safe);
		snprintf(line, sizeof(line), "[%zu/%zu] %s..%s", done, total, cut, left);
	}
	progress_drawn = true;
	fprintf(stderr, "\r\033[K%s", line);
	fflush(stderr);
}

void pmb__out_progress_end(void)
{
	if (!progress_drawn)
		return;
	fprintf(stderr, "\r\033[K");
	fflush(stderr);
	progress_drawn = false;
}

void pmb__out_progress_erase(void)
{
	fputs("\r\033[K", stderr);
	fflush(stderr);
}
