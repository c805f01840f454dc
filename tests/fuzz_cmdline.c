/* fuzz_cmdline.c - libFuzzer harness: a command line (arguments split at NUL bytes) through the option table, compare's and ab's. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ab.h"
#include "compare.h"
#include "run_cli.h"

#define MAX_ARGS 64

/* ab's command line, parsed only (nothing run): a refusal says why on one
 * line; what is accepted names two sides and is in range. */
static void ab_line(int argc, char **argv)
{
	struct pmb__ab_parsed p;
	char err[512];
	int rc;

	err[0] = '\0';
	rc = pmb__ab_parse(argc, argv, &p, err, sizeof(err));
	if (rc != -1 && rc != 0 && rc != 2)
		__builtin_trap();
	if (rc == 2 && (!err[0] || strchr(err, '\n')))
		__builtin_trap();
	if (rc == -1 && (!p.old || !p.new || p.samples < 1 || p.max_rounds < 2 ||
			 !(p.limit_ns > 0) || !(p.threshold >= 0 && p.threshold <= 1) ||
			 !(p.precision >= 0 && p.precision <= 1) || p.min_sample_ns < 0))
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy = malloc(size + 1), *argv[MAX_ARGS + 2], *p;
	struct pmb_options o;
	int argc = 1, rc;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	copy[size] = '\0';
	argv[0] = "pmubench";
	for (p = copy; p < copy + size && argc <= MAX_ARGS; p += strlen(p) + 1)
		argv[argc++] = p;
	argv[argc] = NULL;
	if (argc > 1 && !strcmp(argv[1], "ab")) {
		ab_line(argc - 1, argv + 1);
	} else if (argc > 1 && !strcmp(argv[1], "compare")) {
		rc = pmb__compare_main(argc - 1, argv + 1);
		if (rc < 0 || rc > 2)
			__builtin_trap();
	} else {
		char err[512];

		err[0] = '\0';
		rc = pmb__run_options(argc, argv, &o, err, sizeof(err));
		if (rc < 0 || rc > 2)
			__builtin_trap();
		/* a refusal says why (quoting argv raw: pmb__out_error() makes
		 * it one visible line); what is accepted is in range */
		if (rc == 2 && !err[0])
			__builtin_trap();
		if (rc == 0 && (o.samples < 1 || o.repetitions < 1 || !(o.min_sample_ns > 0)))
			__builtin_trap();
	}
	free(copy);
	return 0;
}
