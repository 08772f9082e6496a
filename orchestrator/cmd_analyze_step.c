#include "cmd.h"

#include <math.h>
#include <stdio.h>

#include "benchfarm/detect.h"
#include "benchfarm/err.h"
#include "benchfarm/exitcode.h"
#include "benchfarm/json.h"
#include "benchfarm/parse.h"
#include "compare.h"
#include "numfile.h"

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
        "    --algorithm NAME        jetpack, skia, perfherder or "
        "edivisive\n"
        "    --width N               jetpack WIDTH (5), skia radius (7),\n"
        "                            perfherder fore window (12), "
        "edivisive\n"
        "                            window (50)\n"
        "    --threshold T           jetpack (25), skia interesting (50;\n"
        "                            percent 0.1, cohen 2, mannwhitneyu "
        "0.05),\n"
        "                            perfherder t (7)\n"
        "    --variant V             skia: original, absolute, percent, "
        "cohen,\n"
        "                            mannwhitneyu\n"
        "    --stddev-threshold S    skia minimum stddev (0.001)\n"
        "    --min-change F          perfherder minimum relative change, "
        "as in\n"
        "                            the config (0.02 = 2%)\n"
        "    --max-pvalue P          edivisive (0.001)\n"
        "    --json                  JSON output\n";

enum {
	OPT_ALGO = 256,
	OPT_WINDOW,
	OPT_JSON,
	OPT_WIDTH,
	OPT_THRESHOLD,
	OPT_VARIANT,
	OPT_STDDEV,
	OPT_MIN_CHANGE,
	OPT_MAX_P
};

struct step_opts {
	struct bf_detect_params p;
	bool have_algo, window, json;
	int width;
	double threshold, stddev, min_change, max_p;
	int variant;
};

static int number(struct step_opts *o, int c, const char *arg,
                  struct bf_err *err)
{
	switch (c) {
	case OPT_WIDTH:
		return bf_parse_int_range(&o->width, arg, 1, 100000, err);
	case OPT_THRESHOLD:
		return bf_parse_double(&o->threshold, arg, false, err) ||
		       (o->threshold <= 0 &&
		        bf_err_set(err, BF_EINVAL, "must be above 0"));
	case OPT_STDDEV:
		return bf_parse_double(&o->stddev, arg, false, err);
	case OPT_MIN_CHANGE:
		return bf_parse_double(&o->min_change, arg, false, err);
	case OPT_MAX_P:
		return bf_parse_double(&o->max_p, arg, false, err) ||
		       ((o->max_p <= 0 || o->max_p >= 1) &&
		        bf_err_set(err, BF_EINVAL, "must be between 0 and 1"));
	}
	return 0;
}

static int parse(struct step_opts *o, const char **file, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "algorithm", required_argument, NULL, OPT_ALGO },
		{ "window", no_argument, NULL, OPT_WINDOW },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "width", required_argument, NULL, OPT_WIDTH },
		{ "threshold", required_argument, NULL, OPT_THRESHOLD },
		{ "variant", required_argument, NULL, OPT_VARIANT },
		{ "stddev-threshold", required_argument, NULL, OPT_STDDEV },
		{ "min-change", required_argument, NULL, OPT_MIN_CHANGE },
		{ "max-pvalue", required_argument, NULL, OPT_MAX_P },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bf_err err = BF_ERR_INIT;
	int c, d;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == OPT_ALGO) {
			if ((d = bf_detector_from_name(optarg)) < 0)
				return bf_cmd_fail(
				        BF_EXIT_USAGE, "analyze step",
				        "--algorithm: unknown detector "
				        "'%s' (jetpack, skia, perfherder "
				        "or edivisive)",
				        optarg);
			bf_detect_params_default(&o->p, (enum bf_detector)d);
			o->have_algo = true;
		} else if (c == OPT_VARIANT) {
			if ((o->variant = bf_skia_algo_from_name(optarg)) < 0)
				return bf_cmd_fail(
				        BF_EXIT_USAGE, "analyze step",
				        "--variant: unknown '%s' "
				        "(original, absolute, percent, "
				        "cohen, mannwhitneyu)",
				        optarg);
		} else if (c == OPT_WINDOW) {
			o->window = true;
		} else if (c == OPT_JSON) {
			o->json = true;
		} else if (c == 'h') {
			fputs(usage_text, stdout);
			return BF_EXIT_OK;
		} else if (c == '?') {
			fputs(usage_text, stderr);
			return BF_EXIT_USAGE;
		} else if (number(o, c, optarg, &err)) {
			return bf_cmd_fail(BF_EXIT_USAGE, "analyze step",
			                   "--%s: %s", argv[optind - 1] + 2,
			                   err.msg);
		}
	}
	if (!o->have_algo)
		return bf_cmd_fail(BF_EXIT_USAGE, "analyze step",
		                   "--algorithm is required (see --help)");
	if (optind + 1 != argc)
		return bf_cmd_fail(BF_EXIT_USAGE, "analyze step",
		                   "give one series FILE ('-' for stdin)");
	*file = argv[optind];
	return -1;
}

/*
 * Options over the detector's defaults. A skia variant without
 * --threshold takes its own default, as in the config; absolute has
 * none (exit code, or -1).
 */
static int apply(struct step_opts *o)
{
	struct bf_detect_params *p = &o->p;

	if (o->variant >= 0) {
		p->skia_algo = (enum bf_skia_algo)o->variant;
		p->skia_interesting = bf_skia_default_interesting(p->skia_algo);
	}
	if (p->detector == BF_DETECT_SKIA && !(o->threshold > 0) &&
	    p->skia_interesting == 0)
		return bf_cmd_fail(BF_EXIT_USAGE, "analyze step",
		                   "--variant absolute needs --threshold (a "
		                   "step in the series' unit)");
	if (o->stddev > 0)
		p->skia_stddev_threshold = o->stddev;
	if (o->min_change > 0)
		p->ph_min_percent = 100 * o->min_change; /* as in the config */
	if (o->max_p > 0)
		p->ed_pvalue = o->max_p;
	if (o->width > 0) {
		p->jetpack_width = o->width;
		p->skia_radius = o->width;
		p->ph_fore_window = o->width;
		p->ph_min_back_window = o->width;
		p->ph_max_back_window = 2 * o->width;
		p->ed_window = o->width;
	}
	if (o->threshold > 0) {
		p->jetpack_threshold = o->threshold;
		p->skia_interesting = o->threshold;
		p->ph_t_threshold = o->threshold;
	}
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
			printf(" (%s)", labels[w.turning_point]);
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
		printf("%s: %zu step%s in %zu values\n",
		       bf_detector_name(o->p.detector), nch,
		       nch == 1 ? "" : "s", n);
		for (size_t i = 0; i < nch; i++)
			printf("  index %zu%s%s%s: %s %+.1f%% (%.6g -> %.6g), "
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
	o.variant = -1;
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
