#include "probe/cpuusage.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/parse.h"

/* Fields after the command name: state (3) through starttime (22). */
#define STAT_FIRST    3
#define STAT_LAST     22
#define STAT_TOKEN    32 /* longer than any number /proc prints */
#define STAT_TEXT_MAX 4096

/*
 * The next space-separated field at *p into tok. Fields are separated by
 * exactly one space; the line may end in a newline.
 */
static int next_field(char *tok, const char **p, const char *end, int field,
                      struct bf_err *err)
{
	size_t n = 0;

	if (*p >= end || **p != ' ')
		return bf_err_set(err, BF_EINVAL,
		                  "truncated: field %d (of %d) is missing",
		                  field, STAT_LAST);
	(*p)++;
	while (*p < end && **p != ' ' && **p != '\n') {
		if (n + 1 >= STAT_TOKEN)
			return bf_err_set(err, BF_EINVAL,
			                  "field %d is too long", field);
		tok[n++] = *(*p)++;
	}
	tok[n] = '\0';
	return 0;
}

/* The pid before " (": digits only. */
static int parse_pid(int64_t *out, const char *text, const char *lp,
                     struct bf_err *err)
{
	char tok[STAT_TOKEN];
	size_t n = (size_t)(lp - text);

	if (n < 2 || n > STAT_TOKEN || lp[-1] != ' ')
		return bf_err_set(err, BF_EINVAL,
		                  "no pid before the command name");
	memcpy(tok, text, n - 1);
	tok[n - 1] = '\0';
	if (bf_parse_i64(out, tok, NULL) || *out <= 0)
		return bf_err_set(err, BF_EINVAL, "pid '%s' is not a number",
		                  tok);
	return 0;
}

static void store_field(struct bf_proc_stat *out, int field, int64_t v)
{
	if (field == 14)
		out->utime = (uint64_t)v;
	else if (field == 15)
		out->stime = (uint64_t)v;
	else if (field == 16)
		out->cutime = (uint64_t)v;
	else if (field == 17)
		out->cstime = (uint64_t)v;
	else if (field == 22)
		out->starttime = (uint64_t)v;
}

int bf_proc_stat_parse(struct bf_proc_stat *out, const char *text, size_t len,
                       struct bf_err *err)
{
	const char *end = text + len, *lp, *rp = NULL, *p;
	struct bf_proc_stat st;
	char tok[STAT_TOKEN];
	int64_t v;
	int ret;

	memset(&st, 0, sizeof(st));
	/* The command name may hold ") (": only the last ')' ends it. */
	for (p = text; p < end; p++)
		if (*p == ')')
			rp = p;
	lp = memchr(text, '(', len);
	if (!lp || !rp || rp < lp)
		return bf_err_set(err, BF_EINVAL,
		                  "no command name in parentheses");
	if ((ret = parse_pid(&st.pid, text, lp, err)))
		return ret;
	p = rp + 1;
	for (int field = STAT_FIRST; field <= STAT_LAST; field++) {
		if ((ret = next_field(tok, &p, end, field, err)))
			return ret;
		if (field == STAT_FIRST) {
			if (strlen(tok) != 1 || tok[0] < 'A' || tok[0] > 'z')
				return bf_err_set(err, BF_EINVAL,
				                  "state '%s' is not a letter",
				                  tok);
			st.state = tok[0];
			continue;
		}
		if (bf_parse_i64(&v, tok, NULL))
			return bf_err_set(err, BF_EINVAL,
			                  "field %d '%s' is not a number",
			                  field, tok);
		if (v < 0 && field >= 14 && field != 18 && field != 19)
			return bf_err_set(err, BF_EINVAL,
			                  "field %d is negative (%s)", field,
			                  tok);
		store_field(&st, field, v);
	}
	*out = st;
	return 0;
}

double bf_cpu_uptime_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The whole of a small /proc file into buf; its length or -1 (errno). */
static ssize_t read_small(const char *path, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC), e;

	if (fd < 0)
		return -1;
	while (len < size) {
		n = read(fd, buf + len, size - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	e = errno;
	close(fd);
	errno = e;
	return n < 0 ? -1 : (ssize_t)len;
}

int bf_cpu_snapshot_take(struct bf_cpu_snapshot *out, pid_t pid,
                         struct bf_err *err)
{
	char path[64], text[STAT_TEXT_MAX];
	ssize_t len;
	int ret;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	len = read_small(path, text, sizeof(text));
	if (len < 0)
		return errno == ENOENT || errno == ESRCH
		               ? bf_err_set(err, BF_ENOTFOUND,
		                            "'%s' does not exist", path)
		               : bf_err_sys(err, "cannot read '%s'", path);
	out->uptime_s = bf_cpu_uptime_s();
	if (len == (ssize_t)sizeof(text))
		return bf_err_set(err, BF_EINVAL, "'%s' is too long", path);
	ret = bf_proc_stat_parse(&out->stat, text, (size_t)len, err);
	if (ret)
		bf_err_prefix(err, "%s", path);
	return ret;
}

void bf_cpu_snapshot_launch(struct bf_cpu_snapshot *out,
                            const struct bf_proc_stat *st, long clk_tck)
{
	memset(out, 0, sizeof(*out));
	out->stat.pid = st->pid;
	out->stat.state = st->state;
	out->stat.starttime = st->starttime;
	out->uptime_s = (double)st->starttime / (double)clk_tck;
}

static uint64_t cpu_ticks(const struct bf_proc_stat *st)
{
	return st->utime + st->stime + st->cutime + st->cstime;
}

double bf_cpu_time_s(const struct bf_cpu_snapshot *s, long clk_tck)
{
	return (double)cpu_ticks(&s->stat) / (double)clk_tck;
}

double bf_cpu_process_time_s(const struct bf_cpu_snapshot *s, long clk_tck)
{
	return s->uptime_s - (double)s->stat.starttime / (double)clk_tck;
}

int bf_cpu_usage(double *out, const struct bf_cpu_snapshot *a,
                 const struct bf_cpu_snapshot *b, long clk_tck, long cores,
                 struct bf_err *err)
{
	double cpu_delta, process_delta;

	if (clk_tck <= 0 || cores <= 0)
		return bf_err_set(err, BF_EINVAL,
		                  "clock ticks (%ld) and cores (%ld) must be "
		                  "positive",
		                  clk_tck, cores);
	if (a->stat.pid != b->stat.pid ||
	    a->stat.starttime != b->stat.starttime)
		return bf_err_set(err, BF_EINVAL,
		                  "snapshots of different processes");
	if (cpu_ticks(&b->stat) < cpu_ticks(&a->stat))
		return bf_err_set(err, BF_EINVAL, "CPU time went backwards");
	cpu_delta = bf_cpu_time_s(b, clk_tck) - bf_cpu_time_s(a, clk_tck);
	process_delta = bf_cpu_process_time_s(b, clk_tck) -
	                bf_cpu_process_time_s(a, clk_tck);
	if (!(process_delta > 0))
		return bf_err_set(
		        err, BF_EINVAL,
		        "second snapshot is not later than the first");
	*out = cpu_delta / process_delta / (double)cores;
	return 0;
}

void bf_cpu_series_init(struct bf_cpu_series *s, size_t max)
{
	memset(s, 0, sizeof(*s));
	s->max = max ? max : BF_CPU_SERIES_MAX;
	if (s->max < 3)
		s->max = 3;
	s->max |= 1;
	s->stride = 1;
}

void bf_cpu_series_release(struct bf_cpu_series *s)
{
	if (!s)
		return;
	BF_FREE(s->v);
	s->n = s->alloc = 0;
}

/* Keep v[0], v[2], v[4], ...; n is odd, so the last one stays too. */
static void series_thin(struct bf_cpu_series *s)
{
	size_t k = 0;

	for (size_t i = 0; i < s->n; i += 2)
		s->v[k++] = s->v[i];
	s->n = k;
	s->stride *= 2;
}

void bf_cpu_series_add(struct bf_cpu_series *s,
                       const struct bf_cpu_snapshot *snap, bool keep)
{
	s->pending++;
	if (!keep && s->pending < s->stride)
		return;
	if (s->n == s->max) {
		series_thin(s);
		if (!keep && s->pending < s->stride)
			return;
	}
	if (s->n == s->alloc) {
		s->alloc = s->alloc ? 2 * s->alloc : 64;
		if (s->alloc > s->max)
			s->alloc = s->max;
		s->v = bf_xreallocarray(s->v, s->alloc, sizeof(*s->v));
	}
	s->v[s->n++] = *snap;
	s->pending = 0;
}

int bf_cpu_series_point(double *t, double *usage, const struct bf_cpu_series *s,
                        size_t i, long clk_tck, long cores, struct bf_err *err)
{
	if (i + 1 >= s->n)
		BF_BUG("bf_cpu_series_point: interval %zu of %zu", i, s->n);
	*t = s->v[i + 1].uptime_s - s->v[0].uptime_s;
	return bf_cpu_usage(usage, &s->v[i], &s->v[i + 1], clk_tck, cores, err);
}
