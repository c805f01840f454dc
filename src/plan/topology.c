/* topology.c - caches, cores and NUMA nodes from hwloc; cache tiers, pinning, working-set buffers. */
#include "topology.h"
#include "tlb.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hwloc.h>

#include "base.h"
#include "pmubench.h"


struct pmb_topology {
	hwloc_topology_t h;
	bool this_machine; /* loaded from the machine, not a description */
};

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* An XML topology is a regular file of at most 64 MiB, checked before
 * hwloc reads it: a FIFO would block, /dev/zero never end.  Returns 0 or
 * -errno (-EISDIR, -EINVAL not a regular file, -EFBIG). */
static int check_xml(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK), err = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st))
		err = -errno;
	else if (S_ISDIR(st.st_mode))
		err = -EISDIR;
	else if (!S_ISREG(st.st_mode))
		err = -EINVAL;
	else if (st.st_size > ((off_t)64 << 20))
		err = -EFBIG;
	close(fd);
	return err;
}

/* hwloc's plugins discover I/O devices (GL, OpenCL, PCI) and read XML
 * through libxml2.  pmubench keeps no I/O object and reads XML with hwloc's
 * own parser, yet hwloc dlopens every plugin at its first topology, and the
 * GL one brings libX11 and libXNVCtrl into the measured process: about
 * 0.2 s of every sim run's startup under valgrind (0.60 against 0.40 s for
 * a topology load here).  A blacklist the user set is left as it is. */
static void skip_io_plugins(void)
{
	if (!getenv("HWLOC_PLUGINS_BLACKLIST"))
		setenv("HWLOC_PLUGINS_BLACKLIST", "hwloc_gl,hwloc_opencl,hwloc_pci,hwloc_xml_libxml", 0);
}

int pmb__topology_load(struct pmb_topology **t, const char *src)
{
	struct pmb_topology *tp;
	int err;

	*t = NULL;
	tp = calloc(1, sizeof(*tp));
	if (!tp)
		return -ENOMEM;
	skip_io_plugins();
	if (hwloc_topology_init(&tp->h) < 0) {
		err = -(errno ? errno : ENOMEM);
		goto fail_init;
	}
	/* No PCI/OS devices: they cost most of the load time and say nothing
	 * about caches.  Instruction caches are irrelevant to working sets. */
	hwloc_topology_set_io_types_filter(tp->h, HWLOC_TYPE_FILTER_KEEP_NONE);
	hwloc_topology_set_cache_types_filter(tp->h, HWLOC_TYPE_FILTER_KEEP_ALL);
	hwloc_topology_set_icache_types_filter(tp->h, HWLOC_TYPE_FILTER_KEEP_NONE);
	errno = 0;
	if (src && ends_with(src, ".xml") && (err = check_xml(src)))
		goto fail_source;
	if (src && ends_with(src, ".xml"))
		err = hwloc_topology_set_xml(tp->h, src);
	else if (src)
		err = hwloc_topology_set_synthetic(tp->h, src);
	else
		err = 0;
	if (err < 0) {
		err = -(errno ? errno : EINVAL);
		goto fail_source;
	}
	tp->this_machine = !src;
	if (hwloc_topology_load(tp->h) < 0) {
		err = -(errno ? errno : EINVAL);
		goto fail_source;
	}
	*t = tp;
	return 0;

fail_source:
	hwloc_topology_destroy(tp->h);
fail_init:
	free(tp);
	return err;
}

void pmb__topology_free(struct pmb_topology *t)
{
	if (!t)
		return;
	hwloc_topology_destroy(t->h);
	free(t);
}

bool pmb__topology_is_this_system(struct pmb_topology *t)
{
	return t && hwloc_topology_is_thissystem(t->h);
}

/* MemAvailable in bytes, 0 when /proc/meminfo does not say. */
static uint64_t mem_available(void)
{
	unsigned long long kb = 0;
	char line[256];
	FILE *f;

	f = fopen("/proc/meminfo", "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return (uint64_t)kb * 1024;
}

/* The NUMA node holding the memory local to obj: the first node among the
 * memory children of obj's nearest ancestor that has any. */
static hwloc_obj_t local_numa_node(hwloc_obj_t obj)
{
	for (; obj; obj = obj->parent) {
		hwloc_obj_t m = obj->memory_first_child;

		/* Memory-side caches sit between the CPU object and the node. */
		while (m && m->type != HWLOC_OBJ_NUMANODE)
			m = m->memory_first_child;
		if (m)
			return m;
	}
	return NULL;
}

static void fill_cache(hwloc_topology_t h, hwloc_obj_t obj, struct pmb_cache *c)
{
	int cores;

	c->level = (int)obj->attr->cache.depth;
	c->size = obj->attr->cache.size;
	c->line = obj->attr->cache.linesize;
	c->assoc = obj->attr->cache.associativity;
	cores = hwloc_get_nbobjs_inside_cpuset_by_type(h, obj->cpuset,
						       HWLOC_OBJ_CORE);
	/* Without Core objects, count the PUs: each is then its own core. */
	if (cores <= 0)
		cores = hwloc_get_nbobjs_inside_cpuset_by_type(h, obj->cpuset,
							       HWLOC_OBJ_PU);
	c->sharing_cores = cores > 0 ? cores : 1;
	if (hwloc_bitmap_list_snprintf(c->shared_with, sizeof(c->shared_with),
				       obj->cpuset) < 0)
		c->shared_with[0] = '\0';
}

/* Caches for a topology that has none (containers, some Arm boards and
 * VMs expose no cache information): the C library's figures where it has
 * them for this machine, else stated defaults.  Sizes are marked assumed,
 * and the note says which and where from. */
static void assume_caches(struct pmb_topology_info *info, bool this_machine)
{
	static const uint64_t defaults[] = { 32 << 10, 1 << 20, 8 << 20 };
	const int names[] = { _SC_LEVEL1_DCACHE_SIZE, _SC_LEVEL2_CACHE_SIZE, _SC_LEVEL3_CACHE_SIZE };
	long line = this_machine ? sysconf(_SC_LEVEL1_DCACHE_LINESIZE) : 0;
	bool libc = this_machine && sysconf(_SC_LEVEL1_DCACHE_SIZE) > 0;
	char list[96] = "", size[24];
	size_t len = 0;

	for (int i = 0; i < 3; i++) {
		long v = libc ? sysconf(names[i]) : (long)defaults[i];
		struct pmb_cache *c;

		if (v <= 0 || (i > 0 && (uint64_t)v <= info->cache[info->ncaches - 1].size))
			continue;
		c = &info->cache[info->ncaches++];
		c->level = i + 1;
		c->size = (uint64_t)v;
		c->line = line > 0 ? (unsigned)line : 64;
		c->sharing_cores = 1;
		snprintf(c->shared_with, sizeof(c->shared_with), "%d", info->cpu);
		pmb__format_bytes_sep(size, sizeof(size), c->size, " ");
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%sL%d%s %s", len ? ", " : "",
					c->level, c->level == 1 ? "d" : "", size);
	}
	info->caches_assumed = true;
	snprintf(info->fallback, sizeof(info->fallback),
		 "hwloc reports no data caches: tiers use ASSUMED sizes %s (%s), line %u B", list,
		 libc ? "the C library's sysconf" : "pmubench's defaults; sysconf has none",
		 info->cache[0].line);
}

int pmb__topology_info(struct pmb_topology *t, int cpu,
		      struct pmb_topology_info *info)
{
	hwloc_obj_t pu, obj, node;
	bool no_line = false;
	int n, i;

	memset(info, 0, sizeof(*info));
	info->numa_node = -1;
	if (!t || cpu < 0)
		return -EINVAL;
	pu = hwloc_get_pu_obj_by_os_index(t->h, (unsigned)cpu);
	if (!pu)
		return -EINVAL;
	info->cpu = cpu;

	/* Ancestors come innermost first, so the caches arrive L1d, L2, ... */
	for (obj = pu->parent; obj; obj = obj->parent) {
		struct pmb_cache *c;

		if (!hwloc_obj_type_is_dcache(obj->type) ||
		    obj->attr->cache.type == HWLOC_OBJ_CACHE_INSTRUCTION)
			continue;
		if (info->ncaches == PMB_MAX_CACHES)
			break;
		c = &info->cache[info->ncaches++];
		fill_cache(t->h, obj, c);
		/* A cache of unknown size (some Arm device trees name the
		 * levels and nothing else) gives no tier: as if absent. */
		if (!c->size) {
			info->ncaches--;
			continue;
		}
		if (!c->line)
			no_line = true;
	}

	node = local_numa_node(pu);
	if (node) {
		info->numa_node = (int)node->os_index;
		info->numa_memory = node->attr->numanode.local_memory;
	}
	n = hwloc_get_nbobjs_by_type(t->h, HWLOC_OBJ_PU);
	info->npus = n > 0 ? n : 0;
	n = hwloc_get_nbobjs_by_type(t->h, HWLOC_OBJ_CORE);
	info->ncores = n > 0 ? n : info->npus;
	/* Also for synthetic and XML topologies: buffers are allocated here. */
	info->avail_memory = mem_available();

	if (info->ncaches == 0) {
		assume_caches(info, t->this_machine);
	} else if (no_line) {
		snprintf(info->fallback, sizeof(info->fallback),
			 "cache line size unknown: 64 B assumed");
	}
	for (i = 0; i < info->ncaches; i++)
		if (info->cache[i].sharing_cores < 1)
			info->cache[i].sharing_cores = 1;
	/* The TLBs are the CPU's: a made-up topology has none. */
	if (t->this_machine)
		pmb__tlb_read(&info->tlb);
	else
		snprintf(info->tlb.why, sizeof(info->tlb.why), "a given topology (--topology-source), not "
			 "this machine's: its TLBs are not read");
	return 0;
}

bool pmb__topology_cpu_valid(struct pmb_topology *t, int cpu)
{
	hwloc_const_cpuset_t allowed;

	if (!t || cpu < 0)
		return false;
	if (!hwloc_get_pu_obj_by_os_index(t->h, (unsigned)cpu))
		return false;
	allowed = hwloc_topology_get_allowed_cpuset(t->h);
	return !allowed || hwloc_bitmap_isset(allowed, (unsigned)cpu);
}

void pmb__topology_cpus(struct pmb_topology *t, char *buf, size_t size, int *first)
{
	hwloc_bitmap_t set;
	hwloc_const_cpuset_t allowed;

	*first = -1;
	if (size)
		buf[0] = 0;
	if (!t || !(set = hwloc_bitmap_dup(hwloc_topology_get_topology_cpuset(t->h))))
		return;
	allowed = hwloc_topology_get_allowed_cpuset(t->h);
	if (allowed)
		hwloc_bitmap_and(set, set, allowed);
	*first = hwloc_bitmap_first(set);
	hwloc_bitmap_list_snprintf(buf, size, set);
	hwloc_bitmap_free(set);
}

int pmb__topology_pin(struct pmb_topology *t, int cpu)
{
	hwloc_obj_t pu, node;
	int err;

	if (!t || cpu < 0)
		return -EINVAL;
	pu = hwloc_get_pu_obj_by_os_index(t->h, (unsigned)cpu);
	if (!pu)
		return -EINVAL;
	/* A made-up topology (--topology-source) is not this system's, and
	 * hwloc binds nothing on it: the thread goes to the machine's core
	 * of that number itself (its memory is the machine's anyway). */
	if (!hwloc_topology_is_thissystem(t->h)) {
		cpu_set_t set;

		if (cpu >= CPU_SETSIZE)
			return -EINVAL;
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		return sched_setaffinity(0, sizeof(set), &set) < 0 ? -errno : 0;
	}
	if (hwloc_set_cpubind(t->h, pu->cpuset, HWLOC_CPUBIND_THREAD) < 0)
		return -(errno ? errno : EINVAL);

	node = local_numa_node(pu);
	if (!node)
		return 0;
	err = hwloc_set_membind(t->h, node->nodeset, HWLOC_MEMBIND_BIND,
				HWLOC_MEMBIND_THREAD | HWLOC_MEMBIND_BYNODESET);
	if (err < 0) {
		err = errno;
		/* With one node all memory is local anyway: a kernel without
		 * NUMA support (ENOSYS) or refusing the policy (EXDEV) loses
		 * nothing. */
		if (hwloc_get_nbobjs_by_type(t->h, HWLOC_OBJ_NUMANODE) <= 1 &&
		    (err == ENOSYS || err == EXDEV))
			return 0;
		return -(err ? err : EINVAL);
	}
	return 0;
}

/* ---- tiers ------------------------------------------------------------- */

/* "Nice" sizes are m * 2^k with m in 4..7: two bits after the leading one,
 * so a size is off by at most 25 % of its power of two. */
static uint64_t nice_down(uint64_t x)
{
	int k = 0;

	if (x < 8)
		return x;
	while ((x >> k) >= 8)
		k++;
	return (x >> k) << k;
}

static uint64_t nice_up(uint64_t x)
{
	uint64_t d = nice_down(x);
	int k = 0;

	if (d == x)
		return x;
	while ((d >> k) >= 8)
		k++;
	return d + ((uint64_t)1 << k);
}

static uint64_t round_up(uint64_t x, uint64_t m)
{
	return (x + m - 1) / m * m;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

void pmb__topology_usable(const struct pmb_topology_info *info, uint64_t *usable)
{
	int i;

	for (i = 0; i < info->ncaches && i < PMB_MAX_CACHES; i++) {
		const struct pmb_cache *c = &info->cache[i];
		uint64_t share = c->size;
		uint64_t least;

		if (c->sharing_cores > 1)
			share = c->size / (uint64_t)c->sharing_cores;
		/* A thread keeps at least twice the level below in a shared
		 * level: without this floor, a big L2 under a crowded L3
		 * (2 MiB L2, 1.875 MiB of L3 per core) leaves L3 no range. */
		least = i ? 2 * info->cache[i - 1].size : 0;
		if (least > c->size)
			least = c->size;
		usable[i] = share > least ? share : least;
	}
}

/* The largest line of any level, at least 64. */
static uint64_t widest_line(const struct pmb_topology_info *info, int nc)
{
	uint64_t line = 64;

	for (int i = 0; i < nc; i++)
		if (info->cache[i].line > line)
			line = info->cache[i].line;
	return line;
}

/* Zone of level i: [1.5 * size of level i-1, usable size of i]; DRAM
 * (zone nc): [1.5 * size of the last level, cap].  Zones never overlap,
 * and the gaps between them (near a boundary, or in the part of a shared
 * cache other cores compete for) get no points. */
static void tier_zones(const struct pmb_topology_info *info, int nc, uint64_t line,
		       const uint64_t *usable, uint64_t *lo, uint64_t *hi)
{
	uint64_t last = info->cache[nc - 1].size;
	uint64_t cap = 8 * last;

	if (info->avail_memory && cap > info->avail_memory / 4)
		cap = info->avail_memory / 4;
	for (int i = 0; i <= nc; i++) {
		lo[i] = i ? info->cache[i - 1].size + info->cache[i - 1].size / 2
			  : line;
		hi[i] = i < nc ? usable[i] : cap;
	}
}

/* Candidates: well inside (1/8, 1/4, 1/2 of usable, rounded down), just
 * past the level below (rounded up); DRAM: 1.5, 2, 4 x LLC (rounded up)
 * and the cap, 8 x LLC or avail / 4 (rounded down).  level[k] is the
 * zone candidate k is meant for.  Returns the count. */
static int tier_candidates(const struct pmb_topology_info *info, int nc,
			   const uint64_t *usable, const uint64_t *lo, uint64_t cap,
			   uint64_t *cand, int *level)
{
	static const uint64_t halves[] = { 3, 4, 8 };
	uint64_t last = info->cache[nc - 1].size;
	int ncand = 0;

	for (int i = 0; i < nc; i++) {
		for (int j = 3; j >= 1; j--) {
			level[ncand] = i;
			cand[ncand++] = nice_down(usable[i] >> j);
		}
		if (i) {
			level[ncand] = i;
			cand[ncand++] = nice_up(lo[i]);
		}
	}
	for (int j = 0; j < 3; j++) {
		level[ncand] = nc;
		cand[ncand++] = nice_up(last * halves[j] / 2);
	}
	/* The largest rounded down, so that it stays under the cap. */
	level[ncand] = nc;
	cand[ncand++] = nice_down(cap);
	return ncand;
}

/* Round each candidate up to a line; one that leaves its zone becomes 0. */
static void tier_keep_in_zone(uint64_t *cand, const int *level, int ncand, uint64_t line,
			      const uint64_t *lo, const uint64_t *hi)
{
	for (int i = 0; i < ncand; i++) {
		uint64_t x = round_up(cand[i], line);

		if (x < lo[level[i]] || x > hi[level[i]] || x == 0)
			cand[i] = 0;
		else
			cand[i] = x;
	}
}

int pmb__topology_tiers(const struct pmb_topology_info *info,
		       struct pmb_tier_point *out, size_t max, size_t *n)
{
	uint64_t usable[PMB_MAX_CACHES], lo[PMB_MAX_CACHES + 1];
	uint64_t hi[PMB_MAX_CACHES + 1];
	uint64_t cand[PMB_MAX_TIER_POINTS];
	int ncand, level[PMB_MAX_TIER_POINTS];
	uint64_t line;
	int nc;
	size_t count = 0;

	*n = 0;
	nc = info->ncaches < PMB_MAX_CACHES ? info->ncaches : PMB_MAX_CACHES;
	if (nc <= 0)
		return PMB_ENOCACHE;
	line = widest_line(info, nc);
	pmb__topology_usable(info, usable);
	tier_zones(info, nc, line, usable, lo, hi);
	ncand = tier_candidates(info, nc, usable, lo, hi[nc], cand, level);
	tier_keep_in_zone(cand, level, ncand, line, lo, hi);
	qsort(cand, (size_t)ncand, sizeof(cand[0]), cmp_u64);
	for (int i = 0; i < ncand; i++) {
		uint64_t x = cand[i];

		if (!x || (count && out[count - 1].bytes == x))
			continue;
		if (count == max)
			return -ENOSPC;
		out[count].bytes = x;
		pmb__topology_label(info, x, out[count].tier,
				   sizeof(out[count].tier));
		count++;
	}
	*n = count;
	return 0;
}

/* How many of tier[0..n) up to index `end` carry label `lab`. */
static size_t count_label(const struct pmb_tier_point *tier, size_t end, const char *lab)
{
	size_t c = 0;

	for (size_t i = 0; i < end; i++)
		c += !strcmp(tier[i].tier, lab);
	return c;
}

void pmb__topology_tiers_short(const struct pmb_topology_info *info, struct pmb_tier_point *tier,
			       size_t *n)
{
	uint64_t past = 0;
	size_t k = 0, ndram = 0, far = 0;
	bool keep[PMB_MAX_TIER_POINTS] = { false };

	if (info->ncaches > 0)
		past = 2 * info->cache[(info->ncaches < PMB_MAX_CACHES ? info->ncaches
					 : PMB_MAX_CACHES) - 1].size;
	for (size_t i = 0; i < *n && i < PMB_MAX_TIER_POINTS; i++) {
		if (strcmp(tier[i].tier, "DRAM")) {
			/* Sorted ascending: the two largest of a level are
			 * those with at most one of its label after them. */
			keep[i] = count_label(tier + i + 1, *n - i - 1, tier[i].tier) < 2;
			continue;
		}
		ndram++;
		far += tier[i].bytes >= past;
	}
	for (size_t i = 0, seen = 0, seen_far = 0; i < *n && i < PMB_MAX_TIER_POINTS; i++) {
		if (strcmp(tier[i].tier, "DRAM"))
			continue;
		seen++;
		if (far >= 2)
			keep[i] = tier[i].bytes >= past && seen_far++ < 2;
		else
			keep[i] = ndram - seen < 2; /* the two largest */
	}
	for (size_t i = 0; i < *n && i < PMB_MAX_TIER_POINTS; i++)
		if (keep[i])
			tier[k++] = tier[i];
	*n = k;
}

void pmb__topology_label(const struct pmb_topology_info *info, uint64_t bytes,
			char *buf, size_t len)
{
	uint64_t usable[PMB_MAX_CACHES];
	int i, nc;

	nc = info->ncaches < PMB_MAX_CACHES ? info->ncaches : PMB_MAX_CACHES;
	pmb__topology_usable(info, usable);
	for (i = 0; i < nc; i++)
		if (bytes <= usable[i])
			break;
	if (i < nc)
		snprintf(buf, len, "L%d", info->cache[i].level);
	else
		snprintf(buf, len, "DRAM");
}
