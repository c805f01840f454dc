/* fleet.c - `pmubench fleet`: one run on many Slurm nodes as a job array, and the merge step after it; Slurm schedules, pmubench only writes (and submits) the sbatch files. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fleet.h"
#include "run.h"
#include "report.h"
#include "base.h"

/* A job array's largest task count Slurm accepts by default
 * (MaxArraySize 1001: tasks 0..1000). */
#define MAX_NODES 1001
#define SCRIPT_MAX 16384

struct fleet_options {
	int nodes;
	const char *constraint, *partition, *dir, *time;
	bool submit, help;
};

static const struct pmb_optdef fleet_options[] = {
	{ .name = "--nodes", .kind = PMB_OPT_INT, .value = PMB_OPT_AT(struct fleet_options, nodes), .lo = 1,
	  .hi = MAX_NODES, .meta = "=N", .help = "run on N nodes: a job array of N tasks, each\nwith a whole node "
	  "(--exclusive) (default 1)" },
	{ .name = "--constraint", .kind = PMB_OPT_STRING, .value = PMB_OPT_AT(struct fleet_options, constraint),
	  .meta = "=FEATURES", .help = "only nodes with these Slurm features (sbatch\n--constraint, e.g. avx512 "
	  "or \"zen3|zen4\")" },
	{ .name = "--partition", .kind = PMB_OPT_STRING, .value = PMB_OPT_AT(struct fleet_options, partition),
	  .meta = "=P", .help = "the Slurm partition (sbatch --partition)" },
	{ .name = "--time", .kind = PMB_OPT_STRING, .value = PMB_OPT_AT(struct fleet_options, time),
	  .meta = "=LIMIT", .help = "each task's time limit (sbatch --time: MM,\nHH:MM:SS, D-HH)" },
	{ .name = "--dir", .kind = PMB_OPT_FILE, .value = PMB_OPT_AT(struct fleet_options, dir),
	  .meta = "=DIR", .help = "a new folder, seen by every node, for the\nscripts and results "
	  "(default pmubench-fleet)" },
	{ .name = "--submit", .kind = PMB_OPT_FLAG, .given = PMB_OPT_AT(struct fleet_options, submit),
	  .help = "submit both jobs with sbatch (default: print\nthe commands)" },
	{ .name = "--help", .short_name = 'h', .kind = PMB_OPT_STOP, .given = PMB_OPT_AT(struct fleet_options, help),
	  .help = "print this help and exit" },
};
#define NOPT (sizeof(fleet_options) / sizeof(fleet_options[0]))

static void usage(void)
{
	fputs("usage: pmubench fleet [OPTION]... [-- RUN-OPTION...]\n"
	      "Write DIR/fleet.sbatch, a Slurm job array that runs pmubench with the\n"
	      "RUN-OPTIONs on N nodes, one whole node per task, each into DIR/HOST.json,\n"
	      "and DIR/merge.sbatch, which merges them (pmubench merge) into\n"
	      "DIR/merged.json and DIR/merged.txt once every task has ended\n"
	      "(--dependency=afterany).\n\n", stdout);
}

/* A word for sh: single-quoted, a quote inside as '\''.  Appends to s. */
static void quoted(char *s, size_t size, const char *w)
{
	size_t len = strlen(s);

	if (len < size)
		len += (size_t)snprintf(s + len, size - len, "'");
	for (; *w && len < size; w++)
		len += (size_t)snprintf(s + len, size - len, *w == '\'' ? "'\\''" : "%c", *w);
	if (len < size)
		snprintf(s + len, size - len, "'");
}

/* The run options, checked as the run itself would read them, so that a
 * mistake costs no node.  Returns 0 or 2 (said). */
static int check_run(int argc, char **argv)
{
	char **av = calloc((size_t)argc + 2, sizeof(*av)), err[1024];
	struct pmb_options o;
	int rc;

	if (!av)
		return pmb__out_error("fleet: %s", strerror(ENOMEM));
	av[0] = "pmubench";
	memcpy(av + 1, argv, (size_t)argc * sizeof(*av));
	rc = pmb__run_options(argc + 1, av, &o, err, sizeof(err));
	free(av);
	if (rc == 2)
		return pmb__out_error("fleet: %s", err);
	if (rc == 1 || o.list || o.list_events || o.topology || o.self_check)
		return pmb__out_error("fleet: the options after -- must be those of a run (--help, --version, "
				      "--list, --list-events, --topology, --self-check measure nothing)");
	if (o.out || o.plot || o.save || o.format != PMB_FORMAT_CONSOLE)
		return pmb__out_error("fleet: --format, --out, --save and --plot are the fleet's: each node "
				      "writes --format=json into DIR/HOST.json");
	return 0;
}

static void directive(char *s, size_t size, const char *name, const char *value)
{
	size_t len = strlen(s);

	if (value && len < size)
		snprintf(s + len, size - len, "#SBATCH --%s=%s\n", name, value);
}

/* DIR/fleet.sbatch's text into s. */
static void array_script(char *s, size_t size, const struct fleet_options *o, const char *dir,
			 const char *exe, int argc, char **argv)
{
	char range[32], out[PATH_MAX + 32], cmd[SCRIPT_MAX / 2] = "";
	size_t len;

	snprintf(range, sizeof(range), "0-%d", o->nodes - 1);
	snprintf(out, sizeof(out), "%s/slurm-%%A_%%a.out", dir);
	snprintf(s, size, "#!/bin/sh\n# Written by `pmubench fleet`: one pmubench run per node, each task of\n"
		 "# the array on a whole node, its results in DIR/HOST.json.\n"
		 "#SBATCH --job-name=pmubench-fleet\n#SBATCH --nodes=1\n#SBATCH --ntasks=1\n#SBATCH --exclusive\n");
	directive(s, size, "array", range);
	directive(s, size, "output", out);
	directive(s, size, "constraint", o->constraint);
	directive(s, size, "partition", o->partition);
	directive(s, size, "time", o->time);
	quoted(cmd, sizeof(cmd), exe);
	for (int i = 0; i < argc; i++) {
		len = strlen(cmd);
		snprintf(cmd + len, sizeof(cmd) - len, " ");
		quoted(cmd, sizeof(cmd), argv[i]);
	}
	len = strlen(s);
	snprintf(s + len, size - len,
		 "dir=");
	quoted(s, size, dir);
	len = strlen(s);
	snprintf(s + len, size - len,
		 "\nhost=${SLURMD_NODENAME:-$(hostname)}\n"
		 "out=\"$dir/$host.json\"\n"
		 "# A node that runs two tasks of the array keeps both files.\n"
		 "[ -e \"$out\" ] || [ -e \"$out.exit\" ] && out=\"$dir/$host.$SLURM_ARRAY_TASK_ID.json\"\n"
		 "# Slurm's SIGTERM (time limit, scancel) stops pmubench, which writes\n"
		 "# what it measured as incomplete; the script lives on to say so.\n"
		 "trap 'term=1' TERM\nterm=0\n"
		 "%s --format=json --out=\"$out\"\nrc=$?\n"
		 "if [ \"$term\" = 1 ]; then\n"
		 "  echo \"stopped by SIGTERM from Slurm (time limit or scancel), exit status $rc\" > \"$out.exit\"\n"
		 "elif [ \"$rc\" -gt 128 ]; then\n"
		 "  echo \"pmubench killed by signal $((rc - 128))\" > \"$out.exit\"\n"
		 "elif [ \"$rc\" -ne 0 ]; then\n"
		 "  echo \"pmubench exit status $rc\" > \"$out.exit\"\n"
		 "fi\nexit $rc\n", cmd);
}

/* DIR/merge.sbatch's text into s: every result file and every note of a
 * task whose file is missing, merged; --expect names tasks that left
 * neither. */
static void merge_script(char *s, size_t size, const struct fleet_options *o, const char *dir, const char *exe)
{
	char out[PATH_MAX + 32];
	size_t len;

	snprintf(out, sizeof(out), "%s/slurm-merge-%%j.out", dir);
	snprintf(s, size, "#!/bin/sh\n# Written by `pmubench fleet`: the merge of the array's result files,\n"
		 "# submitted with --dependency=afterany on the array.\n"
		 "#SBATCH --job-name=pmubench-merge\n#SBATCH --ntasks=1\n");
	directive(s, size, "output", out);
	directive(s, size, "partition", o->partition);
	len = strlen(s);
	snprintf(s + len, size - len, "dir=");
	quoted(s, size, dir);
	len = strlen(s);
	snprintf(s + len, size - len, "\npmubench=");
	quoted(s, size, exe);
	len = strlen(s);
	snprintf(s + len, size - len,
		 "\nset --\n"
		 "for f in \"$dir\"/*.json \"$dir\"/*.json.exit; do\n"
		 "  case \"$f\" in \"$dir/merged.json\") continue ;; *.exit) f=${f%%.exit} ;; esac\n"
		 "  [ -e \"$f.exit\" ] || [ -e \"$f\" ] || continue\n"
		 "  seen=0\n  for g in \"$@\"; do [ \"$g\" = \"$f\" ] && seen=1; done\n"
		 "  [ $seen = 1 ] || set -- \"$@\" \"$f\"\n"
		 "done\n"
		 "\"$pmubench\" merge --expect=%d --format=json --out=\"$dir/merged.json\" \"$@\"\n"
		 "rc=$?\n"
		 "\"$pmubench\" merge --expect=%d --out=\"$dir/merged.txt\" \"$@\"\n"
		 "exit $rc\n", o->nodes, o->nodes);
}

/* Make dir, a new or empty folder; its absolute path into abs. */
static int make_dir(const char *dir, char *abs)
{
	struct stat st;

	if (mkdir(dir, 0777) && errno != EEXIST)
		return pmb__out_error("fleet: --dir=%s: %s", dir, strerror(errno));
	if (stat(dir, &st) || !S_ISDIR(st.st_mode))
		return pmb__out_error("fleet: --dir=%s: not a folder (expected a new folder)", dir);
	if (!realpath(dir, abs))
		return pmb__out_error("fleet: --dir=%s: %s", dir, strerror(errno));
	return 0;
}

/* The folder must hold no earlier fleet's files: their results would be
 * merged with this one's. */
static int check_empty(const char *dir)
{
	char p[PATH_MAX + 32];

	snprintf(p, sizeof(p), "%s/fleet.sbatch", dir);
	if (access(p, F_OK) == 0)
		return pmb__out_error("fleet: --dir=%s: holds an earlier fleet's files (fleet.sbatch): "
				      "expected a new folder", dir);
	return 0;
}

/* Write text to dir/name.  Returns 0 or 2 (said). */
static int write_file(const char *dir, const char *name, const char *text)
{
	char p[PATH_MAX + 32];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return pmb__out_text(p, "--dir", text, strlen(text)) ? 2 : 0;
}

/* sbatch's job id from `sbatch --parsable ...` ("ID" or "ID;CLUSTER"),
 * into id.  Returns 0, or 1 with sbatch's failure said. */
static int sbatch(const char *args, char *id, size_t size)
{
	char cmd[PATH_MAX * 2 + 128], line[48] = "";
	FILE *p;
	int st;

	snprintf(cmd, sizeof(cmd), "sbatch --parsable %s", args);
	fflush(stdout);
	p = popen(cmd, "r");
	if (!p) {
		pmb__out_error("fleet: cannot run sbatch: %s", strerror(errno));
		return 1;
	}
	if (!fgets(line, sizeof(line), p))
		line[0] = '\0';
	st = pclose(p);
	line[strcspn(line, ";\n")] = '\0';
	if (st != 0 || !line[0] || strspn(line, "0123456789") != strlen(line)) {
		pmb__out_error("fleet: %s: failed (%s%s)", cmd, st == -1 ? "" : "exit status ",
			       st == -1 ? strerror(errno) : (WIFEXITED(st) && WEXITSTATUS(st) == 127 ?
			       "127: no sbatch on PATH" : line[0] ? line : "no job id"));
		return 1;
	}
	snprintf(id, size, "%s", line);
	return 0;
}

static int submit(const char *dir)
{
	char args[PATH_MAX * 2 + 128] = "", array[64], merge[64];

	quoted(args, sizeof(args), dir);
	strncat(args, "/fleet.sbatch", sizeof(args) - strlen(args) - 1);
	if (sbatch(args, array, sizeof(array)))
		return 1;
	snprintf(args, sizeof(args), "--dependency=afterany:%s ", array);
	quoted(args, sizeof(args), dir);
	strncat(args, "/merge.sbatch", sizeof(args) - strlen(args) - 1);
	if (sbatch(args, merge, sizeof(merge)))
		return 1;
	printf("submitted job array %s and merge job %s (after every task of %s ends);\n"
	       "the merged report will be %s/merged.txt and %s/merged.json\n", array, merge, array, dir, dir);
	return 0;
}

static int parse(int argc, char **argv, struct fleet_options *o, int *nrun)
{
	char err[512];
	int first, own = argc;

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			own = i;
			break;
		}
	*nrun = own < argc ? argc - own - 1 : 0;
	int rc = pmb__options_parse(fleet_options, NOPT, own, argv, o, &first, err, sizeof(err));

	if (rc < 0)
		return pmb__out_error("fleet: %s", err);
	if (rc > 0) {
		usage();
		pmb__options_help(fleet_options, NOPT, stdout);
		return 1;
	}
	if (first < own)
		return pmb__out_error("fleet: %s: unexpected operand (the run's options go after --)", argv[first]);
	return 0;
}

int pmb__fleet_main(int argc, char **argv)
{
	struct fleet_options o = { .nodes = 1, .dir = "pmubench-fleet" };
	char exe[PATH_MAX], dir[PATH_MAX], *text;
	int nrun, rc = parse(argc, argv, &o, &nrun);
	char **run = argv + argc - nrun;

	if (rc)
		return rc == 1 ? 0 : rc;
	if (check_run(nrun, run))
		return 2;
	if (!realpath("/proc/self/exe", exe))
		return pmb__out_error("fleet: cannot find this program's path: %s", strerror(errno));
	if (check_empty(o.dir) || make_dir(o.dir, dir))
		return 2;
	text = malloc(SCRIPT_MAX);
	if (!text)
		return pmb__out_error("fleet: %s", strerror(ENOMEM));
	array_script(text, SCRIPT_MAX, &o, dir, exe, nrun, run);
	rc = strlen(text) >= SCRIPT_MAX - 1 ? pmb__out_error("fleet: the run's options are too long for "
							     "the script (%d bytes at most)", SCRIPT_MAX / 2) : 0;
	if (!rc)
		rc = write_file(dir, "fleet.sbatch", text);
	if (!rc) {
		merge_script(text, SCRIPT_MAX, &o, dir, exe);
		rc = write_file(dir, "merge.sbatch", text);
	}
	free(text);
	if (rc)
		return rc;
	if (o.submit)
		return submit(dir);
	printf("wrote %s/fleet.sbatch (%d task%s) and %s/merge.sbatch; submit them with\n"
	       "  id=$(sbatch --parsable %s/fleet.sbatch)\n"
	       "  sbatch --dependency=afterany:$id %s/merge.sbatch\n"
	       "or run pmubench fleet --submit\n", dir, o.nodes, o.nodes == 1 ? "" : "s", dir, dir, dir);
	return 0;
}
