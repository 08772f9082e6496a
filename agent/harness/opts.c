/*
 * The benchmark program's command line. Values may follow their flag
 * (--repeats 10) or be attached to it (--repeats=10).
 */
#include "harness.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void bf_bench__usage(FILE *f, const char *prog)
{
	fprintf(f,
	        "usage: %s [--filter REGEX] [--list] [--dry-run] [--repeats N]\n"
	        "       [--out FILE] [--target-ms MS] [--time-cap SECONDS]\n"
	        "       [--no-throttle] [--throttle-sleep S] [--throttle-retries N]\n"
	        "       [--sustained]\n"
	        "\n"
	        "Runs the benchmarks this program defines, measured as Jetpack\n"
	        "Microbenchmark does: warmup until the iteration time is stable\n"
	        "(at least 30 iterations and 250 ms, at most 8 s), then N\n"
	        "measurements (default 50) of a loop sized to MS milliseconds\n"
	        "(default 100). A table goes to stdout; --out writes Jetpack's JSON.\n"
	        "\n"
	        "    --filter REGEX       run the benchmarks whose name matches (POSIX ERE)\n"
	        "    --list               print the names and exit\n"
	        "    --dry-run            one iteration of each, no warmup (for tests)\n"
	        "    --repeats N          measurements per benchmark (default 50)\n"
	        "    --out FILE           write Jetpack's JSON to FILE (rewritten after\n"
	        "                         each benchmark)\n"
	        "    --target-ms MS       time per measurement (default 100)\n"
	        "    --time-cap SECONDS   stop a benchmark that runs longer (default 600;\n"
	        "                         0: none)\n"
	        "    --no-throttle        do not check for thermal throttling\n"
	        "    --throttle-sleep S   sleep when throttled (default 90)\n"
	        "    --throttle-retries N redo the timing at most N times (default 2)\n"
	        "    --sustained          a busy thread at the lowest priority keeps the\n"
	        "                         CPU out of idle states\n"
	        "\n"
	        "Exit: 0, 1 a benchmark failed or was stopped, 2 usage error, 3 a\n"
	        "benchmark did not return after its time cap.\n",
	        prog);
}

void bf_bench__opts_init(struct bf_bench_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->throttle = true;
	o->repeats = BF_MEASUREMENTS_DEFAULT;
	o->retries = BF_THROTTLE_RETRIES;
	o->time_cap_s = BF_TIME_CAP_DEFAULT_S;
	o->sleep_s = BF_THROTTLE_SLEEP_S;
	o->target_ns = BF_TARGET_NS_DEFAULT;
}

__attribute__((format(printf, 3, 4))) static enum bf_bench_opts_result
usage(char *msg, size_t msgsz, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, msgsz, fmt, ap);
	va_end(ap);
	return BF_OPTS_USAGE;
}

static bool parse_num(const char *s, double lo, double hi, bool whole,
                      double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return !errno && end != s && !*end && *out >= lo && *out <= hi &&
	       (!whole || *out == (double)(long long)*out);
}

enum kind { FLAG, STR, COUNT, NUM };

struct opt {
	const char *name;
	enum kind kind;
	double lo, hi;
	const char *what; /* of a number, for messages */
};

static const struct opt opts[] = {
	{ "--help", FLAG, 0, 0, NULL },
	{ "-h", FLAG, 0, 0, NULL },
	{ "--list", FLAG, 0, 0, NULL },
	{ "--dry-run", FLAG, 0, 0, NULL },
	{ "--no-throttle", FLAG, 0, 0, NULL },
	{ "--sustained", FLAG, 0, 0, NULL },
	{ "--filter", STR, 0, 0, NULL },
	{ "--out", STR, 0, 0, NULL },
	{ "--repeats", COUNT, 1, 100000, "a count from 1 to 100000" },
	{ "--target-ms", NUM, 0.001, 60000, "a time from 0.001 to 60000" },
	{ "--time-cap", NUM, 0, 1e7, "a number of seconds (0: none)" },
	{ "--throttle-sleep", NUM, 0, 3600, "seconds from 0 to 3600" },
	{ "--throttle-retries", COUNT, 0, 100, "a count from 0 to 100" },
};

/* Stores the value v of option p into o. */
static void store(struct bf_bench_opts *o, const struct opt *p, const char *v,
                  double d)
{
	const char *n = p->name;

	if (!strcmp(n, "--list"))
		o->list = true;
	else if (!strcmp(n, "--dry-run"))
		o->dry_run = true;
	else if (!strcmp(n, "--no-throttle"))
		o->throttle = false;
	else if (!strcmp(n, "--sustained"))
		o->sustained = true;
	else if (!strcmp(n, "--filter"))
		o->filter = v;
	else if (!strcmp(n, "--out"))
		o->out = v;
	else if (!strcmp(n, "--repeats"))
		o->repeats = (int)d;
	else if (!strcmp(n, "--target-ms"))
		o->target_ns = (uint64_t)(d * 1e6);
	else if (!strcmp(n, "--time-cap"))
		o->time_cap_s = d;
	else if (!strcmp(n, "--throttle-sleep"))
		o->sleep_s = d;
	else if (!strcmp(n, "--throttle-retries"))
		o->retries = (int)d;
}

static const struct opt *find(const char *a, size_t len)
{
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		if (strlen(opts[i].name) == len &&
		    !strncmp(opts[i].name, a, len))
			return &opts[i];
	return NULL;
}

enum bf_bench_opts_result bf_bench__opts_parse(struct bf_bench_opts *o,
                                               int argc, char **argv, char *msg,
                                               size_t msgsz)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *eq = strchr(a, '='), *v = NULL;
		const struct opt *p =
		        find(a, eq ? (size_t)(eq - a) : strlen(a));
		double d = 0;

		if (!p)
			return usage(msg, msgsz, "unknown option '%s'", a);
		if (p->kind == FLAG && eq)
			return usage(msg, msgsz, "%s takes no value", p->name);
		if (!strcmp(p->name, "--help") || !strcmp(p->name, "-h"))
			return BF_OPTS_HELP;
		if (p->kind != FLAG) {
			v = eq ? eq + 1 : i + 1 < argc ? argv[++i] : NULL;
			if (!v)
				return usage(msg, msgsz, "%s needs a value",
				             p->name);
		}
		if ((p->kind == COUNT || p->kind == NUM) &&
		    !parse_num(v, p->lo, p->hi, p->kind == COUNT, &d))
			return usage(msg, msgsz, "%s: '%s' is not %s", p->name,
			             v, p->what);
		if (p->kind == STR && !*v)
			return usage(msg, msgsz, "%s: empty value", p->name);
		store(o, p, v, d);
	}
	return BF_OPTS_RUN;
}
