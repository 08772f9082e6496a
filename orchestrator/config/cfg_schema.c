#include "config/cfg_int.h"

#include <math.h>
#include <stdio.h>

#include "benchfarm/alloc.h"
#include "benchfarm/argv.h"
#include "benchfarm/detect.h"
#include "benchfarm/err.h"
#include "benchfarm/parse.h"

/*
 * The config's keys (configs/README.md), as tables for bf_cfg__load_map.
 * Defaults are not here: bf_cfg_init() sets them before loading.
 */

#define OFF(m)  offsetof(struct bf_cfg, m)
#define BOFF(m) offsetof(struct bf_cfg_benchmark, m)
#define TABLE(f)                    \
	{                           \
		f, BF_ARRAY_SIZE(f) \
	}

static int load_version(struct bf_cfg__ld *ld, yaml_node_t *node, void *obj,
                        const char *path)
{
	struct bf_cfg *cfg = obj;
	char desc[64];

	if (node->type != YAML_SCALAR_NODE ||
	    node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE ||
	    strcmp((const char *)node->data.scalar.value, "1"))
		return bf_cfg__error(
		        ld, node,
		        "unsupported config %s %s (this benchfarm reads version 1)",
		        path, bf_cfg__describe(node, desc, sizeof(desc)));
	cfg->version = 1;
	return 0;
}

static int load_format(struct bf_cfg__ld *ld, yaml_node_t *node, void *obj,
                       const char *path)
{
	struct bf_cfg_benchmark *b = obj;
	size_t i;
	int ret = bf_cfg__get_word(ld, node, path, bf_cfg__format_words,
	                           "format", &i);

	if (!ret)
		b->format = (enum bf_format)i;
	return ret;
}

static int load_output(struct bf_cfg__ld *ld, yaml_node_t *node, void *obj,
                       const char *path)
{
	struct bf_cfg_benchmark *b = obj;
	size_t i;
	int ret = bf_cfg__get_word(ld, node, path, bf_cfg__output_words,
	                           "output stream", &i);

	if (!ret)
		b->output = (enum bf_output)i;
	return ret;
}

static int load_better(struct bf_cfg__ld *ld, yaml_node_t *node, void *obj,
                       const char *path)
{
	struct bf_cfg_metric *m = obj;
	size_t i;
	int ret = bf_cfg__get_word(ld, node, path, bf_cfg__better_words,
	                           "direction", &i);

	if (!ret)
		m->better = (enum bf_better)i;
	return ret;
}

static int load_fail_on(struct bf_cfg__ld *ld, yaml_node_t *node, void *obj,
                        const char *path)
{
	struct bf_cfg *cfg = obj;
	size_t i;
	int ret = bf_cfg__get_word(ld, node, path, bf_cfg__fail_on_words,
	                           "value", &i);

	if (!ret)
		cfg->presubmit.fail_on = (enum bf_fail_on)i;
	return ret;
}

static int load_suppress(struct bf_cfg__ld *ld, yaml_node_t *node, void *obj,
                         const char *path)
{
	struct bf_cfg *cfg = obj;

	return bf_cfg__get_words(ld, node, path, bf_cfg__check_words, "check",
	                         false, &cfg->checks.suppress);
}

static int load_report(struct bf_cfg__ld *ld, yaml_node_t *node, void *obj,
                       const char *path)
{
	struct bf_cfg *cfg = obj;

	return bf_cfg__get_words(ld, node, path, bf_cfg__report_words,
	                         "report format", true, &cfg->report);
}

static int load_metric_detector(struct bf_cfg__ld *ld, yaml_node_t *node,
                                void *obj, const char *path);
static int load_bench_detector(struct bf_cfg__ld *ld, yaml_node_t *node,
                               void *obj, const char *path);

static const struct bf_cfg__field metric_fields[] = {
	{ "better", BF_CFG__FN, 0, 0, 0, 0, NULL, load_better },
	{ "detector", BF_CFG__FN, 0, 0, 0, 0, NULL, load_metric_detector },
};
static const struct bf_cfg__table metric_table = TABLE(metric_fields);

static int load_metrics(struct bf_cfg__ld *ld, yaml_node_t *node, void *obj,
                        const char *path)
{
	struct bf_cfg_benchmark *b = obj;
	char sub[BF_CFG__PATH_SIZE];
	yaml_node_t *key;
	size_t n;
	int ret;

	if (bf_cfg__is_null(node))
		return 0;
	if (node->type != YAML_MAPPING_NODE)
		return bf_cfg__error(
		        ld, node,
		        "'%s' must be a mapping of metric names, e.g. {real_time: {better: lower}}",
		        path);
	ret = bf_cfg__check_keys(ld, node, path);
	if (ret)
		return ret;
	n = bf_cfg__map_size(node);
	b->metrics = bf_xcalloc(n, sizeof(*b->metrics));
	for (size_t i = 0; !ret && i < n; i++, b->nmetrics++) {
		key = bf_cfg__pair_key(ld, node, i);
		b->metrics[i].name =
		        bf_xstrdup((const char *)key->data.scalar.value);
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
	int ret;

	if (bf_cfg__is_null(node))
		return 0;
	if (node->type != YAML_MAPPING_NODE)
		return bf_cfg__error(
		        ld, node,
		        "'%s' must be a mapping of variable names to values, e.g. {DATA_DIR: testdata}",
		        path);
	if ((ret = bf_cfg__check_keys(ld, node, path)))
		return ret;
	for (size_t i = 0; !ret && i < bf_cfg__map_size(node); i++) {
		yaml_node_t *key = bf_cfg__pair_key(ld, node, i);
		const char *name = (const char *)key->data.scalar.value;
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
	{ "name", BF_CFG__STR, BOFF(name), BF_CFG__REQUIRED, 0, 0, NULL, NULL },
	{ "command", BF_CFG__ARGV, BOFF(command),
	  BF_CFG__REQUIRED | BF_CFG__NONEMPTY, 0, 0, NULL, NULL },
	{ "workdir", BF_CFG__STR, BOFF(workdir), 0, 0, 0, NULL, NULL },
	{ "env", BF_CFG__FN, 0, 0, 0, 0, NULL, load_env },
	{ "source", BF_CFG__STR, BOFF(source), 0, 0, 0, NULL, NULL },
	{ "format", BF_CFG__FN, 0, 0, 0, 0, NULL, load_format },
	{ "output", BF_CFG__FN, 0, 0, 0, 0, NULL, load_output },
	{ "timeout", BF_CFG__INT, BOFF(timeout_s), 0, 1, BF_CFG_MAX_TIMEOUT,
	  NULL, NULL },
	{ "metrics", BF_CFG__FN, 0, 0, 0, 0, NULL, load_metrics },
	{ "detector", BF_CFG__FN, 0, 0, 0, 0, NULL, load_bench_detector },
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

static int load_detector(struct bf_cfg__ld *ld, yaml_node_t *node, void *obj,
                         const char *path)
{
	struct bf_cfg *cfg = obj;

	return bf_cfg__load_detector(ld, node, path, &cfg->postsubmit.detector);
}

static int load_bench_detector(struct bf_cfg__ld *ld, yaml_node_t *node,
                               void *obj, const char *path)
{
	struct bf_cfg_benchmark *b = obj;

	return bf_cfg__load_detector(ld, node, path, &b->detector);
}

static int load_metric_detector(struct bf_cfg__ld *ld, yaml_node_t *node,
                                void *obj, const char *path)
{
	struct bf_cfg_metric *m = obj;

	return bf_cfg__load_detector(ld, node, path, &m->detector);
}

#define NO_MAX HUGE_VAL

static const struct bf_cfg__field project_fields[] = {
	{ "repo", BF_CFG__STR, OFF(project.repo), BF_CFG__REQUIRED, 0, 0, NULL,
	  NULL },
	{ "target_branch", BF_CFG__STR, OFF(project.target_branch), 0, 0, 0,
	  NULL, NULL },
	{ "commit_url", BF_CFG__STR, OFF(project.commit_url), 0, 0, 0, NULL,
	  NULL },
	{ "build", BF_CFG__ARGV, OFF(project.build), 0, 0, 0, NULL, NULL },
	{ "artifacts", BF_CFG__ARGV, OFF(project.artifacts), 0, 0, 0, NULL,
	  NULL },
	{ "build_timeout", BF_CFG__INT, OFF(project.build_timeout_s), 0, 1,
	  BF_CFG_MAX_TIMEOUT, NULL, NULL },
};

static const struct bf_cfg__field devices_fields[] = {
	{ "pool", BF_CFG__STR, OFF(devices.pool), 0, 0, 0, NULL, NULL },
};

static const struct bf_cfg__field runs_fields[] = {
	{ "repeats", BF_CFG__INT, OFF(runs.repeats), 0, 2, BF_CFG_MAX_REPEATS,
	  NULL, NULL },
	{ "warmup", BF_CFG__INT, OFF(runs.warmup), 0, 0, 1000, NULL, NULL },
	{ "interleave", BF_CFG__BOOL, OFF(runs.interleave), 0, 0, 0, NULL,
	  NULL },
	{ "seed", BF_CFG__U64, OFF(runs.seed), 0, 0, 0, NULL, NULL },
	{ "retries", BF_CFG__INT, OFF(runs.retries), 0, 0, 100, NULL, NULL },
	{ "samples_max", BF_CFG__INT, OFF(runs.samples_max), 0, 1,
	  BF_CFG_MAX_SAMPLES, NULL, NULL },
};

static const struct bf_cfg__field checks_fields[] = {
	{ "battery_min", BF_CFG__INT, OFF(checks.battery_min), 0, 0, 100, NULL,
	  NULL },
	{ "require_charging", BF_CFG__BOOL, OFF(checks.require_charging), 0, 0,
	  0, NULL, NULL },
	{ "require_all_cores", BF_CFG__BOOL, OFF(checks.require_all_cores), 0,
	  0, 0, NULL, NULL },
	{ "require_locked_clocks", BF_CFG__BOOL,
	  OFF(checks.require_locked_clocks), 0, 0, 0, NULL, NULL },
	{ "thermal_max", BF_CFG__DOUBLE, OFF(checks.thermal_max),
	  BF_CFG__LO_OPEN, 0, 150, NULL, NULL },
	{ "throttle_tolerance", BF_CFG__DOUBLE, OFF(checks.throttle_tolerance),
	  0, 0, 1, NULL, NULL },
	{ "load_max", BF_CFG__DOUBLE, OFF(checks.load_max), BF_CFG__LO_OPEN, 0,
	  NO_MAX, NULL, NULL },
	{ "suppress", BF_CFG__FN, 0, 0, 0, 0, NULL, load_suppress },
	{ "wait_max", BF_CFG__INT, OFF(checks.wait_max_s), 0, 0, 86400, NULL,
	  NULL },
	{ "load_wait", BF_CFG__INT, OFF(checks.load_wait_s), 0, 0, 3600, NULL,
	  NULL },
};

static const struct bf_cfg__field presubmit_fields[] = {
	{ "alpha", BF_CFG__DOUBLE, OFF(presubmit.alpha),
	  BF_CFG__LO_OPEN | BF_CFG__HI_OPEN, 0, 1, NULL, NULL },
	{ "min_effect", BF_CFG__DOUBLE, OFF(presubmit.min_effect), 0, 0, NO_MAX,
	  NULL, NULL },
	{ "fail_on", BF_CFG__FN, 0, 0, 0, 0, NULL, load_fail_on },
};

static const struct bf_cfg__field postsubmit_fields[] = {
	{ "detector", BF_CFG__FN, 0, 0, 0, 0, NULL, load_detector },
};

static const struct bf_cfg__field gerrit_fields[] = {
	{ "host", BF_CFG__STR, OFF(review.gerrit.host), BF_CFG__REQUIRED, 0, 0,
	  NULL, NULL },
	{ "port", BF_CFG__INT, OFF(review.gerrit.port), 0, 1, 65535, NULL,
	  NULL },
	{ "user", BF_CFG__STR, OFF(review.gerrit.user), 0, 0, 0, NULL, NULL },
	{ "key", BF_CFG__STR, OFF(review.gerrit.key), 0, 0, 0, NULL, NULL },
	{ "label", BF_CFG__STR, OFF(review.gerrit.label), 0, 0, 0, NULL, NULL },
	{ "vote_fail", BF_CFG__INT, OFF(review.gerrit.vote_fail), 0, -2, 0,
	  NULL, NULL },
	{ "vote_pass", BF_CFG__INT, OFF(review.gerrit.vote_pass), 0, 0, 2, NULL,
	  NULL },
	{ "change", BF_CFG__STR, OFF(review.gerrit.change), 0, 0, 0, NULL,
	  NULL },
};
static const struct bf_cfg__table gerrit_table = TABLE(gerrit_fields);

static const struct bf_cfg__field review_fields[] = {
	{ "check_name", BF_CFG__STR, OFF(review.check_name), 0, 0, 0, NULL,
	  NULL },
	{ "link", BF_CFG__STR, OFF(review.link), 0, 0, 0, NULL, NULL },
	{ "gerrit", BF_CFG__MAP, 0, 0, 0, 0, &gerrit_table, NULL },
};

static const struct bf_cfg__table project_table = TABLE(project_fields);
static const struct bf_cfg__table review_table = TABLE(review_fields);
static const struct bf_cfg__table devices_table = TABLE(devices_fields);
static const struct bf_cfg__table runs_table = TABLE(runs_fields);
static const struct bf_cfg__table checks_table = TABLE(checks_fields);
static const struct bf_cfg__table presubmit_table = TABLE(presubmit_fields);
static const struct bf_cfg__table postsubmit_table = TABLE(postsubmit_fields);

static const struct bf_cfg__field root_fields[] = {
	{ "version", BF_CFG__FN, 0, BF_CFG__REQUIRED, 0, 0, NULL,
	  load_version },
	{ "project", BF_CFG__MAP, 0, BF_CFG__REQUIRED, 0, 0, &project_table,
	  NULL },
	{ "benchmarks", BF_CFG__FN, 0, BF_CFG__REQUIRED, 0, 0, NULL,
	  load_benchmarks },
	{ "devices", BF_CFG__MAP, 0, 0, 0, 0, &devices_table, NULL },
	{ "runs", BF_CFG__MAP, 0, 0, 0, 0, &runs_table, NULL },
	{ "checks", BF_CFG__MAP, 0, 0, 0, 0, &checks_table, NULL },
	{ "presubmit", BF_CFG__MAP, 0, 0, 0, 0, &presubmit_table, NULL },
	{ "postsubmit", BF_CFG__MAP, 0, 0, 0, 0, &postsubmit_table, NULL },
	{ "report", BF_CFG__FN, 0, 0, 0, 0, NULL, load_report },
	{ "review", BF_CFG__MAP, 0, 0, 0, 0, &review_table, NULL },
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
	char range[96];
	double v;

	if (!f)
		BF_BUG("no config setting '%s'", key);
	if (f->type == BF_CFG__U64)
		return bf_parse_u64(out, text, err);
	if (f->type != BF_CFG__INT && f->type != BF_CFG__DOUBLE)
		BF_BUG("config setting '%s' is not a number", key);
	switch (bf_cfg__parse_number(f, text, &v, range, sizeof(range), err)) {
	case BF_CFG__NOT_A_NUMBER:
		return BF_EINVAL; /* err says why */
	case BF_CFG__OUT_OF_RANGE:
		return bf_err_set(err, BF_EINVAL, "must be %s (as %s), not %s",
		                  range, key, text);
	}
	if (f->type == BF_CFG__INT)
		*(int *)out = (int)v;
	else
		*(double *)out = v;
	return 0;
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
	return ret;
}
