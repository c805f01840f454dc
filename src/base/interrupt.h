/* interrupt.h - SIGINT, SIGTERM and SIGHUP during a run: the first cuts the current sample and stops the run, a second exits at once. */
#ifndef PMB_INTERRUPT_H
#define PMB_INTERRUPT_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* The signal that asked the run to stop (SIGINT, SIGTERM, SIGHUP), 0 none.
 * The runner reads it once per sample, outside the timed window. */
extern volatile sig_atomic_t pmb__stop_signal;

/* Catch SIGINT, SIGTERM and SIGHUP until pmb__interrupt_release(): the
 * first sets pmb__stop_signal (and is passed on to a child registered with
 * pmb__interrupt_child); a second exits at once with 128 + its number,
 * after killing and reaping that child, removing its files and erasing a
 * progress line on a terminal.  erase_line: a progress line may be on
 * standard error.  Returns 0 or -errno. */
int pmb__interrupt_catch(bool erase_line);

/* The handlers from before pmb__interrupt_catch(), back; the signal seen,
 * if any, stays in pmb__stop_signal. */
void pmb__interrupt_release(void);

/* Register a child process the signals are passed on to (pid > 0; 0
 * none) and a folder of files a second signal removes, after killing the
 * child (dir NULL: none).  dir must live until it is forgotten. */
void pmb__interrupt_child(pid_t pid, const char *dir);

/* The passes left of the sample under way (NULL: none, which also stops
 * the timer below): a first signal zeroes it, so that a sample of any
 * length ends within a pass of the signal, and the zero is written again
 * every 20 ms (SIGALRM, from the first signal until this is called with
 * NULL or pmb__interrupt_release()) lest the loop's own store of its
 * decrement overwrite it.  The sample so cut is the runner's to discard. */
void pmb__interrupt_cut(volatile uint64_t *left);

/* "SIGINT", "SIGTERM", "SIGHUP", or "signal N" for another. */
const char *pmb__interrupt_name(int sig);

#endif
