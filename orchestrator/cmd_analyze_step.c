#include "cmd.h"

#include <math.h>
#include <stdio.h>

#include "benchfarm/detect.h"
#include "benchfarm/err.h"
#include "benchfarm/exitcode.h"
#include "benchfarm/json.h"
#include "benchfarm/numfile.h"
#include "benchfarm/parse.h"
#include "benchfarm/text.h"
#include "config/cfg.h"
#include "job/compare.h"
#include "postsubmit/detect.h"

/* benchfarm analyze step: one detector on one series from a file. */

static const char usage_text[] =
        "usage: benchfarm analyze step --algorithm NAME [--window] [--json]"
        "\n"
        "                              [--width N] [--threshold T] "
        "[--variant V]\n"
        "                              [--stddev-threshold S] [--min-change "
        "F]\n"
        "                              [--max-pvalue P] FILE\n"
        "\n"
        "A series in commit order, oldest first: one number a line, or\n"
        "'commit,value' CSV ('-' reads stdin). Without --window, every "
        "step the\n"
        "detector finds: its index (0-based), commit, direction, score and "
        "the\n"
        "levels before and after. With --window the whole input is one "
        "window\n"
        "evaluated at its midpoint (turning_point, step_size, "
        "least_squares,\n"
        "regression, status: High when the values rose, Low when they "
        "fell).\n"
        "\n"
        "    --algorithm NAME        pooled, jetpack, skia,\n"
        "                            perfherder or edivisive; pooled reads\n"
        "                            each value as a commit of one repeat\n"
        "    --width N               pooled (8), jetpack WIDTH (5), skia\n"
        "                            radius (7),\n"
        "                            perfherder fore window (12), "
        "edivisive\n"
        "                            window (50)\n"
        "    --threshold T           pooled |z| (4), jetpack (25), skia\n"
        "                            interesting (50;\n"
        "                            percent 0.1, cohen 2, mannwhitneyu "
        "0.05),\n"
        "                            perfherder t (7)\n"
        "    --variant V             skia: original, absolute, percent, "
        "cohen,\n"
        "                            mannwhitneyu\n"
        "    --stddev-threshold S    skia minimum stddev (0.001)\n"
        "    --min-change F          pooled and perfherder minimum "
        "relative\n"
        "                            change, as in\n"
        "                            the config (0.02 = 2%)\n"
        "    --max-pvalue P          edivisive (0.001)\n"
        "    --json                  JSON output\n";

enum {
	OPT_ALGO = 256,
	OPT_WINDOW,
	OPT_JSON,
	OPT_PARAM, /* a detector parameter: the table below */
};

/* Each parameter option and the config key it sets, with its rules. */
static const struct {
	const char *opt, *key;
} params[] = {
	{ "width", "width" },
	{ "threshold", "threshold" },
	{ "variant", "variant" },
	{ "stddev-threshold", "stddev_threshold" },
	{ "min-change", "min_change" },
	{ "max-pvalue", "max_pvalue" },
};

struct step_opts {
	struct bf_detect_params p;
	const char *algo;
	bool window, json;
	const char *value[BF_ARRAY_SIZE(params)]; /* the last given */
};

static int parse(struct step_opts *o, const char **file, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "algorithm", required_argument, NULL, OPT_ALGO },
		{ "window", no_argument, NULL, OPT_WINDOW },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "width", required_argument, NULL, OPT_PARAM },
		{ "threshold", required_argument, NULL, OPT_PARAM },
		{ "variant", required_argument, NULL, OPT_PARAM },
		{ "stddev-threshold", required_argument, NULL, OPT_PARAM },
		{ "min-change", required_argument, NULL, OPT_PARAM },
		{ "max-pvalue", required_argument, NULL, OPT_PARAM },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, li;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, &li)) != -1) {
		if (c == OPT_ALGO) {
			o->algo = optarg;
		} else if (c == OPT_PARAM) {
			for (size_t i = 0; i < BF_ARRAY_SIZE(params); i++)
				if (!strcmp(opts[li].name, params[i].opt))
					o->value[i] = optarg;
		} else if (c == OPT_WINDOW) {
			o->window = true;
		} else if (c == OPT_JSON) {
			o->json = true;
		} else if (c == 'h') {
			fputs(usage_text, stdout);
			return BF_EXIT_OK;
		} else {
			fputs(usage_text, stderr);
			return BF_EXIT_USAGE;
		}
	}
	if (!o->algo)
		return bf_cmd_fail(BF_EXIT_USAGE, "analyze step",
		                   "--algorithm is required (see --help)");
	if (optind + 1 != argc)
		return bf_cmd_fail(BF_EXIT_USAGE, "analyze step",
		                   "give one series FILE ('-' for stdin)");
	*file = argv[optind];
	return -1;
}

static bool given(const struct step_opts *o, const char *key)
{
	for (size_t i = 0; i < BF_ARRAY_SIZE(params); i++)
		if (!strcmp(params[i].key, key))
			return o->value[i] != NULL;
	return false;
}

/*
 * The detector: its defaults, then each option given, by the config's
 * rules (the same keys, ranges and skia variant thresholds), so that
 * analyze step accepts exactly what a config would.
 */
static int apply(struct step_opts *o)
{
	struct bf_err err = BF_ERR_INIT;
	struct bf_cfg_detector d;
	const char *bad = NULL;
	int ret = 0;

	if (bf_cfg_detector_init(&d, o->algo, &err))
		return bf_cmd_fail(BF_EXIT_USAGE, "analyze step",
		                   "--algorithm: %s", err.msg);
	for (size_t i = 0; !ret && i < BF_ARRAY_SIZE(params); i++) {
		if (!o->value[i])
			continue;
		ret = bf_cfg_detector_option(&d, params[i].key, o->value[i],
		                             &err);
		bad = params[i].opt;
	}
	if (!ret) {
		ret = bf_cfg_detector_finish(&d, given(o, "threshold"), &err);
		bad = NULL;
	}
	if (!ret)
		ret = bf_detect_params_from_detector(&o->p, &d, &err);
	bf_cfg_detector_release(&d);
	if (ret && bad)
		return bf_cmd_fail(BF_EXIT_USAGE, "analyze step", "--%s: %s",
		                   bad, err.msg);
	if (ret)
		return bf_cmd_fail(BF_EXIT_USAGE, "analyze step", "%s",
		                   err.msg);
	return -1;
}

static json_t *label_json(char **labels, size_t i)
{
	return labels && labels[i] ? json_string(labels[i]) : json_null();
}

static int print_window(const struct step_opts *o, const double *v,
                        char **labels, size_t n)
{
	struct bf_err err = BF_ERR_INIT;
	struct bf_step_window w;
	json_t *j;

	if (bf_detect_window(&w, &o->p, v, n, &err))
		return bf_cmd_fail(BF_EXIT_USAGE, "analyze step", "%s",
		                   err.msg);
	j = json_pack(
	        "{s:s, s:I, s:o, s:o, s:o, s:o, s:s, s:i}", "algorithm",
	        bf_detector_name(o->p.detector), "turning_point",
	        (json_int_t)w.turning_point, "commit",
	        label_json(labels, w.turning_point < n ? w.turning_point : 0),
	        "step_size", bf_json_real_or_null(w.step_size), "least_squares",
	        bf_json_real_or_null(w.least_squares), "regression",
	        bf_json_real_or_null(w.regression), "status", w.status,
	        "direction", w.direction);
	if (o->json) {
		bf_json_print(j, stdout);
	} else {
		printf("turning_point %zu", w.turning_point);
		if (labels && w.turning_point < n && labels[w.turning_point])
			bf_text_printf(stdout, " (%s)",
			               labels[w.turning_point]);
		printf("\nstep_size     %.9g\nleast_squares %.9g\n"
		       "regression    %.9g\nstatus        %s\n",
		       w.step_size, w.least_squares, w.regression, w.status);
	}
	json_decref(j);
	return BF_EXIT_OK;
}

static int print_changes(const struct step_opts *o, const double *v,
                         char **labels, size_t n)
{
	struct bf_err err = BF_ERR_INIT;
	struct bf_change *ch = NULL;
	size_t nch = 0;
	json_t *arr;

	if (bf_detect_series(&ch, &nch, &o->p, v, n, &err))
		return bf_cmd_fail(BF_EXIT_USAGE, "analyze step", "%s",
		                   err.msg);
	arr = json_array();
	for (size_t i = 0; i < nch; i++)
		json_array_append_new(
		        arr,
		        json_pack("{s:I, s:o, s:s, s:o, s:o, s:o, s:o, s:o}",
		                  "index", (json_int_t)ch[i].index, "commit",
		                  label_json(labels, ch[i].index), "direction",
		                  ch[i].direction > 0 ? "up" : "down", "score",
		                  bf_json_real_or_null(ch[i].score), "before",
		                  bf_json_real_or_null(ch[i].before), "after",
		                  bf_json_real_or_null(ch[i].after), "size",
		                  bf_json_real_or_null(ch[i].size), "p_value",
		                  bf_json_real_or_null(ch[i].p_value)));
	if (o->json) {
		bf_json_print(arr, stdout);
	} else {
		bf_text_printf(stdout, "%s: %zu step%s in %zu values\n",
		               bf_detector_name(o->p.detector), nch,
		               nch == 1 ? "" : "s", n);
		for (size_t i = 0; i < nch; i++)
			bf_text_printf(
			        stdout,
			        "  index %zu%s%s%s: %s %+.1f%% (%.6g -> %.6g), "
			        "score %.4g\n",
			        ch[i].index, labels ? " (" : "",
			        labels && labels[ch[i].index]
			                ? labels[ch[i].index]
			                : "",
			        labels ? ")" : "",
			        ch[i].direction > 0 ? "up" : "down",
			        100 * ch[i].size, ch[i].before, ch[i].after,
			        ch[i].score);
	}
	json_decref(arr);
	free(ch);
	return BF_EXIT_OK;
}

int cmd_analyze_step(int argc, char **argv)
{
	struct step_opts o;
	struct bf_err err = BF_ERR_INIT;
	const char *file = NULL;
	double *v = NULL;
	char **labels = NULL;
	bool any_label = false;
	size_t n = 0;
	int ret;

	memset(&o, 0, sizeof(o));
	if ((ret = parse(&o, &file, argc, argv)) >= 0)
		return ret;
	if ((ret = apply(&o)) >= 0)
		return ret;
	if (bf_numfile_read_series(&v, &labels, &n, file, &err))
		return bf_cmd_fail(BF_EXIT_USAGE, "analyze step", "%s",
		                   err.msg);
	for (size_t i = 0; i < n; i++)
		any_label = any_label || labels[i];
	ret = o.window ? print_window(&o, v, any_label ? labels : NULL, n)
	               : print_changes(&o, v, any_label ? labels : NULL, n);
	free(v);
	bf_numfile_labels_free(labels, n);
	return ret;
}
