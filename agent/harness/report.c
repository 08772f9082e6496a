/*
 * What the harness prints: the machine's context (read from sysfs and
 * procfs under a root directory, so tests can supply fixtures), Jetpack's
 * JSON and the console table.
 */
#include "harness.h"

#include <dirent.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#define CPU_DIR "/sys/devices/system/cpu"

/* The first line of root/dir/name into buf; false when unreadable. */
static bool read_line(char *buf, size_t len, const char *root, const char *dir,
                      const char *name)
{
	char path[1024];
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "%s%s/%s", root, dir, name);
	f = fopen(path, "r");
	if (!f)
		return false;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

/* A whole decimal number, or -1. */
static long long number(const char *s)
{
	char *end;
	long long v;

	v = strtoll(s, &end, 10);
	return end != s && !*end && v >= 0 ? v : -1;
}

static long long read_number(const char *root, const char *dir,
                             const char *name)
{
	char buf[128];

	return read_line(buf, sizeof(buf), root, dir, name) ? number(buf) : -1;
}

static bool is_cpu_dir(const char *name)
{
	return !strncmp(name, "cpu", 3) && name[3] &&
	       strspn(name + 3, "0123456789") == strlen(name + 3);
}

/* One online core, as Jetpack's CpuInfo sees it. */
struct core {
	char avail[512]; /* scaling_available_frequencies, as written */
	long long lowest; /* of avail; -1: no list */
	long long set; /* scaling_setspeed, else scaling_min_freq, or -1 */
};

static void read_core(struct core *c, const char *root, const char *dir)
{
	char *p, *end;

	c->lowest = -1;
	if (!read_line(c->avail, sizeof(c->avail), root, dir,
	               "cpufreq/scaling_available_frequencies"))
		c->avail[0] = '\0';
	for (p = c->avail;; p = end) {
		long long v = strtoll(p, &end, 10);

		if (end == p)
			break;
		if (c->lowest < 0 || v < c->lowest)
			c->lowest = v;
	}
	c->set = read_number(root, dir, "cpufreq/scaling_setspeed");
	if (c->set < 0)
		c->set = read_number(root, dir, "cpufreq/scaling_min_freq");
}

/*
 * Jetpack's rule (reference section 5, G3 on) over the online cores:
 * not locked when cores with the same available frequencies run at
 * different set speeds, or when any core is set to its lowest available
 * frequency. A core without a list of available frequencies counts as
 * not locked (Jetpack reads it as [-1], which its rule only catches
 * when the set speed is unreadable too), and so does a tree without
 * cores.
 */
bool bf_bench__cpu_locked(const char *root)
{
	char path[1024], dir[512], on[16];
	struct core *v = NULL;
	size_t n = 0, cap = 0;
	bool locked = true;
	DIR *d;
	struct dirent *de;

	snprintf(path, sizeof(path), "%s" CPU_DIR, root);
	d = opendir(path);
	while (d && locked && (de = readdir(d))) {
		if (!is_cpu_dir(de->d_name))
			continue;
		snprintf(dir, sizeof(dir), CPU_DIR "/%s", de->d_name);
		if (read_line(on, sizeof(on), root, dir, "online") &&
		    !strcmp(on, "0"))
			continue;
		if (n == cap) {
			struct core *w;

			cap = cap ? 2 * cap : 16;
			w = realloc(v, cap * sizeof(*v));
			if (!w) {
				locked = false;
				break;
			}
			v = w;
		}
		read_core(&v[n], root, dir);
		locked = v[n].lowest >= 0 && v[n].set != v[n].lowest;
		for (size_t j = 0; locked && j < n; j++)
			if (!strcmp(v[j].avail, v[n].avail) &&
			    v[j].set != v[n].set)
				locked = false;
		n++;
	}
	if (d)
		closedir(d);
	free(v);
	return locked && n > 0;
}

/* The CPU model name from root/proc/cpuinfo, or "unknown". */
static void cpu_model(char *out, size_t len, const char *root)
{
	char line[512], path[1024];
	FILE *f;

	snprintf(out, len, "unknown");
	snprintf(path, sizeof(path), "%s/proc/cpuinfo", root);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (colon && (!strncmp(line, "model name", 10) ||
		              !strncmp(line, "Hardware", 8))) {
			colon += strspn(colon + 1, " \t") + 1;
			colon[strcspn(colon, "\n")] = '\0';
			snprintf(out, len, "%s", colon);
			break;
		}
	}
	if (f)
		fclose(f);
}

static long long mem_total(const char *root)
{
	char line[256], path[1024];
	long long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/meminfo", root);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "MemTotal:", 9)) {
			kb = strtoll(line + 9, NULL, 10);
			break;
		}
	if (f)
		fclose(f);
	return kb > 0 ? kb * 1024 : -1;
}

/*
 * key's value from root/system/build.prop (Android's system properties,
 * "key=value" lines, as android.os.Build reads them) into out, or
 * "unknown" as Build.UNKNOWN.
 */
static void build_prop(char *out, size_t len, const char *root, const char *key)
{
	char line[512], path[1024];
	size_t n = strlen(key);
	FILE *f;

	snprintf(out, len, "unknown");
	snprintf(path, sizeof(path), "%s/system/build.prop", root);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == '=') {
			line[strcspn(line, "\r\n")] = '\0';
			if (line[n + 1])
				snprintf(out, len, "%s", line + n + 1);
			break;
		}
	if (f)
		fclose(f);
}

static void probe_build(struct bf_bench_context *c, const char *root)
{
	char sdk[32];

	build_prop(c->brand, sizeof(c->brand), root, "ro.product.brand");
	build_prop(c->build_id, sizeof(c->build_id), root, "ro.build.id");
	build_prop(c->build_type, sizeof(c->build_type), root, "ro.build.type");
	build_prop(c->codename, sizeof(c->codename), root,
	           "ro.build.version.codename");
	build_prop(sdk, sizeof(sdk), root, "ro.build.version.sdk");
	c->sdk = number(sdk);
}

void bf_bench__context_probe(struct bf_bench_context *c, const char *root)
{
	char path[1024], dir[512];
	struct utsname u;
	DIR *d;
	struct dirent *de;

	memset(c, 0, sizeof(*c));
	c->cpu_max_freq_hz = -1;
	snprintf(path, sizeof(path), "%s" CPU_DIR, root);
	d = opendir(path);
	while (d && (de = readdir(d))) {
		long long khz;

		if (!is_cpu_dir(de->d_name))
			continue;
		c->cpu_cores++;
		snprintf(dir, sizeof(dir), CPU_DIR "/%s", de->d_name);
		khz = read_number(root, dir, "cpufreq/cpuinfo_max_freq");
		if (khz > 0 && khz * 1000 > c->cpu_max_freq_hz)
			c->cpu_max_freq_hz = khz * 1000;
	}
	if (d)
		closedir(d);
	c->mem_total_bytes = mem_total(root);
	c->cpu_locked = bf_bench__cpu_locked(root);
	cpu_model(c->model, sizeof(c->model), root);
	if (gethostname(c->device, sizeof(c->device) - 1))
		snprintf(c->device, sizeof(c->device), "unknown");
	if (uname(&u))
		memset(&u, 0, sizeof(u));
	snprintf(c->fingerprint, sizeof(c->fingerprint), "%s/%s/%s", u.sysname,
	         u.release, u.machine);
	probe_build(c, root);
}

static void put_str(FILE *f, const char *s)
{
	char buf[512], *big = NULL;
	size_t n = bf_bench__json_escape(buf, sizeof(buf), s);

	if (n >= sizeof(buf)) {
		big = malloc(n + 1);
		if (!big) {
			fputs("benchfarm-bench: out of memory\n", stderr);
			abort();
		}
		bf_bench__json_escape(big, n + 1, s);
	}
	fprintf(f, "\"%s\"", big ? big : buf);
	free(big);
}

static const char *yes(bool b)
{
	return b ? "true" : "false";
}

/*
 * The context as AndroidX's BenchmarkData.Context (json/BenchmarkData.kt)
 * declares it: every field it requires, so Jetpack's own readers (Moshi,
 * which refuses a document without one) read the file. What a Linux
 * machine does not have is written as Jetpack writes an unknown:
 * Build.UNKNOWN ("unknown") strings, artMainlineVersion -1 ("not
 * found"), compilationMode "unknown" (no ART compiles a C benchmark);
 * osCodenameAbbreviated follows Jetpack's rule, the first letter of the
 * codename, or of the build id on a release ("REL") build.
 */
static void write_context(FILE *f, const struct bf_bench_context *c)
{
	const char *from =
	        strcmp(c->codename, "REL") ? c->codename : c->build_id;
	char abbr[8] = "";
	size_t n = 0;

	/* the first character, whole (a UTF-8 sequence is not cut) */
	if (from[0])
		for (n = 1; n < sizeof(abbr) - 1 &&
		            ((unsigned char)from[n] & 0xC0) == 0x80;
		     n++)
			;
	memcpy(abbr, from, n);
	abbr[n] = '\0';

	fputs("{\n  \"context\": {\n    \"build\": {\n      \"brand\": ", f);
	put_str(f, c->brand);
	fputs(",\n      \"device\": ", f);
	put_str(f, c->device);
	fputs(",\n      \"fingerprint\": ", f);
	put_str(f, c->fingerprint);
	fputs(",\n      \"id\": ", f);
	put_str(f, c->build_id);
	fputs(",\n      \"model\": ", f);
	put_str(f, c->model);
	fputs(",\n      \"type\": ", f);
	put_str(f, c->build_type);
	fputs(",\n      \"version\": {\n        \"codename\": ", f);
	put_str(f, c->codename);
	fprintf(f,
	        ",\n        \"sdk\": %lld\n      }\n    },\n"
	        "    \"cpuCoreCount\": %lld,\n"
	        "    \"cpuLocked\": %s,\n    \"cpuMaxFreqHz\": %lld,\n"
	        "    \"memTotalBytes\": %lld,\n"
	        "    \"sustainedPerformanceModeEnabled\": %s,\n"
	        "    \"artMainlineVersion\": -1,\n"
	        "    \"osCodenameAbbreviated\": ",
	        c->sdk, c->cpu_cores, yes(c->cpu_locked), c->cpu_max_freq_hz,
	        c->mem_total_bytes, yes(c->sustained));
	put_str(f, abbr);
	fprintf(f,
	        ",\n    \"compilationMode\": \"unknown\",\n"
	        "    \"threadPriorityRaised\": %s\n  },\n",
	        yes(c->priority_raised));
}

/* {"arg": "V"} for one argument, {"arg0": "V0", "arg1": ...} for more. */
static void write_params(FILE *f, const struct bf_bench_entry *e)
{
	fputs("{", f);
	for (int i = 0; i < e->nargs; i++) {
		if (e->nargs == 1)
			fprintf(f, "\"arg\": \"%lld\"", e->args[i]);
		else
			fprintf(f, "%s\"arg%d\": \"%lld\"", i ? ", " : "", i,
			        e->args[i]);
	}
	fputs("}", f);
}

static void write_benchmark(FILE *f, const struct bf_bench_result *r,
                            const char *cls)
{
	struct bf_bench_stats st;

	bf_bench__stats(&st, r->runs, r->nruns);
	fputs("    {\n      \"name\": ", f);
	put_str(f, r->e->name);
	fputs(",\n      \"params\": ", f);
	write_params(f, r->e);
	fputs(",\n      \"className\": ", f);
	put_str(f, cls);
	fprintf(f,
	        ",\n      \"totalRunTimeNs\": %llu,\n"
	        "      \"metrics\": {\n        \"timeNs\": {\n"
	        "          \"minimum\": %.17g,\n"
	        "          \"maximum\": %.17g,\n"
	        "          \"median\": %.17g,\n"
	        "          \"coefficientOfVariation\": %.17g,\n"
	        "          \"runs\": [",
	        (unsigned long long)r->total_ns, st.min, st.max, st.median,
	        st.cv);
	for (size_t k = 0; k < r->nruns; k++)
		fprintf(f, "%s%.17g", k ? ", " : "", r->runs[k]);
	fprintf(f,
	        "]\n        }\n      },\n      \"sampledMetrics\": {},\n"
	        "      \"warmupIterations\": %llu,\n"
	        "      \"repeatIterations\": %llu,\n"
	        "      \"thermalThrottleSleepSeconds\": %llu\n    }",
	        (unsigned long long)r->warmup_iterations,
	        (unsigned long long)r->repeat_iterations,
	        (unsigned long long)(r->slept_ns / 1000000000u));
}

static void write_results(FILE *f, const struct bf_bench_result *r, size_t n,
                          const char *cls)
{
	bool first = true;

	fputs("  \"benchmarks\": [", f);
	for (size_t i = 0; i < n; i++) {
		if (r[i].error || !r[i].nruns)
			continue;
		fputs(first ? "\n" : ",\n", f);
		first = false;
		write_benchmark(f, &r[i], cls);
	}
	fputs("\n  ],\n  \"failures\": [", f);
	first = true;
	for (size_t i = 0; i < n; i++) {
		if (!r[i].error)
			continue;
		fputs(first ? "\n    {\"name\": " : ",\n    {\"name\": ", f);
		first = false;
		put_str(f, r[i].e->name);
		fputs(", \"error\": ", f);
		put_str(f, r[i].error);
		fprintf(f, ", \"timedOut\": %s}", yes(r[i].timed_out));
	}
	fputs(first ? "]\n}\n" : "\n  ]\n}\n", f);
}

int bf_bench__write_json(FILE *f, const struct bf_bench_context *c,
                         const struct bf_bench_result *r, size_t n,
                         const char *class_name)
{
	/* "%g" follows LC_NUMERIC: a program's setlocale must not turn
	 * 1.5 into 1,5 */
	locale_t cl = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	locale_t old = cl ? uselocale(cl) : (locale_t)0;

	write_context(f, c);
	write_results(f, r, n, class_name);
	if (cl) {
		uselocale(old);
		freelocale(cl);
	}
	return fflush(f) || ferror(f) ? -1 : 0;
}

void bf_bench__table_header(FILE *f)
{
	fprintf(f, "%-40s %14s %14s %14s %7s %10s %8s\n", "benchmark",
	        "median ns", "min ns", "max ns", "cv", "iters", "warmup");
	fflush(f); /* before a first benchmark that may crash */
}

void bf_bench__table_row(FILE *f, const struct bf_bench_result *r)
{
	struct bf_bench_stats st;

	if (r->error) {
		fprintf(f, "%-40s %s\n", r->e->name, r->error);
		return;
	}
	bf_bench__stats(&st, r->runs, r->nruns);
	fprintf(f, "%-40s %14.1f %14.1f %14.1f %6.2f%% %10llu %8llu%s\n",
	        r->e->name, st.median, st.min, st.max, 100 * st.cv,
	        (unsigned long long)r->repeat_iterations,
	        (unsigned long long)r->warmup_iterations,
	        r->slept_ns ? " (slept for throttling)" : "");
	fflush(f);
}
