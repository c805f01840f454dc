/* merge.c - `pmubench merge RUN.json...`: many hosts' result files, one report with a column per host group. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compare.h"
#include "merge.h"
#include "analyse.h"
#include "report.h"
#include "io.h"
#include "base.h"

/* The note a fleet task leaves beside its result file where pmubench did
 * not exit 0 (`pmubench fleet`'s script): "F.exit", one line. */
#define EXIT_NOTE ".exit"

struct merge_options {
	const char *baseline, *out, *plot, *fleet;
	int format, expect;
	bool help;
};

static const struct pmb_optchoice formats[] = {
	{ "console", PMB_FORMAT_CONSOLE }, { "json", PMB_FORMAT_JSON }, { "csv", PMB_FORMAT_CSV }, { NULL, 0 }
};

static const struct pmb_optdef merge_options[] = {
	{ .name = "--baseline", .kind = PMB_OPT_STRING, .value = PMB_OPT_AT(struct merge_options, baseline),
	  .meta = "=GROUP", .help = "ratios to this group: its label (A, B...), CPU\nmodel or a host in it "
	  "(default: the first file's)" },
	{ .name = "--format", .kind = PMB_OPT_CHOICE, .value = PMB_OPT_AT(struct merge_options, format),
	  .choices = formats, .meta = "=F", .help = "console (default), json, csv" },
	{ .name = "--out", .kind = PMB_OPT_FILE, .value = PMB_OPT_AT(struct merge_options, out),
	  .meta = "=FILE", .help = "write the report to FILE (atomically)" },
	{ .name = "--plot", .kind = PMB_OPT_FILE, .value = PMB_OPT_AT(struct merge_options, plot),
	  .meta = "=FILE.svg", .help = "also draw each sweep as SVG, one series per\ngroup (median, spread, "
	  "interval) with its\ncache sizes" },
	{ .name = "--expect", .kind = PMB_OPT_INT, .value = PMB_OPT_AT(struct merge_options, expect), .lo = 1,
	  .hi = 1000000, .meta = "=N", .help = "N files were to be given (the fleet's tasks):\nthose short are "
	  "named missing" },
	{ .name = "--fleet", .kind = PMB_OPT_FILE, .value = PMB_OPT_AT(struct merge_options, fleet),
	  .meta = "=DIR", .help = "the files are pmubench fleet's in DIR: each\ntask it expected is matched to "
	  "its file, one\nthat left none named missing by its node" },
	{ .name = "--help", .short_name = 'h', .kind = PMB_OPT_STOP, .given = PMB_OPT_AT(struct merge_options, help),
	  .help = "print this help and exit" },
};
#define NOPT (sizeof(merge_options) / sizeof(merge_options[0]))

static void usage(void)
{
	fputs("usage: pmubench merge [OPTION]... RUN.json...\n"
	      "Read the result files of many hosts (--format=json) and print, per\n"
	      "benchmark, one column per host group (CPU model, PMU, backend, and\n"
	      "whether cycles were counted, estimated or simulated), each figure per\n"
	      "item with its interval, the spread over the group's hosts and the ratio\n"
	      "to the baseline group.  A file that cannot be read is named as missing\n"
	      "with its reason; the others stand.  Exit 0, 1 when a file is missing, 2\n"
	      "when none can be read or on bad usage.\n\n", stdout);
}

/* Returns 0 to go on, 1 after --help, 2 with the error said. */
static int parse(int argc, char **argv, struct merge_options *o, int *first)
{
	char err[512];
	size_t len;
	int rc = pmb__options_parse(merge_options, NOPT, argc, argv, o, first, err, sizeof(err));

	if (rc < 0)
		return pmb__out_error("merge: %s", err);
	if (rc > 0) {
		usage();
		pmb__options_help(merge_options, NOPT, stdout);
		return 1;
	}
	if (*first >= argc && !o->fleet)
		return pmb__out_error("merge: expected result files (usage: pmubench merge [OPTION]... RUN.json...)");
	len = o->plot ? strlen(o->plot) : 0;
	if (o->plot && (len < 5 || strcmp(o->plot + len - 4, ".svg")))
		return pmb__out_error("merge: --plot=%s: expected a file name ending in .svg (the plot is SVG)",
				      o->plot);
	return 0;
}

/* The outputs are neither a file read nor each other. */
static int check_outputs(const struct merge_options *o, int argc, char **argv, int first)
{
	struct pmb_out_input *in = calloc((size_t)(argc - first) + 2, sizeof(*in));
	int rc = 0;

	if (!in)
		return pmb__out_error("merge: %s", strerror(ENOMEM));
	for (int i = first; i < argc; i++)
		in[i - first] = (struct pmb_out_input){ "a result file merged", argv[i] };
	if (o->out && pmb__out_check("--out", o->out, in))
		rc = 2;
	in[argc - first] = (struct pmb_out_input){ "--out", o->out };
	if (!rc && o->plot && pmb__out_check("--plot", o->plot, in))
		rc = 2;
	free(in);
	return rc;
}

/* What the fleet task said of its exit beside path, appended to reason. */
static void exit_note(const char *path, char *reason, size_t size)
{
	char note_path[PATH_MAX], line[PMB_MERGE_TEXT] = "";
	size_t len = strlen(reason);
	FILE *f;

	snprintf(note_path, sizeof(note_path), "%s%s", path, EXIT_NOTE);
	f = fopen(note_path, "r");
	if (!f)
		return;
	if (fgets(line, sizeof(line), f))
		line[strcspn(line, "\n")] = '\0';
	fclose(f);
	if (line[0] && len < size)
		snprintf(reason + len, size - len, " (the node's job: %s)", line);
}

/* Whether host h, just read from path, is a run read already (the same
 * file under another name, or a copy: the same host, start date and
 * pmubench version); if so its note is added to m.  Returns 1, 0 or
 * -ENOMEM. */
static int duplicate(struct pmb_merged *m, const struct pmb_host_run *h, const struct stat *st, const struct stat *sts)
{
	char(*grown)[4 * PMB_MERGE_TEXT];

	for (size_t i = 0; i < m->nhosts; i++) {
		const struct pmb_host_run *o = &m->hosts[i];
		bool same_file = sts[i].st_ino && st->st_ino && sts[i].st_dev == st->st_dev && sts[i].st_ino == st->st_ino;

		if (!same_file && (strcmp(o->host, h->host) || strcmp(o->date, h->date) || !h->date[0] ||
				   strcmp(o->version, h->version)))
			continue;
		grown = realloc(m->note, (m->nnote + 1) * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		m->note = grown;
		if (same_file)
			snprintf(m->note[m->nnote++], sizeof(*grown), "%s and %s are one file: counted once", o->file,
				 h->file);
		else
			snprintf(m->note[m->nnote++], sizeof(*grown), "%s and %s are one run (host %s, begun %s, "
				 "pmubench %s): counted once", o->file, h->file, h->host, h->date, h->version);
		return 1;
	}
	return 0;
}

/* Every file read into m: its host, or a missing entry with the reason;
 * a run given twice counted once.  Returns 0 or -ENOMEM. */
static int read_all(struct pmb_merged *m, int n, char **paths, int expect)
{
	char err[sizeof(m->missing->reason)];
	struct stat *st = calloc((size_t)n + 1, sizeof(*st));
	int given = n;

	m->hosts = calloc((size_t)n + 1, sizeof(*m->hosts));
	m->missing = calloc((size_t)n + 1, sizeof(*m->missing));
	if (!m->hosts || !m->missing || !st) {
		free(st);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++) {
		struct pmb_host_run *h = &m->hosts[m->nhosts];
		int rc = pmb__results_host_read(paths[i], h, err, sizeof(err));
		struct pmb_merge_missing *x = &m->missing[m->nmissing];

		if (!rc && stat(paths[i], &st[m->nhosts]))
			memset(&st[m->nhosts], 0, sizeof(*st));
		if (!rc && (rc = duplicate(m, h, &st[m->nhosts], st)) != 0) {
			pmb__host_run_free(h);
			memset(h, 0, sizeof(*h));
			given--;
			if (rc > 0)
				continue;
		}
		if (rc == -ENOMEM) {
			free(st);
			return rc;
		}
		if (!rc) {
			m->nhosts++;
			continue;
		}
		x->task = -1;
		snprintf(x->file, sizeof(x->file), "%s", paths[i]);
		snprintf(x->reason, sizeof(x->reason), "%s", err);
		exit_note(paths[i], x->reason, sizeof(x->reason));
		m->nmissing++;
	}
	free(st);
	if (expect > given) {
		struct pmb_merge_missing *x = &m->missing[m->nmissing++];

		x->task = -1;
		snprintf(x->file, sizeof(x->file), "(%d of %d)", expect - given, expect);
		snprintf(x->reason, sizeof(x->reason), "%d of the %d tasks expected (--expect) left no result "
			 "file: never started, cancelled, or their node failed", expect - given, expect);
	}
	return 0;
}

/* Not one file read: the error in one line, the count and the first
 * file's (or fleet task's) reason (the report would be empty).  Returns
 * -EINVAL. */
static int none_read(const struct pmb_merged *m, int n, char *err, size_t size)
{
	const struct pmb_merge_missing *x = &m->missing[0];
	char task[sizeof(x->node) + 40] = "";

	if (x->task >= 0)
		snprintf(task, sizeof(task), "node %s (task %d)%s", x->node[0] ? x->node : "unknown", x->task,
			 x->file[0] ? ", " : "");
	if (n)
		snprintf(err, size, "none of the %d result file%s could be read (the first, %s%s: %s): nothing to "
			 "merge, nothing written", n, n == 1 ? "" : "s", task, x->file, x->reason);
	else
		snprintf(err, size, "no result file: none of the fleet's %zu task%s left one (the first, %s%s: %s): "
			 "nothing to merge, nothing written", m->nmissing, m->nmissing == 1 ? "" : "s", task,
			 x->file, x->reason);
	return -EINVAL;
}

static void free_all(struct pmb_merged *m)
{
	pmb__merge_analysis_free(m);
	for (size_t i = 0; i < m->nhosts; i++)
		pmb__host_run_free(&m->hosts[i]);
	free(m->hosts);
	free(m->missing);
	free(m->note);
}

/* The report into out (NULL: stdout).  Returns 0 or 1 (said). */
static int write_merge(const struct merge_options *o, const struct pmb_merged *m)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc;

	if (!f) {
		pmb__out_error("merge: %s", strerror(errno));
		return 1;
	}
	rc = pmb__report_merge(f, (enum pmb_format)o->format, m);
	if (fclose(f) || rc) {
		free(buf);
		pmb__out_error("merge: %s", strerror(ENOMEM));
		return 1;
	}
	rc = pmb__out_text(o->out, "--out", buf, len);
	free(buf);
	return rc;
}

int pmb__merge_main(int argc, char **argv)
{
	struct merge_options o = { .format = PMB_FORMAT_CONSOLE };
	struct pmb_merged m = { 0 };
	char err[PMB_MERGE_TEXT * 4];
	int first, rc;

	rc = parse(argc, argv, &o, &first);
	if (rc)
		return rc == 1 ? 0 : rc;
	if (check_outputs(&o, argc, argv, first))
		return 2;
	rc = read_all(&m, argc - first, argv + first, o.expect);
	if (rc)
		snprintf(err, sizeof(err), "%s", strerror(ENOMEM));
	if (!rc && o.fleet)
		rc = pmb__merge_fleet(&m, o.fleet, err, sizeof(err));
	if (!rc && !m.nhosts)
		rc = none_read(&m, argc - first, err, sizeof(err));
	if (!rc)
		rc = pmb__merge_analyse(&m, o.baseline, err, sizeof(err));
	if (rc) {
		pmb__out_error("merge: %s", err);
		free_all(&m);
		return 2;
	}
	rc = write_merge(&o, &m);
	if (!rc && o.plot)
		rc = pmb__merge_plot(o.plot, &m);
	if (!rc && m.nmissing)
		rc = 1;
	free_all(&m);
	return rc;
}
