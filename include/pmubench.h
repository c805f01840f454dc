/* pmubench.h - public API of libpmubench: register benchmarks, run the measured loop.
 *
 * Error rule (one rule for the whole library): a function that can fail
 * returns 0 on success or a negative errno; pmubench's own error codes sit in
 * the reserved range PMB_EBASE-1 .. PMB_EBASE-99 (see PMB_ERRNO_MAP) and
 * pmb_strerror() names every one of them.  The library never prints and never
 * exits the process; only pmb_main() (the command line) does.
 *
 * A benchmark program is one C file:
 *
 *     static void bm_sum(struct pmb_state *s)
 *     {
 *         size_t n = (size_t)pmb_arg(s, 0);
 *         int *v = make_input(n, pmb_seed(s));      // setup: not measured
 *         while (pmb_loop_batch(s, n))               // each pass = n items
 *             pmb_do_not_optimize(sum(v, n));
 *         free(v);                                   // teardown: not measured
 *     }
 *     PMB_BENCHMARK(bm_sum, .group = "demo", .args = PMB_ARGS(1024, 65536));
 *
 *     int main(int c, char **v) { return pmb_main(c, v); }
 */
#ifndef PMUBENCH_H
#define PMUBENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PMB_VERSION_STRING "0.1.0"

#if defined(PMB_BUILDING_LIBRARY)
#define PMB_API __attribute__((visibility("default")))
#else
#define PMB_API
#endif

/* ---- errors ------------------------------------------------------------ */

#define PMB_EBASE (-1000)
/* X(NAME, offset, message): PMB_E<NAME> == PMB_EBASE - offset. */
#define PMB_ERRNO_MAP(X)                                                       \
	X(NOPMU, 1, "no hardware performance monitoring unit")                  \
	X(BADEVENT, 2, "unknown event name")                                     \
	X(BADTABLE, 3, "malformed events table line")                            \
	X(NOTABLE, 4, "events tables not found")                                 \
	X(NOCACHE, 5, "the topology reports no data caches")                     \
	X(TOOBIG, 6, "working set does not fit in available memory")             \
	X(NOSIM, 7, "event cannot be provided by the simulator")                 \
	X(NOVALGRIND, 8, "valgrind is not installed")                            \
	X(BADJSON, 9, "malformed JSON input")                                    \
	X(SKIPPED, 10, "benchmark skipped itself")                               \
	X(VERIFY, 11, "kernel failed to verify its result")

enum pmb_errno {
#define PMB__ERRNO_ENUM(name, off, msg) PMB_E##name = PMB_EBASE - (off),
	PMB_ERRNO_MAP(PMB__ERRNO_ENUM)
#undef PMB__ERRNO_ENUM
};

/* Message for a negative errno or a PMB_E* code; never NULL, owned by the
 * library. */
PMB_API const char *pmb_strerror(int err);

/* ---- arguments --------------------------------------------------------- */

/** How one argument axis of a benchmark expands into instances. */
enum pmb_axis_kind {
	PMB_AXIS_NONE = 0, /* no argument: one instance */
	PMB_AXIS_LIST,     /* the values in list[0..n) */
	PMB_AXIS_RANGE,    /* lo, lo*mult, lo*mult^2, ... up to and with hi */
	PMB_AXIS_TIERS,    /* working-set sizes in bytes, chosen from the
	                      machine's caches: points inside L1, L2, L3 and DRAM */
};

/** One argument axis.  Fill it with PMB_ARGS, PMB_NAMED_ARGS, PMB_RANGE or
 * PMB_TIERS, or by hand with designated initializers. */
struct pmb_axis {
	enum pmb_axis_kind kind;
	const int64_t *list;         /* PMB_AXIS_LIST values */
	size_t n;                    /* number of values in list */
	int64_t lo, hi, mult;        /* PMB_AXIS_RANGE */
	const char *prefix;          /* name part is prefix + value ("p50") */
	const char *const *labels;   /* optional: label per list value, used
	                                instead of prefix + value */
};

/** Argument list: `.args = PMB_ARGS(1, 8, 64)`. */
#define PMB_ARGS(...)                                                           \
	{ .kind = PMB_AXIS_LIST, .list = (const int64_t[]){ __VA_ARGS__ },      \
	  .n = sizeof((const int64_t[]){ __VA_ARGS__ }) / sizeof(int64_t) }
/** Argument list whose instance names carry a prefix:
 * `PMB_NAMED_ARGS("p", 0, 50)` names instances `.../p0` and `.../p50`. */
#define PMB_NAMED_ARGS(pfx, ...)                                                \
	{ .kind = PMB_AXIS_LIST, .prefix = (pfx),                               \
	  .list = (const int64_t[]){ __VA_ARGS__ },                             \
	  .n = sizeof((const int64_t[]){ __VA_ARGS__ }) / sizeof(int64_t) }
/** Geometric range lo, 8*lo, 64*lo, ... hi (hi always included). */
#define PMB_RANGE(lo_, hi_)                                                     \
	{ .kind = PMB_AXIS_RANGE, .lo = (lo_), .hi = (hi_), .mult = 8 }
/** Working-set sizes in bytes across the cache tiers of the pinned core;
 * each instance is labelled with its tier (L1, L2, L3, DRAM). */
#define PMB_TIERS { .kind = PMB_AXIS_TIERS }

/* ---- registration ------------------------------------------------------ */

struct pmb_state;

/** What a benchmark is in a study of several forms of one kernel (the
 * branch study compares them input by input).  PMB_ROLE_NONE: no study. */
enum pmb_role {
	PMB_ROLE_NONE = 0,
	PMB_ROLE_BRANCHY,     /* the form with the data-dependent branch */
	PMB_ROLE_BRANCHLESS,  /* the same work without it */
	PMB_ROLE_SOL,         /* speed of light: the same data, no decision */
};

/** A benchmark definition.  Write it through PMB_BENCHMARK. */
struct pmb_benchmark_def {
	void (*func)(struct pmb_state *s); /* called once per instance */
	const char *fname;     /* C name of func (set by PMB_BENCHMARK) */
	const char *name;      /* "kernel/variant"; default: fname */
	const char *group;     /* first name part, e.g. "branch"; may be NULL */
	struct pmb_axis args;  /* pmb_arg(s, 0) */
	struct pmb_axis args2; /* pmb_arg(s, 1) */
	const char *baseline;  /* additive baseline: name (group-relative or
	                          full, without args) of a benchmark holding only
	                          the overhead shared with this one; its per-item
	                          cost is subtracted ("normalized" column) */
	const char *reference; /* multiplicative baseline: name of the benchmark
	                          this one is divided by ("ratio" column) */
	uint64_t seed;         /* pmb_seed() unless --seed is given; 0: default */
	bool empty;            /* calibration of the harness itself: expected
	                          to cost nothing, so "too fast to be true" is
	                          not a warning for it */
	enum pmb_role role;    /* its part in a study; PMB_ROLE_NONE: none */
	const char *study;     /* the study's name (group-relative, e.g.
	                          "sum_if"); NULL: the name without its last
	                          part ("sum_if/branchy" -> "sum_if") */
	const char *file;      /* set by PMB_BENCHMARK */
	int line;              /* set by PMB_BENCHMARK */
};

/** Add a definition to the global registry.  The pointer must stay valid
 * for the life of the program.  Returns 0, or -ENOMEM. */
PMB_API int pmb_register(const struct pmb_benchmark_def *def);

#define PMB__CAT2(a, b) a##b
#define PMB__CAT(a, b) PMB__CAT2(a, b)

/** Register fn as a benchmark, from any translation unit:
 * `PMB_BENCHMARK(bm_x, .name = "x/fast", .group = "demo", .args = ...);`
 * (a statement at file scope: it ends with a semicolon).  The same function
 * may be registered again on another line, under another name or with other
 * arguments.
 * The fields are those of struct pmb_benchmark_def. */
#define PMB__DEF(fn) PMB__CAT(PMB__CAT(pmb__def_, fn), __LINE__)
#define PMB__REG(fn) PMB__CAT(PMB__CAT(pmb__reg_, fn), __LINE__)
#define PMB_BENCHMARK(fn, ...)                                                  \
	static const struct pmb_benchmark_def PMB__DEF(fn) = {                  \
		.func = (fn), .fname = #fn, .file = __FILE__, .line = __LINE__, \
		__VA_ARGS__                                                     \
	};                                                                      \
	__attribute__((constructor)) static void PMB__REG(fn)(void)             \
	{                                                                       \
		(void)pmb_register(&PMB__DEF(fn));                              \
	}                                                                       \
	extern int pmb__benchmark_needs_a_semicolon

/* ---- the measured loop -------------------------------------------------- */

/** The state of one benchmark instance, handed to its function.  Its fields
 * are private to the library (they are visible only so that pmb_loop can be
 * inlined into a loop of one decrement and one branch). */
struct pmb_state {
	uint64_t pmb__left;      /* passes left in the running sample */
	struct pmb__run *pmb__r; /* the run this state belongs to */
};

/** Slow path of pmb_loop: ends the running sample, starts the next one.
 * Not for direct use. */
PMB_API bool pmb__loop_next(struct pmb_state *s, uint64_t items_per_pass);

/** One item per pass: `while (pmb_loop(s)) { body }`.  Returns false when
 * all samples are taken; the loop must then end. */
static inline __attribute__((always_inline)) bool pmb_loop(struct pmb_state *s)
{
	/* The empty asm keeps an empty loop a loop: without it the compiler
	 * may replace `while (pmb_loop(s)) {}` by its final value. */
	__asm__ volatile("");
	if (__builtin_expect(s->pmb__left != 0, 1)) {
		s->pmb__left--;
		return true;
	}
	return pmb__loop_next(s, 1);
}

/** `items` items per pass (items > 0, the same on every call): figures are
 * per item, so a pass over an array of n elements reports cost per element. */
static inline __attribute__((always_inline)) bool
pmb_loop_batch(struct pmb_state *s, uint64_t items)
{
	__asm__ volatile("");
	if (__builtin_expect(s->pmb__left != 0, 1)) {
		s->pmb__left--;
		return true;
	}
	return pmb__loop_next(s, items);
}

/** Value of argument axis i (0 or 1) for this instance; 0 if it has none. */
PMB_API int64_t pmb_arg(const struct pmb_state *s, int i);

/** Seed for this instance's input generator: the definition's seed, or
 * --seed; recorded in every output so a run can be reproduced. */
PMB_API uint64_t pmb_seed(const struct pmb_state *s);

/** Bytes processed per pass, for a bytes-per-second figure.  Call before
 * the loop or inside it. */
PMB_API void pmb_set_bytes(struct pmb_state *s, uint64_t bytes_per_pass);

/** Tier label of this instance's working set ("L1", "L2", "L3", "DRAM"),
 * or NULL where its arguments are not PMB_TIERS. */
PMB_API const char *pmb_tier(const struct pmb_state *s);

/** Whether sweep buffers should use transparent huge pages (--hugepages). */
PMB_API bool pmb_hugepages(const struct pmb_state *s);

/** Allocate a working-set buffer of `bytes`: 2 MiB aligned, bound to the
 * pinned core's NUMA node and backed by huge pages where allowed (unless
 * --hugepages=off); the share of huge pages it got is reported with the
 * instance.  Returns NULL on failure.  Free with pmb_buffer_free(). */
PMB_API void *pmb_buffer_alloc(struct pmb_state *s, size_t bytes);
/** Free a buffer from pmb_buffer_alloc; NULL does nothing. */
PMB_API void pmb_buffer_free(void *buf, size_t bytes);

/** Skip this instance: call before the loop and return.  The reason is
 * printed in every output (e.g. "CPU lacks BMI2"). */
PMB_API void pmb_skip(struct pmb_state *s, const char *reason);

/** Mark the instance as failed: its result did not verify.  Call before the
 * loop and return; the run reports it and exits non-zero. */
PMB_API void pmb_fail(struct pmb_state *s, const char *reason);

/** Keep the value x as if used: the compiler must compute it and cannot
 * move it out of the loop.  Costs no instruction. */
#define pmb_do_not_optimize(x) __asm__ volatile("" : : "r,m"(x) : "memory")

/** Make the compiler assume all memory was read and written. */
static inline __attribute__((always_inline)) void pmb_clobber_memory(void)
{
	__asm__ volatile("" : : : "memory");
}

/** The command line: run the registered benchmarks as options say, in
 * the "C" locale (uselocale, this thread only; the caller's is back on
 * return).  Returns the process exit status (0 ok, 1 a benchmark failed,
 * a comparison regressed or output could not be written, 2 bad usage,
 * 128 + the signal for a run stopped by SIGINT, SIGTERM or SIGHUP). */
PMB_API int pmb_main(int argc, char **argv);

#ifdef __cplusplus
}
#endif
#endif /* PMUBENCH_H */
