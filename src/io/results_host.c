/* results_host.c - one host's result file summarised for `pmubench merge` (jansson's tree to struct pmb_host_run). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "results_host.h"
#include "results_io_internal.h"
#include "model.h"
#include "base.h"

#define SUFFIX "_per_item"

static void text(const json_t *o, const char *key, char *buf, size_t size)
{
	const char *s = json_string_value(json_object_get(o, key));

	snprintf(buf, size, "%s", s ? s : "");
}

static double number(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* How the host had its counts: the backend, then whether the PMU worked,
 * and if not, why (context.pmu.not_permitted_paranoid: there, but
 * perf_event_paranoid forbids it). */
static void read_counting(const json_t *cx, struct pmb_host_run *h)
{
	const json_t *pmu = json_object_get(cx, "pmu");
	double paranoid = number(pmu, "not_permitted_paranoid");

	if (!strcmp(h->backend, "sim")) {
		h->counting = PMB_HOST_SIMULATED;
	} else if (json_is_true(json_object_get(pmu, "hardware_counters_work"))) {
		h->counting = PMB_HOST_COUNTED;
	} else {
		h->counting = PMB_HOST_ESTIMATED;
		if (isfinite(paranoid))
			snprintf(h->pmu_why, sizeof(h->pmu_why),
				 "PMU forbidden: perf_event_paranoid=%.0f", paranoid);
		else
			snprintf(h->pmu_why, sizeof(h->pmu_why), "no PMU");
	}
}

/* The cache sizes the host's topology gives (hwloc's, with their level),
 * for the tier boundaries of merge --plot. */
static void read_caches(const json_t *cx, struct pmb_host_run *h)
{
	const json_t *caches = json_object_get(json_object_get(cx, "topology"), "caches"), *c;
	size_t i;

	json_array_foreach(caches, i, c) {
		double size = number(c, "size"), level = number(c, "level");

		if (h->ncache == PMB_MERGE_CACHES)
			break;
		if (!(size > 0 && size < 0x1p63) || !(level >= 1 && level <= 9))
			continue;
		h->cache[h->ncache++] = (struct pmb_host_cache){ (int)level, (uint64_t)size };
	}
}

static int read_context(const json_t *root, struct pmb_host_run *h, char *err, size_t errlen)
{
	const json_t *cx = json_object_get(root, "context");
	const json_t *pmu = json_object_get(cx, "pmu");
	const char *model = json_string_value(json_object_get(json_object_get(cx, "reanalysis"), "cpu_model"));

	if (!json_is_object(cx) || !json_is_array(json_object_get(root, "benchmarks")) ||
	    !json_is_string(json_object_get(cx, "pmubench_version")))
		return pmb__results_fail(err, errlen, PMB_EBADJSON,
					 "not a pmubench results file (no context.pmubench_version "
					 "and \"benchmarks\" array)");
	if (json_object_get(cx, "incomplete_reason"))
		return pmb__results_fail(err, errlen, PMB_EBADJSON, "incomplete: a signal stopped this run (%s)",
					 json_string_value(json_object_get(cx, "incomplete_reason")));
	text(cx, "host_name", h->host, sizeof(h->host));
	text(cx, "pmubench_version", h->version, sizeof(h->version));
	text(cx, "date", h->date, sizeof(h->date));
	text(cx, "backend", h->backend, sizeof(h->backend));
	text(pmu, "name", h->pmu, sizeof(h->pmu));
	if (model && *model)
		snprintf(h->cpu, sizeof(h->cpu), "%s", model);
	else
		text(pmu, "description", h->cpu, sizeof(h->cpu));
	read_counting(cx, h);
	read_caches(cx, h);
	return 0;
}

/* The benchmark called name in h, or NULL: O(benchmarks), a merge reads
 * a few hundred per host. */
static int by_key(const void *a, const void *b, void *fig)
{
	const struct pmb_host_figure *f = fig;

	return strcmp(f[*(const size_t *)a].key, f[*(const size_t *)b].key);
}

/* Every figure of b into its sorted index, after a repetition is read. */
static int sort_keys(struct pmb_host_bench *b)
{
	size_t *grown = realloc(b->by_key, (b->nfig ? b->nfig : 1) * sizeof(*grown));

	if (!grown)
		return -ENOMEM;
	b->by_key = grown;
	for (size_t i = 0; i < b->nfig; i++)
		grown[i] = i;
	qsort_r(grown, b->nfig, sizeof(*grown), by_key, b->fig);
	b->nsorted = b->nfig;
	return 0;
}

/* A repetition's figure folded into the one kept: with several
 * repetitions (--repetitions), the mean of their values and the envelope
 * of their intervals; reps counts the ones before this one. */
static int add_figure(struct pmb_host_bench *b, const char *key, const json_t *o, size_t reps)
{
	char lo[96], hi[96];
	/* Keys of one object are distinct (the reader refuses a duplicate):
	 * only an earlier repetition's, sorted, can hold this one. */
	struct pmb_host_figure *f = (struct pmb_host_figure *)pmb__host_figure(b, key), *grown;
	double v = number(o, key);

	snprintf(lo, sizeof(lo), "%s_ci_lo", key);
	snprintf(hi, sizeof(hi), "%s_ci_hi", key);
	if (!f) {
		if (b->nfig == b->figcap) {
			size_t cap = b->figcap ? 2 * b->figcap : 16;

			grown = realloc(b->fig, cap * sizeof(*grown));
			if (!grown)
				return -ENOMEM;
			b->fig = grown;
			b->figcap = cap;
		}
		f = &b->fig[b->nfig++];
		snprintf(f->key, sizeof(f->key), "%s", key);
		f->value = v;
		f->lo = number(o, lo);
		f->hi = number(o, hi);
		return 0;
	}
	f->value = (f->value * (double)reps + v) / (double)(reps + 1);
	f->lo = fmin(f->lo, number(o, lo));
	f->hi = fmax(f->hi, number(o, hi));
	return 0;
}

static int read_figures(struct pmb_host_bench *b, const json_t *o, size_t reps)
{
	const char *key;
	const json_t *v;
	size_t len, sl = strlen(SUFFIX);

	json_object_foreach((json_t *)o, key, v) {
		len = strlen(key);
		if (!json_is_number(v) || len <= sl || len >= sizeof(b->fig[0].key) ||
		    strcmp(key + len - sl, SUFFIX))
			continue;
		if (add_figure(b, key, o, reps))
			return -ENOMEM;
	}
	return sort_keys(b);
}

/* x: the benchmarks read so far by name (the file's own strings, which
 * live as long as its tree: base/hash.h); a search of the list per entry
 * took 5.4 s for a file of 20 k benchmarks. */
static int read_bench(struct pmb_host_run *h, struct pmb_name_index *x, size_t *cap, const json_t *o, size_t *reps)
{
	const char *name = json_string_value(json_object_get(o, "name"));
	const char *status = json_string_value(json_object_get(o, "status"));
	const json_t *inst = json_object_get(o, "instance");
	const char *run_type = json_string_value(json_object_get(o, "run_type"));
	struct pmb_host_bench *b, *grown;
	size_t slot;
	double ws;

	if (!name || (run_type && strcmp(run_type, "iteration")))
		return 0; /* Google Benchmark's aggregates are not runs */
	slot = pmb__name_index_slot(x, name);
	b = x->name[slot] ? &h->bench[x->at[slot]] : NULL;
	if (!b) {
		if (h->nbench == *cap) {
			*cap = *cap ? 2 * *cap : 16;
			grown = realloc(h->bench, *cap * sizeof(*grown));
			if (!grown)
				return -ENOMEM;
			h->bench = grown;
		}
		b = memset(&h->bench[h->nbench], 0, sizeof(*b));
		x->name[slot] = name;
		x->at[slot] = h->nbench;
		reps[h->nbench++] = 0;
		snprintf(b->name, sizeof(b->name), "%s", name);
		text(inst, "family", b->family, sizeof(b->family));
		ws = number(inst, "working_set");
		b->working_set = ws > 0 && ws < 0x1p63 ? (uint64_t)ws : 0;
	}
	if (status && strcmp(status, "ok")) {
		if (!b->nfig)
			text(o, "error_message", b->why, sizeof(b->why));
		if (!b->why[0] && !b->nfig)
			snprintf(b->why, sizeof(b->why), "%s", status);
		return 0;
	}
	b->why[0] = '\0';
	if (read_figures(b, o, reps[b - h->bench]))
		return -ENOMEM;
	reps[b - h->bench]++;
	return 0;
}

int pmb__results_host_read(const char *path, struct pmb_host_run *out, char *err, size_t errlen)
{
	const json_t *arr, *o;
	json_t *root;
	size_t i, *reps = NULL, cap = 0;
	struct pmb_name_index x = { 0 };
	int ret;

	memset(out, 0, sizeof(*out));
	ret = pmb__results_load(path, &root, err, errlen);
	if (ret)
		return ret;
	snprintf(out->file, sizeof(out->file), "%s", path);
	ret = read_context(root, out, err, errlen);
	if (ret)
		goto fail_context;
	arr = json_object_get(root, "benchmarks");
	reps = calloc(json_array_size(arr) + 1, sizeof(*reps));
	if (!reps || pmb__name_index_init(&x, json_array_size(arr)))
		ret = -ENOMEM;
	json_array_foreach(arr, i, o)
		if (!ret && json_is_object(o))
			ret = read_bench(out, &x, &cap, o, reps);
	pmb__name_index_free(&x);
	free(reps);
	if (ret) {
		pmb__results_fail(err, errlen, ret, "%s", strerror(ENOMEM));
		pmb__host_run_free(out);
	}
fail_context:
	json_decref(root);
	return ret;
}

void pmb__host_run_free(struct pmb_host_run *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->nbench; i++) {
		free(h->bench[i].fig);
		free(h->bench[i].by_key);
	}
	free(h->bench);
	h->bench = NULL;
	h->nbench = 0;
}
