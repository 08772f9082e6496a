#include "probe/probe.h"

#include <math.h>
#include <stdio.h>
#include <sys/utsname.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/parse.h"
#include "probe/devfs.h"

/* System facts: kernel, hostname, ASLR, memory, load. */

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

/*
 * Which machine: systemd's /etc/machine-id (not on Android, whose
 * serial number probe_android takes from getprop) and the kernel's boot
 * id, a random UUID of this boot that every container and every user of
 * the running kernel reads alike. An empty file counts as absent.
 */
static void probe_machine(struct bf_probe *p, struct bf_devfs *fs)
{
	if (strcmp(fs->ops->name, "adb"))
		bf_probe__line(&p->machine_id, p, fs, "/etc/machine-id");
	bf_probe__line(&p->boot_id, p, fs, "/proc/sys/kernel/random/boot_id");
	if (p->machine_id && !*p->machine_id)
		BF_FREE(p->machine_id);
	if (p->boot_id && !*p->boot_id)
		BF_FREE(p->boot_id);
}

static void probe_kernel(struct bf_probe *p, struct bf_devfs *fs)
{
	struct utsname u;
	int64_t aslr;

	bf_probe__line(&p->kernel, p, fs, "/proc/sys/kernel/osrelease");
	bf_probe__line(&p->hostname, p, fs, "/proc/sys/kernel/hostname");
	probe_machine(p, fs);
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
