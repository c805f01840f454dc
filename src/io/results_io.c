/* results_io.c - reads result files into results_io.h's structs: jansson's tree to plain structs. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base.h"
#include "pmubench.h"
#include "results_io.h"
#include "results_io_internal.h"

/* ---- memory ------------------------------------------------------------ */

/* Everything read from one file lives in chunks freed together: no frees
 * per value, and the structs may point at each other freely. */
struct chunk {
	struct chunk *next;
	size_t used, size;
	max_align_t data[];
};

struct pmb_results_mem {
	struct chunk *head;
	struct pmb_name_index names; /* benchmark names to their index (hash.h;
	                                the names live in the chunks) */
};

#define CHUNK_BYTES ((size_t)1 << 20)

static void *mem_alloc(struct pmb_results_mem *m, size_t count, size_t size)
{
	struct chunk *c = m->head;
	size_t n, cap;
	void *p;

	if (__builtin_mul_overflow(count, size, &n) || n > SIZE_MAX / 2)
		return NULL;
	n = n ? (n + 15) & ~(size_t)15 : 16;
	if (c && c->size - c->used >= n)
		goto take;
	/* A big block gets a chunk of its own behind the current one, whose
	 * room is kept for the small blocks to come. */
	cap = n > CHUNK_BYTES / 4 ? n : CHUNK_BYTES;
	c = malloc(sizeof(*c) + cap);
	if (!c)
		return NULL;
	c->size = cap;
	c->used = 0;
	if (n > CHUNK_BYTES / 4 && m->head) {
		c->next = m->head->next;
		m->head->next = c;
	} else {
		c->next = m->head;
		m->head = c;
	}
take:
	p = (char *)c->data + c->used;
	c->used += n;
	return p;
}

static const char *mem_strdup(struct pmb_results_mem *m, const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = mem_alloc(m, n, 1);

	return d ? memcpy(d, s, n) : NULL;
}

/* ---- errors ------------------------------------------------------------ */

struct ctx {
	struct pmb_results_mem *m;
	char *err;
	size_t errlen;
};

static int nomem(struct ctx *c)
{
	return pmb__results_fail(c->err, c->errlen, -ENOMEM, "%s", strerror(ENOMEM));
}

/* ---- values ------------------------------------------------------------ */

static double number(const json_t *v)
{
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static bool ends_with(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);

	return n >= k && !memcmp(s + n - k, suffix, k);
}

/* Numbers of an array, NAN for anything else (null); keep_other false
 * leaves the others out instead. */
static int numbers(struct ctx *c, json_t *arr, bool keep_other,
		   const double **out, size_t *n)
{
	double *v = mem_alloc(c->m, json_array_size(arr), sizeof(*v));
	size_t i, k = 0;
	json_t *x;

	if (!v)
		return nomem(c);
	json_array_foreach(arr, i, x) {
		if (json_is_number(x))
			v[k++] = json_number_value(x);
		else if (keep_other)
			v[k++] = NAN;
	}
	*out = v;
	*n = k;
	return 0;
}

static int read_overhead(struct ctx *c, json_t *o,
			 struct pmb_results_overhead *ov)
{
	json_t *evs = json_object_get(o, "events"), *v;
	struct pmb_results_event_ov *ev;
	const char *key;
	size_t i = 0;

	ov->ns_per_pass = number(json_object_get(o, "ns_per_pass"));
	ov->ns_per_sample = number(json_object_get(o, "ns_per_sample"));
	ov->nev = json_object_size(evs);
	ov->ev = ev = mem_alloc(c->m, ov->nev, sizeof(*ev));
	if (!ev)
		return nomem(c);
	json_object_foreach(evs, key, v) {
		ev[i].name = mem_strdup(c->m, key);
		if (!ev[i].name)
			return nomem(c);
		ev[i].per_pass = number(json_object_get(v, "per_pass"));
		ev[i].per_sample = number(json_object_get(v, "per_sample"));
		i++;
	}
	return 0;
}

/* Whether the run flags figure `key` "<key>_below_resolution": true. */
static bool flagged(json_t *run, const char *key, size_t klen)
{
	static const char sfx[] = "_below_resolution";
	char buf[256], *name = buf;
	bool yes;

	if (klen + sizeof(sfx) > sizeof(buf)) {
		name = malloc(klen + sizeof(sfx));
		if (!name)
			return false; /* a flag lost, not a figure */
	}
	memcpy(name, key, klen);
	memcpy(name + klen, sfx, sizeof(sfx));
	yes = json_is_true(json_object_get(run, name));
	if (name != buf)
		free(name);
	return yes;
}

static int fig_cmp(const void *a, const void *b)
{
	const struct pmb_results_figure *const *x = a, *const *y = b;

	return strcmp((*x)->key, (*y)->key);
}

static int raw_cmp(const void *a, const void *b)
{
	const struct pmb_results_series *const *x = a, *const *y = b;

	return strcmp((*x)->name, (*y)->name);
}

/* Pointers to the n elements of size bytes at v, sorted by cmp, from c's
 * memory (*out).  Returns 0 or -ENOMEM. */
static int sorted_index(struct ctx *c, const void *v, size_t n, size_t size,
			int (*cmp)(const void *, const void *), const void *const **out)
{
	const void **ix = mem_alloc(c->m, n, sizeof(*ix));

	if (!ix)
		return nomem(c);
	for (size_t i = 0; i < n; i++)
		ix[i] = (const char *)v + i * size;
	qsort(ix, n, sizeof(*ix), cmp);
	*out = ix;
	return 0;
}

/* Every "<x>_per_item" number of the run, in file order.  No cap on how
 * many: an event list is as long as the run asked for. */
static int read_figures(struct ctx *c, json_t *o, struct pmb_results_run *run)
{
	struct pmb_results_figure *fig;
	const char *key;
	size_t n = 0, klen;
	json_t *v;

	json_object_keylen_foreach(o, key, klen, v)
		n += json_is_number(v) && ends_with(key, klen, "_per_item");
	run->fig = fig = mem_alloc(c->m, n, sizeof(*fig));
	if (!fig)
		return nomem(c);
	json_object_keylen_foreach(o, key, klen, v) {
		if (!json_is_number(v) || !ends_with(key, klen, "_per_item"))
			continue;
		fig[run->nfig].key = mem_strdup(c->m, key);
		if (!fig[run->nfig].key)
			return nomem(c);
		fig[run->nfig].value = json_number_value(v);
		fig[run->nfig].below_resolution = flagged(o, key, klen);
		run->nfig++;
	}
	return sorted_index(c, fig, run->nfig, sizeof(*fig), fig_cmp,
			    (const void *const **)&run->fig_by_key);
}

/* Google Benchmark's real_time and cpu_time, in ns.  A time the unit makes
 * infinite (1e300 s) is refused here, where the field can be named. */
static int read_times(struct ctx *c, json_t *o, const char *name,
		      struct pmb_results_run *run)
{
	static const struct { const char *unit; double ns; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	const char *u = json_string_value(json_object_get(o, "time_unit"));
	double scale = u ? NAN : 1;
	size_t i;

	for (i = 0; u && i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(u, units[i].unit))
			scale = units[i].ns;
	run->real_ns = number(json_object_get(o, "real_time"));
	run->cpu_ns = number(json_object_get(o, "cpu_time"));
	if (isnan(run->real_ns) && isnan(run->cpu_ns))
		return 0;
	if (isnan(scale))
		return pmb__results_fail(c->err, c->errlen, PMB_EBADJSON, "benchmark "
			    "\"%.60s\": unknown time_unit \"%.20s\" (ns, us, "
			    "ms or s)", name, u);
	run->real_ns *= scale;
	run->cpu_ns *= scale;
	if (isinf(run->real_ns) || isinf(run->cpu_ns))
		return pmb__results_fail(c->err, c->errlen, PMB_EBADJSON, "benchmark "
			    "\"%.60s\": %s is not a finite number of ns",
			    name, isinf(run->real_ns) ? "real_time" :
			    "cpu_time");
	return 0;
}

static int read_raw(struct ctx *c, json_t *raw, struct pmb_results_run *run)
{
	struct pmb_results_series *s;
	const char *key;
	json_t *v;
	int ret;

	json_object_foreach(raw, key, v)
		run->nraw += json_is_array(v);
	run->raw = s = mem_alloc(c->m, run->nraw, sizeof(*s));
	if (!s)
		return nomem(c);
	json_object_foreach(raw, key, v) {
		if (!json_is_array(v))
			continue;
		s->name = mem_strdup(c->m, key);
		if (!s->name)
			return nomem(c);
		ret = numbers(c, v, true, &s->v, &s->n);
		if (ret)
			return ret;
		s++;
	}
	return sorted_index(c, run->raw, run->nraw, sizeof(*s), raw_cmp,
			    (const void *const **)&run->raw_by_name);
}

static int read_run(struct ctx *c, json_t *o, const char *name,
		    struct pmb_results_run *run)
{
	json_t *tm = json_object_get(o, "time_measured");
	json_t *items = json_object_get(o, "ns_per_item_samples");
	json_t *ov = json_object_get(o, "harness_overhead");
	struct pmb_results_overhead *own;
	int ret;

	ret = read_figures(c, o, run);
	if (!ret)
		ret = read_times(c, o, name, run);
	if (!ret)
		ret = read_raw(c, json_object_get(o, "raw_samples"), run);
	if (ret)
		return ret;
	run->time_measured = !tm || json_is_true(tm);
	run->items_per_pass = number(json_object_get(o, "items_per_pass"));
	run->has_item_ns = json_is_array(items);
	if (run->has_item_ns) {
		ret = numbers(c, items, false, &run->item_ns, &run->nitem_ns);
		if (ret)
			return ret;
	}
	if (json_is_object(ov)) {
		run->overhead = own = mem_alloc(c->m, 1, sizeof(*own));
		if (!own)
			return nomem(c);
		return read_overhead(c, ov, own);
	}
	return 0;
}

/* ---- benchmarks by name ------------------------------------------------- */

/* The index of names is base's (hash.h): seeded, since the names are
 * the file's, which anyone may have written. */
const struct pmb_results_bench *pmb__results_find(const struct pmb_results *r,
						  const char *name)
{
	const struct pmb_name_index *x = &r->mem->names;
	size_t i = pmb__name_index_slot(x, name);

	return x->name[i] ? &r->bench[x->at[i]] : NULL;
}

/* A run that measured nothing: pmubench's status, Google Benchmark's
 * error_occurred. */
static bool measured(json_t *o)
{
	const char *st = json_string_value(json_object_get(o, "status"));

	if (st && strcmp(st, "ok"))
		return false;
	return !json_is_true(json_object_get(o, "error_occurred"));
}

/* First pass: the benchmark of each entry (SIZE_MAX: an aggregate), its
 * measured runs counted in nrun. */
static int group(struct ctx *c, struct pmb_results *r,
		 struct pmb_results_bench *b, json_t *arr, size_t *which)
{
	struct pmb_name_index *x = &c->m->names;
	const char *name, *type;
	size_t i, k;
	json_t *o;

	json_array_foreach(arr, i, o) {
		name = json_string_value(json_object_get(o, "name"));
		type = json_string_value(json_object_get(o, "run_type"));
		which[i] = SIZE_MAX;
		if (!name)
			return pmb__results_fail(c->err, c->errlen, PMB_EBADJSON,
				    "benchmark %zu has no \"name\"", i);
		if (type && !strcmp(type, "aggregate"))
			continue;
		k = pmb__name_index_slot(x, name);
		if (!x->name[k]) {
			b[r->nbench].name = mem_strdup(c->m, name);
			if (!b[r->nbench].name)
				return nomem(c);
			x->name[k] = b[r->nbench].name;
			x->at[k] = r->nbench++;
		}
		which[i] = x->at[k];
		b[which[i]].nrun += measured(o);
	}
	return 0;
}

/* Benchmarks grouped by name in two passes over the array: one to count,
 * one to fill.  O(entries), lookups by hash. */
static int read_benchmarks(struct ctx *c, struct pmb_results *r, json_t *arr)
{
	size_t n = json_array_size(arr), i, k, total = 0, *which;
	struct pmb_results_bench *b;
	struct pmb_results_run *all;
	json_t *o;
	int ret;

	which = malloc((n ? n : 1) * sizeof(*which));
	r->bench = b = mem_alloc(c->m, n, sizeof(*b));
	if (!which || !b || pmb__name_index_init(&c->m->names, n)) {
		ret = nomem(c);
		goto out;
	}
	memset(b, 0, n * sizeof(*b));
	ret = group(c, r, b, arr, which);
	if (ret)
		goto out;
	for (k = 0; k < r->nbench; k++)
		total += b[k].nrun;
	all = mem_alloc(c->m, total, sizeof(*all));
	if (!all) {
		ret = nomem(c);
		goto out;
	}
	memset(all, 0, total * sizeof(*all));
	for (k = 0, total = 0; k < r->nbench; k++) {
		b[k].run = all + total;
		total += b[k].nrun;
		b[k].nrun = 0;
	}
	json_array_foreach(arr, i, o) {
		if (which[i] == SIZE_MAX || !measured(o))
			continue;
		k = which[i];
		ret = read_run(c, o, b[k].name,
			       &all[b[k].run - all + b[k].nrun]);
		if (ret)
			goto out;
		b[k].nrun++;
	}
out:
	free(which);
	return ret;
}

static const char *str_or_null(struct ctx *c, json_t *v, bool *nomem_)
{
	const char *s = json_string_value(v), *d;

	if (!s)
		return NULL;
	d = mem_strdup(c->m, s);
	*nomem_ |= !d;
	return d;
}

/* The machine's description in the context (struct pmb_results_env). */
static int read_env(struct ctx *c, json_t *ctx, struct pmb_results_env *e)
{
	json_t *pmu = json_object_get(ctx, "pmu");
	json_t *turbo = json_object_get(ctx, "turbo");
	json_t *works = json_object_get(pmu, "hardware_counters_work");
	bool short_ = false;

	e->cpu = str_or_null(c, json_object_get(pmu, "description"), &short_);
	if (!e->cpu)
		e->cpu = str_or_null(c, json_object_get(pmu, "name"), &short_);
	e->pmu = str_or_null(c, json_object_get(pmu, "name"), &short_);
	e->pmu_works = json_is_boolean(works) ? json_is_true(works) : -1;
	e->turbo = json_is_boolean(turbo) ? (json_is_true(turbo) ? "on" : "off") : NULL;
	e->mhz = number(json_object_get(ctx, "mhz_per_cpu"));
	if (!(e->mhz > 0))
		e->mhz = NAN;
	e->load = number(json_array_get(json_object_get(ctx, "load_avg"), 0));
	e->ncpus = number(json_object_get(ctx, "num_cpus"));
	return short_ ? nomem(c) : 0;
}

static int read_root(struct ctx *c, struct pmb_results *r, json_t *root)
{
	json_t *ctx = json_object_get(root, "context");
	json_t *arr = json_object_get(root, "benchmarks");
	static const char *const keys[] = { "host_name", "backend",
					    "governor" };
	const char **dst[] = { &r->host_name, &r->backend, &r->governor };
	const char *s;
	int ret;

	if (!json_is_array(arr))
		return pmb__results_fail(c->err, c->errlen, PMB_EBADJSON,
			    "no \"benchmarks\" array");
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		s = json_string_value(json_object_get(ctx, keys[i]));
		if (s && !(*dst[i] = mem_strdup(c->m, s)))
			return nomem(c);
	}
	ret = read_env(c, ctx, &r->env);
	if (!ret)
		ret = read_overhead(c, json_object_get(ctx, "harness_overhead"),
				    &r->overhead);
	if (!ret)
		ret = read_benchmarks(c, r, arr);
	return ret;
}

/* ---- the interface ---------------------------------------------------- */

int pmb__results_read(const char *path, struct pmb_results **out, char *err,
		     size_t errlen)
{
	struct ctx c = { .err = err, .errlen = errlen };
	struct pmb_results *r;
	json_t *root;
	int ret;

	*out = NULL;
	ret = pmb__results_load(path, &root, err, errlen);
	if (ret)
		return ret;
	c.m = calloc(1, sizeof(*c.m));
	r = c.m ? mem_alloc(c.m, 1, sizeof(*r)) : NULL;
	if (!r) {
		free(c.m);
		ret = nomem(&c);
		goto fail_alloc;
	}
	memset(r, 0, sizeof(*r));
	r->mem = c.m;
	ret = read_root(&c, r, root);
	if (ret) {
		pmb__results_free(r);
		goto fail_alloc;
	}
	*out = r;
fail_alloc:
	json_decref(root);
	return ret;
}

/* The element of the sorted pointers ix[0..n) whose name (read by
 * name_of) is name, or NULL: a binary search. */
static const void *by_name(const void *const *ix, size_t n, const char *name,
			   const char *(*name_of)(const void *))
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(name_of(ix[mid]), name);

		if (c == 0)
			return ix[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static const char *fig_key(const void *f)
{
	return ((const struct pmb_results_figure *)f)->key;
}

static const char *raw_name(const void *s)
{
	return ((const struct pmb_results_series *)s)->name;
}

const struct pmb_results_figure *
pmb__results_figure(const struct pmb_results_run *run, const char *key)
{
	return by_name((const void *const *)run->fig_by_key, run->nfig, key, fig_key);
}

const struct pmb_results_series *
pmb__results_series(const struct pmb_results_run *run, const char *name)
{
	return by_name((const void *const *)run->raw_by_name, run->nraw, name, raw_name);
}

void pmb__results_free(struct pmb_results *r)
{
	struct pmb_results_mem *m;
	struct chunk *c, *next;

	if (!r)
		return;
	m = r->mem; /* r itself lives in the chunks */
	pmb__name_index_free(&m->names);
	for (c = m->head; c; c = next) {
		next = c->next;
		free(c);
	}
	free(m);
}
