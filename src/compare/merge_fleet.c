/* merge_fleet.c - `pmubench merge --fleet=DIR`: each task the fleet expected (DIR/fleet.tasks) matched to the file it wrote, and a task that left none named missing by its node, with what its marker and Slurm's record of it say. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merge.h"
#include "base.h"

/* Slurm's job states (squeue(1) JOB STATE CODES) in words. */
static const struct {
	const char *state, *words;
} states[] = {
	{ "COMPLETED", "completed" },
	{ "CANCELLED", "cancelled" },
	{ "TIMEOUT", "timed out (its --time limit)" },
	{ "FAILED", "failed (the job script exited non-zero)" },
	{ "NODE_FAIL", "its node failed" },
	{ "BOOT_FAIL", "its node failed to boot" },
	{ "OUT_OF_MEMORY", "ran out of memory" },
	{ "PREEMPTED", "preempted" },
	{ "DEADLINE", "missed its deadline" },
	{ "PENDING", "still pending when the merge ran" },
	{ "RUNNING", "still running when the merge ran" },
};

/* What one task left in the fleet's folder. */
struct task {
	int id;
	char want[128];           /* its node in fleet.tasks, "-": Slurm's choice */
	char host[128];           /* task-I.started: the node it ran on */
	char out[PATH_MAX];       /* ... and the file it was to write */
	char state[32];           /* task-I.slurm: JobState, "" unknown */
	char slurm_node[128];     /* NodeList, else ReqNodeList */
};

/* The first line of path into buf (no newline); false where unreadable or
 * empty.  line: which line (0 first). */
static bool read_line(const char *path, int line, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	bool got = false;

	if (!f)
		return false;
	for (int i = 0; i <= line && fgets(buf, (int)size, f); i++)
		got = i == line;
	fclose(f);
	if (got)
		buf[strcspn(buf, "\n")] = '\0';
	return got && buf[0];
}

/* The value of " KEY=" in scontrol's one-line record, into buf. */
static void field(const char *rec, const char *key, char *buf, size_t size)
{
	char k[40];
	const char *at;

	snprintf(k, sizeof(k), " %s=", key);
	at = strstr(rec, k);
	buf[0] = '\0';
	if (at) {
		at += strlen(k);
		snprintf(buf, size, "%.*s", (int)strcspn(at, " \n"), at);
	}
}

static void read_task(const char *dir, struct task *t)
{
	char p[PATH_MAX + 64], rec[8192], node[128];

	snprintf(p, sizeof(p), "%s/task-%d.started", dir, t->id);
	if (read_line(p, 0, t->host, sizeof(t->host)) && !read_line(p, 1, t->out, sizeof(t->out)))
		t->out[0] = '\0';
	snprintf(p, sizeof(p), "%s/task-%d.slurm", dir, t->id);
	if (!read_line(p, 0, rec, sizeof(rec)))
		return;
	/* scontrol's line begins with JobId=: a leading space finds it too */
	memmove(rec + 1, rec, strnlen(rec, sizeof(rec) - 2) + 1);
	rec[0] = ' ';
	field(rec, "JobState", t->state, sizeof(t->state));
	field(rec, "NodeList", node, sizeof(node));
	if (!node[0] || node[0] == '(')
		field(rec, "ReqNodeList", node, sizeof(node));
	if (node[0] && node[0] != '(')
		snprintf(t->slurm_node, sizeof(t->slurm_node), "%s", node);
}

static const char *state_words(const char *state)
{
	for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++)
		if (!strcmp(states[i].state, state))
			return states[i].words;
	return NULL;
}

/* "; Slurm: TIMEOUT, timed out (...)" of t, into buf ("" unknown). */
static void slurm_says(const struct task *t, char *buf, size_t size)
{
	const char *w = state_words(t->state);

	buf[0] = '\0';
	if (t->state[0])
		snprintf(buf, size, "; Slurm: %s%s%s", t->state, w ? ", " : "", w ? w : "");
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* Whether the file t wrote was read: a host's, or a missing entry (then
 * *x).  Files are matched by name in the fleet's folder. */
static bool find_file(const struct pmb_merged *m, const struct task *t, struct pmb_merge_missing **x)
{
	*x = NULL;
	if (!t->out[0])
		return false;
	for (size_t i = 0; i < m->nhosts; i++)
		if (!strcmp(base_name(m->hosts[i].file), base_name(t->out)))
			return true;
	for (size_t i = 0; i < m->nmissing; i++)
		if (m->missing[i].task < 0 && !strcmp(base_name(m->missing[i].file), base_name(t->out))) {
			*x = &m->missing[i];
			return true;
		}
	return false;
}

static const char *node_of(const struct task *t)
{
	if (t->host[0])
		return t->host;
	if (t->slurm_node[0])
		return t->slurm_node;
	return strcmp(t->want, "-") ? t->want : "";
}

/* Task t's missing entry: its file's, or a new one. */
static int task_missing(struct pmb_merged *m, const struct task *t, struct pmb_merge_missing *x)
{
	char slurm[128], reason[sizeof(x->reason)];

	slurm_says(t, slurm, sizeof(slurm));
	if (x) {
		snprintf(reason, sizeof(reason), "%s%s", x->reason, slurm);
	} else if (t->host[0]) {
		snprintf(reason, sizeof(reason), "no file: the task started on %s but left no result file and no "
			 "note of its exit (pmubench killed by SIGKILL, or its node failed)%s", t->host, slurm);
	} else if (t->state[0]) {
		snprintf(reason, sizeof(reason), "no file: the task never ran pmubench%s", slurm);
	} else {
		snprintf(reason, sizeof(reason), "no file: the task left nothing, and Slurm keeps no record of it "
			 "(never started, cancelled, or its node failed before the job script ran)");
	}
	if (!x) {
		struct pmb_merge_missing *grown = realloc(m->missing, (m->nmissing + 1) * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		m->missing = grown;
		x = memset(&m->missing[m->nmissing++], 0, sizeof(*x));
		snprintf(x->file, sizeof(x->file), "%s", t->out);
	}
	snprintf(x->reason, sizeof(x->reason), "%s", reason);
	snprintf(x->node, sizeof(x->node), "%s", node_of(t));
	x->task = t->id;
	return 0;
}

/* The missing entries in task order, the files of no task first (an
 * insertion sort: stable, and a fleet has at most 1001 tasks). */
static void sort_missing(struct pmb_merged *m)
{
	for (size_t i = 1; i < m->nmissing; i++) {
		struct pmb_merge_missing x = m->missing[i];
		size_t j = i;

		for (; j > 0 && m->missing[j - 1].task > x.task; j--)
			m->missing[j] = m->missing[j - 1];
		m->missing[j] = x;
	}
}

int pmb__merge_fleet(struct pmb_merged *m, const char *dir, char *err, size_t errlen)
{
	char p[PATH_MAX + 64], line[256];
	struct task t;
	int ret = 0, expect = 0;
	FILE *f;

	snprintf(p, sizeof(p), "%s/fleet.tasks", dir);
	f = fopen(p, "r");
	if (!f) {
		snprintf(err, errlen, "--fleet=%s: %s: %s (expected the folder pmubench fleet wrote)", dir, p,
			 strerror(errno));
		return -EINVAL;
	}
	while (!ret && fgets(line, sizeof(line), f)) {
		struct pmb_merge_missing *x;

		if (line[0] == '#' || line[0] == '\n')
			continue;
		t = (struct task){ .id = -1 };
		if (sscanf(line, "%d %127s", &t.id, t.want) != 2 || t.id != expect) {
			snprintf(err, errlen, "--fleet=%s: %s: \"%.*s\" is not task %d's line (expected TASK NODE, "
				 "tasks from 0 in order)", dir, p, (int)strcspn(line, "\n"), line, expect);
			ret = -EINVAL;
			break;
		}
		expect++;
		read_task(dir, &t);
		if (find_file(m, &t, &x) && !x)
			continue;
		ret = task_missing(m, &t, x);
		if (ret == -ENOMEM)
			snprintf(err, errlen, "%s", strerror(ENOMEM));
	}
	fclose(f);
	sort_missing(m);
	if (!ret && !expect) {
		snprintf(err, errlen, "--fleet=%s: %s lists no task", dir, p);
		ret = -EINVAL;
	}
	return ret;
}
