#include "cmd.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/exitcode.h"
#include "benchfarm/json.h"
#include "benchfarm/parse.h"
#include "benchfarm/text.h"
#include "config/cfg.h"
#include "postsubmit/bisect.h"
#include "postsubmit/detect.h"
#include "store/store.h"

/* benchfarm detect and benchfarm alert list|ack|ignore. */

static const char detect_usage[] =
        "usage: benchfarm detect -c CONFIG [--algorithm NAME] [--device "
        "NAME | --pool LABEL]\n"
        "                        [--spike-share F | --no-spike] [--dry-run] "
        "[--json FILE]\n"
        "                        [--bisect [-n N]]\n"
        "\n"
        "Run the step detector (postsubmit.detector, or --algorithm) over "
        "the\n"
        "recorded history of each benchmark and metric on "
        "project.target_branch,\n"
        "and record an alert for each step: the commit range, direction, "
        "size\n"
        "and score. Alerts of one commit form one group. A suite-wide "
        "spike\n"
        "(most series leaving their level for one build and coming back) "
        "is\n"
        "left out and listed as suppressed; points of ignored alerts are "
        "left\n"
        "out of the fits. Only the metrics the config measures are judged "
        "(a\n"
        "benchmark's metrics:, else all, rates higher-is-better). Each "
        "series\n"
        "gets a line: its points, its strongest score against the "
        "threshold,\n"
        "and how many of its newest points cannot be judged yet "
        "('benchfarm\n"
        "history' prints the points).\n"
        "\n"
        "Steps are placed only where the build changed "
        "(project.build_identity):\n"
        "a level shift between two measurements of one build is the "
        "machine's,\n"
        "listed as an environment shift with what the device checks "
        "said before\n"
        "and after; it is never an alert, so it does not gate, notify or "
        "bisect.\n"
        "\n"
        "    -c, --config FILE      the config\n"
        "        --algorithm NAME   pooled, jetpack, skia, perfherder or "
        "edivisive\n"
        "        --device NAME      the history of this device (default:\n"
        "        --pool LABEL       devices.pool)\n"
        "        --spike-share F    the share of series (above 0, at most "
        "1;\n"
        "                           default 0.5; at least 3) that must "
        "spike\n"
        "                           together for a build to be left out "
        "as\n"
        "                           suite-wide\n"
        "        --no-spike         never leave a build out\n"
        "        --dry-run          report, store no alert\n"
        "        --json FILE        write the result JSON ('-': stdout)\n"
        "        --bisect           bisect each new alert whose range has\n"
        "                           unmeasured commits, as 'benchfarm "
        "bisect'\n"
        "                           would, on devices.pool, and record "
        "the\n"
        "                           culprit with the alert\n"
        "    -n, --repeats N        runs per side of each bisect probe\n"
        "                           (default: the benchmark's repeats, "
        "else\n"
        "                           runs.repeats)\n"
        "\n"
        "Exit: 0, 2 usage or config error, 3 the store or repository "
        "failed,\n"
        "or a bisect could not run.\n";

enum { OPT_ALGO = 256, OPT_JSON, OPT_DRY, OPT_SPIKE, OPT_NOSPIKE, OPT_BISECT };

static long long int_of(const json_t *o, const char *key)
{
	return (long long)json_integer_value(json_object_get(o, key));
}

/*
 * One series: its points, what a step needs, the newest points that
 * cannot be judged yet and its strongest statistic against the
 * threshold, so that no step can be told from too little history.
 */
static void print_series(const json_t *s)
{
	const json_t *best = json_object_get(s, "strongest");
	bool pval = !strcmp(bf_json_str_or(s, "statistic", ""), "p_value");
	long long points = int_of(s, "points"), steps = int_of(s, "steps");
	long long before = int_of(s, "needs_before");
	long long after = int_of(s, "needs_after");
	long long unjudged = int_of(s, "unjudged");
	double thr = json_number_value(json_object_get(s, "threshold"));

	bf_text_printf(
	        stdout,
	        "  series %s %s %s (%s is better): %lld point%s, %lld step%s",
	        bf_json_str_or(s, "suite", "?"),
	        bf_json_str_or(s, "benchmark", "?"),
	        bf_json_str_or(s, "metric", "?"),
	        bf_json_str_or(s, "better", "?"), points,
	        points == 1 ? "" : "s", steps, steps == 1 ? "" : "s");
	if (points < before + after) {
		bf_text_printf(
		        stdout,
		        "; too few to judge: a step needs %lld point%s before "
		        "it and %lld from it on\n",
		        before, before == 1 ? "" : "s", after);
		return;
	}
	if (json_is_object(best))
		bf_text_printf(
		        stdout,
		        "; strongest %s %.3g%s%.12s (an alert needs %s%.3g)",
		        pval ? "p-value" : "score",
		        json_number_value(json_object_get(best, "value")),
		        json_is_string(json_object_get(best, "commit")) ? " at "
		                                                        : "",
		        bf_json_str_or(best, "commit", ""),
		        pval ? "at most " : "at least ", thr);
	if (unjudged)
		bf_text_printf(
		        stdout,
		        "; the newest %lld cannot be judged until %lld more "
		        "point%s exist%s after them",
		        unjudged, unjudged, unjudged == 1 ? "" : "s",
		        unjudged == 1 ? "s" : "");
	putchar('\n');
}

/*
 * An environment event: series that moved between two measurements of
 * one build, with what the checks said (not an alert).
 */
static void print_env_shift(const json_t *e)
{
	const json_t *series = json_object_get(e, "series");
	const json_t *ev = json_object_get(e, "evidence");
	const json_t *s, *ch;
	size_t i;

	bf_text_printf(
	        stdout,
	        "  environment %.12s..%.12s: %zu series moved between two "
	        "measurements of the same build (not an alert)",
	        bf_json_str_or(e, "commit_lo", "?"),
	        bf_json_str_or(e, "commit_hi", "?"), json_array_size(series));
	if (json_is_object(ev))
		bf_text_printf(stdout, ", %lld s apart",
		               (long long)json_integer_value(
		                       json_object_get(ev, "gap_s")));
	putchar('\n');
	json_array_foreach(series, i, s)
	{
		bf_text_printf(
		        stdout, "    %-4s %-28s %-10s %+6.1f%%\n",
		        bf_json_str_or(s, "direction", "?"),
		        bf_json_str_or(s, "benchmark", "?"),
		        bf_json_str_or(s, "metric", "?"),
		        100 * json_number_value(json_object_get(s, "size")));
	}
	json_array_foreach(json_object_get(ev, "checks"), i, ch)
	{
		bf_text_printf(stdout, "    check %-9s %.3g -> %.3g%s\n",
		               bf_json_str_or(ch, "check", "?"),
		               json_number_value(json_object_get(ch, "before")),
		               json_number_value(json_object_get(ch, "after")),
		               json_is_true(json_object_get(ch, "changed"))
		                       ? "  (changed)"
		                       : "");
	}
}

static void print_alerts(const json_t *r)
{
	const json_t *alerts = json_object_get(r, "alerts");
	const json_t *sup = json_object_get(r, "suppressed");
	size_t i;
	json_t *a;

	long long measured = json_integer_value(json_object_get(r, "measured"));
	long long excluded =
	        json_integer_value(json_object_get(r, "excluded_series"));

	bf_text_printf(
	        stdout,
	        "%s over %lld measured commit%s (of %lld on %s), %lld series: "
	        "%zu step%s\n",
	        bf_json_str_or(r, "detector", "?"), measured,
	        measured == 1 ? "" : "s",
	        (long long)json_integer_value(json_object_get(r, "commits")),
	        bf_json_str_or(r, "branch", "?"),
	        (long long)json_integer_value(json_object_get(r, "series")),
	        json_array_size(alerts),
	        json_array_size(alerts) == 1 ? "" : "s");
	if (excluded)
		bf_text_printf(
		        stdout,
		        "  %lld stored series not judged: their metrics are "
		        "not in their benchmark's metrics:\n",
		        excluded);
	json_array_foreach(alerts, i, a)
	{
		double size = json_number_value(json_object_get(a, "size"));

		bf_text_printf(
		        stdout,
		        "  %-9s %-28s %-10s %+6.1f%%  %.12s..%.12s  score "
		        "%.3g%s\n",
		        bf_json_str_or(a, "direction", "?"),
		        bf_json_str_or(a, "benchmark", "?"),
		        bf_json_str_or(a, "metric", "?"), 100 * size,
		        bf_json_str_or(a, "commit_lo", "?"),
		        bf_json_str_or(a, "commit_hi", "?"),
		        json_number_value(json_object_get(a, "score")),
		        json_is_true(json_object_get(a, "new")) ? "  (new)"
		        : json_is_true(json_object_get(a, "ignored"))
		                ? "  (ignored)"
		                : "");
		if (json_is_object(json_object_get(json_object_get(a, "detail"),
		                                   "environment")))
			bf_text_printf(
			        stdout,
			        "            the machine changed here too: its "
			        "checks moved (see the JSON's "
			        "detail.environment)\n");
		if (json_is_string(json_object_get(a, "culprit")))
			bf_text_printf(stdout, "            culprit %s\n",
			               bf_json_str_or(a, "culprit", "?"));
		else if (json_object_get(a, "bisect"))
			bf_text_printf(
			        stdout, "            culprit not found: %s\n",
			        bf_json_str_or(json_object_get(a, "bisect"),
			                       "error",
			                       "see the bisect's evidence"));
	}
	json_array_foreach(sup, i, a)
	        bf_text_printf(stdout, "  suppressed %.12s: %s\n",
	                       bf_json_str_or(a, "commit", "?"),
	                       bf_json_str_or(a, "reason", ""));
	json_array_foreach(json_object_get(r, "environment_shifts"), i, a)
	        print_env_shift(a);
	json_array_foreach(json_object_get(r, "series_info"), i, a)
	        print_series(a);
}

int bf_cmd_detect_after(const struct bf_cfg *cfg, struct bf_store *store,
                        const char *klass, const char *cmd)
{
	struct bf_detect_opts o = BF_DETECT_OPTS_INIT;
	struct bf_err err = BF_ERR_INIT;
	json_t *result = NULL;
	int ret;

	o.device_class = klass;
	ret = bf_postsubmit_detect(&result, cfg, store, &o, &err);
	if (ret)
		return bf_cmd_fail(BF_EXIT_INFRA, cmd, "detect: %s", err.msg);
	print_alerts(result);
	json_decref(result);
	return BF_EXIT_OK;
}

/* What detect was asked. */
struct detect_args {
	struct bf_cmd_args sel;
	struct bf_detect_opts o;
	struct bf_bisect_opts bo;
	bool bisect;
	const char *json_path;
};

/* detect's own options (the config and the class are cmd_opts.c's). */
static int take(void *arg, int c, const char *val)
{
	struct detect_args *a = arg;
	struct bf_err err = BF_ERR_INIT;
	char *end;

	if (c == OPT_BISECT) {
		a->bisect = true;
	} else if (c == 'n') {
		if (bf_cfg_parse_setting(&a->bo.repeats, "runs.repeats", val,
		                         &err))
			return bf_cmd_fail(BF_EXIT_USAGE, "detect",
			                   "--repeats: %s", err.msg);
	} else if (c == OPT_ALGO) {
		a->o.algorithm = val;
	} else if (c == OPT_JSON) {
		a->json_path = val;
	} else if (c == OPT_DRY) {
		a->o.store_alerts = false;
	} else if (c == OPT_NOSPIKE) {
		a->o.spike_share = 2; /* more than every series */
	} else if (c == OPT_SPIKE) {
		errno = 0;
		a->o.spike_share = strtod(val, &end);
		if (errno || end == val || *end ||
		    !(a->o.spike_share > 0 && a->o.spike_share <= 1))
			return bf_cmd_fail(BF_EXIT_USAGE, "detect",
			                   "--spike-share: '%s' is not a share "
			                   "above 0 and at most 1",
			                   val);
	}
	return 0;
}

static int parse(struct detect_args *a, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "algorithm", required_argument, NULL, OPT_ALGO },
		{ "json", required_argument, NULL, OPT_JSON },
		{ "dry-run", no_argument, NULL, OPT_DRY },
		{ "spike-share", required_argument, NULL, OPT_SPIKE },
		{ "no-spike", no_argument, NULL, OPT_NOSPIKE },
		{ "bisect", no_argument, NULL, OPT_BISECT },
		{ "repeats", required_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	const struct bf_cmd_parser cmd = {
		.name = "detect",
		.usage = detect_usage,
		.groups = BF_CMD_OPTS_CLASSES,
		.max_classes = 1,
		.opts = opts,
		.shortopts = "n:",
		.take = take,
		.arg = a,
	};
	int ret = bf_cmd_parse(&a->sel, argc, argv, &cmd);

	if (a->sel.nklass)
		a->o.device_class = a->sel.klass[0];
	return ret;
}

int cmd_detect(int argc, char **argv, struct bf_ctx *ctx)
{
	struct detect_args a = { .o = BF_DETECT_OPTS_INIT,
		                 .bo = BF_BISECT_OPTS_INIT };
	struct bf_cmd_notes notes;
	struct bf_err err = BF_ERR_INIT;
	json_t *result = NULL;
	struct bf_cfg cfg;
	int ret = parse(&a, argc, argv), bisect_ret = BF_EXIT_OK;

	if (ret)
		return ret < 0 ? BF_EXIT_OK : ret;
	if (a.bisect && !a.o.store_alerts)
		return bf_cmd_fail(BF_EXIT_USAGE, "detect",
		                   "--bisect records each culprit with its "
		                   "alert: it cannot be used with --dry-run");
	if (a.bo.repeats && !a.bisect)
		return bf_cmd_fail(BF_EXIT_USAGE, "detect",
		                   "--repeats is for --bisect's probes");
	if (a.o.algorithm && bf_detector_from_name(a.o.algorithm) < 0)
		return bf_cmd_fail(
		        BF_EXIT_USAGE, "detect",
		        "--algorithm: unknown detector '%s' (pooled, "
		        "jetpack, skia, perfherder or edivisive)",
		        a.o.algorithm);
	if ((ret = bf_cmd_load_cfg_store(&cfg, ctx, "detect", a.sel.config)))
		return ret;
	ret = bf_postsubmit_detect(&result, &cfg, ctx->store, &a.o, &err);
	if (!ret && a.bisect) {
		/* the evidence goes where the result does not */
		a.bo.log = a.json_path && !strcmp(a.json_path, "-") ? stderr
		                                                    : stdout;
		bf_cmd_notes_init(&notes, "detect");
		a.bo.note = bf_cmd_job_note;
		a.bo.note_arg = &notes;
		if (bf_detect_bisect(result, &cfg, ctx->store, &a.bo, &err))
			bisect_ret = bf_cmd_fail(BF_EXIT_INFRA, "detect",
			                         "--bisect: %s", err.msg);
	}
	if (ret) {
		ret = bf_cmd_fail(err.code == BF_EINVAL ||
		                                  err.code == BF_ENOTFOUND
		                          ? BF_EXIT_USAGE
		                          : BF_EXIT_INFRA,
		                  "detect", "%s", err.msg);
	} else if (a.json_path && !strcmp(a.json_path, "-")) {
		bf_json_print(result, stdout);
	} else {
		print_alerts(result);
		if (a.json_path &&
		    bf_json_write_file(result, a.json_path, true, true, &err))
			ret = bf_cmd_fail(BF_EXIT_INFRA, "detect", "%s",
			                  err.msg);
	}
	json_decref(result);
	bf_cfg_release(&cfg);
	return ret ? ret : bisect_ret;
}

static const char alert_usage[] =
        "usage: benchfarm alert list [--status open|ack|ignored] [--json]\n"
        "   or: benchfarm alert ack (ID | --group GROUP)...\n"
        "   or: benchfarm alert ignore (ID | --group GROUP)...\n"
        "\n"
        "Triage the alerts 'benchfarm detect' recorded. Alerts whose step "
        "is at\n"
        "the same commit share a GROUP: a number (the commit's first 13 "
        "hex\n"
        "digits read as one), written the same in the table and as "
        "'group'\n"
        "in the JSON; --group GROUP names every alert of it. ack: seen, "
        "being\n"
        "handled. ignore: not a real change (noise, infrastructure); its "
        "point\n"
        "is left out of later fits. Every alert named changes, or none.\n";

static json_t *alert_json(const struct bf_store_alert *a)
{
	json_t *j = json_pack(
	        "{s:I, s:s, s:s, s:s, s:s, s:s, s:s, s:f, s:f, s:s, s:I, s:I}",
	        "id", (json_int_t)a->id, "suite", a->suite ? a->suite : "",
	        "benchmark", a->benchmark, "metric", a->metric, "device_class",
	        a->device_class ? a->device_class : "", "commit_lo",
	        a->commit_lo, "commit_hi", a->commit_hi, "size", a->size,
	        "score", a->score, "direction", a->direction, "group",
	        (json_int_t)a->group_id, "created_at",
	        (json_int_t)a->created_at);
	json_t *detail = a->detail ? json_loads(a->detail, 0, NULL) : NULL;

	json_object_set_new(j, "status", json_string(a->status));
	json_object_set_new(j, "culprit",
	                    a->culprit ? json_string(a->culprit) : json_null());
	if (detail)
		json_object_set_new(j, "detail", detail);
	return j;
}

static int alert_list(int argc, char **argv, struct bf_ctx *ctx)
{
	static const struct option opts[] = {
		{ "status", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bf_store_alert *alerts = NULL;
	struct bf_err err = BF_ERR_INIT;
	const char *status = NULL;
	bool json = false;
	size_t n = 0;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 's')
			status = optarg;
		else if (c == 'j')
			json = true;
		else if (c == 'h')
			return fputs(alert_usage, stdout), BF_EXIT_OK;
		else
			return fputs(alert_usage, stderr), BF_EXIT_USAGE;
	}
	if (bf_store_alert_list(&alerts, &n, ctx->store, status, &err))
		return bf_cmd_fail(err.code == BF_EINVAL ? BF_EXIT_USAGE
		                                         : BF_EXIT_INFRA,
		                   "alert list", "%s", err.msg);
	if (json) {
		json_t *arr = json_array();

		for (size_t i = 0; i < n; i++)
			json_array_append_new(arr, alert_json(&alerts[i]));
		bf_json_print(arr, stdout);
		json_decref(arr);
	} else {
		/* The name columns are as wide as their longest entry. */
		int wb = 28, wm = 10;

		for (size_t i = 0; i < n; i++) {
			if ((int)strlen(alerts[i].benchmark) > wb)
				wb = (int)strlen(alerts[i].benchmark);
			if ((int)strlen(alerts[i].metric) > wm)
				wm = (int)strlen(alerts[i].metric);
		}
		bf_text_printf(
		        stdout,
		        "%-5s %-8s %-9s %-*s %-*s %7s  %-26s %-12s %-16s "
		        "%s\n",
		        "ID", "STATUS", "DIRECTION", wb, "BENCHMARK", wm,
		        "METRIC", "SIZE", "COMMITS", "CULPRIT", "GROUP",
		        "CLASS");
		for (size_t i = 0; i < n; i++) {
			const struct bf_store_alert *a = &alerts[i];

			bf_text_printf(stdout,
			               "%-5lld %-8s %-9s %-*s %-*s %+6.1f%%  "
			               "%.12s..%.12s %-12.12s %-16lld %s\n",
			               (long long)a->id, a->status,
			               a->direction, wb, a->benchmark, wm,
			               a->metric, 100 * a->size, a->commit_lo,
			               a->commit_hi,
			               a->culprit ? a->culprit : "-",
			               (long long)a->group_id,
			               a->device_class ? a->device_class : "");
		}
	}
	bf_store_alerts_free(alerts, n);
	return BF_EXIT_OK;
}

/*
 * The alerts argv[1..argc) name: IDs, and with --group G every alert of
 * group G. *ids_out (malloc'd) gets them, *n_out how many. Returns 0 or
 * an exit code (the message printed).
 */
static int alert_ids(int64_t **ids_out, size_t *n_out, int argc, char **argv,
                     struct bf_ctx *ctx)
{
	struct bf_store_alert *all = NULL;
	struct bf_err err = BF_ERR_INIT;
	int64_t *ids = NULL, v;
	size_t n = 0, alloc = 0, nall = 0;
	int ret = 0;

	for (int i = 1; i < argc && !ret; i++) {
		bool group = !strcmp(argv[i], "--group");
		size_t found = 0;

		if (group && ++i == argc) {
			ret = bf_cmd_fail(BF_EXIT_USAGE, "alert",
			                  "--group needs a GROUP (as 'alert "
			                  "list' prints it)");
			break;
		}
		if (bf_parse_i64(&v, argv[i], &err)) {
			ret = bf_cmd_fail(BF_EXIT_USAGE, "alert", "%s'%s': %s",
			                  group ? "--group " : "", argv[i],
			                  err.msg);
			break;
		}
		if (group && !all &&
		    bf_store_alert_list(&all, &nall, ctx->store, NULL, &err)) {
			ret = bf_cmd_fail(BF_EXIT_INFRA, "alert", "%s",
			                  err.msg);
			break;
		}
		for (size_t k = 0; k < (group ? nall : 1); k++) {
			if (group && all[k].group_id != v)
				continue;
			if (n == alloc) {
				alloc = alloc ? 2 * alloc : 8;
				ids = bf_xrealloc(ids, alloc * sizeof(*ids));
			}
			ids[n++] = group ? all[k].id : v;
			found++;
		}
		if (!found)
			ret = bf_cmd_fail(BF_EXIT_USAGE, "alert",
			                  "--group '%s': no alert is in this "
			                  "group (no alert was changed)",
			                  argv[i]);
	}
	bf_store_alerts_free(all, nall);
	if (ret)
		free(ids);
	else
		*ids_out = ids;
	*n_out = ret ? 0 : n;
	return ret;
}

/* ack or ignore every alert named, or none of them (one transaction). */
static int alert_set(int argc, char **argv, struct bf_ctx *ctx,
                     const char *status)
{
	struct bf_err err = BF_ERR_INIT;
	int64_t *ids = NULL;
	size_t n = 0;
	int ret;

	if (argc < 2 || bf_cmd_wants_help(argc, argv)) {
		fputs(alert_usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? BF_EXIT_USAGE : BF_EXIT_OK;
	}
	if ((ret = alert_ids(&ids, &n, argc, argv, ctx)))
		return ret;
	if (bf_store_begin(ctx->store, &err))
		ret = bf_cmd_fail(BF_EXIT_INFRA, "alert", "%s", err.msg);
	for (size_t i = 0; i < n && !ret; i++)
		if (bf_store_alert_set_status(ctx->store, ids[i], status, &err))
			ret = bf_cmd_fail(
			        err.code == BF_EINVAL ||
			                        err.code == BF_ENOTFOUND
			                ? BF_EXIT_USAGE
			                : BF_EXIT_INFRA,
			        "alert", "'%lld': %s%s", (long long)ids[i],
			        err.msg,
			        n > 1 ? " (no alert was changed)" : "");
	if (!ret && bf_store_commit(ctx->store, &err))
		ret = bf_cmd_fail(BF_EXIT_INFRA, "alert", "%s", err.msg);
	if (ret)
		bf_store_rollback(ctx->store, NULL);
	for (size_t i = 0; i < n && !ret; i++)
		bf_text_printf(stdout, "alert %lld: %s\n", (long long)ids[i],
		               status);
	free(ids);
	return ret;
}

int cmd_alert(int argc, char **argv, struct bf_ctx *ctx)
{
	if (argc >= 2 && !strcmp(argv[1], "list"))
		return alert_list(argc - 1, argv + 1, ctx);
	if (argc >= 2 && !strcmp(argv[1], "ack"))
		return alert_set(argc - 1, argv + 1, ctx, "ack");
	if (argc >= 2 && !strcmp(argv[1], "ignore"))
		return alert_set(argc - 1, argv + 1, ctx, "ignored");
	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		return fputs(alert_usage, stdout), BF_EXIT_OK;
	fputs(alert_usage, stderr);
	return BF_EXIT_USAGE;
}
