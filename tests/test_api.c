/* test_api.c - the public API from a user's translation unit: registration, one call per instance, arguments, skip, pmb_main, and pmb_run_with (the options as a struct). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmubench.h"
#include "registry.h"
#include "run.h"
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


/* The first line of file path, into buf; "" when it cannot be read. */
static void first_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (f && fgets(buf, (int)size, f))
		buf[strcspn(buf, "\n")] = '\0';
	if (f)
		fclose(f);
}

/* Whether a warning of run says what. */
static bool warned(const struct pmb_run *run, const char *what)
{
	for (size_t i = 0; pmb_run_warning(run, i); i++)
		if (strstr(pmb_run_warning(run, i), what))
			return true;
	return false;
}

/* pmb_run_with: fields left 0 take the defaults the command line has. */
static void typed_defaults(void)
{
	struct pmb_run_options o = { .size = sizeof(o), .filter = "^apitest/user/variant/n3$" };
	struct pmb_run *run = NULL;
	int calls = setups, rc = pmb_run_with(&o, &run);
	const struct pmb_value *v = NULL;
	size_t nv = pmb_run_values(run, 0, &v);

	tap_ok(rc == 0 && pmb_run_count(run) == 1 && !strcmp(pmb_run_name(run, 0), "apitest/user/variant/n3") &&
		       setups == calls + 1,
	       "pmb_run_with, only .size and .filter set, runs the one instance once (rc %d, %zu results: %s)", rc,
	       pmb_run_count(run), pmb_run_error(run));
	tap_ok(nv >= 1 && !strcmp(v[0].name, "time") && v[0].lo <= v[0].median && v[0].median <= v[0].hi,
	       "its figures: time first, lo <= median <= hi (%zu)", nv);
	tap_ok(run->ctx && run->ctx->m.samples == 0 && run->ctx->m.precision == 0.01 && run->ctx->m.budget_ns > 0 &&
		       run->ctx->m.repetitions == 1 && run->ctx->m.hugepages == 1 && run->ctx->m.seed == 0 &&
		       run->ctx->m.min_sample_ns >= 250e3 && seen_seed == 99,
	       "defaults: adaptive samples (fixed count %d) to +-%g %% or a budget of %.0f ms, 1 repetition, huge "
	       "pages on, the definition's seed (%llu), samples of 250 us or more (%.0f ns)",
	       run->ctx ? run->ctx->m.samples : -1, run->ctx ? run->ctx->m.precision * 100 : -1.0,
	       run->ctx ? run->ctx->m.budget_ns / 1e6 : -1.0, (unsigned long long)seen_seed,
	       run->ctx ? run->ctx->m.min_sample_ns : 0.0);
	pmb_run_free(run);
}

/* Fields set: each reaches the run, and the files asked for are written. */
static void typed_fields(void)
{
	char save[] = "/tmp/pmb-api-save-XXXXXX", out[] = "/tmp/pmb-api-csv-XXXXXX", line[256];
	int fs = mkstemp(save), fo = mkstemp(out);
	struct pmb_run_options o = {
		.size = sizeof(o), .filter = "^apitest/user/variant/n7$", .samples = 4, .repetitions = 2,
		.min_sample_time_s = 2e-4, .seed = 5, .counters = "task-clock", .no_hugepages = true,
		.out = out, .format = PMB_RUN_FORMAT_CSV, .save = save,
	};
	struct pmb_run *run = NULL;
	int rc, nsamples = 0;

	close(fs);
	close(fo);
	rc = pmb_run_with(&o, &run);
	for (size_t i = 0; run && i < run->n; i++)
		nsamples += run->res[i].m.nsamples == 4;
	tap_ok(rc == 0 && pmb_run_count(run) == 2 && nsamples == 2,
	       ".samples = 4, .repetitions = 2: two results of 4 samples each (rc %d, %zu results, %d of 4 samples: %s)",
	       rc, pmb_run_count(run), nsamples, pmb_run_error(run));
	/* 200 us, unless this machine's clock or counter reads need longer
	 * samples (then raised, and said). */
	tap_ok(run->ctx && run->ctx->m.seed == 5 && seen_seed == 5 && run->ctx->m.hugepages == 0 &&
		       (run->ctx->m.min_sample_ns == 2e5 || (run->ctx->m.min_sample_ns > 2e5 && warned(run, "raised"))) &&
		       run->ctx->m.plan.nev == 1 &&
		       !strcmp(run->ctx->m.plan.ev[0].name, "task-clock"),
	       ".seed, .no_hugepages, .min_sample_time_s and .counters reach the run (seed %llu, %d events)",
	       (unsigned long long)seen_seed, run->ctx ? run->ctx->m.plan.nev : -1);
	first_line(out, line, sizeof(line));
	tap_ok(!strncmp(line, "name,", 5), ".out with PMB_RUN_FORMAT_CSV: the CSV report (%s)", line);
	first_line(save, line, sizeof(line));
	tap_ok(line[0] == '{', ".save: the results JSON (%s)", line);
	pmb_run_free(run);
	unlink(save);
	unlink(out);
}

/* .out as a console table with .columns: the table has those columns. */
static void typed_console(void)
{
	char out[] = "/tmp/pmb-api-console-XXXXXX", buf[4096] = "";
	int fd = mkstemp(out);
	struct pmb_run_options o = { .size = sizeof(o), .filter = "^apitest/user/variant/n3$", .samples = 3,
				     .min_sample_time_s = 2e-4, .out = out, .columns = "ns,samples" };
	struct pmb_run *run = NULL;
	int rc = pmb_run_with(&o, &run);
	FILE *f = fopen(out, "r"); /* written atomically: a new file, renamed */
	size_t got = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	buf[got] = '\0';
	if (f)
		fclose(f);
	close(fd);
	tap_ok(rc == 0 && strstr(buf, "\nbenchmark ") && strstr(buf, "ns/item") && strstr(buf, " samples") &&
		       strstr(buf, "\napitest/user/variant/n3 "),
	       ".out with .columns = \"ns,samples\": the console table in the file has them (rc %d: %s)", rc,
	       pmb_run_error(run));
	pmb_run_free(run);
	unlink(out);
}

/* One bad field: refused before anything runs, its one line, -EINVAL. */
static void typed_refused(const struct pmb_run_options *o, const char *want, const char *what)
{
	struct pmb_run *run = NULL;
	int calls = setups, rc = pmb_run_with(o, &run);

	tap_ok(rc == -EINVAL && !strcmp(pmb_run_error(run), want) && pmb_run_count(run) == 0 && setups == calls,
	       "%s: refused, -EINVAL, nothing run (rc %d: %s)", what, rc, pmb_run_error(run));
	pmb_run_free(run);
}

static void typed_errors(void)
{
	union {
		struct pmb_run_options o;
		unsigned char bytes[sizeof(struct pmb_run_options) + 16];
	} newer;
	char want[512];
	struct pmb_run *run = NULL;
	int rc;

	typed_refused(&(struct pmb_run_options){ .size = sizeof(struct pmb_run_options), .samples = -1 },
		      "pmb_run_options.samples=-1: expected 1 to 1000000, or 0 for the default", ".samples = -1");
	typed_refused(&(struct pmb_run_options){ .size = sizeof(struct pmb_run_options),
						 .format = PMB_RUN_FORMAT_JSON },
		      "pmb_run_options.format=1: the format of .out, which is NULL; expected .out set too",
		      ".format without .out");
	typed_refused(&(struct pmb_run_options){ .size = sizeof(struct pmb_run_options), .wide = true },
		      "pmb_run_options.wide: the view of .out's console table, and .out is NULL; expected .out set "
		      "with PMB_RUN_FORMAT_CONSOLE", ".wide without .out");
	snprintf(want, sizeof(want), "pmb_run_options.size=0: expected sizeof(struct pmb_run_options), %zu here "
		 "(set .size where the struct is made)", sizeof(struct pmb_run_options));
	typed_refused(&(struct pmb_run_options){ .samples = 3 }, want, ".size left 0");
	/* A newer caller's larger struct: its tail must be 0. */
	memset(&newer, 0, sizeof(newer));
	newer.o.size = sizeof(newer);
	newer.o.filter = "^apitest/user/variant/n3$";
	newer.o.samples = 3;
	newer.bytes[sizeof(struct pmb_run_options) + 5] = 1;
	snprintf(want, sizeof(want), "pmb_run_options.size=%zu: byte %zu is set, past the %zu this library "
		 "(pmubench %s) knows; expected the fields of a newer header left 0, or that newer library",
		 sizeof(newer), sizeof(struct pmb_run_options) + 5, sizeof(struct pmb_run_options), PMB_VERSION_STRING);
	typed_refused(&newer.o, want, ".size past this library's struct, a byte of the tail set");
	newer.bytes[sizeof(struct pmb_run_options) + 5] = 0;
	rc = pmb_run_with(&newer.o, &run);
	tap_ok(rc == 0 && pmb_run_count(run) == 1, ".size past this library's struct, the tail 0: run (rc %d: %s)", rc,
	       pmb_run_error(run));
	pmb_run_free(run);
	/* A value only the run can check: said as the command line says it. */
	run = NULL;
	rc = pmb_run_with(&(struct pmb_run_options){ .size = sizeof(struct pmb_run_options), .filter = "^nothing/" },
			  &run);
	tap_ok(rc == -EINVAL && !strcmp(pmb_run_error(run), "--filter=^nothing/ matches no benchmark; see --list") &&
		       pmb_run_count(run) == 0,
	       "a filter that matches nothing: -EINVAL, one line (rc %d: %s)", rc, pmb_run_error(run));
	pmb_run_free(run);
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
	typed_defaults();
	typed_fields();
	typed_console();
	typed_errors();
	return tap_done();
}
