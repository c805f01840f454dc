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
#include "run_cli.h"
#include "report.h"
#include "base.h"

/* A job array's largest task count Slurm accepts by default
 * (MaxArraySize 1001: tasks 0..1000). */
#define MAX_NODES 1001
#define SCRIPT_MAX 16384
/* Longest node name taken from --nodelist (HOST_NAME_MAX is 64). */
#define PMB_NODE_MAX 256

struct fleet_options {
	int nodes;
	const char *constraint, *partition, *dir, *time, *nodelist;
	bool nodes_given, submit, help;
};

static const struct pmb_optdef fleet_options[] = {
	{ .name = "--nodes", .kind = PMB_OPT_INT, .value = PMB_OPT_AT(struct fleet_options, nodes), .lo = 1,
	  .given = PMB_OPT_AT(struct fleet_options, nodes_given),
	  .hi = MAX_NODES, .meta = "=N", .help = "run on N nodes: a job array of N tasks, each\nwith a whole node "
	  "(--exclusive) (default 1)" },
	{ .name = "--constraint", .kind = PMB_OPT_STRING, .value = PMB_OPT_AT(struct fleet_options, constraint),
	  .meta = "=FEATURES", .help = "only nodes with these Slurm features (sbatch\n--constraint, e.g. avx512 "
	  "or \"zen3|zen4\")" },
	{ .name = "--nodelist", .kind = PMB_OPT_LIST, .value = PMB_OPT_AT(struct fleet_options, nodelist),
	  .meta = "=N1,N2,...", .help = "task i on node i of this list: the array is\nsubmitted held, each task "
	  "given its node\n(scontrol update ReqNodeList), then released" },
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
	if (o->nodelist) {
		len = strlen(s);
		snprintf(s + len, size - len, "# Held: each task is given its node of --nodelist=%s\n"
			 "# (scontrol update JobId=ID_TASK ReqNodeList=NODE), then released.\n"
			 "#SBATCH --hold\n", o->nodelist);
	}
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
		 "# The task's node and file, for the merge (--fleet) to name it if\n"
		 "# the file never comes.\n"
		 "printf '%%s\\n%%s\\n' \"$host\" \"$out\" > \"$dir/task-$SLURM_ARRAY_TASK_ID.started\"\n"
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
 * task whose file is missing, merged with --fleet, which names each task
 * that left neither by its node (its task-I.started marker, else Slurm's
 * record of it saved here as task-I.slurm). */
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
		 "\n# Slurm's record of each task (its state, its node), while slurmctld\n"
		 "# keeps it (MinJobAge), for the tasks that leave no file.\n"
		 "if [ -n \"$PMB_FLEET_ARRAY\" ]; then\n"
		 "  i=0\n"
		 "  while [ $i -lt %d ]; do\n"
		 "    scontrol -o show job \"${PMB_FLEET_ARRAY}_$i\" > \"$dir/task-$i.slurm\" 2>/dev/null ||\n"
		 "      rm -f \"$dir/task-$i.slurm\"\n"
		 "    i=$((i + 1))\n"
		 "  done\n"
		 "fi\n"
		 "set --\n"
		 "for f in \"$dir\"/*.json \"$dir\"/*.json.exit; do\n"
		 "  case \"$f\" in \"$dir/merged.json\") continue ;; *.exit) f=${f%%.exit} ;; esac\n"
		 "  [ -e \"$f.exit\" ] || [ -e \"$f\" ] || continue\n"
		 "  seen=0\n  for g in \"$@\"; do [ \"$g\" = \"$f\" ] && seen=1; done\n"
		 "  [ $seen = 1 ] || set -- \"$@\" \"$f\"\n"
		 "done\n"
		 "\"$pmubench\" merge --fleet=\"$dir\" --format=json --out=\"$dir/merged.json\" \"$@\"\n"
		 "rc=$?\n"
		 "\"$pmubench\" merge --fleet=\"$dir\" --out=\"$dir/merged.txt\" \"$@\"\n"
		 "exit $rc\n", o->nodes);
}

static bool list_node(const char *list, int i, char *node, size_t size);

/* DIR/fleet.tasks's text into s: "TASK NODE" per task, NODE the one
 * --nodelist gives it, else "-" (Slurm's choice). */
static void tasks_file(char *s, size_t size, const struct fleet_options *o)
{
	char node[PMB_NODE_MAX];
	size_t len = (size_t)snprintf(s, size, "# Written by `pmubench fleet`: the array's tasks, read by "
				      "pmubench merge --fleet.\n# TASK NODE (-: the node Slurm picks)\n");

	for (int i = 0; i < o->nodes && len < size; i++)
		len += (size_t)snprintf(s + len, size - len, "%d %s\n", i,
					o->nodelist && list_node(o->nodelist, i, node, sizeof(node)) ? node : "-");
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

/* Run cmd (sh), its first line of output into line.  Returns 0, or 1
 * with its failure said. */
static int command(const char *cmd, char *line, size_t size)
{
	FILE *p;
	int st;

	fflush(stdout);
	line[0] = '\0';
	p = popen(cmd, "r");
	if (!p) {
		pmb__out_error("fleet: %s: %s", cmd, strerror(errno));
		return 1;
	}
	if (!fgets(line, (int)size, p))
		line[0] = '\0';
	while (fgetc(p) != EOF)
		;
	st = pclose(p);
	line[strcspn(line, "\n")] = '\0';
	if (st == 0)
		return 0;
	if (st == -1)
		pmb__out_error("fleet: %s: %s", cmd, strerror(errno));
	else if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
		pmb__out_error("fleet: %s: not found (exit status 127): is Slurm's client on PATH?", cmd);
	else
		pmb__out_error("fleet: %s: failed (exit status %d%s%s)", cmd, WIFEXITED(st) ? WEXITSTATUS(st) : st,
			       line[0] ? ": " : "", line);
	return 1;
}

/* sbatch's job id from `sbatch --parsable ARGS` ("ID" or "ID;CLUSTER"),
 * into id.  Returns 0, or 1 with sbatch's failure said. */
static int sbatch(const char *args, char *id, size_t size)
{
	char cmd[PATH_MAX * 2 + 128], line[48];

	snprintf(cmd, sizeof(cmd), "sbatch --parsable %s 2>&1", args);
	if (command(cmd, line, sizeof(line)))
		return 1;
	line[strcspn(line, ";")] = '\0';
	if (!line[0] || strspn(line, "0123456789") != strlen(line)) {
		pmb__out_error("fleet: %s: no job id (%s)", cmd, line[0] ? line : "no output");
		return 1;
	}
	snprintf(id, size, "%s", line);
	return 0;
}

/* Node i of the list, into node; false past its end. */
static bool list_node(const char *list, int i, char *node, size_t size)
{
	const char *p = list;
	size_t len;

	for (; i > 0 && p; i--)
		p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL;
	if (!p || !*p)
		return false;
	len = strcspn(p, ",");
	snprintf(node, size, "%.*s", (int)(len < size ? len : size - 1), p);
	return true;
}

/* The held array's task i on node i of --nodelist, then the array
 * released; on a failure the array is cancelled.  Returns 0 or 1 (said). */
static int place_tasks(const struct fleet_options *o, const char *array)
{
	char cmd[PMB_NODE_MAX + 128], node[PMB_NODE_MAX], line[256];
	int rc = 0;

	for (int i = 0; !rc && list_node(o->nodelist, i, node, sizeof(node)); i++) {
		snprintf(cmd, sizeof(cmd), "scontrol update JobId=%s_%d ReqNodeList=%s 2>&1", array, i, node);
		rc = command(cmd, line, sizeof(line));
	}
	if (!rc) {
		snprintf(cmd, sizeof(cmd), "scontrol release %s 2>&1", array);
		rc = command(cmd, line, sizeof(line));
	}
	if (rc) {
		snprintf(cmd, sizeof(cmd), "scancel %s 2>&1", array);
		if (!command(cmd, line, sizeof(line)))
			fprintf(stderr, "pmubench: fleet: job array %s cancelled\n", array);
	}
	return rc;
}

static int submit(const struct fleet_options *o, const char *dir)
{
	char args[PATH_MAX * 2 + 128] = "", array[64], merge[64];

	quoted(args, sizeof(args), dir);
	strncat(args, "/fleet.sbatch", sizeof(args) - strlen(args) - 1);
	if (sbatch(args, array, sizeof(array)))
		return 1;
	if (o->nodelist && place_tasks(o, array))
		return 1;
	snprintf(args, sizeof(args), "--dependency=afterany:%s --export=ALL,PMB_FLEET_ARRAY=%s ", array, array);
	quoted(args, sizeof(args), dir);
	strncat(args, "/merge.sbatch", sizeof(args) - strlen(args) - 1);
	if (sbatch(args, merge, sizeof(merge)))
		return 1;
	printf("submitted job array %s and merge job %s (after every task of %s ends);\n"
	       "the merged report will be %s/merged.txt and %s/merged.json\n", array, merge, array, dir, dir);
	return 0;
}

/* --nodelist: node names only (they go into a shell command), as many as
 * --nodes where both are given.  Returns 0 or 2 (said). */
static int check_nodes(struct fleet_options *o)
{
	char node[PMB_NODE_MAX];
	int n = 0;

	if (!o->nodelist)
		return 0;
	for (; list_node(o->nodelist, n, node, sizeof(node)); n++)
		if (!node[0] || strlen(node) >= sizeof(node) - 1 ||
		    strspn(node, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") != strlen(node))
			return pmb__out_error("fleet: --nodelist=%s: \"%s\" is not a node name (expected names of "
					      "letters, digits, '.', '_' and '-', comma-separated; expand n[1-4] with "
					      "scontrol show hostnames)", o->nodelist, node);
	if (n > MAX_NODES)
		return pmb__out_error("fleet: --nodelist=%s: %d nodes (expected at most %d, one task each)",
				      o->nodelist, n, MAX_NODES);
	if (o->nodes_given && o->nodes != n)
		return pmb__out_error("fleet: --nodes=%d, but --nodelist names %d nodes (expected one of the two, "
				      "or both alike)", o->nodes, n);
	o->nodes = n;
	return 0;
}

/* The commands --submit would run. */
static void print_commands(const struct fleet_options *o, const char *dir)
{
	char node[PMB_NODE_MAX];

	printf("wrote %s/fleet.sbatch (%d task%s) and %s/merge.sbatch; submit them with\n"
	       "  id=$(sbatch --parsable %s/fleet.sbatch)\n", dir, o->nodes, o->nodes == 1 ? "" : "s", dir, dir);
	for (int i = 0; o->nodelist && list_node(o->nodelist, i, node, sizeof(node)); i++)
		printf("  scontrol update JobId=${id}_%d ReqNodeList=%s\n", i, node);
	if (o->nodelist)
		printf("  scontrol release $id\n");
	printf("  sbatch --dependency=afterany:$id --export=ALL,PMB_FLEET_ARRAY=$id %s/merge.sbatch\n"
	       "or run pmubench fleet --submit\n", dir);
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
	if (check_nodes(&o) || check_run(nrun, run))
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
	if (!rc) {
		free(text);
		text = malloc((size_t)o.nodes * (PMB_NODE_MAX + 16) + 256);
		if (!text)
			return pmb__out_error("fleet: %s", strerror(ENOMEM));
		tasks_file(text, (size_t)o.nodes * (PMB_NODE_MAX + 16) + 256, &o);
		rc = write_file(dir, "fleet.tasks", text);
	}
	free(text);
	if (rc)
		return rc;
	if (o.submit)
		return submit(&o, dir);
	print_commands(&o, dir);
	return 0;
}
