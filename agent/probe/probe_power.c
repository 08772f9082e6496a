#include "probe/probe.h"

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"

/*
 * Power supplies: /sys/class/power_supply/NAME/{type,capacity,status,
 * online}. Batteries have capacity and status; mains and USB supplies
 * have online. A file that does not apply to the supply type is simply
 * not there.
 */

#define SUPPLY_DIR "/sys/class/power_supply"

static char *supply_path(const struct bf_probe_supply *s, const char *file)
{
	return bf_xasprintf(SUPPLY_DIR "/%s/%s", s->name, file);
}

static void probe_capacity(struct bf_probe_supply *s, struct bf_probe *p,
                           struct bf_devfs *fs)
{
	char *path = supply_path(s, "capacity");
	int64_t v;
	int ret = bf_probe__i64(&v, p, fs, path);

	if (!ret && (v < 0 || v > 100)) {
		bf_probe__error(p, "%s: %lld is not a percentage", path,
		                (long long)v);
		ret = BF_EINVAL;
	}
	if (!ret)
		s->capacity = (int)v;
	s->capacity_bad = ret && ret != BF_ENOTFOUND;
	free(path);
}

static void probe_online(struct bf_probe_supply *s, struct bf_probe *p,
                         struct bf_devfs *fs)
{
	char *path = supply_path(s, "online");
	int64_t v;

	if (!bf_probe__i64(&v, p, fs, path)) {
		if (v == 0 || v == 1)
			s->online = (int)v;
		else
			bf_probe__error(p, "%s: %lld is not 0 or 1", path,
			                (long long)v);
	}
	free(path);
}

static void probe_supply(struct bf_probe_supply *s, struct bf_probe *p,
                         struct bf_devfs *fs)
{
	char *path = supply_path(s, "type");

	s->capacity = -1;
	s->online = -1;
	bf_probe__line(&s->type, p, fs, path);
	free(path);
	path = supply_path(s, "status");
	/* Only batteries (and some USB-PD ports) have a status. */
	if (s->type && !strcmp(s->type, "Battery"))
		bf_probe__line(&s->status, p, fs, path);
	free(path);
	if (!s->type || !strcmp(s->type, "Battery"))
		probe_capacity(s, p, fs);
	else
		probe_online(s, p, fs);
}

void bf_probe_power(struct bf_probe *p, struct bf_devfs *fs)
{
	struct bf_argv names = BF_ARGV_INIT;

	if (bf_probe__list(&names, p, fs, SUPPLY_DIR))
		goto out;
	p->supplies = bf_xcalloc(names.argc + 1, sizeof(*p->supplies));
	for (size_t i = 0; i < names.argc; i++) {
		p->supplies[i].name = bf_xstrdup(names.argv[i]);
		probe_supply(&p->supplies[i], p, fs);
	}
	p->nsupplies = names.argc;
out:
	bf_argv_release(&names);
}
