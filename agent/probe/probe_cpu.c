#include "probe/probe.h"

#include <stdio.h>

#include "benchfarm/alloc.h"
#include "benchfarm/buf.h"
#include "benchfarm/err.h"
#include "benchfarm/parse.h"
#include "probe/devfs.h"

/*
 * CPU facts: /proc/cpuinfo, the possible/present/online/isolated lists
 * and every /sys/devices/system/cpu/cpuN with its cpufreq files.
 */

#define CPU_DIR        "/sys/devices/system/cpu"
#define FREQS_MAX      256 /* scaling_available_frequencies entries */
#define CPU_DIGITS_MAX 5

void bf_cpulist_release(struct bf_cpulist *l)
{
	if (!l)
		return;
	free(l->cpus);
	memset(l, 0, sizeof(*l));
}

bool bf_cpulist_has(const struct bf_cpulist *l, int cpu)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->cpus[i] == cpu)
			return true;
	return false;
}

/* A CPU number at *s: digits only, below BF_PROBE_CPU_MAX. */
static int cpu_number(int *out, const char **s)
{
	int v = 0, n = 0;

	while (**s >= '0' && **s <= '9') {
		if (++n > CPU_DIGITS_MAX)
			return BF_EINVAL;
		v = v * 10 + (**s - '0');
		(*s)++;
	}
	if (!n || v >= BF_PROBE_CPU_MAX)
		return BF_EINVAL;
	*out = v;
	return 0;
}

/* Parse "N" or "N-M" at *s into bits. */
static int cpu_range(unsigned char *bits, const char **s)
{
	int lo, hi;

	if (cpu_number(&lo, s))
		return BF_EINVAL;
	hi = lo;
	if (**s == '-') {
		(*s)++;
		if (cpu_number(&hi, s) || hi < lo)
			return BF_EINVAL;
	}
	for (int c = lo; c <= hi; c++)
		bits[c / 8] |= (unsigned char)(1u << (c % 8));
	return 0;
}

int bf_cpulist_parse(struct bf_cpulist *out, const char *s, struct bf_err *err)
{
	unsigned char bits[BF_PROBE_CPU_MAX / 8];
	const char *p = s;
	size_t n = 0;

	memset(out, 0, sizeof(*out));
	memset(bits, 0, sizeof(bits));
	while (*p && *p != '\n') {
		if (cpu_range(bits, &p) ||
		    (*p == ',' && (p[1] == '\0' || p[1] == '\n')))
			goto bad;
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			goto bad;
	}
	if (*p == '\n' && p[1])
		goto bad;
	for (int c = 0; c < BF_PROBE_CPU_MAX; c++)
		n += (bits[c / 8] >> (c % 8)) & 1;
	out->cpus = n ? bf_xcalloc(n, sizeof(int)) : NULL;
	for (int c = 0; c < BF_PROBE_CPU_MAX; c++)
		if ((bits[c / 8] >> (c % 8)) & 1)
			out->cpus[out->n++] = c;
	out->known = true;
	return 0;
bad:
	return bf_err_set(err, BF_EINVAL,
	                  "'%.40s' is not a CPU list like 0-3,5", s);
}

char *bf_cpulist_format(const struct bf_cpulist *l)
{
	struct bf_buf b = BF_BUF_INIT;
	size_t i = 0;

	while (i < l->n) {
		size_t j = i;

		while (j + 1 < l->n && l->cpus[j + 1] == l->cpus[j] + 1)
			j++;
		bf_buf_addf(&b, "%s%d", b.len ? "," : "", l->cpus[i]);
		if (j > i)
			bf_buf_addf(&b, "-%d", l->cpus[j]);
		i = j + 1;
	}
	return bf_buf_detach(&b, NULL);
}

/* One list file; *bad set when it exists but is not a list. */
static void probe_list(struct bf_cpulist *out, bool *bad, struct bf_probe *p,
                       struct bf_devfs *fs, const char *name)
{
	struct bf_err err = BF_ERR_INIT;
	char *path = bf_xasprintf(CPU_DIR "/%s", name), *line = NULL;
	int ret = bf_probe__line(&line, p, fs, path);

	if (!ret && bf_cpulist_parse(out, line, &err))
		ret = BF_EINVAL;
	if (ret && ret != BF_ENOTFOUND && bad)
		*bad = true;
	if (ret == BF_EINVAL)
		bf_probe__error(p, "%s: %s", path, err.msg);
	free(line);
	free(path);
}

/* The first "key : value" of /proc/cpuinfo, or NULL. Caller frees. */
static char *cpuinfo_value(const char *text, const char *key)
{
	size_t klen = strlen(key);
	const char *l = text;

	for (; l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *v = l + klen, *end;

		if (strncmp(l, key, klen))
			continue;
		while (*v == ' ' || *v == '\t')
			v++;
		if (*v++ != ':')
			continue;
		while (*v == ' ' || *v == '\t')
			v++;
		end = strchr(v, '\n');
		end = end ? end : v + strlen(v);
		while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		if (end > v)
			return bf_xstrndup(v, (size_t)(end - v));
	}
	return NULL;
}

static char *cpuinfo_arch(const char *text)
{
	char *v = cpuinfo_value(text, "CPU architecture");
	char *arch = NULL;

	if (v) {
		arch = bf_xstrdup(!strcmp(v, "8") ? "aarch64" : "arm");
	} else if ((v = cpuinfo_value(text, "flags"))) {
		arch = bf_xstrdup(strstr(v, " lm ") || !strncmp(v, "lm ", 3)
		                          ? "x86_64"
		                          : "x86");
	} else if ((v = cpuinfo_value(text, "isa"))) {
		arch = bf_xstrdup(!strncmp(v, "rv64", 4) ? "riscv64" : v);
	}
	free(v);
	return arch;
}

static void probe_cpuinfo(struct bf_probe *p, struct bf_devfs *fs)
{
	static const char *const keys[] = { "model name", "Hardware",
		                            "Processor", "cpu model", "uarch" };
	char *text = NULL, *impl, *part;

	if (bf_probe__text(&text, p, fs, "/proc/cpuinfo"))
		return;
	for (size_t i = 0; i < BF_ARRAY_SIZE(keys) && !p->cpu_model; i++)
		p->cpu_model = cpuinfo_value(text, keys[i]);
	impl = cpuinfo_value(text, "CPU implementer");
	part = cpuinfo_value(text, "CPU part");
	if (!p->cpu_model && impl && part)
		p->cpu_model =
		        bf_xasprintf("implementer %s part %s", impl, part);
	p->arch = cpuinfo_arch(text);
	free(impl);
	free(part);
	free(text);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* "cpuN" with N digits only. */
static bool cpu_dir_number(int *out, const char *name)
{
	const char *s = name + 3;

	return !strncmp(name, "cpu", 3) && !cpu_number(out, &s) && !*s;
}

/* The core numbers: cpuN directories, else the possible list. */
static size_t core_numbers(int **out, struct bf_probe *p, struct bf_devfs *fs)
{
	struct bf_argv names = BF_ARGV_INIT;
	size_t n = 0;
	int cpu;

	*out = NULL;
	if (bf_probe__list(&names, p, fs, CPU_DIR)) {
		if (p->possible.known && p->possible.n) {
			*out = bf_xcalloc(p->possible.n, sizeof(int));
			memcpy(*out, p->possible.cpus,
			       p->possible.n * sizeof(int));
			n = p->possible.n;
		}
		goto out;
	}
	*out = bf_xcalloc(names.argc + 1, sizeof(int));
	for (size_t i = 0; i < names.argc; i++)
		if (cpu_dir_number(&cpu, names.argv[i]))
			(*out)[n++] = cpu;
	qsort(*out, n, sizeof(int), cmp_int);
out:
	bf_argv_release(&names);
	return n;
}

/* scaling_available_frequencies: "300000 600000 1000000 \n". */
static void probe_freqs(struct bf_probe_core *c, struct bf_probe *p,
                        struct bf_devfs *fs, const char *path)
{
	char *text = NULL, *s, *tok;

	if (bf_probe__line(&text, p, fs, path))
		return;
	c->avail_khz = bf_xcalloc(FREQS_MAX, sizeof(int64_t));
	for (s = text; *s && c->navail <= FREQS_MAX;) {
		while (*s == ' ')
			s++;
		tok = s;
		while (*s && *s != ' ')
			s++;
		if (*s)
			*s++ = '\0';
		if (!*tok)
			continue;
		if (c->navail == FREQS_MAX ||
		    bf_parse_i64(&c->avail_khz[c->navail], tok, NULL) ||
		    c->avail_khz[c->navail] <= 0) {
			bf_probe__error(p, "%s: '%.20s' is not a frequency",
			                path, tok);
			c->navail = 0;
			break;
		}
		c->navail++;
	}
	if (!c->navail)
		BF_FREE(c->avail_khz);
	else
		qsort(c->avail_khz, c->navail, sizeof(int64_t), cmp_i64);
	free(text);
}

static bool has_name(const struct bf_argv *names, const char *name)
{
	for (size_t i = 0; i < names->argc; i++)
		if (!strcmp(names->argv[i], name))
			return true;
	return false;
}

/* An integer cpufreq file; unsupported scaling_setspeed is not an error. */
static void freq_file(int64_t *out, struct bf_probe *p, struct bf_devfs *fs,
                      const char *dir, const char *name)
{
	char *path = bf_xasprintf("%s/%s", dir, name), *line = NULL;

	if (strcmp(name, "scaling_setspeed")) {
		if (bf_probe__i64(out, p, fs, path))
			*out = -1;
	} else if (!bf_probe__line(&line, p, fs, path) &&
	           bf_parse_i64(out, line, NULL)) {
		*out = -1;
	}
	free(line);
	free(path);
}

static void probe_cpufreq(struct bf_probe_core *c, struct bf_probe *p,
                          struct bf_devfs *fs)
{
	static const char *const files[] = {
		"scaling_min_freq", "scaling_max_freq", "scaling_cur_freq",
		"scaling_setspeed", "cpuinfo_min_freq", "cpuinfo_max_freq",
	};
	int64_t *dst[] = { &c->min_khz,      &c->max_khz,    &c->cur_khz,
		           &c->setspeed_khz, &c->hw_min_khz, &c->hw_max_khz };
	char *dir = bf_xasprintf(CPU_DIR "/cpu%d/cpufreq", c->cpu), *path;
	struct bf_argv names = BF_ARGV_INIT;

	if (bf_probe__list(&names, p, fs, dir))
		goto out;
	path = bf_xasprintf("%s/scaling_governor", dir);
	bf_probe__line(&c->governor, p, fs, path);
	free(path);
	for (size_t i = 0; i < BF_ARRAY_SIZE(files); i++)
		if (has_name(&names, files[i]) ||
		    strcmp(files[i], "scaling_setspeed"))
			freq_file(dst[i], p, fs, dir, files[i]);
	path = bf_xasprintf("%s/scaling_available_frequencies", dir);
	probe_freqs(c, p, fs, path);
	free(path);
out:
	bf_argv_release(&names);
	free(dir);
}

static void probe_core(struct bf_probe_core *c, int cpu, struct bf_probe *p,
                       struct bf_devfs *fs)
{
	char *path = bf_xasprintf(CPU_DIR "/cpu%d/online", cpu), *line = NULL;

	memset(c, 0, sizeof(*c));
	c->cpu = cpu;
	c->min_khz = c->max_khz = c->cur_khz = c->setspeed_khz = -1;
	c->hw_min_khz = c->hw_max_khz = -1;
	/* Jetpack: offline only when the file says exactly "0". */
	c->online = true;
	if (!bf_probe__line(&line, p, fs, path)) {
		if (strcmp(line, "0") && strcmp(line, "1"))
			bf_probe__error(p, "%s: '%.20s' is not 0 or 1", path,
			                line);
		c->online = strcmp(line, "0") != 0;
	}
	if (p->online.known)
		c->online = bf_cpulist_has(&p->online, cpu);
	probe_cpufreq(c, p, fs);
	free(line);
	free(path);
}

/* Turbo: cpufreq/boost (1 = on), else intel_pstate/no_turbo (0 = on). */
static void probe_boost(struct bf_probe *p, struct bf_devfs *fs)
{
	static const char *const files[] = { CPU_DIR "/cpufreq/boost",
		                             CPU_DIR "/intel_pstate/no_turbo" };

	for (size_t i = 0; i < BF_ARRAY_SIZE(files) && p->boost < 0; i++) {
		int64_t v;
		int ret = bf_probe__i64(&v, p, fs, files[i]);

		if (ret == BF_ENOTFOUND)
			continue;
		if (!ret && v != 0 && v != 1) {
			bf_probe__error(p, "%s: %lld is not 0 or 1", files[i],
			                (long long)v);
			ret = BF_EINVAL;
		}
		if (ret) {
			p->boost_bad = true;
			continue;
		}
		p->boost = i == 0 ? (int)v : !v;
		p->boost_source = bf_xstrdup(files[i]);
	}
}

void bf_probe__online(struct bf_probe *p, struct bf_devfs *fs)
{
	if (!p->online.known)
		probe_list(&p->online, &p->cpulists_bad, p, fs, "online");
}

void bf_probe_cpu(struct bf_probe *p, struct bf_devfs *fs)
{
	int *cpus = NULL;

	probe_cpuinfo(p, fs);
	probe_list(&p->possible, &p->cpulists_bad, p, fs, "possible");
	probe_list(&p->present, NULL, p, fs, "present");
	probe_list(&p->online, &p->cpulists_bad, p, fs, "online");
	probe_list(&p->isolated, NULL, p, fs, "isolated");
	p->ncores = core_numbers(&cpus, p, fs);
	p->cores = p->ncores ? bf_xcalloc(p->ncores, sizeof(*p->cores)) : NULL;
	for (size_t i = 0; i < p->ncores; i++)
		probe_core(&p->cores[i], cpus[i], p, fs);
	free(cpus);
	probe_boost(p, fs);
}
