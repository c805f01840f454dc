/* test_defs.c - versions, definitions from other headers (by .size and .abi), and pmb_run(): figures read in a program, nothing printed. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pmubench.h"
#include "registry.h"
#include "tap.h"

static void bm_work(struct pmb_state *s)
{
	uint64_t x = pmb_seed(s);

	while (pmb_loop_batch(s, 16))
		for (int i = 0; i < 16; i++)
			pmb_do_not_optimize(x = x * 7 + 1);
}
PMB_BENCHMARK(bm_work, .group = "defs", .name = "work", .args = PMB_ARGS(1, 2));

static void bm_skips(struct pmb_state *s)
{
	pmb_skip(s, "not here");
}
PMB_BENCHMARK(bm_skips, .group = "defs", .name = "skips");

static void bm_fails(struct pmb_state *s)
{
	pmb_fail(s, "wrong sum");
}
PMB_BENCHMARK(bm_fails, .group = "defsfail", .name = "fails");

static void bm_hand(struct pmb_state *s)
{
	while (pmb_loop(s))
		pmb_clobber_memory();
}

/* The registry's copy of the definition named name, or NULL. */
static const struct pmb_benchmark_def *registered(const char *name)
{
	for (size_t i = 0; i < pmb__registry_count(); i++)
		if (pmb__registry_get(i)->name && !strcmp(pmb__registry_get(i)->name, name))
			return pmb__registry_get(i);
	return NULL;
}

static void test_version(void)
{
	const char *v = NULL;
	int n = pmb_version(&v);

	tap_ok(n == PMB_VERSION_NUMBER && v && !strcmp(v, PMB_VERSION_STRING), "pmb_version() is the header's: %d, %s",
	       n, v ? v : "(null)");
	tap_ok(PMB_VERSION_NUMBER == PMB_VERSION_MAJOR * 10000 + PMB_VERSION_MINOR * 100 + PMB_VERSION_PATCH,
	       "PMB_VERSION_NUMBER is major, minor and patch (%d)", PMB_VERSION_NUMBER);
}

/* Definitions as other headers would build them. */
static void test_sizes(void)
{
	/* An older header: .seed and what follows did not exist yet, and the
	 * bytes there are not the definition's. */
	static struct pmb_benchmark_def old = { .func = bm_hand, .name = "old", .group = "defsz",
						.seed = 77, .empty = true, .reference = "x", .line = 5 };
	static struct {
		struct pmb_benchmark_def d;
		char future[32];
	} newer = { .d = { .func = bm_hand, .name = "newer", .group = "defsz", .seed = 3 } };
	static struct pmb_benchmark_def other = { .func = bm_hand, .name = "other", .group = "defsz" };
	static struct pmb_benchmark_def tiny = { .func = bm_hand, .name = "tiny", .group = "defsz" };
	size_t refused0 = pmb__registry_refusals().n;
	const struct pmb_benchmark_def *d;

	old.size = offsetof(struct pmb_benchmark_def, seed);
	old.abi = PMB_VERSION_MAJOR;
	tap_ok(pmb_register(&old) == 0, "a definition from an older header (.size %zu of %zu) is accepted", old.size,
	       sizeof(old));
	d = registered("old");
	tap_ok(d && d->func == bm_hand && d->reference && !strcmp(d->reference, "x") && d->seed == 0 && !d->empty &&
		       d->line == 0 &&
		       d->size == sizeof(*d),
	       "its fields past .size read as zero, those before as given");
	memset(newer.future, 0x5a, sizeof(newer.future));
	newer.d.size = sizeof(newer);
	newer.d.abi = PMB_VERSION_MAJOR;
	tap_ok(pmb_register(&newer.d) == 0 && (d = registered("newer")) && d->seed == 3,
	       "a definition from a newer header of the same major version is read up to this one's size");
	other.size = sizeof(other);
	other.abi = PMB_VERSION_MAJOR + 1;
	tap_ok(pmb_register(&other) == PMB_EABI && !registered("other"),
	       "another major version is refused: %s", pmb_strerror(PMB_EABI));
	tiny.size = 4;
	tiny.abi = PMB_VERSION_MAJOR;
	tap_ok(pmb_register(&tiny) == PMB_EDEFSIZE && !registered("tiny"), "a .size that cannot hold .func is refused");
	tap_ok(pmb__registry_refusals().n == refused0 + 2 && pmb__registry_refusals().first_abi == other.abi,
	       "refusals are counted, the first one's major version kept (%d)", pmb__registry_refusals().first_abi);
}

/* pmb_run with argv, stdout and stderr sent to a file: returns its code,
 * and *printed the bytes it wrote. */
static int run_quiet(char **argv, int argc, struct pmb_run **run, long *printed)
{
	char path[] = "/tmp/pmb-defs-XXXXXX";
	int fd = mkstemp(path), out = dup(1), err = dup(2), rc;
	struct stat st;

	fflush(stdout);
	dup2(fd, 1);
	dup2(fd, 2);
	rc = pmb_run(argc, argv, run);
	fflush(stdout);
	fflush(stderr);
	dup2(out, 1);
	dup2(err, 2);
	close(out);
	close(err);
	*printed = fstat(fd, &st) == 0 ? (long)st.st_size : -1;
	close(fd);
	unlink(path);
	return rc;
}

static void test_run_values(const struct pmb_run *run, size_t i)
{
	const struct pmb_value *v;
	size_t n = pmb_run_values(run, i, &v);
	bool ordered = n > 0;

	for (size_t k = 0; k < n; k++)
		ordered &= v[k].lo <= v[k].median && v[k].median <= v[k].hi && v[k].name && v[k].unit;
	tap_ok(n >= 1 && !strcmp(v[0].name, "time") && !strcmp(v[0].unit, "ns") && v[0].median > 0,
	       "%s: time first, in ns per item (%zu figures, %.3g ns)", pmb_run_name(run, i), n,
	       n ? v[0].median : 0.0);
	tap_ok(ordered, "%s: every figure has a name, a unit, lo <= median <= hi", pmb_run_name(run, i));
	for (size_t k = 0; k < n; k++)
		if (!strcmp(v[k].name, "est-cycles"))
			tap_ok(v[k].flags & PMB_VALUE_ESTIMATED, "est-cycles is flagged estimated");
		else if (!strcmp(v[k].name, "instructions"))
			tap_ok(!strcmp(v[k].unit, "instructions") && !(v[k].flags & PMB_VALUE_ESTIMATED),
			       "instructions are counted, in instructions per item");
}

static void test_run(void)
{
	char *argv[] = { "test_defs", "--filter=^defs/", "--samples=6", "--min-sample-time=200us", NULL };
	struct pmb_run *run = NULL;
	const char *why = NULL;
	long printed = -1;
	int rc = run_quiet(argv, 4, &run, &printed);

	tap_ok(rc == 0 && !*pmb_run_error(run), "pmb_run runs the program's benchmarks (rc %d: %s)", rc,
	       pmb_run_error(run));
	tap_ok(printed == 0, "and prints nothing (%ld bytes)", printed);
	tap_ok(pmb_run_count(run) == 3 && !strcmp(pmb_run_name(run, 0), "defs/work/1") &&
		       !strcmp(pmb_run_name(run, 1), "defs/work/2") && !strcmp(pmb_run_name(run, 2), "defs/skips"),
	       "one result per instance, in run order (%zu)", pmb_run_count(run));
	for (size_t i = 0; i < 2 && pmb_run_count(run) == 3; i++)
		test_run_values(run, i);
	const struct pmb_value *v;
	tap_ok(pmb_run_status(run, 2, &why) == PMB_ESKIPPED && why && !strcmp(why, "not here") &&
		       pmb_run_values(run, 2, &v) == 0 && v == NULL,
	       "a skipped result has its status and reason, and no figures");
	tap_ok(pmb_run_name(run, 3) == NULL && pmb_run_status(run, 3, NULL) == -ERANGE &&
		       pmb_run_values(run, 3, &v) == 0,
	       "past the end: NULL, -ERANGE, no figures");
	tap_ok(pmb_run_warning(run, 0) == NULL || strlen(pmb_run_warning(run, 0)) > 10,
	       "warnings are readable (%s)", pmb_run_warning(run, 0) ? pmb_run_warning(run, 0) : "none");
	pmb_run_free(run);
	pmb_run_free(NULL);
}

static void test_run_refused(void)
{
	static const struct {
		const char *arg, *said;
		int rc;
	} cases[] = {
		{ "--list", "--list", -EINVAL },
		{ "--format=json", "--format", -EINVAL },
		{ "--samples=0", "--samples=0", -EINVAL },
		{ "--backend=sim", "--backend=sim", -EINVAL },
		{ "--filter=^nothing-here$", "matches no benchmark", -EINVAL },
		{ "--load=/nonexistent.so", "--load=/nonexistent.so", -EINVAL },
		{ "--filter=^defsfail/", "", PMB_EVERIFY },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *argv[] = { "test_defs", (char *)cases[i].arg, "--samples=3", "--min-sample-time=200us", NULL };
		struct pmb_run *run = NULL;
		long printed = -1;
		int rc = run_quiet(argv, i == 2 ? 2 : 4, &run, &printed);

		tap_ok(rc == cases[i].rc && strstr(pmb_run_error(run), cases[i].said) && printed == 0,
		       "pmb_run %s: %d, \"%s\", nothing printed", cases[i].arg, rc, pmb_run_error(run));
		if (cases[i].rc == PMB_EVERIFY)
			tap_ok(pmb_run_count(run) == 1 && pmb_run_status(run, 0, NULL) == PMB_EVERIFY,
			       "a failed check: the run is complete and the result says so");
		pmb_run_free(run);
	}
}

int main(void)
{
	test_version();
	test_sizes();
	test_run();
	test_run_refused();
	return tap_done();
}
