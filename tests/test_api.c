/* test_api.c - the public API from a user's translation unit: registration, one call per instance, arguments, skip, pmb_main. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmubench.h"
#include "registry.h"
#include "runner.h"
#include "tap.h"

static int setups, teardowns, loops_entered;
static int64_t seen_args[8];
static int nseen;
static uint64_t seen_seed;

static void bm_user(struct pmb_state *s)
{
	uint64_t x = 0;

	setups++;
	if (nseen < 8)
		seen_args[nseen++] = pmb_arg(s, 0);
	seen_seed = pmb_seed(s);
	pmb_set_bytes(s, 8);
	loops_entered++;
	while (pmb_loop(s))
		pmb_do_not_optimize(x++);
	teardowns++;
}
PMB_BENCHMARK(bm_user, .group = "apitest", .name = "user/variant", .args = PMB_NAMED_ARGS("n", 3, 7),
	      .seed = 99);

static void bm_skipper(struct pmb_state *s)
{
	pmb_skip(s, "CPU lacks the feature");
}
PMB_BENCHMARK(bm_skipper, .group = "apitest", .name = "skipper");

static void bm_failer(struct pmb_state *s)
{
	pmb_fail(s, "result did not verify");
}
PMB_BENCHMARK(bm_failer, .group = "apitest", .name = "failer");

static void bm_ranged(struct pmb_state *s)
{
	while (pmb_loop(s))
		pmb_clobber_memory();
}
PMB_BENCHMARK(bm_ranged, .group = "apitest", .name = "ranged", .args = PMB_RANGE(1, 100));

static void bm_ref(struct pmb_state *s)
{
	while (pmb_loop(s))
		pmb_clobber_memory();
}
PMB_BENCHMARK(bm_ref, .group = "apitest", .name = "linked/ref", .args = PMB_NAMED_ARGS("n", 3, 7));
static void bm_linked(struct pmb_state *s)
{
	while (pmb_loop(s))
		pmb_clobber_memory();
}
PMB_BENCHMARK(bm_linked, .group = "apitest", .name = "linked/fast", .args = PMB_NAMED_ARGS("n", 3, 7),
	      .reference = "linked/ref");

static void bm_orphan(struct pmb_state *s)
{
	while (pmb_loop(s))
		pmb_clobber_memory();
}
PMB_BENCHMARK(bm_orphan, .group = "apitest", .name = "orphan", .reference = "no/such/benchmark");

/* The same function registered twice, under two names. */
PMB_BENCHMARK(bm_ranged, .group = "apitest", .name = "ranged_again", .args = PMB_ARGS(5));

static const struct pmb_instance *find(const struct pmb_instance *in, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(in[i].name, name))
			return &in[i];
	return NULL;
}

/* pmb_opaque is x, of x's type without qualifiers, for each kind of scalar
 * and pointer a benchmark passes (issue 34); pmb_do_not_optimize takes any
 * expression, a struct too. */
static void opaque_keeps_values(void)
{
	const uint64_t c = 0x123456789abcdefULL;
	static const char text[] = "abc";
	enum { E_TWO = 2 } e = E_TWO;
	struct { int a, b; } pair = { 1, 2 };
	int v = 7;
	int *p = pmb_opaque(&v);
	double d = pmb_opaque(2.5);
	bool b = pmb_opaque((bool)true);
	char ch = pmb_opaque(text[1]);

	v = pmb_opaque(v) + 1; /* a variable laundered in place */
	pmb_do_not_optimize(pair);
	pmb_do_not_optimize(text);
	tap_ok(pmb_opaque(c) == c && pmb_opaque(text) == text && *p == 8 && d == 2.5 && b && ch == 'b' &&
		       pmb_opaque(e) == E_TWO && pmb_opaque((int8_t)-3) == -3,
	       "pmb_opaque returns x for const, array, pointer, double, bool, char, enum and int8_t operands");
}

int main(void)
{
	struct pmb_instance *in;
	size_t n;
	regex_t re;

	/* Registration from this file, through the constructor. */
	bool found = false;
	for (size_t i = 0; i < pmb__registry_count(); i++)
		found |= pmb__registry_get(i)->func == bm_user;
	tap_ok(found, "PMB_BENCHMARK registers a benchmark from a test file");
	opaque_keeps_values();

	regcomp(&re, "^apitest/", REG_EXTENDED | REG_NOSUB);
	tap_ok(pmb__registry_expand(&re, NULL, 0, &in, &n) == 0, "expand");
	tap_ok(find(in, n, "apitest/user/variant/n3") && find(in, n, "apitest/user/variant/n7"),
	       "names are group/kernel/variant/args");
	tap_ok(find(in, n, "apitest/ranged_again/5") != NULL, "one function registered twice, under two names");
	tap_ok(find(in, n, "apitest/ranged/1") && find(in, n, "apitest/ranged/8") &&
		       find(in, n, "apitest/ranged/64") && find(in, n, "apitest/ranged/100"),
	       "PMB_RANGE(1, 100) expands to 1, 8, 64, 100");
	const struct pmb_instance *fast = find(in, n, "apitest/linked/fast/n7");
	const struct pmb_instance *ref = find(in, n, "apitest/linked/ref/n7");
	tap_ok(fast && ref && fast->reference == ref - in, "reference links to the instance with the same args");
	tap_ok(fast && ref && fast->cohort == ref->cohort, "linked instances share a cohort (interleaved)");
	free(in);
	regfree(&re);

	/* A filter that keeps only the linked benchmark keeps its reference too. */
	regcomp(&re, "^apitest/linked/fast/n3$", REG_EXTENDED | REG_NOSUB);
	pmb__registry_expand(&re, NULL, 0, &in, &n);
	tap_ok(n == 2 && find(in, n, "apitest/linked/ref/n3"), "a filtered benchmark brings its reference (%zu)", n);
	free(in);
	regfree(&re);

	/* Run through pmb_main, as a user's program does. */
	char out[] = "/tmp/pmb-api-XXXXXX";
	int fd = mkstemp(out);
	close(fd);
	char outopt[64];
	snprintf(outopt, sizeof(outopt), "--out=%s", out);
	char *argv[] = { "test_api", "--filter=^apitest/(user|skipper)", "--samples=12",
			 "--min-sample-time=200us", outopt, NULL };
	int rc = pmb_main(5, argv);
	tap_ok(rc == 0, "pmb_main runs the user's benchmarks (rc %d)", rc);
	tap_ok(setups == 2 && teardowns == 2 && loops_entered == 2,
	       "each instance's function is called exactly once: setup %d, teardown %d", setups, teardowns);
	tap_ok(nseen == 2 && seen_args[0] == 3 && seen_args[1] == 7, "pmb_arg gives each instance its value");
	tap_ok(seen_seed == 99, "pmb_seed gives the definition's seed (%llu)", (unsigned long long)seen_seed);
	FILE *f = fopen(out, "r");
	char buf[8192] = "";
	size_t got = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	buf[got] = 0;
	if (f)
		fclose(f);
	tap_ok(strstr(buf, "apitest/user/variant/n3") != NULL, "report names the instance");
	/* The row says skipped with a footnote mark; the note under the table
	 * has the same mark and the reason. */
	const char *note = strstr(buf, " apitest/skipper skipped: CPU lacks the feature");
	const char *row = strstr(buf, "\napitest/skipper ");
	char mark[16] = "", cell[32] = "";
	if (note) {
		const char *b = note;
		while (b > buf && b[-1] != '\n')
			b--;
		snprintf(mark, sizeof(mark), "%.*s", (int)(note - b), b);
		snprintf(cell, sizeof(cell), " skipped%s", mark);
	}
	tap_ok(note && row && mark[0] && strstr(row, cell) && strstr(row, cell) < note,
	       "a skip is reported with its reason, footnoted (mark '%s')", mark);

	char *argv2[] = { "test_api", "--filter=^apitest/failer$", "--samples=10", outopt, NULL };
	rc = pmb_main(4, argv2);
	tap_ok(rc == 1, "a benchmark that fails verification makes the run exit 1 (rc %d)", rc);
	unlink(out);
	/* A reference that names no benchmark is said, not silently dropped. */
	char errf[] = "/tmp/pmb-api-err-XXXXXX";
	int efd = mkstemp(errf);
	int saved = dup(2);
	dup2(efd, 2);
	char *argv3[] = { "test_api", "--filter=^apitest/orphan$", "--samples=5", outopt, NULL };
	rc = pmb_main(4, argv3);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	char ebuf[4096] = "";
	ssize_t eg = pread(efd, ebuf, sizeof(ebuf) - 1, 0);
	ebuf[eg > 0 ? eg : 0] = 0;
	close(efd);
	unlink(errf);
	tap_ok(rc == 0 && strstr(ebuf, "names .reference = \"no/such/benchmark\", which is no benchmark here"),
	       "a reference to no benchmark is warned about (rc %d)", rc);
	unlink(out);
	tap_ok(strcmp(pmb_strerror(PMB_ENOPMU), "no hardware performance monitoring unit") == 0 &&
		       strcmp(pmb_strerror(-ENOENT), "No such file or directory") == 0,
	       "pmb_strerror names pmubench codes and errnos");
	return tap_done();
}
