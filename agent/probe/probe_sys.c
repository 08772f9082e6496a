#include "probe/probe.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/utsname.h>

#include "agent.h"
#include "benchfarm/alloc.h"
#include "benchfarm/buf.h"
#include "benchfarm/err.h"
#include "benchfarm/json.h"
#include "benchfarm/parse.h"
#include "probe/devfs.h"

/* System facts: kernel, hostname, ASLR, memory, load; and the notes. */

void bf_probe_init(struct bf_probe *p)
{
	memset(p, 0, sizeof(*p));
	p->aslr = -1;
	p->boost = -1;
	p->mem_total_kb = p->mem_available_kb = -1;
	p->load1 = p->load5 = p->load15 = NAN;
	p->runnable = p->threads = -1;
	p->thermal_status = -1;
	bf_argv_init(&p->unavailable);
	bf_argv_init(&p->errors);
}

void bf_probe_release(struct bf_probe *p)
{
	if (!p)
		return;
	free(p->device);
	free(p->hostname);
	free(p->kernel);
	free(p->arch);
	free(p->cpu_model);
	bf_cpulist_release(&p->possible);
	bf_cpulist_release(&p->present);
	bf_cpulist_release(&p->online);
	bf_cpulist_release(&p->isolated);
	for (size_t i = 0; i < p->ncores; i++) {
		free(p->cores[i].governor);
		free(p->cores[i].avail_khz);
	}
	free(p->cores);
	free(p->boost_source);
	for (size_t i = 0; i < p->nzones; i++) {
		free(p->zones[i].name);
		free(p->zones[i].type);
	}
	free(p->zones);
	for (size_t i = 0; i < p->nsupplies; i++) {
		free(p->supplies[i].name);
		free(p->supplies[i].type);
		free(p->supplies[i].status);
	}
	free(p->supplies);
	json_decref(p->props);
	bf_argv_release(&p->unavailable);
	bf_argv_release(&p->errors);
	bf_probe_init(p);
}

void bf_probe__error(struct bf_probe *p, const char *fmt, ...)
{
	struct bf_buf b = BF_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	bf_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	bf_argv_push(&p->errors, b.buf);
	bf_buf_release(&b);
}

/* Record a failed read: missing files are "unavailable", others errors. */
static int note(struct bf_probe *p, const char *path, int ret,
                const struct bf_err *err)
{
	if (ret == BF_ENOTFOUND)
		bf_argv_push(&p->unavailable, path);
	else if (ret)
		bf_probe__error(p, "%s", err->msg);
	return ret;
}

int bf_probe__text(char **out, struct bf_probe *p, struct bf_devfs *fs,
                   const char *path)
{
	struct bf_err err = BF_ERR_INIT;
	struct bf_buf b;
	int ret;

	bf_buf_init(&b, BF_DEVFS_FILE_MAX);
	ret = note(p, path, bf_devfs_read(fs, path, &b, &err), &err);
	if (!ret)
		*out = bf_buf_detach(&b, NULL);
	bf_buf_release(&b);
	return ret;
}

int bf_probe__line(char **out, struct bf_probe *p, struct bf_devfs *fs,
                   const char *path)
{
	struct bf_err err = BF_ERR_INIT;

	return note(p, path, bf_devfs_read_line(out, fs, path, &err), &err);
}

int bf_probe__i64(int64_t *out, struct bf_probe *p, struct bf_devfs *fs,
                  const char *path)
{
	struct bf_err err = BF_ERR_INIT;

	return note(p, path, bf_devfs_read_i64(out, fs, path, &err), &err);
}

int bf_probe__list(struct bf_argv *names, struct bf_probe *p,
                   struct bf_devfs *fs, const char *dir)
{
	struct bf_err err = BF_ERR_INIT;

	return note(p, dir, bf_devfs_list(fs, dir, names, &err), &err);
}

/* "Key:   1234 kB" in /proc/meminfo; -1 when the key is absent. */
static int meminfo_kb(int64_t *out, const char *text, const char *key)
{
	size_t klen = strlen(key);
	const char *line = text, *v, *end;
	char num[32];

	while (line && *line) {
		if (!strncmp(line, key, klen) && line[klen] == ':')
			break;
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
	if (!line || !*line)
		return BF_ENOTFOUND;
	v = line + klen + 1;
	while (*v == ' ' || *v == '\t')
		v++;
	end = v;
	while (*end >= '0' && *end <= '9')
		end++;
	if (end == v || (size_t)(end - v) >= sizeof(num) ||
	    strncmp(end, " kB", 3) || (end[3] != '\n' && end[3] != '\0'))
		return BF_EINVAL;
	memcpy(num, v, (size_t)(end - v));
	num[end - v] = '\0';
	return bf_parse_i64(out, num, NULL);
}

static void probe_meminfo(struct bf_probe *p, struct bf_devfs *fs)
{
	static const char path[] = "/proc/meminfo";
	char *text = NULL;
	int ret;

	if (bf_probe__text(&text, p, fs, path))
		return;
	ret = meminfo_kb(&p->mem_total_kb, text, "MemTotal");
	if (ret)
		bf_probe__error(p, "%s: %s", path,
		                ret == BF_ENOTFOUND ? "no MemTotal line"
		                                    : "bad MemTotal line");
	ret = meminfo_kb(&p->mem_available_kb, text, "MemAvailable");
	if (ret && ret != BF_ENOTFOUND)
		bf_probe__error(p, "%s: bad MemAvailable line", path);
	free(text);
}

/* "0.70 0.89 0.66 1/98 30219": three averages, runnable/total, last pid */
static int parse_loadavg(struct bf_probe *p, char *line)
{
	char *f[5], *slash, *s = line;
	int64_t r, t;
	size_t n = 0;

	while (n < 5 && *s) {
		f[n++] = s;
		s = strchr(s, ' ');
		if (!s)
			break;
		*s++ = '\0';
	}
	if (n != 5 || (s && *s) || !(slash = strchr(f[3], '/')))
		return BF_EINVAL;
	*slash = '\0';
	if (bf_parse_double(&p->load1, f[0], false, NULL) ||
	    bf_parse_double(&p->load5, f[1], false, NULL) ||
	    bf_parse_double(&p->load15, f[2], false, NULL) ||
	    bf_parse_i64(&r, f[3], NULL) || bf_parse_i64(&t, slash + 1, NULL) ||
	    p->load1 < 0 || p->load5 < 0 || p->load15 < 0 || r < 0 || t < r ||
	    t > INT32_MAX)
		return BF_EINVAL;
	p->runnable = (int)r;
	p->threads = (int)t;
	return 0;
}

static void probe_loadavg(struct bf_probe *p, struct bf_devfs *fs)
{
	static const char path[] = "/proc/loadavg";
	char *line = NULL, *copy;
	int ret;

	ret = bf_probe__line(&line, p, fs, path);
	if (ret) {
		p->load_bad = ret != BF_ENOTFOUND;
		return;
	}
	copy = bf_xstrdup(line);
	if (parse_loadavg(p, copy)) {
		p->load1 = p->load5 = p->load15 = NAN;
		p->runnable = p->threads = -1;
		p->load_bad = true;
		bf_probe__error(p,
		                "%s: '%.60s' is not 'L1 L5 L15 RUNNABLE/TOTAL "
		                "PID'",
		                path, line);
	}
	free(copy);
	free(line);
}

static void probe_kernel(struct bf_probe *p, struct bf_devfs *fs)
{
	struct utsname u;
	int64_t aslr;

	bf_probe__line(&p->kernel, p, fs, "/proc/sys/kernel/osrelease");
	bf_probe__line(&p->hostname, p, fs, "/proc/sys/kernel/hostname");
	if (p->host && uname(&u) == 0) {
		if (!p->kernel)
			p->kernel = bf_xstrdup(u.release);
		if (!p->hostname)
			p->hostname = bf_xstrdup(u.nodename);
		free(p->arch);
		p->arch = bf_xstrdup(u.machine);
	}
	if (!bf_probe__i64(&aslr, p, fs,
	                   "/proc/sys/kernel/randomize_va_space")) {
		if (aslr >= 0 && aslr <= 2)
			p->aslr = (int)aslr;
		else
			bf_probe__error(p,
			                "/proc/sys/kernel/randomize_va_space: "
			                "%lld is not 0, 1 or 2",
			                (long long)aslr);
	}
}

void bf_probe_load(struct bf_probe *p, struct bf_devfs *fs)
{
	bf_probe__online(p, fs);
	p->load1 = p->load5 = p->load15 = NAN;
	p->runnable = p->threads = -1;
	p->load_bad = false;
	probe_loadavg(p, fs);
}

void bf_probe_sys(struct bf_probe *p, struct bf_devfs *fs)
{
	probe_kernel(p, fs);
	probe_meminfo(p, fs);
	probe_loadavg(p, fs);
}

/* Android: the architecture from the ABI when cpuinfo did not say. */
static void android_arch(struct bf_probe *p)
{
	const char *abi = bf_json_str_or(p->props, "ro.product.cpu.abi", NULL);

	if (!p->arch && abi)
		p->arch = bf_xstrdup(abi);
}

static void probe_android(struct bf_probe *p, struct bf_devfs *fs)
{
	struct bf_err err = BF_ERR_INIT;
	int ret;

	p->android = true;
	ret = bf_android_battery(&p->android_battery, fs, &err);
	p->have_battery = !ret;
	p->android_battery_bad = ret && ret != BF_ENOTFOUND;
	if (p->android_battery_bad)
		bf_probe__error(p, "%s", err.msg);
	bf_err_clear(&err);
	ret = bf_android_thermal_status(&p->thermal_status, fs, &err);
	if (ret)
		p->thermal_status = -1;
	p->thermal_status_bad = ret && ret != BF_ENOTFOUND;
	if (p->thermal_status_bad)
		bf_probe__error(p, "%s", err.msg);
	bf_err_clear(&err);
	ret = bf_android_props(&p->props, fs, &err);
	if (ret)
		p->props = NULL;
	if (ret && ret != BF_ENOTFOUND)
		bf_probe__error(p, "%s", err.msg);
	android_arch(p);
}

int bf_probe_all(struct bf_probe *p, struct bf_devfs *fs, unsigned flags,
                 struct bf_err *err)
{
	bf_probe_init(p);
	if (!fs)
		return bf_err_set(err, BF_EINVAL, "no device to probe");
	p->device = bf_xstrdup(fs->desc);
	p->host = flags & BF_PROBE_HOST;
	bf_probe_cpu(p, fs);
	bf_probe_sys(p, fs);
	bf_probe_thermal(p, fs);
	bf_probe_power(p, fs);
	if (!strcmp(fs->ops->name, "adb"))
		probe_android(p, fs);
	return 0;
}

int bf_probe_online_count(const struct bf_probe *p)
{
	int n = 0;

	if (p->online.known)
		return (int)p->online.n;
	if (p->cpulists_bad || !p->ncores)
		return -1;
	for (size_t i = 0; i < p->ncores; i++)
		n += p->cores[i].online;
	return n;
}

static bool root_is_slash(const char *root)
{
	if (!root)
		return true;
	while (*root == '/')
		root++;
	return !*root;
}

static char *adb_key(const char *serial)
{
	char *key = bf_xasprintf("adb-%s", serial);

	for (char *s = key + 4; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '.' || *s == '-'))
			*s = '_';
	return key;
}

int bf_probe_open(struct bf_devfs **fs_out, unsigned *flags_out, char **key_out,
                  const struct bf_agent_ctx *ctx, struct bf_err *err)
{
	int ret;

	*flags_out = 0;
	if (ctx->adb) {
		ret = bf_devfs_open_adb(fs_out, ctx->adb, err);
		if (!ret && key_out)
			*key_out = adb_key(ctx->adb);
		return ret;
	}
	ret = bf_devfs_open_local(fs_out, ctx->root, err);
	if (ret)
		return ret;
	if (root_is_slash(ctx->root))
		*flags_out = BF_PROBE_HOST;
	if (key_out)
		*key_out = bf_xstrdup("local");
	return 0;
}
