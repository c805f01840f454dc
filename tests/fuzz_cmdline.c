/* fuzz_cmdline.c - libFuzzer harness: a command line (arguments split at NUL bytes) through the option table and compare's. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "run.h"

#define MAX_ARGS 64

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
	if (argc > 1 && !strcmp(argv[1], "compare")) {
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
