/* counters_sample.c - the counters module's sampling: one event's overflows, each with the instruction pointer (--disasm with a PMU). */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "counters.h"

/* 2^RING_SHIFT data pages: drained after every sample, they need to hold
 * one sample's records only (16 bytes each). */
#define RING_SHIFT 6

struct pmb_sampler {
	int fd;
	void *map;
	size_t map_bytes, data_bytes;
};

int pmb__sampler_open(struct pmb_sampler **out, const struct perf_event_attr *ev, uint64_t period)
{
	struct perf_event_attr a = *ev;
	struct pmb_sampler *s = calloc(1, sizeof(*s));
	long page = sysconf(_SC_PAGESIZE);
	long fd;
	int rc;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	a.size = sizeof(a);
	a.sample_period = period;
	a.freq = 0;
	a.sample_type = PERF_SAMPLE_IP;
	a.read_format = 0;
	a.disabled = 1;
	a.exclude_kernel = 1; /* user mode: the loop's own instructions */
	a.exclude_hv = 1;
	a.wakeup_events = 0;
	a.watermark = 0;
	fd = syscall(SYS_perf_event_open, &a, 0 /* this thread */, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		goto fail_open;
	}
	s->fd = (int)fd;
	s->data_bytes = (size_t)page << RING_SHIFT;
	s->map_bytes = s->data_bytes + (size_t)page;
	s->map = mmap(NULL, s->map_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, 0);
	if (s->map == MAP_FAILED) {
		rc = -errno;
		goto fail_map;
	}
	*out = s;
	return 0;
fail_map:
	close(s->fd);
fail_open:
	free(s);
	return rc;
}

int pmb__sampler_enable(struct pmb_sampler *s, bool on)
{
	return ioctl(s->fd, on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0) < 0 ? -errno : 0;
}

/* Copy len bytes at ring offset off (wrapping) to dst. */
static void ring_copy(const struct pmb_sampler *s, uint64_t off, void *dst, size_t len)
{
	const char *data = (const char *)s->map + (s->map_bytes - s->data_bytes);
	size_t at = (size_t)(off % s->data_bytes), first = s->data_bytes - at;

	if (first > len)
		first = len;
	memcpy(dst, data + at, first);
	memcpy((char *)dst + first, data, len - first);
}

int pmb__sampler_drain(struct pmb_sampler *s, void (*fn)(void *arg, uint64_t ip), void *arg,
		       uint64_t *lost)
{
	struct perf_event_mmap_page *pg = s->map;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE), tail = pg->data_tail;

	while (tail < head) {
		struct perf_event_header h;
		uint64_t v[2];

		ring_copy(s, tail, &h, sizeof(h));
		if (h.size < sizeof(h))
			break;
		if (h.type == PERF_RECORD_SAMPLE && h.size >= sizeof(h) + sizeof(uint64_t)) {
			ring_copy(s, tail + sizeof(h), v, sizeof(uint64_t));
			fn(arg, v[0]);
		} else if (h.type == PERF_RECORD_LOST && h.size >= sizeof(h) + 2 * sizeof(uint64_t)) {
			ring_copy(s, tail + sizeof(h), v, 2 * sizeof(uint64_t));
			*lost += v[1];
		}
		tail += h.size;
	}
	__atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
	return 0;
}

void pmb__sampler_close(struct pmb_sampler *s)
{
	if (!s)
		return;
	munmap(s->map, s->map_bytes);
	close(s->fd);
	free(s);
}
