#include "postsubmit/bisect.h"

#include <math.h>
#include <stdarg.h>
#include <time.h>

#include "benchfarm/alloc.h"
#include "benchfarm/buf.h"
#include "benchfarm/err.h"
#include "benchfarm/exitcode.h"
#include "benchfarm/fs.h"
#include "benchfarm/json.h"
#include "benchfarm/text.h"
#include "config/cfg.h"
#include "git/buildid.h"
#include "git/gitrepo.h"
#include "job/presubmit.h"

struct bisect {
	const struct bf_bisect_opts *o;
	struct bf_presubmit_opts po;
	const struct bf_cfg *cfg;
	struct bf_store *store;
	char (*range)[41]; /* good..bad, oldest first; last = bad */
	size_t n;
	char good_id[41];
	/*
	 * The builds of the nearest commits known good and bad (good and
	 * bad from the first probe, then each measured probe's; "" when
	 * not known): a commit of either build is that side without being
	 * measured. last_build: the latest probe's patch build.
	 */
	char good_build[BF_BUILD_ID_SIZE], bad_build[BF_BUILD_ID_SIZE];
	char last_build[BF_BUILD_ID_SIZE];
	char *series, *metric; /* followed; NULL until the first probe */
	char *verdict; /* what good..bad showed: regressed|improved */
	double effect; /* its change between good and bad */
	json_t *choice; /* why that series (bisect.h); NULL until then */
	json_t *endpoints; /* every series of good..bad; NULL until then */
	bool *skipped; /* [k]: range[k - 1] could not be judged */
	const char **why; /* [k]: why, when skipped */
	json_t *probes, *skipped_json;
	char started[32]; /* UTC, "YYYY-MM-DDTHH:MM:SSZ" */
};

size_t bf_bisect_next(size_t lo, size_t hi, const bool *skipped)
{
	size_t mid = lo + (hi - lo) / 2;

	if (hi - lo < 2)
		return 0;
	for (size_t d = 0; d < hi - lo; d++) {
		if (mid + d < hi && !skipped[mid + d])
			return mid + d;
		if (d && d < mid - lo && !skipped[mid - d])
			return mid - d;
	}
	return 0;
}

/*
 * The benchmark exists, and the metric asked for is one it measures: a
 * probe's compare drops a metric its metrics: list leaves out, so such
 * a bisect could never follow it.
 */
static int check_bench(const struct bisect *b, struct bf_err *err)
{
	const struct bf_cfg_benchmark *cb =
	        bf_cfg_find_benchmark(b->cfg, b->o->bench);
	bool higher;

	if (!cb)
		return bf_err_set(err, BF_EINVAL,
		                  "%s: no benchmark '%s' in 'benchmarks'",
		                  b->cfg->path, b->o->bench);
	if (b->o->metric &&
	    !bf_cfg_metric_wanted(cb, b->o->metric, "", &higher))
		return bf_err_set(err, BF_EINVAL,
		                  "%s: benchmark '%s' does not measure metric "
		                  "'%s': its metrics: list leaves it out (add "
		                  "it there to measure and bisect it)",
		                  b->cfg->path, b->o->bench, b->o->metric);
	return 0;
}

static int resolve_range(struct bisect *b, struct bf_err *err)
{
	struct bf_gitrepo *repo = NULL;
	char *dir = bf_fs_dirname(b->cfg->path);
	char *path = bf_fs_join(dir, b->cfg->project.repo);
	char *range = bf_xasprintf("%s..%s", b->o->good, b->o->bad);
	int ret = bf_gitrepo_open(&repo, path, err);

	if (!ret)
		ret = bf_gitrepo_resolve(b->good_id, repo, b->o->good, err);
	if (!ret)
		ret = bf_gitrepo_first_parent_range(repo, range, &b->range,
		                                    &b->n, err);
	if (ret && ret != BF_EINVAL) {
		/* the revisions or the repository the config names */
		if (err)
			err->code = BF_EINVAL;
		ret = BF_EINVAL;
	} else if (!ret && !b->n) {
		ret = bf_err_set(err, BF_EINVAL,
		                 "%s has no commit: is %s an ancestor of %s?",
		                 range, b->o->good, b->o->bad);
	}
	bf_gitrepo_free(repo);
	free(range);
	free(dir);
	free(path);
	return ret;
}

/*
 * The result's series this bisect follows; NULL when none fits. The
 * first probe (good against bad, first) chooses it, the clearest
 * change of those the options allow (bf_bisect_choose), and records
 * why; later probes take that one.
 */
static json_t *pick_series(struct bisect *b, const json_t *result, bool first)
{
	const char *want_s = b->series ? b->series : b->o->series;
	const char *want_m = b->metric ? b->metric : b->o->metric;
	json_t *s, *runner_up;

	s = bf_bisect_choose(&runner_up, result, want_s, want_m, first);
	if (!first || !s)
		return s;
	b->choice = bf_bisect_choice_json(s, runner_up,
	                                  b->o->series || b->o->metric);
	if (b->o->choice && b->o->series && b->o->metric) {
		/* the caller's reason, with this series' change */
		json_t *c = json_deep_copy(b->o->choice);

		json_object_update(b->choice, c);
		json_decref(c);
	}
	return s;
}

/* The agent's error codes that are the benchmark's doing, not the lab's. */
static bool benchmark_fault(const char *code)
{
	static const char *const codes[] = { "benchmark_failed", "timeout",
		                             "output_too_big", "parse_error",
		                             "not_found" };

	for (size_t i = 0; i < BF_ARRAY_SIZE(codes); i++)
		if (!strcmp(code, codes[i]))
			return true;
	return false;
}

/*
 * The errors of a side: how many, and in *own how many of them are the
 * benchmark's own doing (benchmark_fault) rather than the lab's (a
 * connection lost, a device fault: "error", "system", "device", ...).
 */
static size_t errors_of_side(const json_t *result, const char *side,
                             size_t *own)
{
	const json_t *e;
	size_t i, n = 0;

	*own = 0;
	json_array_foreach(json_object_get(result, "errors"), i, e)
	{
		if (strcmp(bf_json_str_or(e, "side", ""), side))
			continue;
		n++;
		*own += benchmark_fault(bf_json_str_or(e, "code", ""));
	}
	return n;
}

/*
 * Why a failed probe's commit cannot be judged, as git bisect skip
 * would skip it: its build failed, or it built but its benchmark failed
 * (every error the benchmark's own) while the good commit's ran. NULL:
 * the failure is the lab's or the setup's, and stops the bisect.
 */
static const char *untestable(const json_t *failure, const json_t *result)
{
	size_t patch, own, base, base_own;

	if (failure && !strcmp(bf_json_str_or(failure, "stage", ""), "build"))
		return !strcmp(bf_json_str_or(failure, "side", ""), "patch")
		               ? "does not build"
		               : NULL;
	if (!result ||
	    !strcmp(bf_json_str_or(result, "status", ""), "infra_failure"))
		return NULL;
	patch = errors_of_side(result, "patch", &own);
	base = errors_of_side(result, "base", &base_own);
	return patch && own == patch && !base ? "its benchmark failed" : NULL;
}

/* The identity of a result's side ("base", "patch"), or "". */
static const char *build_of(const json_t *result, const char *side)
{
	return bf_json_str_or(
	        json_object_get(json_object_get(result, "build"), side), "id",
	        "");
}

/*
 * Compare good with commit; *out the followed series (NULL: none).
 * *why is set when commit cannot be judged (skip it, see untestable);
 * *known is -1 or 1 when commit is good's or bad's build, which is not
 * measured again (0: it was measured); any other failure is BF_ERROR.
 */
static int probe(json_t **out, const char **why, int *known, struct bisect *b,
                 const char *commit, bool first, struct bf_err *err)
{
	json_t *result = NULL, *failure = NULL, *s;
	struct bf_err job_err = BF_ERR_INIT;
	const char *kb;
	int ret;

	*out = NULL;
	*why = NULL;
	*known = 0;
	b->po.known_builds[0] = b->good_build[0] ? b->good_build : NULL;
	b->po.known_builds[1] = b->bad_build[0] ? b->bad_build : NULL;
	b->po.base = b->good_id;
	b->po.patch = commit;
	b->po.result_out = &result;
	b->po.failure_out = &failure;
	ret = bf_presubmit_run(&b->po, b->cfg, b->store, &job_err);
	if ((ret == BF_EXIT_INFRA || ret == BF_EXIT_USAGE || !result) &&
	    !first && (*why = untestable(failure, result))) {
		ret = 0;
		goto out;
	}
	if (ret == BF_EXIT_INFRA || ret == BF_EXIT_USAGE || !result) {
		ret = bf_err_set(err, BF_ERROR, "the probe of %.12s failed: %s",
		                 commit,
		                 failure ? bf_json_str_or(failure, "error", "")
		                         : job_err.msg);
		goto out;
	}
	bf_strlcpy(b->last_build, build_of(result, "patch"),
	           sizeof(b->last_build));
	kb = bf_json_str_or(result, "known_build", NULL);
	if (!first && kb) {
		*known = !strcmp(kb, b->bad_build) ? 1 : -1;
		ret = 0;
		goto out;
	}
	if (first) {
		b->endpoints = bf_bisect_endpoints_json(result);
		bf_strlcpy(b->good_build, build_of(result, "base"),
		           sizeof(b->good_build));
		bf_strlcpy(b->bad_build, build_of(result, "patch"),
		           sizeof(b->bad_build));
	}
	s = pick_series(b, result, first);
	/*
	 * A probe that does not report the followed series (its benchmark
	 * failed there, or it renamed it) cannot be judged: skipped, as
	 * git bisect skip would, never read as good.
	 */
	if (!first && s &&
	    !strcmp(bf_json_str_or(s, "verdict", ""), "missing")) {
		*why = untestable(failure, result);
		if (!*why)
			*why = "it does not report the series";
		ret = 0;
		goto out;
	}
	if (s && first) {
		b->series = bf_xstrdup(bf_json_str_or(s, "name", ""));
		b->metric = bf_xstrdup(bf_json_str_or(s, "metric", ""));
		b->verdict = bf_xstrdup(bf_json_str_or(s, "verdict", ""));
		b->effect = json_number_value(json_object_get(s, "effect"));
	}
	*out = s ? json_incref(s) : NULL;
	ret = 0;
out:
	json_decref(result);
	json_decref(failure);
	return ret;
}

static void log_line(const struct bisect *b, const char *fmt, ...)
        BF_PRINTF(2, 3);

static void log_line(const struct bisect *b, const char *fmt, ...)
{
	struct bf_buf line = BF_BUF_INIT;
	va_list ap;

	if (!b->o->log)
		return;
	va_start(ap, fmt);
	bf_text_vaddf(&line, fmt, ap); /* names and subjects inert */
	va_end(ap);
	fwrite(line.buf, 1, line.len, b->o->log);
	fflush(b->o->log);
	bf_buf_release(&line);
}

/* outcome: "bad", "good", or "again" (unclear: measured once more). */
static void add_probe(struct bisect *b, const char *commit, const json_t *s,
                      const char *outcome)
{
	bool bad = !strcmp(outcome, "bad");
	const char *verdict = s ? bf_json_str_or(s, "verdict", "?") : "missing";
	double effect =
	        s ? json_number_value(json_object_get(s, "effect")) : NAN;

	log_line(b, "  %.12s  %-9s %+6.1f%% [%+.1f%%, %+.1f%%] p=%.3g  -> %s\n",
	         commit, verdict, 100 * effect,
	         s ? 100 * json_number_value(json_object_get(s, "ci_low"))
	           : NAN,
	         s ? 100 * json_number_value(json_object_get(s, "ci_high"))
	           : NAN,
	         s ? json_number_value(json_object_get(s, "p_adjusted")) : NAN,
	         outcome);
	json_array_append_new(b->probes,
	                      json_pack("{s:s, s:s, s:b, s:s, s:O}", "commit",
	                                commit, "verdict", verdict, "bad", bad,
	                                "outcome", outcome, "series",
	                                s ? s : json_null()));
}

/*
 * A commit of good's or bad's build: that side, known without being
 * measured.
 */
static void add_known(struct bisect *b, const char *commit, bool bad)
{
	log_line(b, "  %.12s  the same build as %s, not measured   -> %s\n",
	         commit, bad ? "bad" : "good", bad ? "bad" : "good");
	json_array_append_new(b->probes,
	                      json_pack("{s:s, s:s, s:b, s:s, s:n, s:s}",
	                                "commit", commit, "verdict",
	                                "same build", "bad", bad, "outcome",
	                                bad ? "bad" : "good", "series",
	                                "same_build_as", bad ? "bad" : "good"));
}

/* A commit that cannot be judged (why: "does not build", ...). */
static void add_skip(struct bisect *b, size_t k, const char *why)
{
	const char *c = b->range[k - 1];

	b->skipped[k] = true;
	b->why[k] = why;
	log_line(b, "  %.12s  %-28s -> skip\n", c, why);
	json_array_append_new(b->probes,
	                      json_pack("{s:s, s:s, s:b, s:s, s:n, s:s}",
	                                "commit", c, "verdict", "skipped",
	                                "bad", false, "outcome", "skip",
	                                "series", "reason", why));
	json_array_append_new(b->skipped_json, json_string(c));
}

int bf_bisect_side(double effect, double ci_low, double ci_high)
{
	double half;

	if (!isfinite(effect) || effect <= -1 || !isfinite(ci_low) ||
	    !isfinite(ci_high) || ci_low <= -1 || effect == 0)
		return 0;
	half = log1p(effect) / 2;
	if (half > 0)
		return log1p(ci_high) < half  ? -1
		       : log1p(ci_low) > half ? 1
		                              : 0;
	return log1p(ci_low) > half ? -1 : log1p(ci_high) < half ? 1 : 0;
}

static int side_of(const struct bisect *b, const json_t *s)
{
	const json_t *lo = json_object_get(s, "ci_low");
	const json_t *hi = json_object_get(s, "ci_high");

	if (!json_is_number(lo) || !json_is_number(hi))
		return 0;
	return bf_bisect_side(b->effect, json_number_value(lo),
	                      json_number_value(hi));
}

/* Too noisy to say either way ("unknown"): not evidence of good. */
static bool unclear(const json_t *s)
{
	return s && !strcmp(bf_json_str_or(s, "verdict", ""), "unknown");
}

static json_t *result_json(const struct bisect *b, size_t lo, size_t hi,
                           bool found)
{
	json_t *r = json_pack("{s:s, s:s, s:s, s:s, s:I, s:O}", "kind",
	                      "bisect", "benchmark", b->o->bench, "good",
	                      b->good_id, "bad", b->range[b->n - 1], "commits",
	                      (json_int_t)b->n, "skipped", b->skipped_json);

	if (b->verdict) {
		json_object_set_new(r, "series", json_string(b->series));
		json_object_set_new(r, "metric", json_string(b->metric));
		json_object_set_new(r, "direction", json_string(b->verdict));
		json_object_set(r, "choice", b->choice);
	}
	json_object_set_new(r, "endpoints",
	                    b->endpoints ? json_incref(b->endpoints)
	                                 : json_array());
	if (found && hi - lo == 1) {
		json_object_set_new(r, "culprit",
		                    json_string(b->range[hi - 1]));
	} else {
		json_t *cand = json_array();

		for (size_t k = lo + 1; found && k <= hi; k++)
			json_array_append_new(cand,
			                      json_string(b->range[k - 1]));
		json_object_set_new(r, "culprit", json_null());
		if (found)
			json_object_set_new(r, "candidates", cand);
		else
			json_decref(cand);
	}
	json_object_set_new(r, "probes", json_incref(b->probes));
	json_object_set_new(r, "started", json_string(b->started));
	return r;
}

/* Narrow [lo, hi] (0 = good, k = range[k - 1], hi bad) to one commit. */
static int narrow(size_t *lo_out, size_t *hi_out, struct bisect *b,
                  struct bf_err *err)
{
	size_t lo = 0, hi = b->n, k;
	int ret = 0;

	while (!ret && (k = bf_bisect_next(lo, hi, b->skipped))) {
		const char *c = b->range[k - 1], *why;
		int known;
		bool bad;
		json_t *s;

		if ((ret = probe(&s, &why, &known, b, c, false, err)))
			break;
		if (known) {
			add_known(b, c, known > 0);
			if (known > 0)
				hi = k;
			else
				lo = k;
			continue;
		}
		if (!why && unclear(s) && !side_of(b, s)) {
			/* once more: a burst of noise is not an answer */
			add_probe(b, c, s, "again");
			json_decref(s);
			if ((ret = probe(&s, &why, &known, b, c, false, err)))
				break;
		}
		if (why || (unclear(s) && !side_of(b, s))) {
			add_skip(b, k, why ? why : "too noisy to tell");
			json_decref(s);
			continue;
		}
		/* unclear but clearly nearer one side: that side */
		bad = s &&
		      (!strcmp(bf_json_str_or(s, "verdict", ""), b->verdict) ||
		       (unclear(s) && side_of(b, s) > 0));
		add_probe(b, c, s, bad ? "bad" : "good");
		/* the nearest known side: its build needs no measurement */
		if (b->last_build[0])
			memcpy(bad ? b->bad_build : b->good_build,
			       b->last_build, sizeof(b->last_build));
		json_decref(s);
		if (bad)
			hi = k;
		else
			lo = k;
	}
	*lo_out = lo;
	*hi_out = hi;
	return ret;
}

static int run(json_t **result_out, struct bisect *b, struct bf_err *err)
{
	const char *bad_id = b->range[b->n - 1];
	size_t lo, hi;
	const char *why;
	int known;
	json_t *s;
	int ret;

	log_line(b, "bisect %s over %zu commits of %.12s..%.12s\n", b->o->bench,
	         b->n, b->good_id, bad_id);
	if ((ret = probe(&s, &why, &known, b, bad_id, true, err)))
		return ret;
	if (!s) {
		log_line(b,
		         "no change between %.12s and %.12s reproduces for %s: "
		         "nothing to bisect\n",
		         b->good_id, bad_id, b->o->bench);
		*result_out = result_json(b, 0, b->n, false);
		return 0;
	}
	log_line(b, "  following %s %s: %s between good and bad\n", b->series,
	         b->metric, b->verdict);
	if (b->o->log && b->choice)
		bf_bisect_choice_print(b->o->log, b->choice);
	add_probe(b, bad_id, s, "bad");
	json_decref(s);
	if ((ret = narrow(&lo, &hi, b, err)))
		return ret;
	if (hi - lo == 1) {
		log_line(b, "culprit: %s\n", b->range[hi - 1]);
	} else {
		log_line(b,
		         "culprit: one of %zu commits, the others could not "
		         "be judged:",
		         hi - lo);
		for (size_t k = lo + 1; k <= hi; k++)
			log_line(b, k < hi ? " %.12s (%s)," : " %.12s (%s)\n",
			         b->range[k - 1],
			         b->skipped[k] ? b->why[k] : "bad");
	}
	*result_out = result_json(b, lo, hi, true);
	return 0;
}

int bf_bisect_run(json_t **result_out, const struct bf_cfg *cfg,
                  struct bf_store *store, const struct bf_bisect_opts *o,
                  struct bf_err *err)
{
	time_t now = time(NULL);
	struct bisect b;
	struct tm tm;
	int ret;

	memset(&b, 0, sizeof(b));
	b.effect = NAN;
	if (gmtime_r(&now, &tm))
		strftime(b.started, sizeof(b.started), "%Y-%m-%dT%H:%M:%SZ",
		         &tm);
	b.o = o;
	b.cfg = cfg;
	b.store = store;
	b.po = (struct bf_presubmit_opts)BF_PRESUBMIT_OPTS_INIT;
	b.po.config = cfg->path;
	b.po.only_bench = o->bench;
	b.po.repeats = o->repeats;
	b.po.device = o->device;
	b.po.pool = o->pool;
	b.po.note = o->note;
	b.po.note_arg = o->note_arg;
	b.probes = json_array();
	b.skipped_json = json_array();
	ret = check_bench(&b, err);
	if (!ret)
		ret = resolve_range(&b, err);
	if (!ret) {
		b.skipped = bf_xcalloc(b.n + 1, sizeof(*b.skipped));
		b.why = bf_xcalloc(b.n + 1, sizeof(*b.why));
		ret = run(result_out, &b, err);
	}
	free(b.series);
	free(b.metric);
	free(b.verdict);
	json_decref(b.choice);
	json_decref(b.endpoints);
	free(b.skipped);
	free(b.why);
	free(b.range);
	json_decref(b.probes);
	json_decref(b.skipped_json);
	return ret;
}
