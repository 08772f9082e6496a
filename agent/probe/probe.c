#include "probe/probe.h"

#include <math.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/json.h"
#include "probe/devfs.h"

/*
 * The gatherer: a probe's life (init, release), probing everything
 * through the probe_*.c files, the device the agent's options name, and
 * device text for JSON.
 */

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
	free(p->machine_id);
	free(p->boot_id);
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

/* Android: the architecture from the ABI when cpuinfo did not say. */
static void android_arch(struct bf_probe *p)
{
	const char *abi = bf_json_str_or(p->props, "ro.product.cpu.abi", NULL);

	if (!p->arch && abi)
		p->arch = bf_xstrdup(abi);
}

/* Android: the phone's serial number says which machine it is. */
static void android_machine(struct bf_probe *p)
{
	const char *serial = bf_json_str_or(p->props, "ro.serialno", NULL);

	if (!p->machine_id && serial && *serial)
		p->machine_id = bf_xstrdup(serial);
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
	android_machine(p);
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
                  const char *root, const char *adb, struct bf_err *err)
{
	int ret;

	*flags_out = 0;
	if (adb) {
		ret = bf_devfs_open_adb(fs_out, adb, err);
		if (!ret && key_out)
			*key_out = adb_key(adb);
		return ret;
	}
	ret = bf_devfs_open_local(fs_out, root, err);
	if (ret)
		return ret;
	if (root_is_slash(root))
		*flags_out = BF_PROBE_HOST;
	if (key_out)
		*key_out = bf_xstrdup("local");
	return 0;
}

json_t *bf_probe_json_text(const char *s)
{
	json_t *v;
	char *copy;

	if (!s)
		return json_null();
	if ((v = json_string(s)))
		return v;
	copy = bf_xstrdup(s);
	for (char *c = copy; *c; c++)
		if ((unsigned char)*c >= 0x80)
			*c = '?';
	v = json_string(copy);
	free(copy);
	return v;
}
