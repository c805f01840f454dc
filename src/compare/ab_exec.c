/* ab_exec.c - running one side of `pmubench ab`: a benchmark program, or this pmubench with --load, as a child process. */
#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ab_internal.h"

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcmp(s + n - k, suffix);
}

int pmb__ab_side_init(struct pmb__ab_side *s, const char *label, const char *path,
		      const char *dir, char *err, size_t errlen)
{
	ssize_t len;

	memset(s, 0, sizeof(*s));
	s->label = label;
	s->path = path;
	snprintf(s->err, sizeof(s->err), "%s/%s.err", dir, label);
	s->load = ends_with(path, ".so");
	if (!s->load) {
		snprintf(s->prog, sizeof(s->prog), "%s", path);
		return 0;
	}
	/* A plugin is measured by this very pmubench, which loads it. */
	len = readlink("/proc/self/exe", s->prog, sizeof(s->prog) - 1);
	if (len < 0) {
		snprintf(err, errlen, "%s %s: a plugin, but this pmubench cannot find "
			 "itself to load it (/proc/self/exe: %s)", label, path, strerror(errno));
		return -errno;
	}
	s->prog[len] = '\0';
	return 0;
}

/* The first line of the file that says what went wrong: its first
 * "error" line, else its first line that is not a warning, else its first. */
static void first_error(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	char line[512], any[512] = "", plain[512] = "";

	buf[0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!line[0])
			continue;
		if (strstr(line, "error")) {
			snprintf(buf, size, "%s", line);
			break;
		}
		if (!any[0])
			snprintf(any, sizeof(any), "%s", line);
		if (!plain[0] && !strstr(line, "warning"))
			snprintf(plain, sizeof(plain), "%s", line);
	}
	if (f)
		fclose(f);
	if (!buf[0])
		snprintf(buf, size, "%s", plain[0] ? plain : any[0] ? any : "(nothing on stderr)");
}

/* In the child: stdout to out, stderr to errf, then exec.  Never returns. */
static void child(const struct pmb__ab_side *s, char **argv, const char *out)
{
	int fo = open(out ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int fe = open(s->err, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fo < 0 || fe < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0)
		_exit(126);
	execvp(s->prog, argv);
	dprintf(2, "error: cannot run %s: %s\n", s->prog, strerror(errno));
	_exit(127);
}

int pmb__ab_run(struct pmb__ab_side *s, const char *const *args, size_t nargs,
		const char *out, char *err, size_t errlen)
{
	char load[4200], why[512];
	char **argv = calloc(nargs + 3, sizeof(*argv));
	size_t k = 0;
	int status;
	pid_t pid;

	if (!argv)
		return snprintf(err, errlen, "%s", strerror(ENOMEM)), -1;
	argv[k++] = s->prog;
	snprintf(load, sizeof(load), "--load=%s", s->path);
	if (s->load)
		argv[k++] = load;
	for (size_t i = 0; i < nargs; i++)
		argv[k++] = (char *)args[i];
	fflush(NULL);
	pid = fork();
	if (pid == 0)
		child(s, argv, out);
	free(argv);
	if (pid < 0)
		return snprintf(err, errlen, "%s %s: fork: %s", s->label, s->path, strerror(errno)), -1;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return snprintf(err, errlen, "%s %s: waitpid: %s", s->label, s->path,
					strerror(errno)), -1;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	first_error(s->err, why, sizeof(why));
	if (WIFEXITED(status))
		snprintf(err, errlen, "%s %s exited %d: %s", s->label, s->path, WEXITSTATUS(status), why);
	else
		snprintf(err, errlen, "%s %s was killed by signal %d: %s", s->label, s->path,
			 WTERMSIG(status), why);
	return -1;
}

void pmb__ab_names_free(char **names, size_t n)
{
	for (size_t i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
}

/* The lines of the file at path, one name each. */
static int read_names(const char *path, char ***names, size_t *n)
{
	FILE *f = fopen(path, "r");
	char line[1024], **v = NULL, **nv;
	size_t k = 0;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!line[0])
			continue;
		nv = realloc(v, (k + 1) * sizeof(*v));
		if (!nv || !(nv[k] = strdup(line))) {
			v = nv ? nv : v;
			fclose(f);
			pmb__ab_names_free(v, k);
			return -ENOMEM;
		}
		v = nv;
		k++;
	}
	fclose(f);
	*names = v;
	*n = k;
	return 0;
}

/* Keep the names filter matches, as the side's --filter would (POSIX
 * extended).  The side lists them all: a side asked for a filter that
 * matches none of its benchmarks exits 2, which is no list, not an empty
 * one. */
static int keep_matching(const char *filter, char **names, size_t *n, char *err, size_t errlen)
{
	regex_t re;
	size_t k = 0;
	int rc = regcomp(&re, filter, REG_EXTENDED | REG_NOSUB);

	if (rc) {
		char why[128];

		regerror(rc, &re, why, sizeof(why));
		snprintf(err, errlen, "--filter=%s: %s", filter, why);
		return -1;
	}
	for (size_t i = 0; i < *n; i++)
		if (!regexec(&re, names[i], 0, NULL, 0))
			names[k++] = names[i];
		else
			free(names[i]);
	*n = k;
	regfree(&re);
	return 0;
}

int pmb__ab_list(struct pmb__ab_side *s, const char *filter, const char *list_path,
		 char ***names, size_t *n, char *err, size_t errlen)
{
	const char *args[1] = { "--list" };
	int ret;

	if (pmb__ab_run(s, args, 1, list_path, err, errlen))
		return -1;
	ret = read_names(list_path, names, n);
	if (ret)
		snprintf(err, errlen, "%s %s: its list: %s", s->label, s->path, strerror(-ret));
	else if (filter)
		ret = keep_matching(filter, *names, n, err, errlen);
	return ret ? -1 : 0;
}

char *pmb__ab_exact_filter(char *const *names, size_t n)
{
	size_t len = 8;
	char *re, *p;

	for (size_t i = 0; i < n; i++)
		len += 2 * strlen(names[i]) + 1;
	re = malloc(len);
	if (!re)
		return NULL;
	p = re;
	*p++ = '^';
	*p++ = '(';
	for (size_t i = 0; i < n; i++) {
		if (i)
			*p++ = '|';
		for (const char *c = names[i]; *c; c++) {
			if (strchr(".[]()*+?{}|^$\\", *c))
				*p++ = '\\';
			*p++ = *c;
		}
	}
	strcpy(p, ")$");
	return re;
}
