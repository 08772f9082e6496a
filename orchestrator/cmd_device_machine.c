#include "cmd_device_int.h"

#include <stdio.h>

#include "benchfarm/alloc.h"
#include "benchfarm/argv.h"
#include "benchfarm/buf.h"
#include "benchfarm/err.h"
#include "benchfarm/json.h"
#include "farm/agentconn.h"
#include "farm/devcheck.h"
#include "farm/machine.h"
#include "farm/ssh.h"
#include "store/store.h"

/*
 * Devices that are one machine (farm/machine.h has the rule), as
 * `device add`, `list` and `show` say it: within each pool (a label),
 * the devices whose records match are one machine, which a job runs one
 * at a time unless its config says devices.same_machine: parallel.
 */

/* The labels of devs in order of first appearance, into *out. */
static void all_labels(struct bf_argv *out, const struct bf_store_device *devs,
                       size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *p = devs[i].labels;

		while (p && *p) {
			const char *comma = strchr(p, ',');
			size_t len = comma ? (size_t)(comma - p) : strlen(p);
			char *label = bf_xstrndup(p, len);
			bool seen = !len;

			for (size_t k = 0; !seen && k < out->argc; k++)
				seen = !strcmp(out->argv[k], label);
			if (!seen)
				bf_argv_push(out, label);
			free(label);
			p = comma ? comma + 1 : NULL;
		}
	}
}

static bool has_label(const char *labels, const char *want)
{
	size_t n = strlen(want);
	const char *p = labels;

	while (p && *p) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);

		if (len == n && !strncmp(p, want, n))
			return true;
		p = comma ? comma + 1 : NULL;
	}
	return false;
}

static void push_unique(struct bf_argv *a, const char *s)
{
	for (size_t i = 0; i < a->argc; i++)
		if (!strcmp(a->argv[i], s))
			return;
	bf_argv_push(a, s);
}

/* The groups of pool label among devs into m. */
static void find_in_pool(struct cmd_device__machines *m,
                         const struct bf_store_device *devs, size_t n,
                         const char *label)
{
	size_t *idx = bf_xcalloc(n ? n : 1, sizeof(*idx));
	const char **recs = bf_xcalloc(n ? n : 1, sizeof(*recs));
	int *group = bf_xcalloc(n ? n : 1, sizeof(*group));
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (has_label(devs[i].labels, label)) {
			idx[k] = i;
			recs[k++] = devs[i].machine;
		}
	bf_machine_group(group, recs, k);
	for (size_t g = 0; g < k; g++) {
		struct bf_buf line = BF_BUF_INIT;
		unsigned match = 0;

		if (group[g] != (int)g)
			continue;
		bf_buf_addf(&line, "pool '%s': ", label);
		for (size_t j = 0; j < k; j++) {
			if (group[j] != (int)g)
				continue;
			if (j != g)
				match |= bf_machine_match(recs[g], recs[j]);
			bf_buf_addf(&line, "%s'%s'", j == g ? "" : ", ",
			            devs[idx[j]].name);
			for (size_t o = 0; o < k; o++)
				if (o != j && group[o] == (int)g)
					push_unique(&m->siblings[idx[j]],
					            devs[idx[o]].name);
		}
		bf_buf_addf(&line, " are one machine (the same %s)",
		            bf_machine_match_name(match));
		bf_argv_push(&m->lines, line.buf);
		bf_buf_release(&line);
	}
	free(idx);
	free(recs);
	free(group);
}

void cmd_device__machines_find(struct cmd_device__machines *out,
                               const struct bf_store_device *devs, size_t n)
{
	struct bf_argv labels;

	out->n = n;
	out->siblings = bf_xcalloc(n ? n : 1, sizeof(*out->siblings));
	for (size_t i = 0; i < n; i++)
		bf_argv_init(&out->siblings[i]);
	bf_argv_init(&out->lines);
	bf_argv_init(&labels);
	all_labels(&labels, devs, n);
	for (size_t l = 0; l < labels.argc; l++)
		find_in_pool(out, devs, n, labels.argv[l]);
	bf_argv_release(&labels);
}

void cmd_device__machines_release(struct cmd_device__machines *m)
{
	if (!m)
		return;
	for (size_t i = 0; m->siblings && i < m->n; i++)
		bf_argv_release(&m->siblings[i]);
	free(m->siblings);
	bf_argv_release(&m->lines);
	memset(m, 0, sizeof(*m));
}

json_t *cmd_device__machine_json(const struct bf_store_device *d,
                                 const struct bf_argv *siblings)
{
	json_t *rec = NULL;

	if (d->machine)
		rec = json_loads(d->machine, 0, NULL);
	if (!json_is_object(rec)) {
		json_decref(rec);
		rec = json_null();
	}
	return json_pack("{s:o, s:o}", "record", rec, "same_as",
	                 siblings ? bf_json_argv(siblings) : json_array());
}

int cmd_device__ask_machine(char **out, const struct bf_store_device *d,
                            const char *known_hosts, struct bf_err *err)
{
	struct bf_ssh_target st = BF_SSH_TARGET_INIT;
	const char *adb[] = { "--adb", d->adb_serial, NULL };
	struct bf_agentconn *agent = NULL;
	struct bf_ssh *ssh = NULL;
	json_t *req = json_pack("{s:s}", "type", "info");
	json_t *res = NULL;
	int ret;

	*out = NULL;
	st.name = d->name;
	st.host = d->host;
	st.port = d->port;
	st.user = d->user;
	st.key_path = d->key_path;
	st.known_hosts = known_hosts;
	st.host_key_fp = d->host_key_fp;
	ret = bf_ssh_connect(&ssh, &st, err);
	if (!ret)
		ret = bf_ssh_open_agent(&agent, ssh, d->agent_path,
		                        d->adb_serial ? adb : NULL, err);
	if (!ret)
		ret = bf_agentconn_request(&res, agent, req,
		                           BF_DEVCHECK_INFO_TIMEOUT_S, NULL,
		                           NULL, err);
	if (!ret)
		*out = bf_machine_from_info(json_object_get(res, "info"));
	json_decref(req);
	json_decref(res);
	bf_agentconn_close(agent);
	bf_ssh_close(ssh);
	return ret;
}
