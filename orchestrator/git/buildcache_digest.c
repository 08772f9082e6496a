#include "git/buildcache.h"

#include <stdio.h>
#include <string.h>

#include "benchfarm/json.h"
#include "git/artifacts.h"

json_t *bf_buildcache_digests(const struct bf_artifacts *arts)
{
	json_t *v = json_array();

	for (size_t i = 0; i < arts->n; i++)
		json_array_append_new(v, json_pack("{s:s, s:s}", "name",
		                                   arts->v[i].name, "sha256",
		                                   arts->v[i].hex));
	return v;
}

bool bf_buildcache_is_unchanged(const json_t *meta,
                                const struct bf_artifacts *arts, char *why,
                                size_t len)
{
	const json_t *rec = json_object_get(meta, "artifacts");
	size_t i;

	if (!json_is_array(rec)) {
		snprintf(why, len,
		         "its record has no digests of its artifacts");
		return false;
	}
	for (i = 0; i < arts->n && i < json_array_size(rec); i++) {
		const json_t *r = json_array_get(rec, i);
		const char *name = bf_json_str_or(r, "name", "");
		const char *hex = bf_json_str_or(r, "sha256", "");

		if (strcmp(name, arts->v[i].name)) {
			snprintf(
			        why, len,
			        "its build left artifact '%s' where '%s' is now",
			        name, arts->v[i].name);
			return false;
		}
		if (strcmp(hex, arts->v[i].hex)) {
			snprintf(why, len,
			         "artifact '%s' changed since it was built "
			         "(SHA-256 %.16s recorded, %.16s now)",
			         name, hex, arts->v[i].hex);
			return false;
		}
	}
	if (i < json_array_size(rec) || i < arts->n) {
		snprintf(why, len,
		         "it has %zu artifacts where its build left %zu",
		         arts->n, json_array_size(rec));
		return false;
	}
	return true;
}
