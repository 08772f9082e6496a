/* When two devices are one machine (the rule is in machine.h). */
#include "farm/machine.h"

#include <string.h>

#include "benchfarm/alloc.h"
#include "benchfarm/json.h"

static void set_text(json_t *o, const char *key, const json_t *v)
{
	if (json_is_string(v) && *json_string_value(v))
		json_object_set_new(o, key, json_string(json_string_value(v)));
}

char *bf_machine_from_info(const json_t *info)
{
	json_t *m;
	char *text = NULL;

	if (!json_is_object(info))
		return NULL;
	m = json_object();
	set_text(m, "machine_id", json_object_get(info, "machine_id"));
	set_text(m, "boot_id", json_object_get(info, "boot_id"));
	set_text(m, "hostname", json_object_get(info, "hostname"));
	set_text(m, "cpu",
	         json_object_get(json_object_get(info, "cpu"), "model"));
	set_text(m, "kernel", json_object_get(info, "kernel"));
	if (json_object_get(m, "machine_id") || json_object_get(m, "boot_id")) {
		char *dumped = json_dumps(m, JSON_COMPACT | JSON_SORT_KEYS);

		if (!dumped)
			BF_BUG("json_dumps of a machine record failed");
		text = bf_xstrdup(dumped);
		free(dumped);
	}
	json_decref(m);
	return text;
}

static json_t *parse(const char *text)
{
	json_t *o;

	if (!text || !*text)
		return NULL;
	o = json_loads(text, 0, NULL);
	if (!json_is_object(o)) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* Both have key: -1 differ, 1 equal; 0 when either lacks it. */
static int compare(const json_t *a, const json_t *b, const char *key)
{
	const char *x = bf_json_str_or(a, key, NULL);
	const char *y = bf_json_str_or(b, key, NULL);

	if (!x || !y || !*x || !*y)
		return 0;
	return strcmp(x, y) ? -1 : 1;
}

unsigned bf_machine_match(const char *a, const char *b)
{
	static const char *const facts[] = { "hostname", "cpu", "kernel" };
	json_t *x = parse(a), *y = parse(b);
	unsigned match = 0;

	if (!x || !y)
		goto out;
	if (compare(x, y, "machine_id") > 0)
		match |= BF_MACHINE_SAME_ID;
	if (compare(x, y, "boot_id") > 0)
		match |= BF_MACHINE_SAME_BOOT;
	for (size_t i = 0; match && i < BF_ARRAY_SIZE(facts); i++)
		if (compare(x, y, facts[i]) < 0)
			match = 0;
out:
	json_decref(x);
	json_decref(y);
	return match;
}

const char *bf_machine_match_name(unsigned match)
{
	if ((match & BF_MACHINE_SAME_ID) && (match & BF_MACHINE_SAME_BOOT))
		return "machine-id and boot id";
	if (match & BF_MACHINE_SAME_ID)
		return "machine-id";
	if (match & BF_MACHINE_SAME_BOOT)
		return "boot id";
	return "nothing";
}

/* The root of i's set (path halving). */
static size_t root(size_t *parent, size_t i)
{
	while (parent[i] != i) {
		parent[i] = parent[parent[i]];
		i = parent[i];
	}
	return i;
}

size_t bf_machine_group(int *group_out, const char *const *records, size_t n)
{
	size_t *parent = bf_xcalloc(n ? n : 1, sizeof(*parent));
	size_t *size = bf_xcalloc(n ? n : 1, sizeof(*size));
	size_t groups = 0;

	for (size_t i = 0; i < n; i++)
		parent[i] = i;
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++) {
			size_t ri, rj;

			if (!bf_machine_match(records[i], records[j]))
				continue;
			ri = root(parent, i);
			rj = root(parent, j);
			/* the smaller index is the root: the group's name */
			if (ri < rj)
				parent[rj] = ri;
			else if (rj < ri)
				parent[ri] = rj;
		}
	for (size_t i = 0; i < n; i++)
		size[root(parent, i)]++;
	for (size_t i = 0; i < n; i++) {
		size_t r = root(parent, i);

		group_out[i] = size[r] > 1 ? (int)r : -1;
		groups += size[r] > 1 && r == i;
	}
	free(parent);
	free(size);
	return groups;
}

bool bf_machine_slot_may_take(const struct bf_machine_slot *s, const void *who)
{
	if (s->holder)
		return s->holder == who;
	/* the last holder lets a waiting device go first */
	return s->last != who || s->waiting == 0;
}

void bf_machine_slot_take(struct bf_machine_slot *s, const void *who)
{
	if (!bf_machine_slot_may_take(s, who))
		BF_BUG("a machine's turn taken out of turn");
	s->holder = who;
	s->last = who;
}

bool bf_machine_slot_give_back(struct bf_machine_slot *s, const void *who)
{
	if (!s->holder || s->holder != who)
		return false;
	s->holder = NULL;
	return true;
}
