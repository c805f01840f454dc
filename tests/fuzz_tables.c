/* fuzz_tables.c - libFuzzer harness: events tables (aliases.txt, then sets.txt after a line "%%") loaded, and every set resolved. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "event_tables.h"
#include "events.h"
#include "events_internal.h"

static char dir[64];

static void write_file(const char *name, const uint8_t *p, size_t n)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f))
		__builtin_trap();
}

static void cleanup(void)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/aliases.txt", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/sets.txt", dir);
	unlink(path);
	rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *sep = memmem(data, size, "\n%%\n", 4);
	size_t na = sep ? (size_t)(sep - data) : size;
	struct pmb_event_plan plan;
	char ref[PMB_TABLE_NAME_LEN + 2];

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/fuzz_tables.XXXXXX");
		if (!mkdtemp(dir))
			__builtin_trap();
		atexit(cleanup);
	}
	write_file("aliases.txt", data, na);
	write_file("sets.txt", sep ? sep + 4 : data + size, sep ? size - na - 4 : 0);
	if (pmb__events_init(dir) != 0) {
		if (!pmb__events_error()[0] || strchr(pmb__events_error(), '\n'))
			__builtin_trap(); /* every refusal says why, on one line */
		return 0;
	}
	/* every set, as --counters=@NAME would name it: expansion stays
	 * bounded whatever the sets list */
	for (int i = 0; i < pmb__events.tab.nset; i++) {
		snprintf(ref, sizeof(ref), "@%s", pmb__events.tab.set[i].name);
		pmb__events_resolve(ref, 0, false, &plan);
	}
	pmb__events_fini();
	return 0;
}
