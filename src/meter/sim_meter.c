/* sim_meter.c - the sim backend's child side: a meter that reads one callgrind dump per sample. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "pmb_config.h"
#include "pmubench.h"
#include "sim_internal.h"

#if PMB_HAVE_VALGRIND_H
#include <valgrind/callgrind.h>
#endif

bool pmb__sim_active(void)
{
#if PMB_HAVE_VALGRIND_H
	/* Only the run pmb__sim_exec started: under another tool, or started
	 * by hand, there are no dumps to read. */
	return RUNNING_ON_VALGRIND && getenv(PMB__SIM_DIR_ENV);
#else
	return false;
#endif
}

/* What the meter holds: the dump folder, a buffer the dumps are read into
 * (allocated once, so that reading a dump between samples touches the same
 * few simulated cache lines every time), and the columns of each event. */
#define DUMP_BUF (64 << 10)

struct sim_meter {
	char dir[PATH_MAX];
	int nev;
	unsigned mask[PMB_MAX_EVENTS];
	void (*on_dump)(void *arg, const char *path); /* --disasm: before the
	                                                 dump is removed */
	void *on_dump_arg;
	char buf[DUMP_BUF];
};

/* callgrind numbers its dumps 1, 2, ... per process: this mirrors
 * valgrind's own count, which is the process's whatever meter asks (a
 * meter opened after another one closed goes on from it), so it is the
 * process's too, not a meter's.  Two meters at once cannot be: callgrind's
 * collection and statistics are process-wide. */
static unsigned long sim_dumps;

/* Number of the newest dump "cg.out.N" in dir (0: none), for when the
 * count above was thrown off by a dump we did not ask for. */
static unsigned long newest_dump(const char *dir)
{
	static const char pfx[] = PMB__SIM_DUMP ".";
	unsigned long best = 0;
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char *end;
		unsigned long k;

		if (strncmp(de->d_name, pfx, sizeof(pfx) - 1))
			continue;
		k = strtoul(de->d_name + sizeof(pfx) - 1, &end, 10);
		if (!*end && k > best)
			best = k;
	}
	closedir(d);
	return best;
}

/* Below this much room a dump may not fit: callgrind's dumps of one
 * sample are a few KiB, and it says nothing when a write of one fails. */
#define DUMP_ROOM (64 << 10)

/* Why a dump in dir may be missing or cut short, as a clause for the
 * error, into cause (size bytes; "" where neither reason holds): dir's
 * filesystem has no room, or a file size limit (ulimit -f) cuts files
 * short.  Returns cause. */
#define DUMP_CAUSE 160
static const char *dump_cause(const char *dir, char *cause, size_t size)
{
	struct statvfs fs;
	struct rlimit lim;

	cause[0] = '\0';
	if (statvfs(dir, &fs) == 0 && (unsigned long long)fs.f_bavail * fs.f_frsize < DUMP_ROOM)
		snprintf(cause, size, "; its filesystem is full (%llu bytes free): set TMPDIR to a folder with room",
			 (unsigned long long)fs.f_bavail * fs.f_frsize);
	else if (getrlimit(RLIMIT_FSIZE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY)
		snprintf(cause, size, "; files are limited to %llu bytes (ulimit -f)",
			 (unsigned long long)lim.rlim_cur);
	return cause;
}

static int read_file(const char *path, char *buf, size_t cap)
{
	size_t n = 0;
	ssize_t r;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while (n < cap - 1 && (r = read(fd, buf + n, cap - 1 - n)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			r = -errno;
			close(fd);
			return (int)r;
		}
		n += (size_t)r;
	}
	buf[n] = '\0';
	close(fd);
	return 0;
}

/* The column named by the len characters at p, -1 for one we do not
 * know. */
static int col_of(const char *p, size_t len)
{
	for (int c = 0; c < PMB__NCOL; c++)
		if (strlen(pmb__sim_col_name[c]) == len &&
		    !strncmp(p, pmb__sim_col_name[c], len))
			return c;
	return -1;
}

/* The column of each field of an "events:" line (at p, past the keyword)
 * into pos, at most cap; the columns found are added to *have.  Returns
 * the number of fields. */
static int parse_events(const char *p, int *pos, int cap, unsigned *have)
{
	int ncols = 0;

	while (*p && ncols < cap) {
		size_t len;

		p += strspn(p, " \t");
		len = strcspn(p, " \t");
		if (!len)
			break;
		pos[ncols] = col_of(p, len);
		if (pos[ncols] >= 0)
			*have |= 1u << pos[ncols];
		ncols++;
		p += len;
	}
	return ncols;
}

/* The numbers of a cost line (at p, past the keyword) into dst, by the
 * columns pos of its ncols fields; the fields it leaves off are left. */
static void parse_costs(const char *p, const int *pos, int ncols,
			uint64_t *dst)
{
	for (int i = 0; i < ncols; i++) {
		char *end;
		unsigned long long v = strtoull(p, &end, 10);

		if (end == p)
			break;
		if (pos[i] >= 0)
			dst[pos[i]] = v;
		p = end;
	}
}

/* The whole-dump cost of each column: the "summary:" line of the header
 * (or, if absent, the "totals:" line at the end), laid out by the
 * "events:" line.  Columns a line leaves off at its end are zero.  buf
 * holds the dump's start and is cut into lines. */
static int parse_dump(char *buf, uint64_t *val, unsigned *have)
{
	int pos[PMB__NCOL + 8], ncols = 0;
	bool summary = false, totals = false;
	uint64_t tot[PMB__NCOL] = { 0 };
	char *line, *save;

	*have = 0;
	memset(val, 0, PMB__NCOL * sizeof(*val));
	for (line = strtok_r(buf, "\n", &save); line && !summary;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "events:", 7)) {
			ncols = parse_events(line + 7, pos,
					     (int)PMB__ARRAY_LEN(pos), have);
		} else if (!strncmp(line, "summary:", 8)) {
			parse_costs(line + 8, pos, ncols, val);
			summary = true;
		} else if (!strncmp(line, "totals:", 7)) {
			parse_costs(line + 7, pos, ncols, tot);
			totals = true;
		}
	}
	if (!summary && totals)
		memcpy(val, tot, sizeof(tot));
	if (!ncols || (!summary && !totals))
		return -EPROTO;
	return 0;
}

static int sim_start(void *ctx, int group)
{
	(void)ctx;
	(void)group;
#if PMB_HAVE_VALGRIND_H
	CALLGRIND_ZERO_STATS;
	CALLGRIND_TOGGLE_COLLECT;
#endif
	return 0;
}

/* The dump of the sample just taken, into sm->buf, and its file removed;
 * path (n bytes) gets its name.  The count of dumps is put right where a
 * dump we did not ask for threw it off. */
static int read_dump(struct sim_meter *sm, char *path, size_t n)
{
	char cause[DUMP_CAUSE];
	int rc;

	sim_dumps++;
	snprintf(path, n, "%s/%s.%lu", sm->dir, PMB__SIM_DUMP, sim_dumps);
	rc = read_file(path, sm->buf, sizeof(sm->buf));
	if (rc == -ENOENT) {
		sim_dumps = newest_dump(sm->dir);
		snprintf(path, n, "%s/%s.%lu", sm->dir, PMB__SIM_DUMP,
			 sim_dumps);
		rc = sim_dumps ? read_file(path, sm->buf, sizeof(sm->buf))
			       : -ENOENT;
	}
	if (rc) {
		pmb__sim_set_err("callgrind wrote no readable dump in %s: %s%s",
				 sm->dir, pmb_strerror(rc), dump_cause(sm->dir, cause, sizeof(cause)));
		return rc;
	}
	if (sm->on_dump)
		sm->on_dump(sm->on_dump_arg, path);
	unlink(path);
	return 0;
}

/* Each event's count: the sum of its columns of val (those in have). */
static int fill_sample(const struct sim_meter *sm, const char *path,
		       const uint64_t *val, unsigned have,
		       struct pmb_sample *s)
{
	for (int e = 0; e < sm->nev; e++) {
		uint64_t v = 0;

		if ((sm->mask[e] & have) != sm->mask[e]) {
			pmb__sim_set_err("callgrind dump %s lacks columns of event %d",
					 path, e);
			return -EPROTO;
		}
		for (int c = 0; c < PMB__NCOL; c++)
			if (sm->mask[e] & (1u << c))
				v += val[c];
		/* Simulated counts are exact: enabled == running. */
		s->count[e].value = v;
		s->count[e].enabled = 1;
		s->count[e].running = 1;
		s->mask |= 1u << e;
	}
	return 0;
}

static int sim_stop(void *ctx, int group, struct pmb_sample *s)
{
	struct sim_meter *sm = ctx;
	char path[PATH_MAX + 32], cause[DUMP_CAUSE];
	uint64_t val[PMB__NCOL];
	unsigned have = 0;
	int rc;

	(void)group;
#if PMB_HAVE_VALGRIND_H
	CALLGRIND_TOGGLE_COLLECT;
	CALLGRIND_DUMP_STATS_AT("pmb-sample");
#endif
	rc = read_dump(sm, path, sizeof(path));
	if (rc)
		return rc;
	rc = parse_dump(sm->buf, val, &have);
	if (rc) {
		pmb__sim_set_err("cannot read callgrind dump %s: no events/summary lines%s",
				 path, dump_cause(sm->dir, cause, sizeof(cause)));
		return rc;
	}
	return fill_sample(sm, path, val, have, s);
}

int pmb__sim_meter(struct pmb_meter *m, const struct pmb_event_plan *plan)
{
	const char *dir = getenv(PMB__SIM_DIR_ENV);
	struct sim_meter *sm;

	memset(m, 0, sizeof(*m));
	if (!pmb__sim_active() || !dir) {
		pmb__sim_set_err("not running under pmubench's callgrind (--backend=sim)");
		return PMB_ENOVALGRIND;
	}
	for (int e = 0; e < plan->nev; e++) {
		if (plan->ev[e].kind != PMB_EV_SIM || !plan->ev[e].sim_mask) {
			pmb__sim_err_nosim(plan->ev[e].name);
			return PMB_ENOSIM;
		}
	}
	sm = calloc(1, sizeof(*sm));
	if (!sm)
		return -ENOMEM;
	if ((size_t)snprintf(sm->dir, sizeof(sm->dir), "%s", dir) >=
	    sizeof(sm->dir)) {
		free(sm);
		return -ENAMETOOLONG;
	}
	sm->nev = plan->nev;
	for (int e = 0; e < plan->nev; e++)
		sm->mask[e] = plan->ev[e].sim_mask;
#if PMB_HAVE_VALGRIND_H
	/* From here on every instruction is simulated (collected or not), so
	 * caches and predictor stay warm between samples.  It also empties
	 * the simulated caches, once. */
	CALLGRIND_START_INSTRUMENTATION;
#endif
	m->ctx = sm;
	m->ngroups = 1;
	m->start = sim_start;
	m->stop = sim_stop;
	m->deterministic = true;
	return 0;
}

void pmb__sim_meter_on_dump(struct pmb_meter *m, void (*fn)(void *arg, const char *path), void *arg)
{
	struct sim_meter *sm = m->ctx;

	sm->on_dump = fn;
	sm->on_dump_arg = arg;
}

void pmb__sim_meter_close(struct pmb_meter *m)
{
	if (!m)
		return;
	free(m->ctx);
	m->ctx = NULL;
}
