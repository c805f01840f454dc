/* pmubench.h - public API of libpmubench: register benchmarks, run the measured loop.
 *
 * Error rule (one rule for the whole library): a function that can fail
 * returns 0 on success or a negative errno; pmubench's own error codes sit in
 * the reserved range PMB_EBASE-1 .. PMB_EBASE-99 (see PMB_ERRNO_MAP) and
 * pmb_strerror() names every one of them.  The library never prints and never
 * exits the process; only pmb_main() (the command line) does.
 *
 * A benchmark program is one C or C++ file (C99 or C++11 and later):
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

/* ---- version ------------------------------------------------------------ */

/* The version of this header.  The major version changes with any change a
 * program must be rebuilt for (the definition struct's layout, a function's
 * signature); minor versions only add (functions, fields at the end of
 * struct pmb_benchmark_def), and the library reads definitions of any older
 * minor version of its major by their .size. */
#define PMB_VERSION_MAJOR 0
#define PMB_VERSION_MINOR 1
#define PMB_VERSION_PATCH 0
#define PMB_VERSION_STRING "0.1.0"
/* One number, MAJOR * 10000 + MINOR * 100 + PATCH, for #if. */
#define PMB_VERSION_NUMBER                                                      \
	(PMB_VERSION_MAJOR * 10000 + PMB_VERSION_MINOR * 100 + PMB_VERSION_PATCH)

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
	X(VERIFY, 11, "kernel failed to verify its result")                      \
	X(ABI, 12, "built against another major version of pmubench.h")         \
	X(DEFSIZE, 13, "benchmark definition of an unknown size")

enum pmb_errno {
#define PMB__ERRNO_ENUM(name, off, msg) PMB_E##name = PMB_EBASE - (off),
	PMB_ERRNO_MAP(PMB__ERRNO_ENUM)
#undef PMB__ERRNO_ENUM
};

/* Message for a negative errno or a PMB_E* code; never NULL, owned by the
 * library. */
PMB_API const char *pmb_strerror(int err);

/* The library's version, PMB_VERSION_NUMBER as it was built (compare with
 * the header's to see what a program runs against); *string, when not NULL,
 * gets "0.1.0", owned by the library. */
PMB_API int pmb_version(const char **string);

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

#ifndef __cplusplus
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
#else
/* C++ has no compound literals (nor, before C++20, designated
 * initializers): the same macros are expressions there, the values in an
 * array of static storage inside a lambda.  The outer parentheses keep
 * their commas inside one macro argument of PMB_BENCHMARK. */
static inline struct pmb_axis pmb__axis_of(enum pmb_axis_kind kind, const int64_t *list, size_t n,
					   int64_t lo, int64_t hi, const char *prefix)
{
	struct pmb_axis a = pmb_axis();

	a.kind = kind;
	a.list = list;
	a.n = n;
	a.lo = lo;
	a.hi = hi;
	a.mult = kind == PMB_AXIS_RANGE ? 8 : 0;
	a.prefix = prefix;
	return a;
}
#define PMB__CXX_LIST(pfx, ...)                                                 \
	([]() -> struct pmb_axis {                                              \
		static const int64_t v_[] = { __VA_ARGS__ };                    \
		return pmb__axis_of(PMB_AXIS_LIST, v_, sizeof(v_) / sizeof(v_[0]), \
				    0, 0, (pfx));                               \
	}())
#define PMB_ARGS(...) PMB__CXX_LIST(nullptr, __VA_ARGS__)
#define PMB_NAMED_ARGS(pfx, ...) PMB__CXX_LIST(pfx, __VA_ARGS__)
#define PMB_RANGE(lo_, hi_) (pmb__axis_of(PMB_AXIS_RANGE, nullptr, 0, (lo_), (hi_), nullptr))
#define PMB_TIERS (pmb__axis_of(PMB_AXIS_TIERS, nullptr, 0, 0, 0, nullptr))
#endif

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

/** A benchmark definition.  Write it through PMB_BENCHMARK.  The first two
 * fields stay first in every version: by them the library reads a
 * definition built against another header (fields past .size are zero to
 * it) or refuses one of another major version. */
struct pmb_benchmark_def {
	size_t size;           /* sizeof(struct pmb_benchmark_def) where it was
	                          built (set by PMB_BENCHMARK) */
	int abi;               /* PMB_VERSION_MAJOR where it was built (set by
	                          PMB_BENCHMARK) */
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
	/* Optional: prepares the input of the next sample, outside the
	 * measurement (after the previous sample's clock stopped, before the
	 * next one's starts), told how many passes that sample will make.
	 * Called before every sample: warm-up, calibration and re-warm
	 * samples too.  For inputs a pass consumes (sorting in place) or that
	 * must not be learned (a branch predictor memorises a short input
	 * that every pass repeats): give each pass data it has not seen.
	 * Reach the benchmark's own state through pmb_user_data(s). */
	void (*prepare)(struct pmb_state *s, uint64_t passes);
};

/** Add a definition to the global registry.  The library keeps a copy;
 * strings and argument lists it points to must stay valid for the life of
 * the program.  Returns 0, -ENOMEM, PMB_EABI (def->abi is not this
 * library's PMB_VERSION_MAJOR) or PMB_EDEFSIZE (def->size too small to
 * hold .func).  A refused definition is counted, and `pmubench --load`
 * says why. */
PMB_API int pmb_register(const struct pmb_benchmark_def *def);

#define PMB__CAT2(a, b) a##b
#define PMB__CAT(a, b) PMB__CAT2(a, b)
#define PMB__STR2(...) #__VA_ARGS__
#define PMB__HEAD(a, ...) a
#define PMB__HEAD_STR(a, ...) PMB__STR2(a)

/** Register fn as a benchmark, from any translation unit, in C or C++:
 * `PMB_BENCHMARK(bm_x, .name = "x/fast", .group = "demo", .args = ...);`
 * (a statement at file scope: it ends with a semicolon).  The same function
 * may be registered again on another line, under another name or with other
 * arguments.  The fields are those of struct pmb_benchmark_def, in any
 * order; .size, .abi, .func, .fname, .file and .line are set here. */
#define PMB_BENCHMARK(...) PMB__BENCHMARK(__COUNTER__, __VA_ARGS__)

/** Register the function an expression in parentheses gives, under a name
 * (required: the expression is no name), with the same fields:
 * `PMB_BENCHMARK_FN((bm<3, 5>), "bm/3x5", .group = "demo");` or
 * `PMB_BENCHMARK_FN(([](struct pmb_state *s) { ... }), "demo/lambda");`.
 * For what one macro argument cannot hold: a C++ template's arguments or a
 * lambda's body (their commas would split it), a capture-free lambda (it
 * converts to the function pointer).  .fname is the expression's text
 * without its parentheses. */
#define PMB_BENCHMARK_FN(fn, ...) PMB__BENCHMARK_FN(__COUNTER__, fn, __VA_ARGS__)
#define PMB__UNPAREN_STR(...) #__VA_ARGS__

#ifndef __cplusplus
/* Definition pmb__def_<id> registered before main. */
#define PMB__REGISTER(id)                                                       \
	__attribute__((constructor)) static void PMB__CAT(pmb__reg_, id)(void)  \
	{                                                                       \
		(void)pmb_register(&PMB__CAT(pmb__def_, id));                   \
	}                                                                       \
	extern int pmb__benchmark_needs_a_semicolon
#define PMB__BENCHMARK(id, ...)                                                 \
	static const struct pmb_benchmark_def PMB__CAT(pmb__def_, id) = {       \
		.size = sizeof(struct pmb_benchmark_def),                       \
		.abi = PMB_VERSION_MAJOR,                                       \
		.fname = PMB__HEAD_STR(__VA_ARGS__, ~),                         \
		.file = __FILE__, .line = __LINE__,                             \
		.func = __VA_ARGS__                                             \
	};                                                                      \
	PMB__REGISTER(id)
#define PMB__BENCHMARK_FN(id, fn, ...)                                          \
	static const struct pmb_benchmark_def PMB__CAT(pmb__def_, id) = {       \
		.size = sizeof(struct pmb_benchmark_def),                       \
		.abi = PMB_VERSION_MAJOR,                                       \
		.func = fn,                                                     \
		.fname = PMB__UNPAREN_STR fn,                                   \
		.file = __FILE__, .line = __LINE__,                             \
		.name = __VA_ARGS__                                             \
	};                                                                      \
	PMB__REGISTER(id)
#else
/* C++: each `.field = value` becomes the statement `d .field = value;` on
 * a zeroed definition, in the registering function (up to 24 fields). */
#define PMB__NARG(...) PMB__NARG_(__VA_ARGS__, 25, 24, 23, 22, 21, 20, 19, 18, \
	17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, ~)
#define PMB__NARG_(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13,    \
	a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24, a25, n, ...) n
#define PMB__SET1(d, f)
#define PMB__SET2(d, f, a) d a;
#define PMB__SET3(d, f, a, ...) d a; PMB__SET2(d, f, __VA_ARGS__)
#define PMB__SET4(d, f, a, ...) d a; PMB__SET3(d, f, __VA_ARGS__)
#define PMB__SET5(d, f, a, ...) d a; PMB__SET4(d, f, __VA_ARGS__)
#define PMB__SET6(d, f, a, ...) d a; PMB__SET5(d, f, __VA_ARGS__)
#define PMB__SET7(d, f, a, ...) d a; PMB__SET6(d, f, __VA_ARGS__)
#define PMB__SET8(d, f, a, ...) d a; PMB__SET7(d, f, __VA_ARGS__)
#define PMB__SET9(d, f, a, ...) d a; PMB__SET8(d, f, __VA_ARGS__)
#define PMB__SET10(d, f, a, ...) d a; PMB__SET9(d, f, __VA_ARGS__)
#define PMB__SET11(d, f, a, ...) d a; PMB__SET10(d, f, __VA_ARGS__)
#define PMB__SET12(d, f, a, ...) d a; PMB__SET11(d, f, __VA_ARGS__)
#define PMB__SET13(d, f, a, ...) d a; PMB__SET12(d, f, __VA_ARGS__)
#define PMB__SET14(d, f, a, ...) d a; PMB__SET13(d, f, __VA_ARGS__)
#define PMB__SET15(d, f, a, ...) d a; PMB__SET14(d, f, __VA_ARGS__)
#define PMB__SET16(d, f, a, ...) d a; PMB__SET15(d, f, __VA_ARGS__)
#define PMB__SET17(d, f, a, ...) d a; PMB__SET16(d, f, __VA_ARGS__)
#define PMB__SET18(d, f, a, ...) d a; PMB__SET17(d, f, __VA_ARGS__)
#define PMB__SET19(d, f, a, ...) d a; PMB__SET18(d, f, __VA_ARGS__)
#define PMB__SET20(d, f, a, ...) d a; PMB__SET19(d, f, __VA_ARGS__)
#define PMB__SET21(d, f, a, ...) d a; PMB__SET20(d, f, __VA_ARGS__)
#define PMB__SET22(d, f, a, ...) d a; PMB__SET21(d, f, __VA_ARGS__)
#define PMB__SET23(d, f, a, ...) d a; PMB__SET22(d, f, __VA_ARGS__)
#define PMB__SET24(d, f, a, ...) d a; PMB__SET23(d, f, __VA_ARGS__)
#define PMB__SET25(d, f, a, ...) d a; PMB__SET24(d, f, __VA_ARGS__)
#define PMB__BENCHMARK(id, ...)                                                 \
	__attribute__((constructor)) static void PMB__CAT(pmb__reg_, id)(void)  \
	{                                                                       \
		static struct pmb_benchmark_def d_;                             \
		d_.size = sizeof(struct pmb_benchmark_def);                     \
		d_.abi = PMB_VERSION_MAJOR;                                     \
		d_.func = PMB__HEAD(__VA_ARGS__, ~);                            \
		d_.fname = PMB__HEAD_STR(__VA_ARGS__, ~);                       \
		d_.file = __FILE__;                                             \
		d_.line = __LINE__;                                             \
		PMB__CAT(PMB__SET, PMB__NARG(__VA_ARGS__))(d_, __VA_ARGS__)     \
		(void)pmb_register(&d_);                                        \
	}                                                                       \
	extern int pmb__benchmark_needs_a_semicolon
/* The name is the first of __VA_ARGS__, which PMB__SETn skips as it skips
 * PMB_BENCHMARK's function. */
#define PMB__BENCHMARK_FN(id, fn, ...)                                          \
	__attribute__((constructor)) static void PMB__CAT(pmb__reg_, id)(void)  \
	{                                                                       \
		static struct pmb_benchmark_def d_;                             \
		d_.size = sizeof(struct pmb_benchmark_def);                     \
		d_.abi = PMB_VERSION_MAJOR;                                     \
		d_.func = fn;                                                   \
		d_.fname = PMB__UNPAREN_STR fn;                                 \
		d_.name = PMB__HEAD(__VA_ARGS__, ~);                            \
		d_.file = __FILE__;                                             \
		d_.line = __LINE__;                                             \
		PMB__CAT(PMB__SET, PMB__NARG(__VA_ARGS__))(d_, __VA_ARGS__)     \
		(void)pmb_register(&d_);                                        \
	}                                                                       \
	extern int pmb__benchmark_needs_a_semicolon
#endif

/* ---- the measured loop -------------------------------------------------- */

/** The state of one benchmark instance, handed to its function.  Its fields
 * are private to the library (they are visible only so that pmb_loop can be
 * inlined into a loop of one decrement and one branch). */
struct pmb_state {
	uint64_t pmb__left;      /* passes left in the running sample */
	struct pmb__running *pmb__r; /* the runner's state of the benchmark this state belongs to */
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

/** Attach the benchmark's own data to its state, for its prepare hook
 * (struct pmb_benchmark_def.prepare) to find: call before the loop. */
PMB_API void pmb_set_user_data(struct pmb_state *s, void *data);
/** What pmb_set_user_data attached; NULL if nothing. */
PMB_API void *pmb_user_data(const struct pmb_state *s);

/** Bytes processed per pass, for a bytes-per-second figure.  Call before
 * the loop or inside it. */
PMB_API void pmb_set_bytes(struct pmb_state *s, uint64_t bytes_per_pass);

/** Declare the share of items (0..1) on which a good branch predictor
 * mispredicts this instance's data-dependent branch, as its input was made
 * (e.g. 0.10 for a byte that passes on a random 10 % of items).  The branch
 * study fits a misprediction penalty from these rates where no PMU counts
 * mispredictions; without counts and without a declared rate it prints
 * none (it never reads a rate from the benchmark's name or arguments).
 * Call before the loop.  Returns 0, or -EINVAL for a rate outside 0..1
 * (nothing is recorded).  Added in 0.1: a program that calls it needs a
 * library that has it; struct pmb_benchmark_def is unchanged. */
PMB_API int pmb_set_mispredict_rate(struct pmb_state *s, double rate);

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
/** The same as pmb_buffer_alloc, but backed by 4 KiB pages whatever
 * --hugepages says (transparent huge pages refused for it): a working set
 * as lmbench's lat_mem_rd walks it, its TLB misses included.  Free with
 * pmb_buffer_free().  Added in 0.2. */
PMB_API void *pmb_buffer_alloc_4k(struct pmb_state *s, size_t bytes);
/** Free a buffer from pmb_buffer_alloc; NULL does nothing. */
PMB_API void pmb_buffer_free(void *buf, size_t bytes);

/** What fills a shared buffer: `bytes` of input into buf, from seed.
 * Returns 0, or non-zero where it cannot (the buffer is then not made). */
typedef int (*pmb_buffer_fill_fn)(void *buf, size_t bytes, uint64_t seed);
/** A read-only input that the benchmarks measured together (a cohort,
 * linked by .reference or .baseline, interleaved) share: the first call
 * with this fill function, size and pmb_seed() makes the buffer as
 * pmb_buffer_alloc() does and fills it; later calls get the same buffer,
 * filled once, so k forms of one kernel hold one working set, not k.  The
 * benchmarks must only read it.  Returns NULL where it cannot be made or
 * fill failed.  Release with pmb_buffer_release(): the last release frees
 * it.  Added in 0.2. */
PMB_API void *pmb_buffer_shared(struct pmb_state *s, size_t bytes, pmb_buffer_fill_fn fill);
/** Release a buffer from pmb_buffer_shared; NULL does nothing. */
PMB_API void pmb_buffer_release(void *buf);

/** Skip this instance: call before the loop and return.  The reason is
 * printed in every output (e.g. "CPU lacks BMI2"). */
PMB_API void pmb_skip(struct pmb_state *s, const char *reason);

/** Mark the instance as failed: its result did not verify.  Call before the
 * loop and return; the run reports it and exits non-zero. */
PMB_API void pmb_fail(struct pmb_state *s, const char *reason);

/* A copy of x, of x's type without qualifiers (arrays and functions become
 * pointers): __auto_type is GNU C (gcc 4.9, clang 3.8), auto is C++11. */
#ifdef __cplusplus
#define PMB__COPY(v, x) auto v = (x)
#else
#define PMB__COPY(v, x) __auto_type v = (x)
#endif
/** x's value, which the compiler cannot know: x passes through an empty
 * asm with an in/out register operand each time the expression runs, so
 * work that uses the result cannot be folded, nor computed once before the
 * loop when x is the same every pass.  Any scalar or pointer type, in C and
 * C++ (a copy of x's type without qualifiers); costs no instruction where
 * x is in a general register already (a move where x stays live beside the
 * result, two for a floating type).  It does not make x's own computation
 * happen each time: make the inputs opaque, not the result.  To make a
 * variable unknown from here on, write v = pmb_opaque(v). */
#define pmb_opaque(x)                                                           \
	__extension__({                                                         \
		PMB__COPY(pmb__opaque, x);                                      \
		__asm__ volatile("" : "+r"(pmb__opaque));                       \
		pmb__opaque;                                                    \
	})

/** Keep the value x as if used: the compiler must have computed x where the
 * statement runs and must assume the statement read and wrote all memory.
 * x is any expression (a struct too).  Costs no instruction.  It does not
 * keep the work that computes x inside the loop: work whose inputs are the
 * same every pass is done once before the loop; pass those inputs through
 * pmb_opaque().  x is the asm's input, not an in/out operand: an in/out
 * operand must be an lvalue, and one on a copy of x adds a move or a store
 * each pass (seen in gcc 12's code for bm_chase) and hides nothing more. */
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

/* ---- runs inside a program -------------------------------------------- */

/** The results of one run, kept by the program that ran it (opaque). */
struct pmb_run;

/** What a figure is, besides a measurement (bits of pmb_value.flags). */
enum pmb_value_flag {
	PMB_VALUE_ESTIMATED = 1,        /* from time and a frequency estimate:
	                                   no cycles counter */
	PMB_VALUE_SIMULATED = 2,        /* counted by valgrind (--backend=sim
	                                   with the program under valgrind) */
	PMB_VALUE_MULTIPLEXED = 4,      /* the counter shared the PMU: scaled */
	PMB_VALUE_BELOW_RESOLUTION = 8, /* under what the run resolves: the
	                                   median is then that bound, not a value */
};

/** One per-item figure of one result: the median over the samples, with
 * the harness's own cost subtracted, and its 95 % interval.  Fields are
 * only ever added at the end. */
struct pmb_value {
	const char *name;    /* "time", "est-cycles", or an event as it was
	                        asked for ("instructions", "branch-misses") */
	const char *unit;    /* per item: "ns", "cycles", "instructions" or
	                        "events" */
	double median;
	double lo, hi;       /* 95 % bootstrap interval of the median */
	unsigned flags;      /* PMB_VALUE_* */
};

/** Run the registered benchmarks as the command line argv[0..argc) says
 * (argv[0] a program name, then options of pmubench(1), e.g.
 * "--filter=^demo/", "--samples=10", "--counters=instructions",
 * "--load=./x.so"), printing nothing.  Options that only print (--list,
 * --list-events, --topology, --self-check, --format, --out, --plot, --help,
 * --version) and --backend=sim outside valgrind are refused.  *run is set
 * whenever memory allows, failed or not: read pmb_run_error() and free it
 * with pmb_run_free().  Returns 0, -EINVAL (options: see pmb_run_error),
 * -ENOMEM, or PMB_EVERIFY (the run is complete, a benchmark failed its
 * check), or another negative code with the message in pmb_run_error(). */
PMB_API int pmb_run(int argc, char **argv, struct pmb_run **run);

/** pmb_run_options.backend: what counts (pmubench(1)'s --backend). */
enum pmb_run_backend {
	PMB_RUN_BACKEND_AUTO,  /* perf_event (the default) */
	PMB_RUN_BACKEND_PERF,  /* perf_event */
	PMB_RUN_BACKEND_SIM,   /* valgrind: only in a program run under it */
};

/** pmb_run_options.read: how counters are read per sample (--read). */
enum pmb_run_read {
	PMB_RUN_READ_AUTO,     /* from user space where allowed, else read() */
	PMB_RUN_READ_SELF,     /* from user space, or nothing is measured */
	PMB_RUN_READ_SYSCALL,  /* read() */
};

/** pmb_run_options.format: what pmb_run_options.out holds (--format). */
enum pmb_run_format {
	PMB_RUN_FORMAT_CONSOLE, /* the console table, $COLUMNS wide, else 100 */
	PMB_RUN_FORMAT_JSON,
	PMB_RUN_FORMAT_CSV,
};

/** The options of pmb_run_with(), as fields.  Every field left 0 (NULL,
 * false) takes its default; .size is sizeof(struct pmb_run_options) where
 * the caller was built.  Fields are only ever added at the end: a library
 * older than the caller's header runs it where the fields it does not know
 * are all 0, and refuses it otherwise. */
struct pmb_run_options {
	size_t size;                 /* sizeof(struct pmb_run_options) */
	const char *filter;          /* benchmarks whose name matches this
	                                POSIX ERE; NULL all */
	const char *const *load;     /* shared objects (-shared -fPIC) whose
	                                benchmarks run instead of the program's,
	                                NULL-terminated, at most 16; NULL none */
	int samples;                 /* per benchmark, 1 to 1000000; 0: until
	                                .precision or the budget */
	double precision;            /* stop once the median's interval is
	                                within +-precision (a fraction, below
	                                1); 0: 0.01; negative: no such stop */
	double min_sample_time_s;    /* shortest sample, at most 10; 0: 250 us */
	int repetitions;             /* calls of each benchmark, 1 to 1000;
	                                0: 1 */
	bool pin_cpu;                /* pin to .cpu; false: the core it
	                                started on */
	int cpu;
	const char *counters;        /* events, as --counters; NULL the default */
	bool kernel;                 /* count kernel mode too */
	enum pmb_run_backend backend;
	enum pmb_run_read read;
	bool no_hugepages;           /* sweep buffers without huge pages */
	bool full_sweep;             /* every working set of a sweep, not two
	                                per cache tier */
	uint64_t seed;               /* every input generator's; 0 each
	                                benchmark's own */
	const char *out;             /* the report, written to this file
	                                (atomically); NULL none */
	enum pmb_run_format format;  /* .out's; needs .out */
	const char *save;            /* the results JSON to this file too (for
	                                `pmubench report`); NULL none */
	const char *columns;         /* .out's console table: these columns
	                                (as --columns); NULL chosen */
	bool wide;                   /* .out's console table: every column */
};

/** Run the registered benchmarks as options says (NULL: every default),
 * printing nothing: as pmb_run(), without a command line.  *run is set
 * whenever memory allows, failed or not.  Returns 0, -EINVAL (a field out
 * of range, or options the run refused: one line in pmb_run_error()),
 * -ENOMEM, -EIO (measured, but .out or .save could not be written),
 * PMB_EVERIFY, or another negative code with the message in
 * pmb_run_error(). */
PMB_API int pmb_run_with(const struct pmb_run_options *options, struct pmb_run **run);
/** Free a run and everything read from it; NULL does nothing. */
PMB_API void pmb_run_free(struct pmb_run *run);
/** Why the run failed, one line; "" when it did not. */
PMB_API const char *pmb_run_error(const struct pmb_run *run);
/** Results: one per benchmark instance and repetition, in run order. */
PMB_API size_t pmb_run_count(const struct pmb_run *run);
/** Result i's name, "group/name/args"; NULL past the end. */
PMB_API const char *pmb_run_name(const struct pmb_run *run, size_t i);
/** Result i's status: 0 measured, PMB_ESKIPPED (pmb_skip) or PMB_EVERIFY
 * (pmb_fail), -ERANGE past the end; *reason, when not NULL, gets the
 * reason given ("" for none). */
PMB_API int pmb_run_status(const struct pmb_run *run, size_t i, const char **reason);
/** Result i's figures: sets *values to an array owned by the run and
 * returns its length (0 for a skipped or failed result, or past the end).
 * Time first, then the events counted, then "est-cycles" where cycles
 * are estimated; an event that was not counted is left out. */
PMB_API size_t pmb_run_values(const struct pmb_run *run, size_t i, const struct pmb_value **values);
/** Warning i of the run (each once, as pmubench would print it); NULL past
 * the end. */
PMB_API const char *pmb_run_warning(const struct pmb_run *run, size_t i);

#ifdef __cplusplus
}
#endif
#endif /* PMUBENCH_H */
