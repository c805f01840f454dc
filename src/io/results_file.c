/* results_file.c - opening a result file safely and parsing it into jansson's tree. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "pmubench.h"
#include "results_io.h"
#include "results_io_internal.h"

int pmb__results_fail(char *err, size_t errlen, int ret, const char *fmt, ...)
{
	va_list ap;

	char raw[512];
	size_t k = 0;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(raw, sizeof(raw), fmt, ap);
		va_end(ap);
		/* One line: jansson quotes the text near an error, which may
		 * hold a newline or any control character, kept as \xNN. */
		for (const unsigned char *p = (const unsigned char *)raw; *p && k + 5 <= errlen; p++) {
			if (*p < 0x20 || *p == 0x7f)
				k += (size_t)snprintf(err + k, 5, "\\x%02x", *p);
			else
				err[k++] = (char)*p;
		}
		err[k] = '\0';
	}
	return ret;
}

static const char *file_kind(mode_t mode)
{
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISSOCK(mode))
		return "a socket";
	return "not a regular file";
}

/* Open path for reading if it is a regular file within the size cap: a
 * directory, a FIFO or a device (/dev/zero never ends) is refused before
 * anything is read.  O_NONBLOCK: opening a FIFO would wait for a writer. */
static int open_checked(const char *path, int *fd, char *err, size_t errlen)
{
	struct stat st;
	int ret;

	*fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (*fd < 0)
		return pmb__results_fail(err, errlen, -errno, "%s", strerror(errno));
	if (fstat(*fd, &st)) {
		ret = pmb__results_fail(err, errlen, -errno, "%s", strerror(errno));
		goto fail_stat;
	}
	if (S_ISDIR(st.st_mode)) {
		ret = pmb__results_fail(err, errlen, -EISDIR, "a directory, not a result "
			   "file");
		goto fail_stat;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = pmb__results_fail(err, errlen, -EINVAL, "%s, not a regular file",
			   file_kind(st.st_mode));
		goto fail_stat;
	}
	if ((uint64_t)st.st_size > PMB_RESULTS_MAX_BYTES) {
		ret = pmb__results_fail(err, errlen, -EFBIG, "%jd bytes, over the 1 GiB "
			   "limit for a result file", (intmax_t)st.st_size);
		goto fail_stat;
	}
	return 0;

fail_stat:
	close(*fd);
	*fd = -1;
	return ret;
}

struct reader {
	int fd;
	uint64_t total;  /* bytes read */
	int err;         /* -errno of a failed read; -EFBIG past the cap */
};

/* jansson's input: read(2) with the cap held while reading too, for a
 * file that grows (or a /proc file, which says it has 0 bytes). */
static size_t read_some(void *buf, size_t len, void *data)
{
	struct reader *rd = data;
	bool first = rd->total == 0;
	ssize_t got;

	do
		got = read(rd->fd, buf, len);
	while (got < 0 && errno == EINTR);
	if (got < 0) {
		rd->err = -errno;
		return (size_t)-1;
	}
	rd->total += (uint64_t)got;
	if (rd->total > PMB_RESULTS_MAX_BYTES) {
		rd->err = -EFBIG;
		return (size_t)-1;
	}
	/* A UTF-8 byte order mark is not JSON, but editors write one.
	 * jansson asks for 1 KiB at a time: the mark is in the first read. */
	if (first && got >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3)) {
		memmove(buf, (char *)buf + 3, (size_t)got - 3);
		got -= 3;
	}
	return (size_t)got;
}

/* The key of the value that ends before byte `end` of the file: the
 * last "KEY": in the 256 bytes before it, into key; "" where there is
 * none (a number in an array names its array's key). */
static void key_before(int fd, long end, char *key, size_t size)
{
	char buf[257];
	long from = end > 256 ? end - 256 : 0;
	ssize_t n = pread(fd, buf, (size_t)(end - from), from);
	char *colon, *close, *open;

	key[0] = '\0';
	if (n <= 0)
		return;
	buf[n] = '\0';
	for (colon = strrchr(buf, ':'); colon; *colon = '\0', colon = strrchr(buf, ':')) {
		close = colon;
		while (close > buf && (close[-1] == ' ' || close[-1] == '\t' || close[-1] == '\n'))
			close--;
		if (close == buf || close[-1] != '"')
			continue;
		close[-1] = '\0';
		open = strrchr(buf, '"');
		if (open)
			snprintf(key, size, "%.60s", open + 1);
		return;
	}
}

/* Parse the whole file: one pass, a tree linear in the input.  Duplicate
 * keys are refused, as a figure given twice is not one figure; every
 * number is a double (uint64 counts included, as they are written). */
static int parse(int fd, json_t **root, char *err, size_t errlen)
{
	struct reader rd = { .fd = fd };
	json_error_t e;

	*root = json_load_callback(read_some, &rd, JSON_REJECT_DUPLICATES |
				   JSON_DECODE_INT_AS_REAL, &e);
	if (*root)
		return 0;
	if (rd.err == -EFBIG)
		return pmb__results_fail(err, errlen, -EFBIG, "grew over the 1 GiB limit "
			    "for a result file while being read");
	if (rd.err)
		return pmb__results_fail(err, errlen, rd.err, "%s", strerror(-rd.err));
	if (json_error_code(&e) == json_error_out_of_memory)
		return pmb__results_fail(err, errlen, -ENOMEM, "%s", strerror(ENOMEM));
	if (json_error_code(&e) == json_error_numeric_overflow || strcasestr(e.text, "near 'nan") ||
	    strcasestr(e.text, "near 'inf") || strstr(e.text, "near '-'")) {
		/* 1e400, NaN, Infinity: no finite number; name its field */
		char key[64];

		key_before(fd, e.position, key, sizeof(key));
		if (key[0])
			return pmb__results_fail(err, errlen, PMB_EBADJSON, "line %d, column %d: \"%s\": "
				    "%s (not a finite number)", e.line, e.column, key, e.text);
	}
	return pmb__results_fail(err, errlen, PMB_EBADJSON, "line %d, column %d: %s",
		    e.line, e.column, e.text);
}

/* What jansson's tree of the file costs in resident memory, measured
 * here (jansson 2.14, glibc malloc; peak RSS of a parse of 8 MB of each
 * shape, per value): a number 32 bytes and its slot 8 ([0,0,...]: 39.4);
 * an array 128 more (its struct and first table: [],[],...: 133); past
 * the 8 slots it starts with, 16 bytes a slot (the table doubles, old and
 * new held at once); an object 256 ({},{},...: 227); a member 96 and its
 * key ({"1":0,"2":0,...}: 116 with its value); a string 48 more than a
 * number and its bytes ("",...: 86), the longest twice more (the lexer's
 * buffer, doubled as it grows, and the copy); true, false and null
 * their slot only (jansson shares one of each). */
#define COST_VALUE 40
#define COST_ARRAY 128
#define COST_SLOT_PAST_8 16
#define COST_OBJECT 256
#define COST_MEMBER 96
#define COST_STRING 48
#define COST_LITERAL 8
/* The tree may take PMB__RESULTS_RATIO times the file (results_io_internal.h),
 * or PRESCAN_FLOOR bytes for a smaller file: pmubench's own files of the
 * usual 30 samples a benchmark come to 6 to 7 times their size by these
 * costs, and the loader's model of their samples (results_load.c) adds
 * 2; one of thousands of samples a benchmark comes to 11 to 14, its
 * [0, 0, 0] triples 232 bytes each and a sample 408 in the loader.  With
 * a floor of 4 MiB a run of one benchmark with --samples=3000 (437 KB)
 * was refused; 64 MiB reads such files to about 5 MB, and holds a small
 * hostile file to a constant. */
#define PRESCAN_FLOOR (64ull << 20)
/* jansson refuses deeper nesting (JSON_PARSER_MAX_DEPTH): the counts of
 * deeper arrays are not kept (the parse fails anyway). */
#define PRESCAN_DEPTH 2048

struct prescan {
	uint64_t bytes, values, arrays, objects, members, slots_past_8;
	uint64_t strings, string_bytes, string_len, longest;
	uint64_t literals; /* true, false, null: by their first letter */
	bool in_string, escaped;
	int depth;
	uint64_t elems[PRESCAN_DEPTH]; /* commas of each open array (or
	                                  UINT64_MAX for an object) */
};

static void prescan_close(struct prescan *ps)
{
	if (ps->depth <= 0)
		return;
	ps->depth--;
	if (ps->depth < PRESCAN_DEPTH && ps->elems[ps->depth] != UINT64_MAX && ps->elems[ps->depth] + 1 > 8)
		ps->slots_past_8 += ps->elems[ps->depth] + 1 - 8;
}

static void prescan_open(struct prescan *ps, bool array)
{
	if (ps->depth < PRESCAN_DEPTH)
		ps->elems[ps->depth] = array ? 0 : UINT64_MAX;
	ps->depth++;
}

/* Inside a string: its bytes (escapes counted as written, an upper
 * bound on what they decode to) and the longest. */
static void prescan_string_byte(struct prescan *ps, char c)
{
	if (ps->escaped) {
		ps->escaped = false;
	} else if (c == '\\') {
		ps->escaped = true;
	} else if (c == '"') {
		ps->in_string = false;
		if (ps->string_len > ps->longest)
			ps->longest = ps->string_len;
		return;
	}
	ps->string_len++;
	ps->string_bytes++;
}

/* Count the tokens of buf[0..n) outside strings.  Linear, one state. */
static void prescan_chunk(struct prescan *ps, const char *buf, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char c = buf[i];

		if (ps->in_string) {
			prescan_string_byte(ps, c);
			continue;
		}
		switch (c) {
		case '"': ps->in_string = true; ps->strings++; ps->string_len = 0; break;
		case '[': ps->arrays++; ps->values++; prescan_open(ps, true); break;
		case '{': ps->objects++; ps->values++; prescan_open(ps, false); break;
		case ']': case '}': prescan_close(ps); break;
		case ',':
			ps->values++;
			if (ps->depth > 0 && ps->depth <= PRESCAN_DEPTH && ps->elems[ps->depth - 1] != UINT64_MAX)
				ps->elems[ps->depth - 1]++;
			break;
		case ':': ps->members++; break;
		case 't': case 'f': case 'n': ps->literals++; break;
		default: break;
		}
	}
	ps->bytes += n;
}

/* The bytes the tree of what was scanned takes, at most. */
static uint64_t prescan_cost(const struct prescan *ps)
{
	uint64_t string_values = ps->strings > ps->members ? ps->strings - ps->members : 0;
	uint64_t literals = ps->literals < ps->values ? ps->literals : ps->values;

	return (ps->values - literals) * COST_VALUE + literals * COST_LITERAL + ps->arrays * COST_ARRAY + ps->slots_past_8 * COST_SLOT_PAST_8 +
	       ps->objects * COST_OBJECT + ps->members * COST_MEMBER + string_values * COST_STRING +
	       ps->string_bytes + 2 * ps->longest;
}

bool pmb__results_over(uint64_t cost, uint64_t bytes)
{
	/* bytes is at most 1 GiB: no overflow */
	return cost > PRESCAN_FLOOR && cost > bytes * PMB__RESULTS_RATIO;
}

/* Before the file is parsed: the memory its tree would take, from a
 * count of its values, against PMB__RESULTS_RATIO times its size (a file
 * of 20 MB of {} took 1.8 GB, 90 times).  Refused with the reason where
 * it is over.  Returns 0, -errno, or PMB_EBADJSON; *cost the estimate. */
static int prescan(int fd, uint64_t *cost, char *err, size_t errlen)
{
	static struct prescan ps; /* 16 KiB of depths: not on the stack */
	static char buf[64 << 10];
	ssize_t n;

	memset(&ps, 0, sizeof(ps));
	ps.values = 1;
	while ((n = pread(fd, buf, sizeof(buf), (off_t)ps.bytes)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return pmb__results_fail(err, errlen, -errno, "%s", strerror(errno));
		prescan_chunk(&ps, buf, (size_t)n);
		if (ps.bytes > PMB_RESULTS_MAX_BYTES)
			return pmb__results_fail(err, errlen, -EFBIG, "grew over the 1 GiB limit "
				    "for a result file while being read");
	}
	*cost = prescan_cost(&ps);
	if (pmb__results_over(*cost, ps.bytes))
		return pmb__results_fail(err, errlen, PMB_EBADJSON, "%llu values (%llu arrays, %llu objects, "
			    "%llu strings) in %llu bytes would take about %llu MiB to read, over the limit of "
			    "%d times the file (%llu MiB): refused before parsing (a result file of 30 samples a "
			    "benchmark takes about 8 times; one of thousands of samples a benchmark more)",
			    (unsigned long long)ps.values, (unsigned long long)ps.arrays,
			    (unsigned long long)ps.objects, (unsigned long long)ps.strings,
			    (unsigned long long)ps.bytes, (unsigned long long)((*cost + (1 << 20) - 1) >> 20),
			    PMB__RESULTS_RATIO, (unsigned long long)((ps.bytes * PMB__RESULTS_RATIO) >> 20));
	return 0;
}

int pmb__results_load_cost(const char *path, json_t **root, uint64_t *bytes, uint64_t *cost, char *err,
			   size_t errlen)
{
	uint64_t c = 0;
	struct stat st;
	int fd, ret;

	ret = open_checked(path, &fd, err, errlen);
	if (ret)
		return ret;
	ret = prescan(fd, &c, err, errlen);
	if (!ret)
		ret = parse(fd, root, err, errlen);
	if (bytes)
		*bytes = fstat(fd, &st) ? 0 : (uint64_t)st.st_size;
	if (cost)
		*cost = c;
	close(fd);
	return ret;
}

int pmb__results_load(const char *path, json_t **root, char *err,
		      size_t errlen)
{
	return pmb__results_load_cost(path, root, NULL, NULL, err, errlen);
}
