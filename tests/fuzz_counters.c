/* fuzz_counters.c - libFuzzer harness: a --counters list resolved against the tables of events/. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	struct pmb_event_plan plan;
	char *list;

	if (!ready) {
		const char *dir = getenv("PMUBENCH_EVENTS_DIR");

		if (pmb__events_init(dir) != 0)
			__builtin_trap(); /* the harness needs the tables */
		ready = 1;
	}
	list = malloc(size + 1);
	if (!list)
		return 0;
	memcpy(list, data, size);
	list[size] = '\0';
	if (pmb__events_resolve(list, 0, false, &plan) == 0) {
		if (plan.nev < 0 || plan.nev > PMB_MAX_EVENTS)
			__builtin_trap();
	} else if (!pmb__events_error()[0] || strchr(pmb__events_error(), '\n')) {
		__builtin_trap(); /* every refusal says why, on one line */
	}
	free(list);
	return 0;
}
