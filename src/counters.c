/* counters.c - the only caller of perf_event_open: groups, enable/disable, one read per sample, scaling. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "counters.h"

struct pmb_group {
	int n;
	int fd[PMB_MAX_EVENTS];
	uint64_t id[PMB_MAX_EVENTS];
};

int pmb_count_scale(const struct pmb_count *c, double *out)
{
	if (c->running == 0) {
		*out = 0;
		return -1;
	}
	if (c->running < c->enabled) {
		*out = (double)c->value * ((double)c->enabled / (double)c->running);
		return 1;
	}
	*out = (double)c->value;
	return 0;
}

static int perf_open(struct perf_event_attr *a, int group_fd)
{
	long fd = syscall(SYS_perf_event_open, a, 0 /* this thread */,
			  -1 /* any cpu */, group_fd, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : (int)fd;
}

int pmb_group_open(struct pmb_group **out, const struct perf_event_attr *attrs,
		   int n, int *failed)
{
	struct pmb_group *g;
	int err = 0;

	*out = NULL;
	if (n <= 0 || n > PMB_MAX_EVENTS)
		return -EINVAL;
	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		struct perf_event_attr a = attrs[i];

		a.size = sizeof(a);
		a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID |
				PERF_FORMAT_TOTAL_TIME_ENABLED |
				PERF_FORMAT_TOTAL_TIME_RUNNING;
		/* The leader starts disabled and members follow it; members are
		 * enabled so they count whenever the leader does. */
		a.disabled = i == 0;
		a.inherit = 0;
		int fd = perf_open(&a, i == 0 ? -1 : g->fd[0]);
		if (fd < 0) {
			err = fd;
			if (failed)
				*failed = i;
			goto fail_open;
		}
		g->fd[i] = fd;
		g->n = i + 1;
		if (ioctl(fd, PERF_EVENT_IOC_ID, &g->id[i]) < 0) {
			err = -errno;
			if (failed)
				*failed = i;
			goto fail_open;
		}
	}
	*out = g;
	return 0;

fail_open:
	pmb_group_close(g);
	return err;
}

int pmb_group_start(struct pmb_group *g)
{
	if (ioctl(g->fd[0], PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP) < 0 ||
	    ioctl(g->fd[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) < 0)
		return -errno;
	return 0;
}

int pmb_group_stop(struct pmb_group *g)
{
	/* Disable the leader alone: members count only while their leader is
	 * scheduled, so this stops the whole group at once.  Disabling with
	 * PERF_IOC_FLAG_GROUP disables each member too, and on some kernels
	 * (seen on 6.18 with software events) a later ENABLE with the group
	 * flag never revives them: they silently count zero from then on. */
	if (ioctl(g->fd[0], PERF_EVENT_IOC_DISABLE, 0) < 0)
		return -errno;
	return 0;
}

int pmb_group_read(struct pmb_group *g, struct pmb_count *out)
{
	/* nr, time_enabled, time_running, then {value, id} per member. */
	uint64_t buf[3 + 2 * PMB_MAX_EVENTS];
	ssize_t want = (ssize_t)((3 + 2 * g->n) * sizeof(uint64_t));
	ssize_t got = read(g->fd[0], buf, sizeof(buf));

	if (got < 0)
		return -errno;
	if (got < want || buf[0] != (uint64_t)g->n)
		return -EIO;
	for (int i = 0; i < g->n; i++) {
		/* Match by id: the kernel lists members in its own order. */
		for (int k = 0; k < g->n; k++) {
			if (buf[3 + 2 * k + 1] != g->id[i])
				continue;
			out[i].value = buf[3 + 2 * k];
			out[i].enabled = buf[1];
			out[i].running = buf[2];
		}
	}
	return 0;
}

int pmb_group_size(const struct pmb_group *g)
{
	return g ? g->n : 0;
}

void pmb_group_close(struct pmb_group *g)
{
	if (!g)
		return;
	for (int i = g->n - 1; i >= 0; i--)
		close(g->fd[i]);
	free(g);
}

/* Open the events idx[0..n) as a group and check that every member ran:
 * a group the PMU cannot schedule whole still opens but never runs. */
static int try_group(struct pmb_group **g, const struct perf_event_attr *attrs,
		     const int *idx, int n, int *failed)
{
	struct perf_event_attr a[PMB_MAX_EVENTS];
	struct pmb_count c[PMB_MAX_EVENTS];
	volatile uint64_t spin = 0;
	int err;

	for (int i = 0; i < n; i++)
		a[i] = attrs[idx[i]];
	err = pmb_group_open(g, a, n, failed);
	if (err)
		return err;
	if (pmb_group_start(*g) == 0) {
		for (int i = 0; i < 100000; i++)
			spin += (uint64_t)i;
		pmb_group_stop(*g);
	}
	err = pmb_group_read(*g, c);
	if (err == 0 && c[0].running == 0)
		err = -ENOSPC;
	if (err) {
		pmb_group_close(*g);
		*g = NULL;
		*failed = -1;
	}
	return err;
}

int pmb_counters_open(struct pmb_counters *c, const struct perf_event_attr *attrs,
		      const bool *anchor, int n)
{
	int pending[PMB_MAX_EVENTS], npending = 0;
	int anchors[PMB_MAX_EVENTS], nanchors = 0;
	int first_err = 0;

	memset(c, 0, sizeof(*c));
	c->nevents = n;
	/* Anchors that cannot be opened alone are dropped (with their errno)
	 * before grouping, so one missing PMU does not sink every group. */
	for (int e = 0; e < n; e++) {
		if (anchor[e]) {
			struct pmb_group *g;
			int failed, err = pmb_group_open(&g, &attrs[e], 1, &failed);

			if (err) {
				c->open_errno[e] = -err;
				if (!first_err)
					first_err = err;
				continue;
			}
			pmb_group_close(g);
			anchors[nanchors++] = e;
		} else {
			pending[npending++] = e;
		}
	}
	if (npending == 0 && nanchors > 0) {
		memcpy(pending, anchors, sizeof(int) * (size_t)nanchors);
		npending = nanchors;
		nanchors = 0;
	}
	/* Greedy: start a group with the anchors, add events one at a time,
	 * keeping each that still lets the group open and run.  O(n^2) opens,
	 * with n <= 16: a few milliseconds, once per run. */
	while (npending > 0 && c->ngroups < PMB_MAX_GROUPS) {
		int members[PMB_MAX_EVENTS], nm = 0, rest[PMB_MAX_EVENTS], nrest = 0;
		struct pmb_group *g = NULL;

		for (int i = 0; i < nanchors; i++)
			members[nm++] = anchors[i];
		for (int i = 0; i < npending; i++) {
			struct pmb_group *t;
			int failed, err;

			members[nm] = pending[i];
			err = try_group(&t, attrs, members, nm + 1, &failed);
			if (err == 0) {
				pmb_group_close(t);
				nm++;
			} else if (nm == nanchors) {
				/* Fails even with only the anchors beside it: does
				 * it open alone? */
				struct pmb_group *alone;
				int f2, e2 = try_group(&alone, attrs, &pending[i], 1, &f2);

				if (e2 == 0) {
					pmb_group_close(alone);
					rest[nrest++] = pending[i];
				} else {
					c->open_errno[pending[i]] = -e2;
					if (!first_err)
						first_err = e2;
				}
			} else {
				rest[nrest++] = pending[i];
			}
		}
		if (nm == nanchors && nrest > 0 && nanchors > 0) {
			/* Not even one more event fits beside the anchors:
			 * measure the rest without them rather than not at all. */
			nanchors = 0;
			memcpy(pending, rest, sizeof(int) * (size_t)nrest);
			npending = nrest;
			continue;
		}
		if (nm > 0) {
			int failed, err = try_group(&g, attrs, members, nm, &failed);

			if (err == 0) {
				c->group[c->ngroups] = g;
				c->nmembers[c->ngroups] = nm;
				memcpy(c->member[c->ngroups], members, sizeof(int) * (size_t)nm);
				c->ngroups++;
			} else if (!first_err) {
				first_err = err;
			}
		}
		memcpy(pending, rest, sizeof(int) * (size_t)nrest);
		npending = nrest;
	}
	if (c->ngroups == 0 && nanchors > 0) {
		struct pmb_group *g;
		int failed;

		if (try_group(&g, attrs, anchors, nanchors, &failed) == 0) {
			c->group[0] = g;
			c->nmembers[0] = nanchors;
			memcpy(c->member[0], anchors, sizeof(int) * (size_t)nanchors);
			c->ngroups = 1;
		}
	}
	if (c->ngroups == 0)
		return first_err ? first_err : -ENOENT;
	return 0;
}

void pmb_counters_close(struct pmb_counters *c)
{
	for (int i = 0; i < c->ngroups; i++)
		pmb_group_close(c->group[i]);
	c->ngroups = 0;
}
