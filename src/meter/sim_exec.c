/* sim_exec.c - the sim backend's parent side: re-run pmubench under valgrind's callgrind. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pmb_config.h"
#include "base.h"
#include "pmubench.h"
#include "sim_internal.h"

/* The command line of the child and the strings it points into. */
struct sim_cmd {
	char vg[PATH_MAX], exe[PATH_MAX], dir[PATH_MAX];
	char out[PATH_MAX + 32], log[PATH_MAX + 32], geom[3][64];
	char pmu[64];  /* libpfm4's core PMU here, for the child; "" none */
	char geom_env[160]; /* PMB__SIM_GEOM_ENV's value; "" valgrind's caches */
	char **args;
};

static int find_in_path(const char *prog, char *out, size_t n)
{
	const char *path = getenv("PATH");
	char dflt[256];

	if (!path) {
		if (!confstr(_CS_PATH, dflt, sizeof(dflt)))
			return -ENOENT;
		path = dflt;
	}
	while (*path) {
		size_t len = strcspn(path, ":");

		/* An empty PATH entry means the current folder. */
		if ((size_t)snprintf(out, n, "%.*s%s%s", (int)len, path,
				     len ? "/" : "./", prog) < n &&
		    access(out, X_OK) == 0)
			return 0;
		path += len + (path[len] == ':');
	}
	return -ENOENT;
}

static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char p[PATH_MAX];

	if (d) {
		while ((de = readdir(d)))
			if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
			    (size_t)snprintf(p, sizeof(p), "%s/%s", dir,
					     de->d_name) < sizeof(p))
				unlink(p);
		closedir(d);
	}
	rmdir(dir);
}

/* valgrind's own messages into the error detail, less what it says on
 * every machine about the LL cache it detects ("L3 cache found, using
 * its data", and the "specified"/"simulated LL cache" pair where that
 * cache's set count is no power of two): with --LL given (geom), that
 * cache is replaced by ours, and its sizes would contradict the ones
 * stated. */
static void keep_log(const char *dir, bool geom)
{
	char p[PATH_MAX + 32], line[512];
	size_t len = 0;
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, PMB__SIM_LOG);
	f = fopen(p, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (!strstr(line, "cache found, using its data for the LL") &&
		    !(geom && (strstr(line, "warning: specified LL cache") ||
			       strstr(line, "warning: simulated LL cache"))) &&
		    len < sizeof(pmb__sim_err))
			len += (size_t)snprintf(pmb__sim_err + len,
						sizeof(pmb__sim_err) - len, "%s", line);
	fclose(f);
}

/* valgrind, and this program to run under it. */
static int find_programs(struct sim_cmd *c)
{
	ssize_t len;

	if (!PMB_HAVE_VALGRIND_H) {
		pmb__sim_set_err("pmubench was built without <valgrind/callgrind.h>");
		return PMB_ENOVALGRIND;
	}
	if (find_in_path("valgrind", c->vg, sizeof(c->vg))) {
		pmb__sim_set_err("valgrind not found in PATH");
		return PMB_ENOVALGRIND;
	}
	len = readlink("/proc/self/exe", c->exe, sizeof(c->exe) - 1);
	if (len < 0)
		return -errno;
	c->exe[len] = '\0';
	return 0;
}

/* A fresh dump folder under $TMPDIR (else /tmp). */
static int make_dir(char *dir, size_t n)
{
	const char *tmp = getenv("TMPDIR");

	if (!tmp || !*tmp)
		tmp = "/tmp";
	if ((size_t)snprintf(dir, n, "%s/pmubench-sim-XXXXXX", tmp) >= n)
		return -ENAMETOOLONG;
	return mkdtemp(dir) ? 0 : -errno;
}

/* valgrind's options, then this program's own arguments.  Returns 0 or
 * -ENOMEM. */
static int build_args(struct sim_cmd *c, int argc, char **argv,
		      const struct pmb_topology_info *info, bool instr)
{
	struct pmb__sim_geom l1, ll;
	int na = 0;

	snprintf(c->out, sizeof(c->out), "--callgrind-out-file=%s/%s", c->dir,
		 PMB__SIM_DUMP);
	snprintf(c->log, sizeof(c->log), "--log-file=%s/%s", c->dir,
		 PMB__SIM_LOG);
	c->args = calloc((size_t)argc + 16, sizeof(*c->args));
	if (!c->args)
		return -ENOMEM;
	c->args[na++] = c->vg;
	c->args[na++] = "--tool=callgrind";
	c->args[na++] = "--branch-sim=yes";
	c->args[na++] = "--cache-sim=yes";
	c->args[na++] = "--collect-atstart=no";
	/* No gdb server: its FIFOs in $TMPDIR would outlive a child killed
	 * by a second Ctrl-C. */
	c->args[na++] = "--vgdb=no";
	/* Nothing is simulated until the meter starts (pmb__sim_meter): the
	 * timing probes before it, whose loop counts depend on the clock,
	 * leave no trace in the simulated caches and predictor, and run
	 * faster. */
	c->args[na++] = "--instr-atstart=no";
	c->args[na++] = c->out;
	/* --disasm: costs per instruction, not only per source line. */
	if (instr)
		c->args[na++] = "--dump-instr=yes";
	if (pmb__sim_geom_get(info, &l1, &ll)) {
		snprintf(c->geom[0], sizeof(c->geom[0]), "--D1=%llu,%u,%u",
			 (unsigned long long)l1.size, l1.assoc, l1.line);
		snprintf(c->geom[1], sizeof(c->geom[1]), "--I1=%llu,%u,%u",
			 (unsigned long long)l1.size, l1.assoc, l1.line);
		snprintf(c->geom[2], sizeof(c->geom[2]), "--LL=%llu,%u,%u",
			 (unsigned long long)ll.size, ll.assoc, ll.line);
		for (int i = 0; i < 3; i++)
			c->args[na++] = c->geom[i];
	}
	pmb__sim_geom_text(info, c->geom_env, sizeof(c->geom_env));
	c->args[na++] = "-q";
	c->args[na++] = c->log;
	c->args[na++] = c->exe;
	for (int i = 1; i < argc; i++)
		c->args[na++] = argv[i];
	c->args[na] = NULL;
	return 0;
}

/* The child: valgrind, running this program again with the dump folder
 * in its environment. */
static __attribute__((noreturn)) void
exec_child(const struct sim_cmd *c, const struct sigaction *old_quit)
{
	sigaction(SIGQUIT, old_quit, NULL);
	/* Its own process group: a Ctrl-C or a signal to this group (as
	 * timeout(1) sends) reaches this parent only, which passes it on
	 * once; two would make the child exit without its results. */
	setpgid(0, 0);
	setenv(PMB__SIM_DIR_ENV, c->dir, 1);
	if (c->geom_env[0])
		setenv(PMB__SIM_GEOM_ENV, c->geom_env, 1);
	else
		unsetenv(PMB__SIM_GEOM_ENV);
	/* hwloc's x86 (cpuid) backend cannot work under valgrind and says so
	 * on stderr; sysfs gives the same caches. */
	setenv("HWLOC_COMPONENTS", "-x86", 0);
	/* libpfm4 too reads CPUID, which valgrind emulates: an Ice Lake is
	 * ix86arch there, where LLC_MISSES is LONGEST_LAT_CACHE.MISS (every
	 * last-level miss) instead of icl's llc-misses (loads), and
	 * MEM_LOAD_RETIRED:L1_MISS nothing.  Names resolve for this machine's
	 * PMU, as the perf backend resolves them (a LIBPFM_FORCE_PMU of the
	 * user's stays). */
	if (c->pmu[0])
		setenv("LIBPFM_FORCE_PMU", c->pmu, 0);
	/* Same addresses in every run, so the same cache sets and predictor
	 * entries: two runs give the same counts. */
	personality((unsigned long)personality(0xffffffff) | ADDR_NO_RANDOMIZE);
	execv(c->vg, c->args);
	_exit(127);
}

/* valgrind keeps file descriptors of its own at the top of the open-file
 * limit: at ulimit -n 16 the program under it could not open its shared
 * libraries and died with 127 (24 was enough here).  The soft limit is
 * raised to SIM_MIN_FILES where the hard one allows; else the run is
 * refused, saying so.  Returns 0 or -EMFILE. */
#define SIM_MIN_FILES 64
static int enough_files(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= SIM_MIN_FILES)
		return 0;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < SIM_MIN_FILES) {
		pmb__sim_set_err("valgrind keeps open files of its own, and ulimit -n allows %llu (the hard "
				 "limit): raise it to %d or more", (unsigned long long)rl.rlim_max, SIM_MIN_FILES);
		return -EMFILE;
	}
	rl.rlim_cur = SIM_MIN_FILES;
	return setrlimit(RLIMIT_NOFILE, &rl) ? -errno : 0;
}

/* The child's exit status (128 + the signal that killed it), or -errno. */
static int wait_child(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* Run the command like system(), but SIGINT, SIGTERM and SIGHUP (caught
 * by the caller) are passed on to the child, which stops after its
 * current sample and writes what it measured; a second one kills it and
 * removes the dump folder (interrupt.c).  Returns its exit status, or
 * -errno. */
static int run_child(const struct sim_cmd *c)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_quit;
	pid_t pid;
	int rc;

	sigaction(SIGQUIT, &ign, &old_quit);
	/* The caller's buffered output goes before the child's. */
	fflush(NULL);
	pid = fork();
	if (pid == 0)
		exec_child(c, &old_quit);
	if (pid > 0) {
		setpgid(pid, pid); /* as the child does: whichever runs first */
		pmb__interrupt_child(pid, c->dir);
	}
	rc = pid < 0 ? -errno : wait_child(pid);
	pmb__interrupt_child(0, c->dir);
	sigaction(SIGQUIT, &old_quit, NULL);
	return rc;
}

int pmb__sim_exec(int argc, char **argv, const struct pmb_topology_info *info, const char *pmu, bool instr)
{
	struct sim_cmd c;
	int rc;

	pmb__sim_err[0] = '\0';
	rc = find_programs(&c);
	if (rc)
		return rc;
	/* From before the folder exists to after it is gone: a second
	 * signal in between removes it (interrupt.c). */
	rc = enough_files();
	if (rc)
		return rc;
	rc = pmb__interrupt_catch(false);
	if (!rc)
		rc = make_dir(c.dir, sizeof(c.dir));
	if (rc)
		goto fail_dir;
	pmb__interrupt_child(0, c.dir);
	rc = build_args(&c, argc, argv, info, instr);
	if (rc)
		goto fail_args;
	snprintf(c.pmu, sizeof(c.pmu), "%s", pmu ? pmu : "");
	/* Stopped before it started: nothing measured, nothing to write. */
	rc = pmb__stop_signal ? 128 + pmb__stop_signal : run_child(&c);
	if (rc >= 0 && !pmb__stop_signal)
		keep_log(c.dir, c.geom_env[0] != '\0');
	free(c.args);
fail_args:
	remove_dir(c.dir);
	pmb__interrupt_child(0, NULL);
fail_dir:
	pmb__interrupt_release();
	return rc;
}

int pmb__sim_rerun(int argc, char **argv, const struct pmb_topology_info *info, const char *pmu, bool instr,
		   char *err, size_t size)
{
	int rc = pmb__sim_exec(argc, argv, info, pmu, instr);

	if (rc == PMB_ENOVALGRIND) {
		snprintf(err, size, "--backend=sim needs valgrind, which is not installed: apt-get install valgrind");
		return rc;
	}
	if (rc < 0) {
		snprintf(err, size, "--backend=sim: %s", *pmb__sim_error() ? pmb__sim_error() : pmb_strerror(rc));
		return rc;
	}
	/* Stopped by a signal, passed on, or by its own error (exit 2, said
	 * on one line): the child said so itself, and valgrind's words after
	 * it would bury the fix. */
	if (rc != 0 && rc != 2 && *pmb__sim_error() && !pmb__stop_signal)
		fprintf(stderr, "pmubench: valgrind said: %s\n", pmb__sim_error());
	return rc;
}
