#include "config/cfg_int.h"

#include <math.h>
#include <stdio.h>

#include "benchfarm/alloc.h"
#include "benchfarm/argv.h"
#include "benchfarm/err.h"
#include "benchfarm/fs.h"
#include "benchfarm/parse.h"
#include "store/store.h"

/*
 * The config's keys (configs/README.md), as tables for bf_cfg__load_map.
 * Defaults are not here: bf_cfg_init() sets them before loading.
 */

#define OFF(m)  offsetof(struct bf_cfg, m)
#define BOFF(m) offsetof(struct bf_cfg_benchmark, m)
#define MOFF(m) offsetof(struct bf_cfg_metric, m)
#define TABLE(f)                    \
	{                           \
		f, BF_ARRAY_SIZE(f) \
	}

/* A WORD key's member is an int-sized enum, the index of its word. */
_Static_assert(sizeof(enum bf_format) == sizeof(int), "format is an int");
_Static_assert(sizeof(enum bf_output) == sizeof(int), "output is an int");
_Static_assert(sizeof(enum bf_measure) == sizeof(int), "measure is an int");
_Static_assert(sizeof(enum bf_better) == sizeof(int), "better is an int");
_Static_assert(sizeof(enum bf_fail_on) == sizeof(int), "fail_on is an int");
_Static_assert(sizeof(enum bf_missing_series) == sizeof(int),
               "missing_series is an int");
_Static_assert(sizeof(enum bf_build_identity) == sizeof(int),
               "build_identity is an int");
_Static_assert(sizeof(enum bf_build_sandbox) == sizeof(int),
               "build_sandbox is an int");

static int load_version(struct bf_cfg__ld *ld, yaml_node_t *node, void *obj,
                        const char *path)
{
	struct bf_cfg *cfg = obj;
	char desc[64];

	if (node->type != YAML_SCALAR_NODE ||
	    node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE ||
	    strcmp(bf_cfg__scalar(node), "1"))
		return bf_cfg__error(
		        ld, node,
		        "unsupported config %s %s (this benchfarm reads version 1)",
		        path, bf_cfg__describe(node, desc, sizeof(desc)));
	cfg->version = 1;
	return 0;
}

/*
 * store: the store's location, as --db names one. A relative SQLite
 * path is taken from the config's directory (as project.repo is), so a
 * config means the same store from whatever directory it is used.
 */
static int load_store(struct bf_cfg__ld *ld, yaml_node_t *node, void *obj,
                      const char *path)
{
	struct bf_cfg *cfg = obj;
	struct bf_err err = BF_ERR_INIT;
	char *loc = NULL, *dir;
	bool is_pg;
	int ret;

	if ((ret = bf_cfg__get_str(ld, node, path, &loc)))
		return ret;
	if (bf_store_location_kind(&is_pg, loc, &err)) {
		free(loc);
		return bf_cfg__error(ld, node, "'%s': %s", path, err.msg);
	}
	if (loc[0] == '~') {
		free(loc);
		return bf_cfg__error(ld, node,
		                     "'%s': a config's path is not expanded "
		                     "by a shell: write it without '~', in "
		                     "full or relative to the config",
		                     path);
	}
	free(cfg->store);
	if (is_pg || loc[0] == '/') {
		cfg->store = loc;
		return 0;
	}
	dir = bf_fs_dirname(ld->name);
	cfg->store = bf_fs_join(dir, loc);
	free(dir);
	free(loc);
	return 0;
}

static const struct bf_cfg__field metric_fields[] = {
	BF_CFG__WORD_KEY("better", MOFF(better), bf_cfg__better_words,
	                 "direction"),
	BF_CFG__FN_KEY("detector", MOFF(detector), 0, bf_cfg__load_detector),
};
static const struct bf_cfg__table metric_table = TABLE(metric_fields);

static int load_metrics(struct bf_cfg__ld *ld, yaml_node_t *node, void *obj,
                        const char *path)
{
	struct bf_cfg_benchmark *b = obj;
	char sub[BF_CFG__PATH_SIZE];
	yaml_node_t *key;
	size_t n;
	int ret = bf_cfg__get_names(
	        ld, node, path,
	        "metric names, e.g. {real_time: {better: lower}}", &n);

	if (ret || !n)
		return ret;
	b->metrics = bf_xcalloc(n, sizeof(*b->metrics));
	for (size_t i = 0; !ret && i < n; i++, b->nmetrics++) {
		key = bf_cfg__pair_key(ld, node, i);
		b->metrics[i].name = bf_xstrdup(bf_cfg__scalar(key));
		b->metrics[i].better = BF_BETTER_LOWER;
		bf_cfg__join(sub, sizeof(sub), path, b->metrics[i].name);
		ret = bf_cfg__load_map(ld, bf_cfg__pair_value(ld, node, i), sub,
		                       &metric_table, &b->metrics[i]);
	}
	return ret;
}

static bool is_env_name(const char *s)
{
	if (!*s || (*s >= '0' && *s <= '9'))
		return false;
	for (; *s; s++)
		if (!(*s == '_' || (*s >= 'a' && *s <= 'z') ||
		      (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
			return false;
	return true;
}

/*
 * env: {NAME: value, ...}: set for the benchmark's runs, passed to the
 * agent as data (never through a shell).
 */
static int load_env(struct bf_cfg__ld *ld, yaml_node_t *node, void *obj,
                    const char *path)
{
	struct bf_cfg_benchmark *b = obj;
	char sub[BF_CFG__PATH_SIZE];
	size_t n;
	int ret = bf_cfg__get_names(
	        ld, node, path,
	        "variable names to values, e.g. {DATA_DIR: testdata}", &n);

	for (size_t i = 0; !ret && i < n; i++) {
		yaml_node_t *key = bf_cfg__pair_key(ld, node, i);
		const char *name = bf_cfg__scalar(key);
		char *value = NULL;

		if (!is_env_name(name))
			return bf_cfg__error(
			        ld, key,
			        "'%s': '%s' is not a variable name (letters, digits and '_', not starting with a digit)",
			        path, name);
		bf_cfg__join(sub, sizeof(sub), path, name);
		ret = bf_cfg__get_str(ld, bf_cfg__pair_value(ld, node, i), sub,
		                      &value);
		if (!ret)
			bf_argv_pushf(&b->env, "%s=%s", name, value);
		free(value);
	}
	return ret;
}

static const struct bf_cfg__field benchmark_fields[] = {
	BF_CFG__STR_KEY("name", BOFF(name), BF_CFG__REQUIRED),
	BF_CFG__ARGV_KEY("command", BOFF(command),
	                 BF_CFG__REQUIRED | BF_CFG__NONEMPTY),
	BF_CFG__STR_KEY("workdir", BOFF(workdir), 0),
	BF_CFG__FN_KEY("env", 0, 0, load_env),
	BF_CFG__STR_KEY("source", BOFF(source), 0),
	BF_CFG__WORD_KEY("format", BOFF(format), bf_cfg__format_words,
	                 "format"),
	BF_CFG__WORD_KEY("output", BOFF(output), bf_cfg__output_words,
	                 "output stream"),
	BF_CFG__WORD_KEY("measure", BOFF(measure), bf_cfg__measure_words,
	                 "measure"),
	BF_CFG__BOOL_KEY("counters", BOFF(counters)),
	BF_CFG__INT_KEY("timeout", BOFF(timeout_s), 1, BF_CFG_MAX_TIMEOUT),
	BF_CFG__FN_KEY("repeats", BOFF(repeats), 0, bf_cfg__load_bench_repeats),
	BF_CFG__INT_KEY("warmup", BOFF(warmup), 0, BF_CFG_MAX_WARMUP),
	BF_CFG__FN_KEY("metrics", 0, 0, load_metrics),
	BF_CFG__FN_KEY("detector", BOFF(detector), 0, bf_cfg__load_detector),
	BF_CFG__FN_KEY("gate", 0, 0, bf_cfg__load_gate),
};
static const struct bf_cfg__table benchmark_table = TABLE(benchmark_fields);

static yaml_node_t *name_node(struct bf_cfg__ld *ld, yaml_node_t *seq, size_t i)
{
	return bf_cfg__find_key(ld, bf_cfg__item(ld, seq, i), "name");
}

static int check_unique_names(struct bf_cfg__ld *ld, yaml_node_t *seq,
                              const struct bf_cfg *cfg)
{
	const struct bf_cfg_benchmark *b = cfg->benchmarks;

	for (size_t i = 0; i < cfg->nbenchmarks; i++) {
		for (size_t j = 0; j < i; j++) {
			if (strcmp(b[i].name, b[j].name))
				continue;
			return bf_cfg__error(
			        ld, name_node(ld, seq, i),
			        "duplicate benchmark name '%s' (first at line %zu)",
			        b[i].name,
			        name_node(ld, seq, j)->start_mark.line + 1);
		}
	}
	return 0;
}

static int load_benchmarks(struct bf_cfg__ld *ld, yaml_node_t *node, void *obj,
                           const char *path)
{
	struct bf_cfg *cfg = obj;
	char sub[BF_CFG__PATH_SIZE];
	yaml_node_t *item;
	size_t n;
	int ret = 0;

	if (node->type != YAML_SEQUENCE_NODE)
		return bf_cfg__error(
		        ld, node,
		        "'%s' must be a list of benchmarks, each with a name and a command",
		        path);
	n = bf_cfg__seq_size(node);
	if (n == 0)
		return bf_cfg__error(ld, node,
		                     "'%s' must list at least one benchmark",
		                     path);
	cfg->benchmarks = bf_xcalloc(n, sizeof(*cfg->benchmarks));
	/* every entry, so that one run names every error */
	for (size_t i = 0; i < n; i++, cfg->nbenchmarks++) {
		int r;

		item = bf_cfg__item(ld, node, i);
		bf_cfg__benchmark_init(&cfg->benchmarks[i]);
		cfg->benchmarks[i].line = (int)item->start_mark.line + 1;
		snprintf(sub, sizeof(sub), "%s[%zu]", path, i);
		if (item->type != YAML_MAPPING_NODE)
			r = bf_cfg__error(
			        ld, item,
			        "'%s' must be a mapping with a name and a command",
			        sub);
		else
			r = bf_cfg__load_map(ld, item, sub, &benchmark_table,
			                     &cfg->benchmarks[i]);
		ret = ret ? ret : r;
	}
	if (!ret)
		ret = check_unique_names(ld, node, cfg);
	return ret;
}

#define NO_MAX HUGE_VAL

static const struct bf_cfg__field project_fields[] = {
	BF_CFG__STR_KEY("repo", OFF(project.repo), BF_CFG__REQUIRED),
	BF_CFG__STR_KEY("target_branch", OFF(project.target_branch), 0),
	BF_CFG__STR_KEY("commit_url", OFF(project.commit_url), 0),
	BF_CFG__ARGV_KEY("build", OFF(project.build), 0),
	BF_CFG__ARGV_KEY("artifacts", OFF(project.artifacts), 0),
	BF_CFG__INT_KEY("build_timeout", OFF(project.build_timeout_s), 1,
	                BF_CFG_MAX_TIMEOUT),
	BF_CFG__WORD_KEY("build_identity", OFF(project.build_identity),
	                 bf_cfg__build_identity_words, "value"),
	BF_CFG__WORD_KEY("build_sandbox", OFF(project.build_sandbox),
	                 bf_cfg__build_sandbox_words, "value"),
	BF_CFG__BOOL_KEY("build_network", OFF(project.build_network)),
};

static const struct bf_cfg__field devices_fields[] = {
	BF_CFG__STR_KEY("pool", OFF(devices.pool), 0),
	BF_CFG__INT_KEY("lease_time", OFF(devices.lease_time_s), 3,
	                BF_CFG_MAX_LEASE_TIME),
	BF_CFG__INT_KEY("wait", OFF(devices.wait_s), 0, BF_CFG_MAX_TIMEOUT),
	BF_CFG__WORD_KEY("same_machine", OFF(devices.same_machine),
	                 bf_cfg__same_machine_words, "value"),
};

/* runs.repeats as a number: a fixed count of runs per side. */
static const struct bf_cfg__field repeats_number =
        BF_CFG__INT_KEY("repeats", 0, 2, BF_CFG_MAX_REPEATS);

/* runs.repeats: a number of runs per side, or "auto" (adaptive). */
static int load_repeats(struct bf_cfg__ld *ld, yaml_node_t *node, void *obj,
                        const char *path)
{
	struct bf_cfg *cfg = obj;

	if (node->type == YAML_SCALAR_NODE &&
	    !strcmp(bf_cfg__scalar(node), "auto")) {
		cfg->runs.adaptive = true;
		return 0;
	}
	cfg->runs.adaptive = false;
	return bf_cfg__get_value(ld, &repeats_number, node, &cfg->runs.repeats,
	                         path);
}

/* runs.mode: "interleaved" (one run at a time) or "duet" (two at once). */
static int load_mode(struct bf_cfg__ld *ld, yaml_node_t *node, void *obj,
                     const char *path)
{
	struct bf_cfg *cfg = obj;
	const char *v =
	        node->type == YAML_SCALAR_NODE ? bf_cfg__scalar(node) : "";

	if (strcmp(v, "interleaved") && strcmp(v, "duet"))
		return bf_cfg__error(ld, node,
		                     "'%s' must be 'interleaved' or 'duet', "
		                     "not '%s'",
		                     path, v);
	cfg->runs.duet = !strcmp(v, "duet");
	return 0;
}

static const struct bf_cfg__field runs_fields[] = {
	BF_CFG__FN_KEY("mode", 0, 0, load_mode),
	BF_CFG__WORD_KEY("duet_isolation", OFF(runs.duet_isolation),
	                 bf_cfg__duet_isolation_words, "value"),
	BF_CFG__FN_KEY("repeats", 0, 0, load_repeats),
	BF_CFG__INT_KEY("min_repeats", OFF(runs.min_repeats),
	                BF_CFG_MIN_MIN_REPEATS, BF_CFG_MAX_MAX_REPEATS),
	BF_CFG__INT_KEY("max_repeats", OFF(runs.max_repeats),
	                BF_CFG_MIN_MIN_REPEATS, BF_CFG_MAX_MAX_REPEATS),
	BF_CFG__INT_KEY("warmup", OFF(runs.warmup), 0, BF_CFG_MAX_WARMUP),
	BF_CFG__BOOL_KEY("interleave", OFF(runs.interleave)),
	BF_CFG__U64_KEY("seed", OFF(runs.seed)),
	BF_CFG__INT_KEY("retries", OFF(runs.retries), 0, 100),
	BF_CFG__INT_KEY("samples_max", OFF(runs.samples_max), 1,
	                BF_CFG_MAX_SAMPLES),
};

static const struct bf_cfg__field checks_fields[] = {
	BF_CFG__INT_KEY("battery_min", OFF(checks.battery_min), 0, 100),
	BF_CFG__BOOL_KEY("require_charging", OFF(checks.require_charging)),
	BF_CFG__BOOL_KEY("require_all_cores", OFF(checks.require_all_cores)),
	BF_CFG__BOOL_KEY("require_locked_clocks",
	                 OFF(checks.require_locked_clocks)),
	BF_CFG__DOUBLE_KEY("thermal_max", OFF(checks.thermal_max),
	                   BF_CFG__LO_OPEN, 0, 150),
	BF_CFG__DOUBLE_KEY("throttle_tolerance", OFF(checks.throttle_tolerance),
	                   0, 0, 1),
	BF_CFG__DOUBLE_KEY("load_max", OFF(checks.load_max), BF_CFG__LO_OPEN, 0,
	                   NO_MAX),
	BF_CFG__WORDS_KEY("suppress", OFF(checks.suppress), 0,
	                  bf_cfg__check_words, "check"),
	BF_CFG__INT_KEY("wait_max", OFF(checks.wait_max_s), 0, 86400),
	BF_CFG__INT_KEY("load_wait", OFF(checks.load_wait_s), 0, 3600),
	BF_CFG__INT_KEY("throttle_retries", OFF(checks.throttle_retries), 0,
	                10),
	BF_CFG__INT_KEY("throttle_sleep", OFF(checks.throttle_sleep_s), 0,
	                3600),
};

static const struct bf_cfg__field presubmit_fields[] = {
	BF_CFG__DOUBLE_KEY("alpha", OFF(presubmit.alpha),
	                   BF_CFG__LO_OPEN | BF_CFG__HI_OPEN, 0, 1),
	BF_CFG__DOUBLE_KEY("min_effect", OFF(presubmit.min_effect), 0, 0,
	                   NO_MAX),
	BF_CFG__WORD_KEY("fail_on", OFF(presubmit.fail_on),
	                 bf_cfg__fail_on_words, "value"),
	BF_CFG__WORD_KEY("missing_series", OFF(presubmit.missing_series),
	                 bf_cfg__missing_series_words, "value"),
};

static const struct bf_cfg__field postsubmit_fields[] = {
	BF_CFG__FN_KEY("detector", OFF(postsubmit.detector), 0,
	               bf_cfg__load_detector),
};

static const struct bf_cfg__field gerrit_fields[] = {
	BF_CFG__STR_KEY("host", OFF(review.gerrit.host), BF_CFG__REQUIRED),
	BF_CFG__INT_KEY("port", OFF(review.gerrit.port), 1, 65535),
	BF_CFG__STR_KEY("user", OFF(review.gerrit.user), 0),
	BF_CFG__STR_KEY("key", OFF(review.gerrit.key), 0),
	BF_CFG__STR_KEY("label", OFF(review.gerrit.label), 0),
	BF_CFG__INT_KEY("vote_fail", OFF(review.gerrit.vote_fail), -2, 0),
	BF_CFG__INT_KEY("vote_pass", OFF(review.gerrit.vote_pass), 0, 2),
	BF_CFG__STR_KEY("change", OFF(review.gerrit.change), 0),
};
static const struct bf_cfg__table gerrit_table = TABLE(gerrit_fields);

static const struct bf_cfg__field review_fields[] = {
	BF_CFG__STR_KEY("check_name", OFF(review.check_name), 0),
	BF_CFG__STR_KEY("link", OFF(review.link), 0),
	BF_CFG__MAP_KEY("gerrit", 0, &gerrit_table),
};

static const struct bf_cfg__table project_table = TABLE(project_fields);
static const struct bf_cfg__table review_table = TABLE(review_fields);
static const struct bf_cfg__table devices_table = TABLE(devices_fields);
static const struct bf_cfg__table runs_table = TABLE(runs_fields);
static const struct bf_cfg__table checks_table = TABLE(checks_fields);
static const struct bf_cfg__table presubmit_table = TABLE(presubmit_fields);
static const struct bf_cfg__table postsubmit_table = TABLE(postsubmit_fields);

static const struct bf_cfg__field root_fields[] = {
	BF_CFG__FN_KEY("version", 0, BF_CFG__REQUIRED, load_version),
	BF_CFG__MAP_KEY("project", BF_CFG__REQUIRED, &project_table),
	BF_CFG__FN_KEY("store", 0, 0, load_store),
	BF_CFG__FN_KEY("benchmarks", 0, BF_CFG__REQUIRED, load_benchmarks),
	BF_CFG__MAP_KEY("devices", 0, &devices_table),
	BF_CFG__MAP_KEY("runs", 0, &runs_table),
	BF_CFG__MAP_KEY("checks", 0, &checks_table),
	BF_CFG__MAP_KEY("presubmit", 0, &presubmit_table),
	BF_CFG__MAP_KEY("postsubmit", 0, &postsubmit_table),
	BF_CFG__WORDS_KEY("report", OFF(report), BF_CFG__EXEC_OK,
	                  bf_cfg__report_words, "report format"),
	BF_CFG__MAP_KEY("review", 0, &review_table),
};
static const struct bf_cfg__table root_table = TABLE(root_fields);

/* The field of a dotted key ("runs.repeats") in the root table, or NULL. */
static const struct bf_cfg__field *find_setting(const char *key)
{
	const struct bf_cfg__table *t = &root_table;
	const char *dot = strchr(key, '.');

	if (!dot)
		return NULL;
	for (size_t i = 0; i < root_table.n; i++)
		if (root_fields[i].sub &&
		    strlen(root_fields[i].key) == (size_t)(dot - key) &&
		    !strncmp(root_fields[i].key, key, (size_t)(dot - key)))
			t = root_fields[i].sub;
	if (t == &root_table)
		return NULL;
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->fields[i].key, dot + 1))
			return &t->fields[i];
	return NULL;
}

int bf_cfg_parse_setting(void *out, const char *key, const char *text,
                         struct bf_err *err)
{
	const struct bf_cfg__field *f = find_setting(key);

	if (!f)
		BF_BUG("no config setting '%s'", key);
	if (f->type == BF_CFG__U64)
		return bf_parse_u64(out, text, err);
	if (f->fn == load_repeats)
		f = &repeats_number;
	if (f->type != BF_CFG__INT && f->type != BF_CFG__DOUBLE)
		BF_BUG("config setting '%s' is not a number", key);
	return bf_cfg__set_number(out, f, text, key, err);
}

int bf_cfg__load_root(struct bf_cfg__ld *ld, yaml_node_t *root,
                      struct bf_cfg *cfg)
{
	yaml_node_t *version;
	int ret;

	if (root->type != YAML_MAPPING_NODE)
		return bf_cfg__error(
		        ld, root,
		        "the config must be a mapping of keys (version, project, benchmarks, ...)");
	/* The version comes first: a newer file fails on it, not on a key. */
	version = bf_cfg__find_key(ld, root, "version");
	if (!version)
		return bf_cfg__error(
		        ld, root,
		        "missing required key 'version' (add 'version: 1')");
	ret = load_version(ld, version, cfg, "version");
	if (!ret)
		ret = bf_cfg__load_map(ld, root, "", &root_table, cfg);
	if (!ret)
		ret = bf_cfg__runs_rules(ld, root, cfg);
	return ret;
}
