/* ab_exec.c - running one side of `pmubench ab`: a benchmark program, or this pmubench with --load, as a child process group, bounded in time and stopped with ab. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ab_internal.h"
#include "base.h"

/* A side stopped (a signal, its time limit) gets SIGTERM, and this long to
 * exit and remove its files before SIGKILL: well inside the second that
 * ab has to stop in. */
#define STOP_GRACE_NS 300e6
/* What is kept of a side's stderr: its reason is among the first lines. */
#define ERR_KEEP (64 << 10)

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcmp(s + n - k, suffix);
}

int pmb__ab_side_init(struct pmb__ab_side *s, const char *label, const char *path,
		      char *err, size_t errlen)
{
	ssize_t len;

	memset(s, 0, sizeof(*s));
	s->label = label;
	s->path = path;
	s->err.max = ERR_KEEP;
	s->load = ends_with(path, ".so");
	if (!s->load) {
		snprintf(s->prog, sizeof(s->prog), "%s", path);
		return 0;
	}
	/* A plugin is measured by this very pmubench, which loads it. */
	len = readlink("/proc/self/exe", s->prog, sizeof(s->prog) - 1);
	if (len < 0) {
		snprintf(err, errlen, "%s %s: a plugin, but this pmubench cannot find "
			 "itself to load it (/proc/self/exe: %s)", label, path, strerror(errno));
		return -errno;
	}
	s->prog[len] = '\0';
	return 0;
}

void pmb__ab_side_free(struct pmb__ab_side *s)
{
	free(s->err.p);
	s->err.p = NULL;
	s->err.n = 0;
}

/* ---- signals ---------------------------------------------------------- */

static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };
#define NSTOP (sizeof(stop_signals) / sizeof(stop_signals[0]))

static volatile sig_atomic_t stop_sig;
/* The running side's process group (its pid), 0 none: the handler signals
 * it at once, so that a side and its valgrind stop however busy ab is. */
static volatile sig_atomic_t side_group;
static struct sigaction old_stop[NSTOP], old_chld;
static bool caught;

static void on_stop(int sig)
{
	int saved = errno;
	bool again = stop_sig != 0;

	if (!again)
		stop_sig = sig;
	if (side_group > 0)
		kill(-(pid_t)side_group, again ? SIGKILL : SIGTERM);
	errno = saved;
}

/* A side's end wakes ppoll() (the default action would be none). */
static void on_child(int sig)
{
	(void)sig;
}

int pmb__ab_signals_catch(void)
{
	struct sigaction sa, chld;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NSTOP; i++)
		sigaddset(&sa.sa_mask, stop_signals[i]);
	sa.sa_flags = SA_RESTART;
	memset(&chld, 0, sizeof(chld));
	chld.sa_handler = on_child;
	sigemptyset(&chld.sa_mask);
	chld.sa_flags = SA_RESTART | SA_NOCLDSTOP;
	stop_sig = 0;
	/* Orphans of a side (its valgrind, where the side died first) come
	 * to ab instead of init: ab reaps them. */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0))
		return -errno;
	for (size_t i = 0; i < NSTOP; i++)
		if (sigaction(stop_signals[i], NULL, &old_stop[i]))
			return -errno;
	if (sigaction(SIGCHLD, &chld, &old_chld))
		return -errno;
	caught = true;
	/* A signal ignored before stays ignored: under nohup, a hang-up
	 * must not stop the run. */
	for (size_t i = 0; i < NSTOP; i++)
		if (old_stop[i].sa_handler != SIG_IGN && sigaction(stop_signals[i], &sa, NULL))
			return -errno;
	return 0;
}

void pmb__ab_signals_release(void)
{
	if (!caught)
		return;
	for (size_t i = 0; i < NSTOP; i++)
		sigaction(stop_signals[i], &old_stop[i], NULL);
	sigaction(SIGCHLD, &old_chld, NULL);
	prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
	caught = false;
}

int pmb__ab_stop_signal(void)
{
	return stop_sig;
}

/* ---- one run of a side ------------------------------------------------- */

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* What fd holds now appended to t (past t->max: dropped, said as cut).
 * Returns 0 while open, 1 at its end (or a read error: the side's output
 * is then what came). */
static int drain(int fd, struct pmb__ab_text *t)
{
	char buf[65536];
	ssize_t got;

	for (;;) {
		got = read(fd, buf, sizeof(buf));
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return errno == EAGAIN ? 0 : 1;
		if (got == 0)
			return 1;
		if (t->n + (size_t)got > t->max) {
			t->cut = true;
			got = (ssize_t)(t->max - t->n);
		}
		if (got > 0) {
			char *np = realloc(t->p, t->n + (size_t)got + 1);

			if (!np) {
				t->cut = true;
				continue;
			}
			t->p = np;
			memcpy(t->p + t->n, buf, (size_t)got);
			t->n += (size_t)got;
			t->p[t->n] = '\0';
		}
	}
}

/* In the child: a process group of its own (ab signals the whole group),
 * stdin from /dev/null (a read would stop it: it is not in the terminal's
 * foreground group), stdout to out (-1: /dev/null), stderr to err; then
 * exec.  Never returns. */
static void child(const struct pmb__ab_side *s, char **argv, int out, int err)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	sigset_t none;

	setpgid(0, 0);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (null < 0 || dup2(null, 0) < 0 || dup2(out >= 0 ? out : null, 1) < 0 || dup2(err, 2) < 0)
		_exit(126);
	execvp(s->prog, argv);
	dprintf(2, "error: cannot run %s: %s\n", s->prog, strerror(errno));
	_exit(127);
}

/* How a wait for a side ended. */
enum waited { WAIT_EXITED, WAIT_TIMEOUT, WAIT_SIGNAL };

/* Until pid exits (*status), the deadline passes or a stop signal comes,
 * reading its pipes fd[0..2) (-1: closed) into text[0..2). */
static enum waited wait_side(pid_t pid, int fd[2], struct pmb__ab_text *text[2], double deadline,
			     int *status)
{
	sigset_t block, old;

	sigemptyset(&block);
	for (size_t i = 0; i < NSTOP; i++)
		sigaddset(&block, stop_signals[i]);
	sigaddset(&block, SIGCHLD);
	for (;;) {
		struct pollfd p[2];
		nfds_t np = 0;
		double left;
		pid_t got;

		/* Signals held from the checks to ppoll, which lets them in:
		 * one that comes in between wakes it instead of being lost. */
		sigprocmask(SIG_BLOCK, &block, &old);
		got = waitpid(pid, status, WNOHANG);
		left = deadline - now_ns();
		if (got == pid || stop_sig || left <= 0) {
			sigprocmask(SIG_SETMASK, &old, NULL);
			for (int k = 0; k < 2 && got == pid; k++)
				if (fd[k] >= 0)
					drain(fd[k], text[k]);
			return got == pid ? WAIT_EXITED : stop_sig ? WAIT_SIGNAL : WAIT_TIMEOUT;
		}
		for (int k = 0; k < 2; k++)
			if (fd[k] >= 0)
				p[np++] = (struct pollfd){ .fd = fd[k], .events = POLLIN };
		long long ns = (long long)left;
		struct timespec ts = { (time_t)(ns / 1000000000), (long)(ns % 1000000000) };
		ppoll(p, np, &ts, &old);
		sigprocmask(SIG_SETMASK, &old, NULL);
		for (int k = 0; k < 2; k++)
			if (fd[k] >= 0 && drain(fd[k], text[k])) {
				close(fd[k]);
				fd[k] = -1;
			}
	}
}

/* Stop the group of pid: SIGTERM, STOP_GRACE_NS to exit, then SIGKILL;
 * pid reaped into *status. */
static void stop_group(pid_t pid, int *status)
{
	struct timespec tick = { 0, 10000000 };
	double until = now_ns() + STOP_GRACE_NS;

	kill(-pid, SIGTERM);
	while (waitpid(pid, status, WNOHANG) == 0) {
		if (now_ns() > until) {
			kill(-pid, SIGKILL);
			while (waitpid(pid, status, 0) < 0 && errno == EINTR)
				;
			return;
		}
		nanosleep(&tick, NULL);
	}
}

/* Kill every child ab has now: orphans of a side that came to ab as
 * their reaper (a sim side's valgrind is in a group of its own, and lives
 * on where the side was killed).  ab has no other children between runs.
 * /proc/self/task/TID/children lists them (TID: ab is one thread). */
static void kill_orphans(void)
{
	char path[64], buf[4096];
	ssize_t got;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int)getpid());
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	got = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (got <= 0)
		return;
	buf[got] = '\0';
	for (char *p = buf, *end; *p; p = end) {
		long pid = strtol(p, &end, 10);

		if (end == p)
			break;
		if (pid > 0)
			kill((pid_t)pid, SIGKILL);
	}
}

/* Whatever of pid's group outlived it, and every orphan that came to ab,
 * killed and reaped, for a second at most. */
static void reap_rest(pid_t pid)
{
	struct timespec tick = { 0, 5000000 };
	double until = now_ns() + 1e9;
	pid_t got;

	kill(-pid, SIGKILL);
	kill_orphans();
	for (;;) {
		while ((got = waitpid(-1, NULL, WNOHANG)) > 0)
			;
		if (got < 0 || now_ns() > until)
			return;
		kill_orphans();
		nanosleep(&tick, NULL);
	}
}

/* err: how side s ended, from status (or stopped: the time limit). */
static void say_end(const struct pmb__ab_side *s, int status, const struct pmb__ab_limit *limit,
		    const char *what, bool timed_out, char *err, size_t errlen)
{
	char why[512];

	if (timed_out) {
		snprintf(err, errlen, "%s %s did not finish %s within %.1f s (%s): stopped", s->label,
			 s->path, what, limit->timeout_ns / 1e9, limit->why);
		return;
	}
	pmb__ab_reason(s->err.p, why, sizeof(why));
	if (WIFEXITED(status))
		snprintf(err, errlen, "%s %s exited %d: %s", s->label, s->path, WEXITSTATUS(status), why);
	else
		snprintf(err, errlen, "%s %s was killed by signal %d (%s): %s", s->label, s->path,
			 WTERMSIG(status), strsignal(WTERMSIG(status)), why);
}

/* Pipes for stderr and (where out) stdout, ab's ends nonblocking. */
static int make_pipes(int errp[2], int outp[2], bool out)
{
	if (pipe2(errp, O_CLOEXEC))
		return -errno;
	if (out && pipe2(outp, O_CLOEXEC)) {
		int e = -errno;

		close(errp[0]);
		close(errp[1]);
		return e;
	}
	fcntl(errp[0], F_SETFL, O_NONBLOCK);
	if (out)
		fcntl(outp[0], F_SETFL, O_NONBLOCK);
	return 0;
}

/* Start s with argv; *pid.  Returns 0 or -errno (fork). */
static int start(struct pmb__ab_side *s, char **argv, int errp[2], int outp[2], pid_t *pid)
{
	fflush(NULL);
	*pid = fork();
	if (*pid == 0)
		child(s, argv, outp[1], errp[1]);
	if (*pid < 0)
		return -errno;
	/* Both sides set the group: whichever runs first, it is there before
	 * a signal can be passed on to it. */
	setpgid(*pid, *pid);
	side_group = *pid;
	if (stop_sig)
		kill(-*pid, SIGTERM);
	return 0;
}

int pmb__ab_run(struct pmb__ab_side *s, const char *const *args, size_t nargs,
		const struct pmb__ab_limit *limit, const char *what, struct pmb__ab_text *out,
		char *err, size_t errlen)
{
	char load[4200];
	char **argv = calloc(nargs + 3, sizeof(*argv));
	struct pmb__ab_text *text[2] = { &s->err, out };
	int errp[2], outp[2] = { -1, -1 }, fd[2], status = 0, ret;
	size_t k = 0;
	enum waited how;
	pid_t pid;

	if (!argv)
		return snprintf(err, errlen, "%s", strerror(ENOMEM)), -1;
	argv[k++] = s->prog;
	snprintf(load, sizeof(load), "--load=%s", s->path);
	if (s->load)
		argv[k++] = load;
	for (size_t i = 0; i < nargs; i++)
		argv[k++] = (char *)args[i];
	/* The last run's text goes: a run that prints nothing must not be
	 * given the reason of the one before. */
	s->err.n = 0;
	s->err.cut = false;
	if (s->err.p)
		s->err.p[0] = '\0';
	if (out && out->p)
		out->p[0] = '\0';
	if (out)
		out->n = 0;
	ret = make_pipes(errp, outp, out != NULL);
	if (!ret) {
		ret = start(s, argv, errp, outp, &pid);
		close(errp[1]);
		if (out)
			close(outp[1]);
		if (ret) {
			close(errp[0]);
			if (out)
				close(outp[0]);
		}
	}
	free(argv);
	if (ret)
		return snprintf(err, errlen, "%s %s: cannot start it: %s", s->label, s->path,
				strerror(-ret)), -1;
	fd[0] = errp[0];
	fd[1] = out ? outp[0] : -1;
	how = wait_side(pid, fd, text, now_ns() + limit->timeout_ns, &status);
	if (how != WAIT_EXITED)
		stop_group(pid, &status);
	reap_rest(pid);
	side_group = 0;
	for (int i = 0; i < 2; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	if (how == WAIT_SIGNAL)
		return snprintf(err, errlen, "interrupted by %s: %s %s stopped in %s",
				pmb__interrupt_name(stop_sig), s->label, s->path, what), PMB_AB_STOPPED;
	if (how == WAIT_EXITED && WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	say_end(s, status, limit, what, how == WAIT_TIMEOUT, err, errlen);
	return -1;
}

/* ---- why a side failed -------------------------------------------------- */

static bool is_warning(const char *line, size_t len)
{
	for (size_t i = 0; i + 7 < len; i++)
		if (!strncasecmp(line + i, "warning", 7))
			return true;
	return false;
}

static bool says_error(const char *line, size_t len)
{
	for (size_t i = 0; i + 5 <= len; i++)
		if (!strncasecmp(line + i, "error", 5))
			return true;
	return false;
}

void pmb__ab_reason(const char *text, char *buf, size_t size)
{
	const char *err = NULL, *last = NULL;
	size_t errlen = 0, lastlen = 0, warnings = 0;

	for (const char *p = text ? text : ""; *p;) {
		size_t len = strcspn(p, "\n");

		if (strspn(p, " \t\r") < len) {
			if (is_warning(p, len))
				warnings++;
			else if (says_error(p, len) && !err)
				err = p, errlen = len;
			else
				last = p, lastlen = len;
		}
		p += len + (p[len] == '\n');
	}
	if (!err) {
		err = last;
		errlen = lastlen;
	}
	if (err)
		snprintf(buf, size, "%.*s", (int)(errlen < 480 ? errlen : 480), err);
	else if (warnings)
		snprintf(buf, size, "no error said, only %zu warning line%s on stderr", warnings,
			 warnings == 1 ? "" : "s");
	else
		snprintf(buf, size, "nothing on stderr");
}
