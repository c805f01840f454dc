/* ab.h - `pmubench ab OLD NEW`: two benchmark programs run in randomised alternation, compared pair by pair. */
#ifndef PMB_AB_H
#define PMB_AB_H

/* `pmubench ab [OPTION]... OLD NEW` (argv[0] is "ab").  OLD and NEW are
 * benchmark programs (a pmubench, or a program calling pmb_main()), or
 * plugins ending in ".so", run as this pmubench --load=SIDE.  Both must
 * list the same benchmarks; each round runs every selected benchmark of
 * both, one short run per side (a turn), in an order drawn at random; the
 * rounds stop when every figure's paired interval is as narrow as asked
 * or the time allowed is spent.  Prints, per benchmark and figure, the
 * median ratio of NEW to OLD over the rounds, its 95 % bootstrap interval,
 * Wilcoxon's signed-rank p and a verdict, as `compare` does; under
 * --backend=sim one round of exact counts.  Progress on stderr.
 * Returns the exit status: 0 nothing regressed, 1 something regressed
 * beyond the threshold, 2 bad usage, or a side that failed to run. */
int pmb__ab_main(int argc, char **argv);

/* What ab's command line asks, as parsed (pointers into argv). */
struct pmb__ab_parsed {
	const char *old, *new, *out;
	double threshold, precision;   /* fractions */
	double limit_ns, min_sample_ns;
	int samples, max_rounds;
};

/* ab's command line (argv[0] is "ab") parsed and checked as pmb__ab_main()
 * does, and nothing run or printed: for tests and the fuzz harness.
 * Returns -1 (it would run; *p filled), 0 (--help asked), or 2 with one
 * line in err saying what is wrong. */
int pmb__ab_parse(int argc, char **argv, struct pmb__ab_parsed *p, char *err, size_t errlen);

#endif
