/* counters_policy.c - which groups and how: events split into groups that count together, the fallback policy and its messages, the read path. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "counters.h"

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
	err = pmb__group_open(g, a, n, failed);
	if (err)
		return err;
	/* A group that competes with other processes' events runs only in
	 * its turns of the kernel's rotation (a few ms): spin until it ran,
	 * or until it was enabled for several turns without ever running. */
	uint64_t enabled = 0, running = 0;

	if (pmb__group_start(*g) == 0) {
		do {
			for (int i = 0; i < 100000; i++)
				spin += (uint64_t)i;
			err = pmb__group_read(*g, c);
			enabled += c[0].enabled;
			running += c[0].running;
		} while (err == 0 && running == 0 && enabled < 20 * 1000 * 1000);
		pmb__group_stop(*g);
	}
	err = pmb__group_read(*g, c);
	if (err == 0 && running + c[0].running == 0)
		err = -ENOSPC;
	if (err) {
		pmb__group_close(*g);
		*g = NULL;
		*failed = -1;
	}
	return err;
}

int pmb__counters_open(struct pmb_counters *c, const struct perf_event_attr *attrs,
		      const bool *anchor, int n)
{
	return pmb__counters_open_some(c, attrs, anchor, NULL, n);
}

/* Events being grouped: the anchors go into every group, the pending
 * wait for one; the first error met is what an empty result returns. */
struct grouping {
	int pending[PMB_MAX_EVENTS], npending;
	int anchors[PMB_MAX_EVENTS], nanchors;
	int first_err;
};

static void grouping_error(struct grouping *gr, int err)
{
	if (!gr->first_err)
		gr->first_err = err;
}

/* Sort the events into anchors and pending.  Anchors that cannot be
 * opened alone are dropped (with their errno) before grouping, so one
 * missing PMU does not sink every group. */
static void grouping_init(struct grouping *gr, struct pmb_counters *c,
			  const struct perf_event_attr *attrs, const bool *anchor,
			  const bool *skip, int n)
{
	memset(gr, 0, sizeof(*gr));
	for (int e = 0; e < n; e++) {
		if (skip && skip[e])
			continue;
		if (anchor[e]) {
			struct pmb_group *g;
			int failed, err = pmb__group_open(&g, &attrs[e], 1, &failed);

			if (err) {
				c->open_errno[e] = -err;
				grouping_error(gr, err);
				continue;
			}
			pmb__group_close(g);
			gr->anchors[gr->nanchors++] = e;
		} else {
			gr->pending[gr->npending++] = e;
		}
	}
	if (gr->npending == 0 && gr->nanchors > 0) {
		memcpy(gr->pending, gr->anchors, sizeof(int) * (size_t)gr->nanchors);
		gr->npending = gr->nanchors;
		gr->nanchors = 0;
	}
}

/* Pending event e would not join even the anchors alone: if it opens by
 * itself it waits for a later group, else it is dropped with its errno. */
static void pending_alone(struct grouping *gr, struct pmb_counters *c,
			  const struct perf_event_attr *attrs, int e, int *rest, int *nrest)
{
	struct pmb_group *alone;
	int f2, e2 = try_group(&alone, attrs, &e, 1, &f2);

	if (e2 == 0) {
		pmb__group_close(alone);
		rest[(*nrest)++] = e;
	} else {
		c->open_errno[e] = -e2;
		grouping_error(gr, e2);
	}
}

/* Greedy: the anchors, then each pending event that still lets the group
 * open and run, into members; the others into rest.  Returns the number
 * of members. */
static int group_fill(struct grouping *gr, struct pmb_counters *c,
		      const struct perf_event_attr *attrs, int *members, int *rest, int *nrest)
{
	int nm = 0;

	for (int i = 0; i < gr->nanchors; i++)
		members[nm++] = gr->anchors[i];
	for (int i = 0; i < gr->npending; i++) {
		struct pmb_group *t;
		int failed, err;

		members[nm] = gr->pending[i];
		err = try_group(&t, attrs, members, nm + 1, &failed);
		if (err == 0) {
			pmb__group_close(t);
			nm++;
		} else if (nm == gr->nanchors) {
			pending_alone(gr, c, attrs, gr->pending[i], rest, nrest);
		} else {
			rest[(*nrest)++] = gr->pending[i];
		}
	}
	return nm;
}

/* Group g, opened over members[0..nm), becomes c's next group. */
static void counters_add_group(struct pmb_counters *c, struct pmb_group *g,
			       const int *members, int nm)
{
	c->group[c->ngroups] = g;
	c->nmembers[c->ngroups] = nm;
	memcpy(c->member[c->ngroups], members, sizeof(int) * (size_t)nm);
	c->ngroups++;
}

int pmb__counters_open_some(struct pmb_counters *c, const struct perf_event_attr *attrs,
			   const bool *anchor, const bool *skip, int n)
{
	struct grouping gr;
	struct pmb_group *g;
	int failed;

	memset(c, 0, sizeof(*c));
	c->nevents = n;
	grouping_init(&gr, c, attrs, anchor, skip, n);
	/* Group by group, O(n^2) opens, with n <= 16: a few milliseconds,
	 * once per run. */
	while (gr.npending > 0 && c->ngroups < PMB_MAX_GROUPS) {
		int members[PMB_MAX_EVENTS], rest[PMB_MAX_EVENTS], nrest = 0;
		int nm = group_fill(&gr, c, attrs, members, rest, &nrest);

		if (nm == gr.nanchors && nrest > 0 && gr.nanchors > 0) {
			/* Not even one more event fits beside the anchors:
			 * measure the rest without them rather than not at all. */
			gr.nanchors = 0;
		} else if (nm > 0) {
			int err = try_group(&g, attrs, members, nm, &failed);

			if (err == 0)
				counters_add_group(c, g, members, nm);
			else
				grouping_error(&gr, err);
		}
		memcpy(gr.pending, rest, sizeof(int) * (size_t)nrest);
		gr.npending = nrest;
	}
	if (c->ngroups == 0 && gr.nanchors > 0 &&
	    try_group(&g, attrs, gr.anchors, gr.nanchors, &failed) == 0)
		counters_add_group(c, g, gr.anchors, gr.nanchors);
	if (c->ngroups == 0)
		return gr.first_err ? gr.first_err : -ENOENT;
	return 0;
}

void pmb__counters_close(struct pmb_counters *c)
{
	for (int i = 0; i < c->ngroups; i++)
		pmb__group_close(c->group[i]);
	c->ngroups = 0;
}

int pmb__counters_read_path(struct pmb_counters *c, enum pmb_read_mode mode, char *why, size_t n)
{
	int first = 0;

	why[0] = 0;
	if (mode == PMB_READ_SYSCALL)
		return 0;
	for (int i = 0; i < c->ngroups; i++) {
		char w[PMB_READ_WHY];
		int err = pmb__group_self(&c->group[i], w, sizeof(w));

		if (err && !first) {
			first = err;
			snprintf(why, n, "%s", w);
		}
		/* One group stays enabled from sample to sample: no system
		 * call at all.  Groups taking turns are enabled for their own
		 * samples only, outside the timed window, or they would
		 * multiplex each other (the next one's check included). */
		if (!err)
			pmb__group_keep(c->group[i], c->ngroups == 1);
	}
	int most = 0;

	for (int i = 0; i < c->ngroups; i++)
		if (pmb__group_is_self(c->group[i]) && pmb__group_size(c->group[i]) > most)
			most = pmb__group_size(c->group[i]);
	for (int i = 0; i < c->ngroups; i++)
		pmb__group_pad(c->group[i], most);
	return mode == PMB_READ_SELF ? first : 0;
}

const char *pmb__counters_path(const struct pmb_counters *c)
{
	int self = 0;

	for (int i = 0; i < c->ngroups; i++)
		self += pmb__group_is_self(c->group[i]);
	if (c->ngroups == 0)
		return NULL;
	return self == c->ngroups ? "self" : self ? "mixed" : "syscall";
}

/* ---- the fallback policy: what to open, what to say about the rest ---- */

/* The kernel has no such event, no PMU, or no perf_event_open at all
 * (ENOSYS: a kernel without perf events, or an emulator such as qemu-user). */
static bool pmu_refused(int err)
{
	return err == ENOENT || err == EOPNOTSUPP || err == ENODEV || err == EINVAL || err == ENOSYS;
}

static bool denied(int err)
{
	return err == EACCES || err == EPERM;
}

/* Does the kernel have a PMU that counts user-mode instructions?  The
 * generic event opens wherever a core PMU driver is loaded, whatever the
 * plan asked for.  Returns 1 yes, 0 no, -1 cannot tell (not permitted). */
static int pmu_present(void)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_INSTRUCTIONS,
		.disabled = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	struct pmb_group *g;
	int failed, err = pmb__group_open(&g, &a, 1, &failed);

	if (err == 0) {
		pmb__group_close(g);
		return 1;
	}
	return denied(-err) ? -1 : 0;
}

static void say(struct pmb_counters_outcome *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void say(struct pmb_counters_outcome *o, const char *fmt, ...)
{
	va_list ap;

	if (o->nwarnings == (int)(sizeof(o->warning) / sizeof(o->warning[0])))
		return;
	va_start(ap, fmt);
	vsnprintf(o->warning[o->nwarnings++], sizeof(o->warning[0]), fmt, ap);
	va_end(ap);
}

/* "'a', 'b' and 'c'": the names of the plan's events idx[0..n). */
static void name_list(char *out, size_t size, const struct pmb_event_plan *p, const int *idx, int n)
{
	size_t len = 0;

	out[0] = 0;
	for (int i = 0; i < n && len < size; i++) {
		const char *sep = i == 0 ? "" : i == n - 1 ? " and " : ", ";
		int w = snprintf(out + len, size - len, "%s'%s'", sep, p->ev[idx[i]].name);

		len += w > 0 ? (size_t)w : 0;
	}
}

/* The kernel refused events by permission: name the setting, its value,
 * and the command that allows what was asked. */
static void permission_warning(struct pmb_counters_outcome *o, const struct pmb_event_plan *p,
			       const int *idx, int n, const struct pmb_counters_env *env)
{
	char names[320];

	name_list(names, sizeof(names), p, idx, n);
	if (env->paranoid >= 3)
		say(o, "not allowed to count %s: perf_event_paranoid is %d, which lets no unprivileged "
		    "user open perf events; `sudo sysctl kernel.perf_event_paranoid=2` allows counting "
		    "user space (or run as root)", names, env->paranoid);
	else if (p->kernel && env->paranoid >= 2)
		say(o, "not allowed to count %s in kernel mode (--kernel): perf_event_paranoid is %d, "
		    "which allows user space only; `sudo sysctl kernel.perf_event_paranoid=1` allows "
		    "the kernel too, or leave out --kernel", names, env->paranoid);
	else
		say(o, "not allowed to count %s (%s): perf_event_paranoid is %d; run as root or with "
		    "CAP_PERFMON, or lower it with `sudo sysctl kernel.perf_event_paranoid=%d`", names,
		    strerror(EACCES), env->paranoid, p->kernel ? 1 : 2);
}

static void open_once(struct pmb_counters *c, const struct pmb_event_plan *p)
{
	struct perf_event_attr attrs[PMB_MAX_EVENTS];
	bool anchor[PMB_MAX_EVENTS], skip[PMB_MAX_EVENTS];

	bool have_cycles = false, have_ins = false;

	/* One cycles and one instructions event anchor every group: the
	 * first of each meaning the plan marks; the others are members. */
	for (int e = 0; e < p->nev; e++) {
		bool cyc = p->ev[e].means == PMB_MEANS_CYCLES;
		bool *have = cyc ? &have_cycles : &have_ins;

		attrs[e] = p->ev[e].attr;
		skip[e] = p->ev[e].unsupported[0] != 0;
		anchor[e] = p->ev[e].anchor && !skip[e] && !*have;
		*have |= anchor[e];
	}
	pmb__counters_open_some(c, attrs, anchor, skip, p->nev);
}

/* Which plan events count: groups, and the hardware summary. */
static void tally(const struct pmb_counters *c, const struct pmb_event_plan *p,
		  struct pmb_counters_outcome *o)
{
	o->hw_asked = o->hw_counts = o->cycles = false;
	for (int e = 0; e < PMB_MAX_EVENTS; e++)
		o->event_group[e] = -1;
	for (int g = 0; g < c->ngroups; g++)
		for (int k = 0; k < c->nmembers[g]; k++)
			o->event_group[c->member[g][k]] = g;
	for (int e = 0; e < p->nev; e++) {
		bool hw = p->ev[e].kind == PMB_EV_HW, on = o->event_group[e] >= 0;

		o->hw_asked |= hw;
		o->hw_counts |= hw && on;
		o->cycles |= on && p->ev[e].means == PMB_MEANS_CYCLES;
	}
}

/* Why no hardware event opened, from what was seen, not guessed: the
 * kernel's PMUs (no cpu PMU, or the one that refused) and whether this is
 * a virtual machine. */
static void no_pmu_cause(char *out, size_t size, const struct pmb_counters_env *env)
{
	bool virt = env->virt && env->virt[0];
	/* probe.c's "a hypervisor": seen only in the CPU's flags. */
	const char *vm = !virt ? "" : strncmp(env->virt, "a ", 2) ? env->virt : "the CPU's flags say 'hypervisor'";

	if (!env->kernel_pmu || !env->kernel_pmu[0])
		snprintf(out, size, "the kernel's PMUs were not read, so why is not known");
	else if (!strncmp(env->kernel_pmu, "the kernel's cpu PMU: ", 22))
		snprintf(out, size, "%s, which counts none of them%s%s%s", env->kernel_pmu,
			 virt ? " in this virtual machine (" : "", vm, virt ? ")" : "");
	else if (virt)
		snprintf(out, size, "%s in this virtual machine (%s): its hypervisor gives it none, or none "
			 "its kernel drives", env->kernel_pmu, vm);
	else
		snprintf(out, size, "%s: no perf driver for this CPU registered one", env->kernel_pmu);
}

/* No PMU at all: say so once, naming every hardware event, and add the
 * software counters so that the run still counts something real. */
static void no_pmu(struct pmb_counters *c, struct pmb_event_plan *p, const struct pmb_event_plan *sw,
		   const struct pmb_counters_env *env, struct pmb_counters_outcome *o)
{
	int idx[PMB_MAX_EVENTS], n = 0, err = 0;
	char names[320], cause[320];

	for (int e = 0; e < p->nev; e++)
		if (p->ev[e].kind == PMB_EV_HW) {
			idx[n++] = e;
			err = err ? err : c->open_errno[e];
		}
	name_list(names, sizeof(names), p, idx, n);
	no_pmu_cause(cause, sizeof(cause), env);
	say(o, "hardware counters are not available: opening %s failed (%s): %s. The run "
	    "still gives time, software counters and cycles estimated from the measured frequency%s.",
	    names, strerror(err ? err : ENOENT), cause,
	    env->sim_hint ? "; --backend=sim gives simulated instruction, branch and cache counts" : "");
	snprintf(o->fallback, sizeof(o->fallback), "no PMU: time, software counters, est. cycles at %.2f GHz",
		 env->ghz);
	if (!sw)
		return;
	pmb__counters_close(c);
	for (int k = 0; k < sw->nev && p->nev < PMB_MAX_EVENTS; k++) {
		bool have = false;

		for (int e = 0; e < p->nev; e++)
			have |= !strcmp(p->ev[e].name, sw->ev[k].name);
		if (!have)
			p->ev[p->nev++] = sw->ev[k];
	}
	o->software_added = true;
	open_once(c, p);
}

/* The events that do not count, by the warning they share. */
struct absent {
	int lack[PMB_MAX_EVENTS], nlack, lack_err; /* this PMU lacks them */
	int deny[PMB_MAX_EVENTS], ndeny;           /* not permitted */
	int fail[PMB_MAX_EVENTS], nfail;           /* any other error */
};

/* Why event e does not count, into o->why[e]; a warning of its own where
 * it has one, else it joins its kind in ab. */
static void explain_event(const struct pmb_counters *c, const struct pmb_event_plan *p, int e,
			  bool no_pmu_said, const struct pmb_counters_env *env,
			  struct pmb_counters_outcome *o, struct absent *ab)
{
	const char *pmu = p->pmu_name[0] ? p->pmu_name : "this machine's PMU";
	int err = c->open_errno[e];
	char *why = o->why[e];

	if (p->ev[e].unsupported[0]) {
		snprintf(why, sizeof(o->why[e]), "%s", p->ev[e].unsupported);
		say(o, "%s: '%s' shows n/a rather than a count of 0 it did not make", p->ev[e].unsupported,
		    p->ev[e].name);
	} else if (denied(err)) {
		snprintf(why, sizeof(o->why[e]), "not permitted (perf_event_paranoid %d)", env->paranoid);
		ab->deny[ab->ndeny++] = e;
	} else if (no_pmu_said && p->ev[e].kind == PMB_EV_HW) {
		snprintf(why, sizeof(o->why[e]), "no hardware counters here (%s)",
			 strerror(err ? err : ENOENT));
	} else if (pmu_refused(err) && p->ev[e].kind == PMB_EV_HW && env->virt && env->virt[0]) {
		/* Under a hypervisor or emulator its virtual PMU decides what
		 * counts: the CPU model may well have the event (issue 26). */
		snprintf(why, sizeof(o->why[e]), "not implemented by the virtual PMU of %s (the kernel refused "
			 "it: %s), whatever %s has", env->virt, strerror(err), pmu);
		ab->lack[ab->nlack++] = e;
		ab->lack_err = ab->lack_err ? ab->lack_err : err;
	} else if (pmu_refused(err) && p->ev[e].kind == PMB_EV_HW) {
		snprintf(why, sizeof(o->why[e]), "%s has no %s: the kernel refused it (%s)", pmu,
			 p->ev[e].name, strerror(err));
		ab->lack[ab->nlack++] = e;
		ab->lack_err = ab->lack_err ? ab->lack_err : err;
	} else if (err == ENOSPC) {
		snprintf(why, sizeof(o->why[e]), "the PMU could not schedule it beside the others");
		say(o, "'%s' could not be scheduled on the PMU's counters: it is left out", p->ev[e].name);
	} else {
		snprintf(why, sizeof(o->why[e]), "could not be opened (%s)", strerror(err ? err : ENOENT));
		ab->fail[ab->nfail++] = e;
	}
}

/* The events that failed otherwise, one warning per reason: a kernel
 * without perf_event_open refuses every event alike, and says so once. */
static void warn_failed(const struct pmb_counters *c, const struct pmb_event_plan *p,
			const struct absent *ab, struct pmb_counters_outcome *o)
{
	char names[320];

	for (int i = 0; i < ab->nfail; i++) {
		int same[PMB_MAX_EVENTS], nsame = 0, err = c->open_errno[ab->fail[i]];
		bool said_before = false;

		for (int k = 0; k < ab->nfail; k++) {
			bool alike = c->open_errno[ab->fail[k]] == err;

			said_before |= alike && k < i;
			if (alike && k >= i)
				same[nsame++] = ab->fail[k];
		}
		if (said_before)
			continue;
		name_list(names, sizeof(names), p, same, nsame);
		say(o, "%s could not be opened (%s): %s out", names, strerror(err ? err : ENOENT),
		    nsame == 1 ? "it is left" : "they are left");
	}
}

/* Why each event that does not count does not, and one warning per kind
 * of absence (this PMU lacks them; not implemented; not permitted). */
static void explain(const struct pmb_counters *c, const struct pmb_event_plan *p, bool no_pmu_said,
		    const struct pmb_counters_env *env, struct pmb_counters_outcome *o)
{
	struct absent ab = { 0 };
	const char *pmu = p->pmu_name[0] ? p->pmu_name : "this machine's PMU";
	char names[320];

	for (int e = 0; e < p->nev; e++)
		if (o->event_group[e] < 0)
			explain_event(c, p, e, no_pmu_said, env, o, &ab);
	warn_failed(c, p, &ab, o);
	if (ab.nlack) {
		name_list(names, sizeof(names), p, ab.lack, ab.nlack);
		if (env->virt && env->virt[0])
			say(o, "the virtual PMU of %s does not implement %s: the kernel refused %s (%s), which "
			    "says what the hypervisor or emulator counts, not what %s can; %s n/a, %s", env->virt,
			    names, ab.nlack == 1 ? "it" : "them", strerror(ab.lack_err), pmu,
			    ab.nlack == 1 ? "it shows" : "they show",
			    o->hw_counts ? "the other counters count"
					 : "and no other hardware event was asked for: add cycles or instructions "
					   "to --counters to count them");
		else
			say(o, "%s has no %s: the kernel refused %s (%s); %s n/a, %s", pmu, names,
			    ab.nlack == 1 ? "it" : "them", strerror(ab.lack_err),
			    ab.nlack == 1 ? "it shows" : "they show",
			    o->hw_counts ? "the other counters count"
					 : "and no other hardware event was asked for: add cycles or "
					   "instructions to --counters to count them");
	}
	if (ab.ndeny) {
		for (int i = 0; i < ab.ndeny; i++)
			o->denied |= p->ev[ab.deny[i]].kind == PMB_EV_HW;
		permission_warning(o, p, ab.deny, ab.ndeny, env);
		if (!o->hw_counts && c->ngroups == 0)
			snprintf(o->fallback, sizeof(o->fallback), "not permitted: time only");
	}
}

/* Read from user space where the kernel allows it (and --read does not
 * say otherwise); where it does not, read() per group, and the reason said
 * once where hardware counters count (without a PMU the no-PMU warning
 * has said what matters). */
static void choose_read_path(struct pmb_counters *c, const struct pmb_counters_env *env,
			     struct pmb_counters_outcome *o)
{
	const char *path;

	if (env->read == PMB_READ_SELF && !o->hw_counts) {
		/* --read=self asks for hardware counters read from user space:
		 * with none counting there is nothing to read, and the reason
		 * is why none counts, not a property of the read path. */
		int e = 0;

		while (e < PMB_MAX_EVENTS - 1 && !o->why[e][0])
			e++;
		o->read_err = -ENOENT;
		snprintf(o->read_path, sizeof(o->read_path), "none");
		snprintf(o->read_why, sizeof(o->read_why), "no hardware event counts here (%s)",
			 o->why[e][0] ? o->why[e] : "only software events were asked for");
		return;
	}
	if (c->ngroups == 0)
		return;
	o->read_err = pmb__counters_read_path(c, env->read, o->read_why, sizeof(o->read_why));
	path = pmb__counters_path(c);
	snprintf(o->read_path, sizeof(o->read_path), "%s", path ? path : "");
	if (env->read == PMB_READ_AUTO && o->read_why[0] && o->hw_counts)
		say(o, "counters are read with system calls around each sample (read() and two ioctl()s)%s, "
		    "not from user space: %s", strcmp(o->read_path, "mixed") ? "" : " in some groups",
		    o->read_why);
}

int pmb__counters_open_plan(struct pmb_counters *c, struct pmb_event_plan *plan,
			   const struct pmb_event_plan *software, const struct pmb_counters_env *env,
			   struct pmb_counters_outcome *out)
{
	bool said = false;

	memset(out, 0, sizeof(*out));
	open_once(c, plan);
	tally(c, plan, out);
	if (out->hw_asked && !out->hw_counts) {
		bool all_refused = true;

		for (int e = 0; e < plan->nev; e++)
			if (plan->ev[e].kind == PMB_EV_HW && !plan->ev[e].unsupported[0])
				all_refused &= pmu_refused(c->open_errno[e]);
		/* Only when the machine has no PMU at all: a PMU that lacks
		 * the events asked for is said to lack them, by name. */
		if (all_refused && pmu_present() == 0) {
			no_pmu(c, plan, software, env, out);
			tally(c, plan, out);
			said = true;
		}
	}
	explain(c, plan, said, env, out);
	/* Whether the machine's PMU works, whatever was asked of it: a PMU
	 * that lacks the one event asked for still counts.  (Where no_pmu()
	 * spoke, the probe has already said there is none.) */
	out->pmu_works = out->hw_counts || (!said && pmu_present() == 1);
	choose_read_path(c, env, out);
	return c->ngroups > 0 ? 0 : -ENOENT;
}
