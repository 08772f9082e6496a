/*
 * libbenchfarm_bench's runner: the registry the BF_BENCHMARK macros fill,
 * bf_bench_keep_running (the clock is read only when a measurement
 * ends), the phases of one benchmark (warmup, timing, a throttle check
 * that may sleep and redo the timing), the watchdog behind --time-cap,
 * the console table and Jetpack's JSON.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <regex.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "benchfarm/bench.h"
#include "harness.h"

enum phase { PHASE_WARMUP, PHASE_TIMING, PHASE_DONE };

struct bf_bench_state {
	struct bf_bench_state_head head; /* first: the inline fast path */
	uint64_t iters; /* iterations per measurement */
	uint64_t start_ns, pause_ns, paused_ns;
	bool started, paused;
	enum phase phase;
	struct bf_warmup warmup;
	double *runs;
	size_t nruns, want;
	uint64_t target_ns;
	long long arg;
	const char *error; /* misuse, reported after the run */
};

struct entry {
	char *name;
	bf_bench_fn fn;
	long long arg;
	bool has_arg;
};

static struct entry *entries;
static size_t nentries, capentries;

/* What the watchdog and the signal handlers look at. */
static const char *volatile current_name;
static atomic_uint_fast64_t current_deadline_ns; /* 0: none */
static atomic_int stop_now;
static atomic_int running = 1;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void out_of_memory(void)
{
	fputs("benchfarm-bench: out of memory\n", stderr);
	exit(3);
}

static void add_entry(char *name, bf_bench_fn fn, long long arg, bool has)
{
	if (nentries == capentries) {
		capentries = capentries ? 2 * capentries : 16;
		entries = realloc(entries, capentries * sizeof(*entries));
		if (!entries)
			out_of_memory();
	}
	entries[nentries].name = name;
	entries[nentries].fn = fn;
	entries[nentries].arg = arg;
	entries[nentries].has_arg = has;
	nentries++;
}

static char *name_with(const char *name, long long arg, bool has)
{
	size_t n = strlen(name) + 24;
	char *s = malloc(n);

	if (!s)
		out_of_memory();
	if (has)
		snprintf(s, n, "%s/%lld", name, arg);
	else
		snprintf(s, n, "%s", name);
	return s;
}

void bf_bench_register(const char *name, bf_bench_fn fn, const long long *args,
                       int nargs)
{
	if (nargs <= 0)
		add_entry(name_with(name, 0, false), fn, 0, false);
	for (int i = 0; i < nargs; i++)
		add_entry(name_with(name, args[i], true), fn, args[i], true);
}

void bf_bench_register_range(const char *name, bf_bench_fn fn, long long lo,
                             long long hi, long long mult)
{
	long long v = lo;

	if (mult < 2)
		mult = 8;
	while (v < hi) {
		add_entry(name_with(name, v, true), fn, v, true);
		if (v > LLONG_MAX / mult)
			break;
		v = v ? v * mult : 1;
	}
	add_entry(name_with(name, hi, true), fn, hi, true);
}

long long bf_bench_arg(const bf_bench_state *state)
{
	return state->arg;
}

void bf_bench_pause_timing(bf_bench_state *s)
{
	if (s->paused) {
		s->error = "bf_bench_pause_timing called twice without resume";
		return;
	}
	s->paused = true;
	s->pause_ns = now_ns();
}

void bf_bench_resume_timing(bf_bench_state *s)
{
	if (!s->paused) {
		s->error = "bf_bench_resume_timing without a pause";
		return;
	}
	s->paused_ns += now_ns() - s->pause_ns;
	s->paused = false;
}

/* The end of a measurement, and the start of the next one. */
static int measurement_boundary(bf_bench_state *s)
{
	if (s->started) {
		uint64_t end = now_ns(), raw = end - s->start_ns;

		if (s->paused) {
			s->error = "a measurement ended while timing was "
			           "paused (call bf_bench_resume_timing)";
			s->phase = PHASE_DONE;
			return 0;
		}
		if (s->phase == PHASE_WARMUP) {
			/* warmup counts paused time too, as Jetpack does */
			if (bf_warmup_add(&s->warmup, raw)) {
				s->phase = PHASE_TIMING;
				s->iters = bf_loop_iterations(
				        s->target_ns, s->warmup.last_ns);
			}
		} else {
			s->runs[s->nruns++] =
			        (double)(raw - s->paused_ns) / (double)s->iters;
			if (s->nruns >= s->want) {
				s->phase = PHASE_DONE;
				return 0;
			}
		}
	}
	if (atomic_load(&stop_now))
		return 0;
	s->started = true;
	s->paused_ns = 0;
	s->head.remaining = s->iters - 1;
	s->start_ns = now_ns();
	return 1;
}

int bf_bench__boundary(bf_bench_state *s)
{
	if (s->phase == PHASE_DONE)
		return 0;
	return measurement_boundary(s);
}

/* Settings from the command line. */
struct opts {
	const char *filter, *out;
	bool dry_run, list, throttle, sustained;
	int repeats, retries;
	double time_cap_s, sleep_s;
	uint64_t target_ns;
};

struct result {
	const struct entry *e;
	double *runs;
	size_t nruns;
	uint64_t warmup_iterations, repeat_iterations, total_ns;
	double slept_s;
	const char *error; /* NULL: measured */
	char error_buf[160];
};

/* The throttle check's workload: disturb the caches, then time a 4x4
 * matrix translation, Jetpack's translateM, as the minimum of 20 runs. */
static double measure_work(void *ctx)
{
	static char a[400000], b[400000];
	static volatile float m[16];
	double best = 0;

	(void)ctx;
	for (int i = 0; i < 10; i++) {
		memcpy(b, a, sizeof(a));
		a[i] = b[sizeof(b) - 1 - (size_t)i];
	}
	for (int r = 0; r < 20; r++) {
		uint64_t t0 = now_ns(), t;

		for (int i = 0; i < 10000; i++)
			for (int k = 0; k < 4; k++)
				m[12 + k] += m[k] * 1.0f + m[4 + k] * 2.0f +
				             m[8 + k] * 3.0f;
		t = now_ns() - t0;
		if (!r || (double)t / 10000 < best)
			best = (double)t / 10000;
	}
	return best;
}

static void sleep_s(void *ctx, double s)
{
	struct timespec ts = { (time_t)s,
		               (long)((s - (double)(time_t)s) * 1e9) };

	(void)ctx;
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void run_one(struct result *res, const struct entry *e,
                    const struct opts *o, struct bf_throttle *th)
{
	struct bf_throttle_env env = { measure_work, sleep_s, NULL };
	bf_bench_state s;
	uint64_t t0 = now_ns();
	size_t want = o->dry_run ? 1 : (size_t)o->repeats;

	memset(res, 0, sizeof(*res));
	memset(&s, 0, sizeof(s));
	res->e = e;
	s.arg = e->arg;
	s.want = want;
	s.target_ns = o->target_ns;
	s.runs = calloc(want, sizeof(*s.runs));
	if (!s.runs)
		out_of_memory();
	bf_warmup_init(&s.warmup);
	s.iters = 1;
	s.phase = o->dry_run ? PHASE_TIMING : PHASE_WARMUP;
	if (!o->dry_run)
		bf_throttle_begin(th, &env, o->retries);
	current_name = e->name;
	atomic_store(&stop_now, 0);
	atomic_store(&current_deadline_ns,
	             o->time_cap_s > 0 ? t0 + (uint64_t)(o->time_cap_s * 1e9)
	                               : 0);
	for (;;) {
		e->fn(&s);
		if (s.error || atomic_load(&stop_now) || s.nruns < want ||
		    o->dry_run ||
		    bf_throttle_after_phase(th, &env) != BF_THROTTLE_REDO)
			break;
		/* redo the timing phase: same loop size, no warmup */
		s.nruns = 0;
		s.phase = PHASE_TIMING;
		s.started = false;
		s.head.remaining = 0;
	}
	atomic_store(&current_deadline_ns, 0);
	res->total_ns = now_ns() - t0;
	res->runs = s.runs;
	res->nruns = s.nruns;
	res->warmup_iterations = s.warmup.iterations;
	res->repeat_iterations = s.iters;
	res->slept_s = o->dry_run ? 0 : th->slept_s;
	if (s.error) {
		res->error = s.error;
	} else if (atomic_load(&stop_now)) {
		snprintf(res->error_buf, sizeof(res->error_buf),
		         "stopped at the time cap of %g s (%zu of %zu "
		         "measurements)",
		         o->time_cap_s, s.nruns, want);
		res->error = res->error_buf;
	} else if (s.nruns < want) {
		snprintf(res->error_buf, sizeof(res->error_buf),
		         "returned before bf_bench_keep_running said stop "
		         "(%zu of %zu measurements)",
		         s.nruns, want);
		res->error = res->error_buf;
	}
	current_name = NULL;
}

/* The watchdog: past the cap, ask the benchmark to stop at its next
 * measurement boundary; a body that never gets there is killed. */
static void *watchdog(void *arg)
{
	const struct opts *o = arg;
	uint64_t grace =
	        (uint64_t)((o->time_cap_s < 2 ? 2 : o->time_cap_s) * 1e9);

	while (atomic_load(&running)) {
		uint64_t dl = atomic_load(&current_deadline_ns), t = now_ns();
		const char *name = current_name;

		if (dl && t > dl)
			atomic_store(&stop_now, 1);
		if (dl && t > dl + grace && name) {
			fprintf(stderr,
			        "benchfarm-bench: benchmark '%s' exceeded the "
			        "time cap of %g s and did not return to "
			        "bf_bench_keep_running; stopping the program\n",
			        name, o->time_cap_s);
			_exit(3);
		}
		sleep_s(NULL, 0.05);
	}
	return NULL;
}

static void *spin(void *arg)
{
	volatile unsigned long n = 0;

	(void)arg;
#ifdef SCHED_IDLE
	{
		struct sched_param p = { 0 };

		pthread_setschedparam(pthread_self(), SCHED_IDLE, &p);
	}
#endif
	while (atomic_load(&running))
		n++;
	return NULL;
}

static void on_signal(int sig)
{
	const char *name = current_name;
	char msg[300];
	int n;

	if (name) {
		n = snprintf(msg, sizeof(msg),
		             "benchfarm-bench: benchmark '%s' crashed (signal "
		             "%d) during its run\n",
		             name, sig);
		if (n > 0 && write(2, msg, (size_t)n) < 0)
			n = 0;
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static long long read_ll(const char *path, const char *key)
{
	char line[256];
	long long v = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!key) {
			v = strtoll(line, NULL, 10);
			break;
		}
		if (!strncmp(line, key, strlen(key))) {
			v = strtoll(line + strlen(key), NULL, 10);
			break;
		}
	}
	fclose(f);
	return v;
}

static void put_str(FILE *f, const char *s)
{
	char buf[1024];
	size_t n = bf_json_escape(buf, sizeof(buf), s);

	if (n < sizeof(buf)) {
		fprintf(f, "\"%s\"", buf);
	} else {
		char *big = malloc(n + 1);

		if (!big)
			out_of_memory();
		bf_json_escape(big, n + 1, s);
		fprintf(f, "\"%s\"", big);
		free(big);
	}
}

static void write_context(FILE *f, const struct opts *o, bool prio)
{
	struct utsname u;
	char host[256] = "unknown", model[256] = "unknown", line[512];
	long long cores = 0, maxf = -1, mem;
	DIR *d = opendir("/sys/devices/system/cpu");
	FILE *ci = fopen("/proc/cpuinfo", "r");
	struct dirent *de;

	gethostname(host, sizeof(host) - 1);
	while (ci && fgets(line, sizeof(line), ci))
		if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
			snprintf(model, sizeof(model), "%s",
			         strchr(line, ':') + 2);
			model[strcspn(model, "\n")] = '\0';
			break;
		}
	if (ci)
		fclose(ci);
	while (d && (de = readdir(d))) {
		char p[512];
		long long khz;

		if (strncmp(de->d_name, "cpu", 3) || !de->d_name[3] ||
		    strspn(de->d_name + 3, "0123456789") !=
		            strlen(de->d_name + 3))
			continue;
		cores++;
		snprintf(p, sizeof(p),
		         "/sys/devices/system/cpu/%s/cpufreq/cpuinfo_max_freq",
		         de->d_name);
		khz = read_ll(p, NULL);
		if (khz > 0 && khz * 1000 > maxf)
			maxf = khz * 1000;
	}
	if (d)
		closedir(d);
	mem = read_ll("/proc/meminfo", "MemTotal:");
	if (uname(&u))
		memset(&u, 0, sizeof(u));
	fprintf(f, "{\n  \"context\": {\n    \"build\": {\"device\": ");
	put_str(f, host);
	fprintf(f, ", \"model\": ");
	put_str(f, model);
	fprintf(f, ", \"fingerprint\": ");
	snprintf(line, sizeof(line), "%s/%s/%s", u.sysname, u.release,
	         u.machine);
	put_str(f, line);
	fprintf(f,
	        "},\n    \"cpuCoreCount\": %lld,\n    \"cpuLocked\": false,\n"
	        "    \"cpuMaxFreqHz\": %lld,\n    \"memTotalBytes\": %lld,\n"
	        "    \"sustainedPerformanceModeEnabled\": %s,\n"
	        "    \"threadPriorityRaised\": %s\n  },\n",
	        cores, maxf, mem > 0 ? mem * 1024 : -1,
	        o->sustained ? "true" : "false", prio ? "true" : "false");
}

static void write_json(FILE *f, const struct result *r, size_t n,
                       const struct opts *o, const char *cls, bool prio)
{
	bool first = true;

	write_context(f, o, prio);
	fprintf(f, "  \"benchmarks\": [");
	for (size_t i = 0; i < n; i++) {
		struct bf_bench_stats st;

		if (r[i].error || !r[i].nruns)
			continue;
		bf_bench_stats(&st, r[i].runs, r[i].nruns);
		fprintf(f, "%s\n    {\n      \"name\": ", first ? "" : ",");
		first = false;
		put_str(f, r[i].e->name);
		fprintf(f, ",\n      \"params\": {");
		if (r[i].e->has_arg)
			fprintf(f, "\"arg\": \"%lld\"", r[i].e->arg);
		fprintf(f, "},\n      \"className\": ");
		put_str(f, cls);
		fprintf(f,
		        ",\n      \"totalRunTimeNs\": %llu,\n"
		        "      \"metrics\": {\n        \"timeNs\": {\n"
		        "          \"minimum\": %.17g,\n"
		        "          \"maximum\": %.17g,\n"
		        "          \"median\": %.17g,\n"
		        "          \"coefficientOfVariation\": %.17g,\n"
		        "          \"runs\": [",
		        (unsigned long long)r[i].total_ns, st.min, st.max,
		        st.median, st.cv);
		for (size_t k = 0; k < r[i].nruns; k++)
			fprintf(f, "%s%.17g", k ? ", " : "", r[i].runs[k]);
		fprintf(f,
		        "]\n        }\n      },\n      \"sampledMetrics\": {},\n"
		        "      \"warmupIterations\": %llu,\n"
		        "      \"repeatIterations\": %llu,\n"
		        "      \"thermalThrottleSleepSeconds\": %.0f\n    }",
		        (unsigned long long)r[i].warmup_iterations,
		        (unsigned long long)r[i].repeat_iterations,
		        r[i].slept_s);
	}
	fprintf(f, "\n  ],\n  \"failures\": [");
	first = true;
	for (size_t i = 0; i < n; i++) {
		if (!r[i].error)
			continue;
		fprintf(f, "%s\n    {\"name\": ", first ? "" : ",");
		first = false;
		put_str(f, r[i].e->name);
		fprintf(f, ", \"error\": ");
		put_str(f, r[i].error);
		fprintf(f, "}");
	}
	fprintf(f, "%s]\n}\n", first ? "" : "\n  ");
	(void)o;
}

static const char usage[] =
        "usage: %s [--filter REGEX] [--list] [--dry-run] [--repeats N]\n"
        "       [--out FILE] [--target-ms MS] [--time-cap SECONDS]\n"
        "       [--no-throttle] [--throttle-sleep S] [--throttle-retries "
        "N]\n"
        "       [--sustained]\n"
        "\n"
        "Runs the benchmarks this program defines, measured as Jetpack\n"
        "Microbenchmark does: warmup until the iteration time is stable\n"
        "(at least 30 iterations and 250 ms, at most 8 s), then N\n"
        "measurements (default 50) of a loop sized to MS milliseconds\n"
        "(default 100). A table goes to stdout; --out writes Jetpack's "
        "JSON.\n"
        "\n"
        "    --filter REGEX       run the benchmarks whose name matches "
        "(POSIX ERE)\n"
        "    --list               print the names and exit\n"
        "    --dry-run            one iteration of each, no warmup (for "
        "tests)\n"
        "    --time-cap SECONDS   stop a benchmark that runs longer "
        "(default 600;\n"
        "                         0: none)\n"
        "    --no-throttle        do not check for thermal throttling\n"
        "    --throttle-sleep S   sleep when throttled (default 90)\n"
        "    --throttle-retries N redo the timing at most N times (default "
        "2)\n"
        "    --sustained          a busy thread at the lowest priority "
        "keeps the\n"
        "                         CPU out of idle states\n"
        "\n"
        "Exit: 0, 1 a benchmark failed or was stopped, 2 usage error.\n";

__attribute__((format(printf, 2, 3))) static int
usage_error(const char *prog, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n(see %s --help)\n", prog);
	return 2;
}

static bool parse_num(const char *s, double lo, double hi, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return !errno && end != s && !*end && *out >= lo && *out <= hi;
}

static int parse_args(struct opts *o, int argc, char **argv)
{
	const char *prog = argv[0];

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		double d;

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			printf(usage, prog);
			exit(0);
		} else if (!strcmp(a, "--list")) {
			o->list = true;
		} else if (!strcmp(a, "--dry-run")) {
			o->dry_run = true;
		} else if (!strcmp(a, "--no-throttle")) {
			o->throttle = false;
		} else if (!strcmp(a, "--sustained")) {
			o->sustained = true;
		} else if (!v &&
		           (!strcmp(a, "--filter") || !strcmp(a, "--out") ||
		            !strcmp(a, "--repeats") ||
		            !strcmp(a, "--target-ms") ||
		            !strcmp(a, "--time-cap") ||
		            !strcmp(a, "--throttle-sleep") ||
		            !strcmp(a, "--throttle-retries"))) {
			return usage_error(prog, "%s needs a value", a);
		} else if (!strcmp(a, "--filter")) {
			o->filter = argv[++i];
		} else if (!strcmp(a, "--out")) {
			o->out = argv[++i];
		} else if (!strcmp(a, "--repeats")) {
			if (!parse_num(v, 1, 100000, &d) || d != (int)d)
				return usage_error(prog,
				                   "--repeats: '%s' is not a "
				                   "count from 1 to 100000",
				                   v);
			o->repeats = (int)d;
			i++;
		} else if (!strcmp(a, "--target-ms")) {
			if (!parse_num(v, 0.001, 60000, &d))
				return usage_error(prog,
				                   "--target-ms: '%s' is not a "
				                   "time from 0.001 to 60000",
				                   v);
			o->target_ns = (uint64_t)(d * 1e6);
			i++;
		} else if (!strcmp(a, "--time-cap")) {
			if (!parse_num(v, 0, 1e7, &d))
				return usage_error(prog,
				                   "--time-cap: '%s' is not a "
				                   "number of seconds",
				                   v);
			o->time_cap_s = d;
			i++;
		} else if (!strcmp(a, "--throttle-sleep")) {
			if (!parse_num(v, 0, 3600, &d))
				return usage_error(prog,
				                   "--throttle-sleep: '%s' is "
				                   "not seconds from 0 to 3600",
				                   v);
			o->sleep_s = d;
			i++;
		} else if (!strcmp(a, "--throttle-retries")) {
			if (!parse_num(v, 0, 100, &d) || d != (int)d)
				return usage_error(
				        prog,
				        "--throttle-retries: '%s' is "
				        "not a count from 0 to 100",
				        v);
			o->retries = (int)d;
			i++;
		} else {
			return usage_error(prog, "unknown option '%s'", a);
		}
	}
	return 0;
}

int bf_bench_main(int argc, char **argv)
{
	struct opts o = { NULL,
		          NULL,
		          false,
		          false,
		          true,
		          false,
		          BF_MEASUREMENTS_DEFAULT,
		          BF_THROTTLE_RETRIES,
		          600,
		          BF_THROTTLE_SLEEP_S,
		          BF_TARGET_NS_DEFAULT };
	const char *cls =
	        strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	struct bf_throttle th;
	struct result *res;
	pthread_t dog, spinner;
	bool dog_on = false, spin_on = false, prio = false;
	size_t nres = 0, failed = 0;
	regex_t re;
	int ret;

	if ((ret = parse_args(&o, argc, argv)))
		return ret;
	if (o.filter &&
	    (ret = regcomp(&re, o.filter, REG_EXTENDED | REG_NOSUB))) {
		char msg[256];

		regerror(ret, &re, msg, sizeof(msg));
		fprintf(stderr, "%s: --filter '%s': %s\n", argv[0], o.filter,
		        msg);
		return 2;
	}
	res = calloc(nentries + 1, sizeof(*res));
	if (!res)
		out_of_memory();
	for (size_t i = 0; i < nentries; i++) {
		if (o.filter && regexec(&re, entries[i].name, 0, NULL, 0))
			continue;
		res[nres++].e = &entries[i];
	}
	if (o.filter)
		regfree(&re);
	if (!nres) {
		fprintf(stderr, "%s: no benchmark %s%s%s (--list shows them)\n",
		        argv[0], o.filter ? "matches '" : "is defined",
		        o.filter ? o.filter : "", o.filter ? "'" : "");
		free(res);
		return 2;
	}
	if (o.list) {
		for (size_t i = 0; i < nres; i++)
			printf("%s\n", res[i].e->name);
		free(res);
		return 0;
	}
	signal(SIGABRT, on_signal);
	signal(SIGSEGV, on_signal);
	signal(SIGBUS, on_signal);
	signal(SIGFPE, on_signal);
	signal(SIGILL, on_signal);
	prio = setpriority(PRIO_PROCESS, 0, -20) == 0;
	if (o.time_cap_s > 0)
		dog_on = !pthread_create(&dog, NULL, watchdog, &o);
	if (o.sustained)
		spin_on = !pthread_create(&spinner, NULL, spin, NULL);
	bf_throttle_init(&th, o.throttle && !o.dry_run, o.retries, o.sleep_s);
	printf("%-40s %14s %14s %14s %7s %10s %8s\n", "benchmark", "median ns",
	       "min ns", "max ns", "cv", "iters", "warmup");
	for (size_t i = 0; i < nres; i++) {
		const struct entry *e = res[i].e;
		struct bf_bench_stats st;

		run_one(&res[i], e, &o, &th);
		if (res[i].error) {
			printf("%-40s %s\n", e->name, res[i].error);
			fprintf(stderr, "%s: benchmark '%s': %s\n", argv[0],
			        e->name, res[i].error);
			failed++;
			continue;
		}
		bf_bench_stats(&st, res[i].runs, res[i].nruns);
		printf("%-40s %14.1f %14.1f %14.1f %6.2f%% %10llu %8llu%s\n",
		       e->name, st.median, st.min, st.max, 100 * st.cv,
		       (unsigned long long)res[i].repeat_iterations,
		       (unsigned long long)res[i].warmup_iterations,
		       res[i].slept_s > 0 ? " (slept for throttling)" : "");
		fflush(stdout);
	}
	atomic_store(&running, 0);
	if (dog_on)
		pthread_join(dog, NULL);
	if (spin_on)
		pthread_join(spinner, NULL);
	if (o.out) {
		char tmp[PATH_MAX];
		FILE *f;

		snprintf(tmp, sizeof(tmp), "%s.tmp%d", o.out, (int)getpid());
		f = fopen(tmp, "w");
		if (!f) {
			fprintf(stderr, "%s: cannot write %s: %s\n", argv[0],
			        tmp, strerror(errno));
			failed++;
		} else {
			write_json(f, res, nres, &o, cls, prio);
			if (fclose(f) || rename(tmp, o.out)) {
				fprintf(stderr, "%s: cannot write %s: %s\n",
				        argv[0], o.out, strerror(errno));
				unlink(tmp);
				failed++;
			}
		}
	}
	for (size_t i = 0; i < nres; i++)
		free(res[i].runs);
	free(res);
	return failed ? 1 : 0;
}
