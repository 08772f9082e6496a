#include "cmd.h"

#include <stdio.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/exitcode.h"
#include "benchfarm/fs.h"
#include "benchfarm/json.h"
#include "benchfarm/parse.h"
#include "benchfarm/text.h"
#include "config/cfg.h"
#include "git/buildcache.h"
#include "git/gitrepo.h"
#include "job/presubmit.h"
#include "postsubmit/history.h"
#include "store/store.h"

/*
 * Postsubmit recording: `benchfarm run` measures one commit into the
 * history; `benchfarm backfill` does it for every first-parent commit
 * of a range that the history does not have yet.
 */

static const char run_usage[] =
        "usage: benchfarm run -c CONFIG [--commit REV] [--repeats N]\n"
        "                     [--device NAME | --pool LABEL] [--json FILE]\n"
        "\n"
        "Postsubmit: build one commit, run every benchmark on it (its "
        "repeats,\n"
        "else runs.repeats, times, after its warmup) and record the raw samples in the "
        "history of\n"
        "the device class (the pool label or device name). 'benchfarm "
        "detect'\n"
        "then looks for steps.\n"
        "\n"
        "    -c, --config FILE   the config\n"
        "        --commit REV    the commit (default: HEAD)\n"
        "    -n, --repeats N     runs of every benchmark (default: each "
        "benchmark's\n"
        "                        repeats, else runs.repeats)\n"
        "        --device NAME   run on this registered device (or "
        "'local')\n"
        "        --pool LABEL    run on this pool (default: devices.pool)\n"
        "        --json FILE     write the result JSON\n"
        "        --seed S        seed of the run order\n"
        "        --detect        then run 'benchfarm detect' on the "
        "history\n"
        "        --measure-every measure the commit even when its build is "
        "the\n"
        "                        same as one measured already (to watch "
        "the\n"
        "                        machine); else that measurement is its "
        "point\n"
        "\n"
        "A commit whose build (project.build_identity) equals one that a "
        "complete\n"
        "run of the device class measured under this config is not "
        "measured\n"
        "again: it is recorded as the same build, and that run's samples "
        "are its\n"
        "point.\n"
        "\n"
        "Exit: 0 recorded, 2 usage or config error, 3 infrastructure "
        "failure\n"
        "(build failed, no device): nothing is recorded as a point then.\n";

static const char backfill_usage[] =
        "usage: benchfarm backfill -c CONFIG [--repeats N] [--device NAME "
        "| --pool LABEL]\n"
        "                          [--json FILE] [--retry-failed] A..B\n"
        "\n"
        "Record every first-parent commit of A..B (oldest first) that the\n"
        "history of the device class does not have yet, as 'benchfarm run'\n"
        "would. A commit whose build fails is recorded as failed and "
        "skipped;\n"
        "it never becomes a point. A later backfill does not build it "
        "again\n"
        "while the config is the same (the commit fixes the tree), and "
        "says so.\n"
        "\n"
        "    -c, --config FILE   the config\n"
        "    -n, --repeats N     runs of every benchmark per commit "
        "(default:\n"
        "                        each benchmark's repeats, else "
        "runs.repeats)\n"
        "        --device NAME   run on this registered device (or "
        "'local')\n"
        "        --pool LABEL    run on this pool (default: devices.pool)\n"
        "        --json FILE     a summary: each commit and what happened\n"
        "        --detect        then run 'benchfarm detect' when something "
        "was\n"
        "                        measured\n"
        "        --retry-failed  build again the commits whose build failed\n"
        "                        before with this config (after fixing the\n"
        "                        build machine)\n"
        "        --measure-every measure every commit, also those whose "
        "build is\n"
        "                        the same as one measured already\n"
        "\n"
        "Each commit is built; one whose build (project.build_identity) "
        "equals\n"
        "a build measured on the device class under this config is "
        "recorded as\n"
        "the same build (its point is that measurement's), not measured "
        "again.\n"
        "\n"
        "It stops at the first commit that no device of the pool can "
        "measure\n"
        "(every device down, busy past devices.wait, or unfit), naming "
        "them;\n"
        "run it again once a device is back: it resumes at that commit.\n"
        "\n"
        "Exit: 0 when every commit is measured or was already, 3 when some\n"
        "could not be (their runs say why), 2 usage or config error.\n";

enum {
	OPT_COMMIT = 256,
	OPT_SEED,
	OPT_DETECT,
	OPT_RETRY_FAILED,
	OPT_MEASURE_EVERY
};

/* What run or backfill was asked, besides the job options. */
struct post_args {
	struct bf_presubmit_opts *o;
	bool *detect, *retry; /* retry: NULL for run */
	const char *cmd, *usage;
};

/*
 * The own options of run and backfill: --commit is run's,
 * --retry-failed backfill's.
 */
static int take(void *arg, int c, const char *val)
{
	struct post_args *a = arg;
	struct bf_err err = BF_ERR_INIT;

	if (c == OPT_COMMIT && !a->retry) {
		a->o->patch = val;
	} else if (c == OPT_SEED) {
		if (bf_parse_u64(&a->o->seed, val, &err))
			return bf_cmd_fail(BF_EXIT_USAGE, a->cmd, "--seed: %s",
			                   err.msg);
		a->o->seed_set = true;
	} else if (c == OPT_DETECT) {
		*a->detect = true;
	} else if (c == OPT_RETRY_FAILED && a->retry) {
		*a->retry = true;
	} else if (c == OPT_MEASURE_EVERY) {
		a->o->measure_every = true;
	} else {
		fputs(a->usage, stderr);
		return BF_EXIT_USAGE;
	}
	return 0;
}

/* range and retry are NULL for run, which takes neither. */
static int parse(struct bf_presubmit_opts *o, bool *detect, const char **range,
                 bool *retry, int argc, char **argv, const char *cmd,
                 const char *usage)
{
	static const struct option opts[] = {
		{ "commit", required_argument, NULL, OPT_COMMIT },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "detect", no_argument, NULL, OPT_DETECT },
		{ "retry-failed", no_argument, NULL, OPT_RETRY_FAILED },
		{ "measure-every", no_argument, NULL, OPT_MEASURE_EVERY },
		{ NULL, 0, NULL, 0 },
	};
	struct post_args pa = { o, detect, retry, cmd, usage };
	struct bf_cmd_args a = { 0 };
	int first = 0;
	const struct bf_cmd_parser p = {
		.name = cmd,
		.usage = usage,
		.groups = BF_CMD_OPTS_JOB,
		.opts = opts,
		.take = take,
		.arg = &pa,
		.operands = range ? &first : NULL,
	};
	int ret = bf_cmd_parse(&a, argc, argv, &p);

	if (ret)
		return ret < 0 ? BF_EXIT_OK : ret;
	o->config = a.config;
	o->device = a.device;
	o->pool = a.pool;
	o->json_path = a.json;
	o->repeats = a.repeats;
	if (range && first + 1 == argc) {
		*range = argv[first];
		return -1;
	}
	if (range)
		return bf_cmd_fail(BF_EXIT_USAGE, cmd,
		                   "give one range A..B (see --help)");
	return -1;
}

/* The job failed because no device of the pool could measure. */
static bool no_device(const json_t *failure)
{
	return failure &&
	       !strcmp(bf_json_str_or(failure, "stage", ""), "devices");
}

/* What run recorded: a table of medians, no verdict. */
static void print_recorded(const json_t *result)
{
	const json_t *results = json_object_get(result, "results");
	const json_t *same = json_object_get(result, "same_build_as");
	const json_t *r;
	size_t i;

	if (json_is_object(same)) {
		bf_text_printf(
		        stdout,
		        "commit %.12s: the same build as %.12s, measured in run "
		        "%lld: recorded as that point (run %lld)\n",
		        bf_json_str_or(json_object_get(result, "commit"),
		                       "commit", ""),
		        bf_json_str_or(same, "commit", ""),
		        (long long)json_integer_value(
		                json_object_get(same, "run")),
		        (long long)json_integer_value(
		                json_object_get(result, "run_id")));
		return;
	}
	bf_text_printf(
	        stdout, "commit %.12s: %zu series recorded (run %lld)\n",
	        bf_json_str_or(json_object_get(result, "commit"), "commit", ""),
	        json_array_size(results),
	        (long long)json_integer_value(
	                json_object_get(result, "run_id")));
	json_array_foreach(results, i, r)
	{
		bf_text_printf(
		        stdout, "  %-32s %-12s %14.6g %s (n=%lld)\n",
		        bf_json_str_or(r, "name", "?"),
		        bf_json_str_or(r, "metric", "?"),
		        json_number_value(json_object_get(r, "median")),
		        bf_json_str_or(r, "unit", ""),
		        (long long)json_integer_value(json_object_get(r, "n")));
	}
}

int cmd_run(int argc, char **argv, struct bf_ctx *ctx)
{
	struct bf_presubmit_opts o = BF_PRESUBMIT_OPTS_INIT;
	struct bf_cmd_notes notes;
	json_t *result = NULL, *failure = NULL;
	struct bf_cfg cfg;
	bool detect = false;
	int ret = parse(&o, &detect, NULL, NULL, argc, argv, "run", run_usage);

	if (ret >= 0)
		return ret;
	if ((ret = bf_cmd_load_cfg_store(&cfg, ctx, "run", o.config)))
		return ret;
	o.record = true;
	bf_cmd_notes_init(&notes, "run");
	o.note = bf_cmd_job_note;
	o.note_arg = &notes;
	o.result_out = &result;
	o.failure_out = &failure;
	ret = bf_presubmit_run(&o, &cfg, ctx->store, NULL);
	if (result) {
		print_recorded(result);
		bf_cmd_say_stopped(result, "run");
	}
	if (no_device(failure))
		fprintf(stderr,
		        "benchfarm: run: nothing was recorded: no device of "
		        "the pool can measure; once a device is back "
		        "('benchfarm device list', 'benchfarm device check "
		        "--all'), run it again\n");
	json_decref(failure);
	json_decref(result);
	if (ret == BF_EXIT_OK && detect)
		ret = bf_cmd_detect_after(&cfg, ctx->store,
		                          o.device ? o.device : o.pool, "run");
	bf_cfg_release(&cfg);
	return ret;
}

/*
 * The backfill stops at commit i of n: measuring the rest would only
 * build them and record them as failed. The devices and why were said
 * with the commit's line; a rerun measures from this commit on.
 */
static void say_no_device(const char *commit, size_t i, size_t n,
                          const char *range)
{
	fprintf(stderr,
	        "benchfarm: backfill: stopped at commit %.12s (%zu of %zu): "
	        "no device of the pool can measure, so nothing after it "
	        "was built or recorded; once a device is back ('benchfarm "
	        "device list', 'benchfarm device check --all', 'benchfarm "
	        "device undrain'), run 'benchfarm backfill %s' again: it "
	        "resumes at this commit\n",
	        commit, i + 1, n, range);
}

/* The first-parent commits of range, oldest first. */
/*
 * The commits of range, oldest first, and the build cache key of each
 * (its tree, project.build, project.artifacts and this environment:
 * what its build would be made of).
 */
static int list_range(char (**oids)[41], char (**keys)[65], size_t *n,
                      const struct bf_cfg *cfg, const char *range)
{
	struct bf_err err = BF_ERR_INIT;
	struct bf_gitrepo *repo = NULL;
	char *dir = bf_fs_dirname(cfg->path);
	char *path = bf_fs_join(dir, cfg->project.repo);
	int ret = bf_gitrepo_open(&repo, path, &err);

	if (!ret)
		ret = bf_gitrepo_first_parent_range(repo, range, oids, n, &err);
	if (!ret)
		*keys = bf_xcalloc(*n ? *n : 1, sizeof(**keys));
	for (size_t i = 0; !ret && i < *n; i++) {
		char tree[41];
		json_t *inputs;

		if ((ret = bf_gitrepo_tree_id(tree, repo, (*oids)[i], &err)))
			break;
		inputs = bf_buildcache_inputs(tree, cfg);
		bf_buildcache_key((*keys)[i], inputs);
		json_decref(inputs);
	}
	if (ret)
		ret = bf_cmd_fail(BF_EXIT_USAGE, "backfill", "%s", err.msg);
	bf_gitrepo_free(repo);
	free(dir);
	free(path);
	return ret;
}

int cmd_backfill(int argc, char **argv, struct bf_ctx *ctx)
{
	struct bf_presubmit_opts o = BF_PRESUBMIT_OPTS_INIT;
	struct bf_err err = BF_ERR_INIT;
	struct bf_cmd_notes notes;
	const char *range = NULL, *json_path;
	char(*oids)[41] = NULL;
	char(*keys)[65] = NULL;
	size_t n = 0, measured = 0, skipped = 0, failed = 0, known = 0;
	size_t same = 0;
	size_t stop_at = SIZE_MAX; /* the commit no device could measure */
	json_t *summary = json_array();
	const char *klass;
	struct bf_cfg cfg;
	bool detect = false;
	bool retry = false;
	int ret = parse(&o, &detect, &range, &retry, argc, argv, "backfill",
	                backfill_usage);

	if (ret >= 0)
		goto out_nocfg;
	if ((ret = bf_cmd_load_cfg_store(&cfg, ctx, "backfill", o.config)))
		goto out_nocfg;
	if ((ret = list_range(&oids, &keys, &n, &cfg, range)))
		goto out;
	klass = o.device ? o.device : o.pool ? o.pool : cfg.devices.pool;
	json_path = o.json_path;
	o.json_path = NULL;
	o.record = true;
	bf_cmd_notes_init(&notes, "backfill");
	o.note = bf_cmd_job_note;
	o.note_arg = &notes;
	for (size_t i = 0; i < n; i++) {
		json_t *failure = NULL, *row;
		bool have = false;
		int64_t broken = 0;
		const char *what;
		int rc;

		if (bf_history_measured(&have, ctx->store, klass, oids[i],
		                        &err) ||
		    (!have && !retry &&
		     bf_store_run_failed_build(&broken, ctx->store, oids[i],
		                               keys[i], &err))) {
			ret = bf_cmd_fail(BF_EXIT_INFRA, "backfill", "%s",
			                  err.msg);
			goto out;
		}
		if (have) {
			skipped++;
			what = "already measured";
		} else if (broken) {
			failed++;
			known++;
			what = "not built: its build failed before under the "
			       "same build inputs (--retry-failed builds it "
			       "again)";
			failure = json_pack("{s:s, s:I}", "stage", "build",
			                    "failed_run", (json_int_t)broken);
		} else {
			json_t *result = NULL;

			o.patch = oids[i];
			o.failure_out = &failure;
			o.result_out = &result;
			rc = bf_presubmit_run(&o, &cfg, ctx->store, NULL);
			bf_cmd_say_stopped(result, "backfill");
			if (rc == BF_EXIT_OK &&
			    json_is_object(
			            json_object_get(result, "same_build_as"))) {
				same++;
				what = "the same build as one measured: "
				       "recorded as its point";
			} else if (rc == BF_EXIT_OK) {
				measured++;
				what = "measured";
			} else if (no_device(failure)) {
				stop_at = i;
				what = "not measured: no usable device";
			} else {
				failed++;
				what = "failed (recorded as failed, no point)";
			}
			json_decref(result);
		}
		if (broken)
			bf_text_printf(stdout,
			               "[%zu/%zu] %.12s %s (run %lld)\n", i + 1,
			               n, oids[i], what, (long long)broken);
		else
			bf_text_printf(
			        stdout, "[%zu/%zu] %.12s %s%s%s\n", i + 1, n,
			        oids[i], what, failure ? ": " : "",
			        failure ? bf_json_str_or(failure, "error", "")
			                : "");
		fflush(stdout);
		row = json_pack("{s:s, s:s}", "commit", oids[i], "result",
		                what);
		if (failure)
			json_object_set_new(row, "failure", failure);
		json_array_append_new(summary, row);
		if (stop_at != SIZE_MAX)
			break;
	}
	if (stop_at != SIZE_MAX)
		say_no_device(oids[stop_at], stop_at, n, range);
	bf_text_printf(
	        stdout,
	        "backfill %s: %zu commits: %zu measured, %zu the same build "
	        "as one measured, %zu already measured, %zu failed",
	        range, n, measured, same, skipped, failed);
	if (known)
		bf_text_printf(
		        stdout,
		        " (%zu not built again: their build failed before)",
		        known);
	putchar('\n');
	if (json_path &&
	    bf_json_write_file(summary, json_path, true, true, &err))
		ret = bf_cmd_fail(BF_EXIT_INFRA, "backfill", "%s", err.msg);
	else
		ret = failed || stop_at != SIZE_MAX ? BF_EXIT_INFRA
		                                    : BF_EXIT_OK;
	if (ret != BF_EXIT_USAGE && detect && (measured || same)) {
		int rc = bf_cmd_detect_after(&cfg, ctx->store,
		                             o.device ? o.device : o.pool,
		                             "backfill");

		if (rc)
			ret = rc;
	}
out:
	bf_cfg_release(&cfg);
out_nocfg:
	free(keys);
	free(oids);
	json_decref(summary);
	return ret;
}
