/* interrupt.c - SIGINT, SIGTERM and SIGHUP during a run: the first cuts the current sample and stops the run, a second exits at once. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "interrupt.h"

/* What a Ctrl-C costs must be the one sample under way, never the results
 * before it: the first signal sets a flag that the runner reads between
 * samples, and cuts the sample under way (pmb__interrupt_cut), which the
 * runner then discards: a 10 s sample would otherwise hold the run.  A second one means "now": the handler itself kills the
 * child, removes its folder and exits, with async-signal-safe calls only
 * (the folder is listed with getdents64, not readdir, which may allocate). */

static const int caught[] = { SIGINT, SIGTERM, SIGHUP };
#define NCAUGHT (sizeof(caught) / sizeof(caught[0]))

volatile sig_atomic_t pmb__stop_signal;
static volatile pid_t child_pid;
static const char *volatile child_dir;
static volatile sig_atomic_t erase_progress;
static struct sigaction old_action[NCAUGHT];
static bool installed;

/* The passes left of the sample under way (pmb__interrupt_cut), zeroed by
 * the first signal so that a long sample ends within a pass.  The loop
 * decrements it with a load and a store: a signal between the two has its
 * zero overwritten, so the zero is written again every CUT_EVERY_US (a
 * SIGALRM timer, armed by the first signal only) until the runner says
 * the sample is over.  The empty loop spends most of a pass between its
 * load and its store: every 20 ms, Ctrl-C at --min-sample-time=10s took
 * 1.1 to 1.9 s in about 1 try of 8 (50 alarms overwritten in a row, seen
 * with strace); every 1 ms, at most 0.13 s in 30 tries. */
static volatile uint64_t *volatile cut_at;
static volatile sig_atomic_t cut_armed;
static struct sigaction old_alarm;
#define CUT_EVERY_US 1000

static void on_alarm(int sig)
{
	volatile uint64_t *p = cut_at;

	(void)sig;
	if (p)
		*p = 0;
}

/* From the first signal's handler: SIGALRM's handler and its timer (both
 * calls async-signal-safe system calls). */
static void cut_arm(void)
{
	struct sigaction sa;
	struct itimerval every = { { 0, CUT_EVERY_US }, { 0, CUT_EVERY_US } };

	if (cut_armed)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, &old_alarm) == 0) {
		cut_armed = 1;
		setitimer(ITIMER_REAL, &every, NULL);
	}
}

static void cut_disarm(void)
{
	struct itimerval off = { { 0, 0 }, { 0, 0 } };

	if (!cut_armed)
		return;
	struct sigaction ign;

	setitimer(ITIMER_REAL, &off, NULL);
	/* A SIGALRM already sent but not yet delivered (valgrind delivers
	 * late) would meet the old action, SIG_DFL: the process killed
	 * (memcheck saw exit by SIGALRM after a SIGINT).  Ignoring a signal
	 * discards it where pending; then the old action. */
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGALRM, &ign, NULL);
	sigaction(SIGALRM, &old_alarm, NULL);
	cut_armed = 0;
}

/* The files of dir, then dir: what valgrind's child leaves there.  A pass
 * that removed nothing ends it (a listing read while its entries go may
 * skip some, so there can be a second). */
static void remove_dir_now(const char *dir)
{
	char buf[4096];
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int removed = 1;
	long n;

	if (fd < 0)
		return;
	for (int pass = 0; removed && pass < 8; pass++) {
		removed = 0;
		lseek(fd, 0, SEEK_SET);
		while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0)
			for (long off = 0; off < n;) {
				struct dirent64 *de = (struct dirent64 *)(buf + off);

				if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
				    unlinkat(fd, de->d_name, 0) == 0)
					removed++;
				off += de->d_reclen;
			}
	}
	close(fd);
	rmdir(dir);
}

static __attribute__((noreturn)) void exit_now(int sig)
{
	pid_t pid = child_pid;

	/* The child gets the second signal too, and exits at once on its
	 * own, removing its temporary files; it waits only while it writes
	 * a report, so after 3 s it is killed. */
	if (pid > 0) {
		struct timespec tick = { 0, 10000000 };
		int waited = 0;

		kill(pid, sig);
		while (waitpid(pid, NULL, WNOHANG) == 0 && waited++ < 300)
			nanosleep(&tick, NULL);
		if (waited > 300) {
			kill(pid, SIGKILL);
			while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
				;
		}
	}
	if (child_dir)
		remove_dir_now(child_dir);
	if (erase_progress && write(STDERR_FILENO, "\r\033[K", 4) < 0)
		_exit(128 + sig);
	_exit(128 + sig);
}

static void on_signal(int sig)
{
	int saved = errno;

	if (pmb__stop_signal)
		exit_now(sig);
	pmb__stop_signal = sig;
	if (child_pid > 0)
		kill(child_pid, sig);
	if (cut_at) {
		*cut_at = 0;
		cut_arm();
	}
	errno = saved;
}

int pmb__interrupt_catch(bool erase_line)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NCAUGHT; i++)
		sigaddset(&sa.sa_mask, caught[i]);
	/* System calls go on: a sample's read() of its counters must not
	 * fail because a signal came. */
	sa.sa_flags = SA_RESTART;
	erase_progress = erase_line;
	pmb__stop_signal = 0;
	for (size_t i = 0; !installed && i < NCAUGHT; i++)
		if (sigaction(caught[i], NULL, &old_action[i]))
			return -errno;
	/* A signal ignored before stays ignored: under nohup, a hang-up
	 * must not stop the run. */
	for (size_t i = 0; i < NCAUGHT; i++)
		if (old_action[i].sa_handler != SIG_IGN && sigaction(caught[i], &sa, NULL))
			return -errno;
	installed = true;
	return 0;
}

void pmb__interrupt_cut(volatile uint64_t *left)
{
	cut_at = left;
	if (!left)
		cut_disarm();
}

void pmb__interrupt_release(void)
{
	cut_at = NULL;
	cut_disarm();
	if (!installed)
		return;
	for (size_t i = 0; i < NCAUGHT; i++)
		sigaction(caught[i], &old_action[i], NULL);
	installed = false;
	erase_progress = 0;
}

void pmb__interrupt_child(pid_t pid, const char *dir)
{
	child_dir = dir;
	child_pid = pid;
	/* A signal that came before the child was known: pass it on now. */
	if (pid > 0 && pmb__stop_signal)
		kill(pid, pmb__stop_signal);
}

const char *pmb__interrupt_name(int sig)
{
	static char other[24];

	switch (sig) {
	case SIGINT: return "SIGINT";
	case SIGTERM: return "SIGTERM";
	case SIGHUP: return "SIGHUP";
	}
	snprintf(other, sizeof(other), "signal %d", sig);
	return other;
}
