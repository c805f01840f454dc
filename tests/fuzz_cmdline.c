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
		rc = pmb__command_line(argc, argv, &o);
		if (rc != -1 && rc != 0 && rc != 2)
			__builtin_trap();
		/* what is accepted is in range */
		if (rc == -1 && (o.samples < 1 || o.repetitions < 1 || !(o.min_sample_ns > 0)))
			__builtin_trap();
	}
	free(copy);
	return 0;
}
