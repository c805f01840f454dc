/* results_disasm.c - a --disasm listing read back from a result file (benchmarks[].disasm) into the struct the console draws it from. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results_disasm.h"
#include "results_io_internal.h"

/* Each key below is one report_json.c's write_disasm() writes.  A member
 * the listing cannot be drawn without, of the wrong type or out of its
 * range is refused, named; nothing is clamped or cut, since the console
 * drawn from it must be the live run's byte for byte. */

struct rd {
	const char *name; /* the benchmark's */
	char *err;
	size_t errlen;
	char at[80];      /* where in the listing: "parts[1].instructions[4]." */
};

/* Numbers are read as doubles (results_file.c): a count or an address
 * written as an integer is exact below 2^53. */
#define EXACT 0x1p53

static void found_as(const json_t *v, char *buf, size_t n)
{
	if (!v)
		snprintf(buf, n, "nothing");
	else if (json_is_number(v))
		snprintf(buf, n, "%.17g", json_number_value(v));
	else if (json_is_string(v))
		snprintf(buf, n, "the string \"%.40s\"", json_string_value(v));
	else
		snprintf(buf, n, "%s", json_is_null(v) ? "null" : json_is_boolean(v) ? "a boolean" :
			 json_is_array(v) ? "an array" : "an object");
}

static int bad(struct rd *r, const char *key, const char *want, const json_t *v)
{
	char found[64];

	/* key "": the member at r->at itself, named without its dot */
	int at = (int)strlen(r->at) - (r->at[0] && !key[0]);

	found_as(v, found, sizeof(found));
	return pmb__results_fail(r->err, r->errlen, PMB_EBADJSON, "%.120s: disasm%s%.*s%s: expected %s, found %s",
				 r->name, r->at[0] || key[0] ? "." : "", at, r->at, key, want, found);
}

/* A string member into buf; null or absent is "" unless need. */
static int str_at(struct rd *r, const json_t *o, const char *key, char *buf, size_t size, bool need)
{
	const json_t *v = json_object_get(o, key);
	const char *s = json_string_value(v);
	char want[48];

	snprintf(want, sizeof(want), "a string of at most %zu bytes%s", size - 1, need ? "" : " or null");
	if ((!s && (need || (v && !json_is_null(v)))) || (s && strlen(s) >= size))
		return bad(r, key, want, v);
	snprintf(buf, size, "%s", s ? s : "");
	return 0;
}

/* A whole number 0 <= x < 2^53 (an address, a count); absent is 0 unless
 * need. */
static int u64_at(struct rd *r, const json_t *o, const char *key, uint64_t *out, bool need)
{
	const json_t *v = json_object_get(o, key);
	double x = json_is_number(v) ? json_number_value(v) : NAN;

	*out = 0;
	if (!v && !need)
		return 0;
	if (!(x >= 0 && x < EXACT && x == floor(x)))
		return bad(r, key, "a whole number from 0 to 2^53", v);
	*out = (uint64_t)x;
	return 0;
}

/* A count per item or a share: a number at least 0, or null (NAN);
 * absent is absent unless need. */
static int num_at(struct rd *r, const json_t *o, const char *key, double *out, double absent, bool need)
{
	const json_t *v = json_object_get(o, key);

	*out = !v ? absent : json_is_null(v) ? NAN : json_is_number(v) ? json_number_value(v) : -1;
	if ((!v && need) || *out < 0)
		return bad(r, key, "a number of at least 0, or null", v);
	return 0;
}

static int bool_at(struct rd *r, const json_t *o, const char *key, bool *out)
{
	const json_t *v = json_object_get(o, key);

	if (!json_is_boolean(v))
		return bad(r, key, "true or false", v);
	*out = json_is_true(v);
	return 0;
}

/* An array of at most max members (absent: none, unless need). */
static int array_at(struct rd *r, const json_t *o, const char *key, size_t max, bool need, const json_t **out)
{
	const json_t *v = json_object_get(o, key);
	char want[48];

	*out = v;
	if ((!v && !need) || (json_is_array(v) && json_array_size(v) <= max))
		return 0;
	snprintf(want, sizeof(want), "an array of at most %zu", max);
	return bad(r, key, want, v);
}

/* "8b 45 f0": 1 to 15 bytes as lowercase or uppercase hex pairs. */
static int bytes_at(struct rd *r, const json_t *o, struct pmb_disasm_insn *in)
{
	const json_t *v = json_object_get(o, "bytes");
	const char *s = json_string_value(v);
	size_t len = s ? strlen(s) : 0;
	size_t max = sizeof(in->bytes);

	in->size = 0;
	if (len < 2 || len > 3 * max - 1 || len % 3 != 2)
		return bad(r, "bytes", "1 to 15 bytes as hex pairs (\"8b 45 f0\")", v);
	for (size_t k = 0; k < len; k += 3) {
		unsigned b;
		char pair[3] = { s[k], s[k + 1], '\0' };

		if (!strchr("0123456789abcdefABCDEF", pair[0]) || !strchr("0123456789abcdefABCDEF", pair[1]) ||
		    (k + 2 < len && s[k + 2] != ' ') || sscanf(pair, "%2x", &b) != 1)
			return bad(r, "bytes", "1 to 15 bytes as hex pairs (\"8b 45 f0\")", v);
		in->bytes[in->size++] = (uint8_t)b;
	}
	return 0;
}

static int read_kind(struct rd *r, const json_t *o, struct pmb_disasm_insn *in, bool *no_nop)
{
	const json_t *nop = json_object_get(o, "nop");
	int role = pmb__da_role_of(json_string_value(json_object_get(o, "role")));
	bool cond = false, call = false;
	int err;

	if (role < 0)
		return bad(r, "role", "\"choice\", \"loop\" or \"body\"", json_object_get(o, "role"));
	err = bool_at(r, o, "conditional_branch", &cond);
	if (!err)
		err = bool_at(r, o, "call", &call);
	if (err)
		return err;
	in->kind = (unsigned)role | (cond ? PMB_DA_COND : 0) | (call ? PMB_DA_CALL : 0);
	/* Files before "nop" list padding as any instruction. */
	if (!nop)
		*no_nop = true;
	else if (!json_is_boolean(nop))
		return bad(r, "nop", "true or false", nop);
	else if (json_is_true(nop))
		in->kind |= PMB_DA_NOP;
	return 0;
}

/* One instruction of part p: what it is, and its counts (simulated) or
 * its share of the samples, written only where the listing has them. */
static int read_insn(struct rd *r, const json_t *o, const struct pmb_disasm *d, int p,
		     struct pmb_disasm_insn *in, bool *no_nop)
{
	int err = u64_at(r, o, "address", &in->addr, true);

	in->part = p;
	if (!err)
		err = bytes_at(r, o, in);
	if (!err)
		err = str_at(r, o, "text", in->text, sizeof(in->text), true);
	if (!err)
		err = str_at(r, o, "source_line", in->src, sizeof(in->src), false);
	if (!err)
		err = read_kind(r, o, in, no_nop);
	if (!err)
		err = u64_at(r, o, "target", &in->target, false);
	for (int k = 0; k < PMB_DA_NCOUNT && !err; k++)
		err = num_at(r, o, pmb__da_count_name[k], &in->count[k], NAN, d->counted);
	if (!err)
		err = num_at(r, o, "share", &in->share, NAN, d->sampled);
	return err;
}

static int read_part(struct rd *r, const json_t *o, struct pmb_disasm *d, int p, bool *no_nop)
{
	struct pmb_disasm_part *pt = &d->part[p];
	const json_t *ins = NULL, *kind = json_object_get(o, "kind");
	bool measured = false;
	size_t i;
	int err = 0;

	snprintf(r->at, sizeof(r->at), "parts[%d].", p);
	if (!json_is_object(o))
		return bad(r, "", "an object", o);
	if (pmb__da_part_kind_of(json_string_value(kind), pt))
		return bad(r, "kind", "\"loop\", \"called\" or \"found\"", kind);
	if (!pt->callee && p != d->nloops)
		return bad(r, "kind", "\"called\" or \"found\" after such a part (the loops come first)", kind);
	d->nloops += !pt->callee;
	err = str_at(r, o, "function", pt->name, sizeof(pt->name), true);
	if (!err)
		err = str_at(r, o, "file", pt->file, sizeof(pt->file), true);
	if (!err)
		err = u64_at(r, o, "low", &pt->lo, true);
	if (!err)
		err = u64_at(r, o, "high", &pt->hi, true);
	if (!err)
		err = bool_at(r, o, "measured", &measured);
	if (!err)
		err = array_at(r, o, "instructions", (size_t)-1, true, &ins);
	if (err)
		return err;
	/* What pmb__disasm_part_shown() reads, from what it said: a loop or
	 * a found function is shown where it ran (see read_shown()). */
	pt->ran = measured;
	pt->first = d->n;
	pt->n = json_array_size(ins);
	for (i = 0; i < pt->n && !err; i++) {
		const json_t *in = json_array_get(ins, i);

		snprintf(r->at, sizeof(r->at), "parts[%d].instructions[%zu].", p, i);
		err = json_is_object(in) ? read_insn(r, in, d, p, &d->insn[d->n++], no_nop) : bad(r, "", "an object", in);
	}
	return err;
}

/* Which loop the benchmark ran, as pmb__disasm_part_shown() finds it,
 * from the loops the file says were shown (every "measured" loop's ran is
 * true): with counts, the loops that ran; without, all loops where the
 * call site was not known (site_part -1), else the one at it, or none (a
 * site past the loops).  So every file, old or new, draws the parts the
 * live run drew. */
static void read_shown(struct pmb_disasm *d)
{
	int shown = 0, first = -1;

	for (int p = 0; p < d->nloops; p++)
		if (d->part[p].ran) {
			shown++;
			first = first < 0 ? p : first;
		}
	d->site_part = shown == d->nloops ? -1 : first >= 0 ? first : d->nloops;
}

static int read_unplaced(struct rd *r, const json_t *x, struct pmb_disasm *d)
{
	const json_t *un;
	int err = array_at(r, x, "unplaced", PMB_DA_MAX_UNPLACED, false, &un);

	for (size_t k = 0; !err && k < json_array_size(un); k++) {
		const json_t *o = json_array_get(un, k);
		struct pmb_disasm_unplaced *u = &d->unplaced[k];

		snprintf(r->at, sizeof(r->at), "unplaced[%zu].", k);
		err = str_at(r, o, "function", u->name, sizeof(u->name), true);
		if (!err)
			err = str_at(r, o, "file", u->file, sizeof(u->file), false);
		if (!err)
			err = str_at(r, o, "why", u->why, sizeof(u->why), true);
		if (!err)
			err = num_at(r, o, "share", &u->share, NAN, true);
		d->nunplaced += !err;
	}
	r->at[0] = '\0';
	if (!err)
		err = num_at(r, x, "unplaced_rest", &d->unplaced_rest, 0, false);
	return err;
}

/* What the listing accounts for (written once counted or sampled). */
static int read_accounting(struct rd *r, const json_t *x, struct pmb_disasm *d)
{
	int err = num_at(r, x, "accounted_share", &d->accounted_share, NAN, false);

	if (!err && d->counted)
		err = num_at(r, x, "instructions_counted", &d->accounted_all, NAN, !isnan(d->accounted_share));
	if (!err && d->counted)
		err = num_at(r, x, "misp_counted", &d->misp_all, NAN, false);
	if (!err && d->sampled)
		d->accounted_all = (double)d->samples_all;
	return err ? err : read_unplaced(r, x, d);
}

static int read_sampling(struct rd *r, const json_t *x, struct pmb_disasm *d)
{
	int err = str_at(r, x, "sampled_event", d->sample_event, sizeof(d->sample_event), false);

	d->sampled = d->sample_event[0] != '\0';
	if (err || !d->sampled)
		return err;
	if ((err = u64_at(r, x, "sample_period", &d->sample_period, true)) ||
	    (err = u64_at(r, x, "samples", &d->samples_all, true)) ||
	    (err = u64_at(r, x, "samples_in_code", &d->samples_in, true)) ||
	    (err = u64_at(r, x, "samples_lost", &d->samples_lost, true)) ||
	    (err = u64_at(r, x, "samples_in_kernel", &d->samples_kernel, true)) ||
	    (err = u64_at(r, x, "samples_in_program", &d->samples_program, true)))
		return err;
	return num_at(r, x, "event_count", &d->sampled_count, NAN, true);
}

static int read_head(struct rd *r, const json_t *x, struct pmb_disasm *d)
{
	const json_t *counts = json_object_get(x, "counts");
	int err = str_at(r, x, "file", d->file, sizeof(d->file), true);

	if (!err)
		err = str_at(r, x, "function", d->func, sizeof(d->func), true);
	if (!err)
		err = str_at(r, x, "via", d->via, sizeof(d->via), false);
	if (!err)
		err = str_at(r, x, "arch", d->arch, sizeof(d->arch), true);
	if (!err && counts && !json_is_null(counts) && !json_is_string(counts))
		err = bad(r, "counts", "a string or null", counts);
	d->counted = json_is_string(counts);
	if (!err)
		err = str_at(r, x, "ranked_by", d->rank_by, sizeof(d->rank_by), true);
	/* The column ranked by is the one of that name, else the share
	 * (runner_sample.c: "share of EVENT samples"). */
	d->rank_col = -1;
	for (int k = 0; k < PMB_DA_NCOUNT; k++)
		if (!strcmp(d->rank_by, pmb__da_count_name[k]))
			d->rank_col = k;
	if (!err)
		err = read_sampling(r, x, d);
	return err ? err : read_accounting(r, x, d);
}

static int read_notes(struct rd *r, const json_t *x, struct pmb_disasm *d)
{
	const json_t *notes;
	uint64_t decisions = 0;
	int err = bool_at(r, x, "body_empty", &d->body_empty);

	if (!err)
		err = u64_at(r, x, "decisions", &decisions, true);
	if (!err && decisions > INT32_MAX)
		err = bad(r, "decisions", "a whole number below 2^31", json_object_get(x, "decisions"));
	d->decisions = (int)decisions;
	if (!err)
		err = array_at(r, x, "notes", PMB_DA_MAX_NOTES, true, &notes);
	for (size_t i = 0; !err && i < json_array_size(notes); i++) {
		const json_t *v = json_array_get(notes, i);
		char key[32], want[48];

		snprintf(key, sizeof(key), "notes[%zu]", i);
		snprintf(want, sizeof(want), "a string of at most %d bytes", PMB_DA_NOTE - 1);
		if (!json_is_string(v) || strlen(json_string_value(v)) >= PMB_DA_NOTE)
			err = bad(r, key, want, v);
		else
			snprintf(d->note[d->nnotes++], PMB_DA_NOTE, "%s", json_string_value(v));
	}
	return err;
}

/* The instructions of every part, counted before anything is built. */
static size_t insns_of(const json_t *parts)
{
	size_t n = 0;

	for (size_t p = 0; p < json_array_size(parts); p++)
		n += json_array_size(json_object_get(json_array_get(parts, p), "instructions"));
	return n;
}

uint64_t pmb__results_disasm_bytes(const json_t *x)
{
	return sizeof(struct pmb_disasm) +
	       (uint64_t)(insns_of(json_object_get(x, "parts")) + 1) * sizeof(struct pmb_disasm_insn);
}

int pmb__results_read_disasm(const json_t *x, const char *name, struct pmb_disasm **out, bool *no_nop,
			     char *err, size_t errlen)
{
	struct rd r = { .name = name, .err = err, .errlen = errlen };
	struct pmb_disasm *d = NULL;
	const json_t *parts = NULL;
	int rc;

	*out = NULL;
	if (!json_is_object(x))
		return bad(&r, "", "an object", x);
	rc = array_at(&r, x, "parts", PMB_DA_MAX_PARTS, true, &parts);
	if (rc)
		return rc;
	d = calloc(1, sizeof(*d));
	if (d)
		d->insn = calloc(insns_of(parts) + 1, sizeof(*d->insn));
	if (!d || !d->insn) {
		pmb__disasm_free(d);
		return pmb__results_fail(err, errlen, -ENOMEM, "%s", strerror(ENOMEM));
	}
	d->accounted_share = d->misp_all = d->misp_measured = NAN;
	rc = read_head(&r, x, d);
	if (!rc)
		rc = read_notes(&r, x, d);
	for (size_t p = 0; !rc && p < json_array_size(parts); p++) {
		rc = read_part(&r, json_array_get(parts, p), d, (int)p, no_nop);
		d->nparts += !rc;
	}
	if (rc) {
		pmb__disasm_free(d);
		return rc;
	}
	read_shown(d);
	*out = d;
	return 0;
}
