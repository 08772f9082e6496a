#include "postsubmit/detect.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/fs.h"
#include "benchfarm/json.h"
#include "benchfarm/stats.h"
#include "config/cfg.h"
#include "git/gitrepo.h"
#include "job/compare.h"
#include "postsubmit/detect_env.h"
#include "postsubmit/history.h"
#include "store/store.h"

/* Nearest measured point before (dir -1) or after (+1) k; -1 if none. */
static long neighbour(const double *v, size_t n, size_t k, int dir)
{
	for (long i = (long)k + dir; i >= 0 && (size_t)i < n; i += dir)
		if (!isnan(v[i]))
			return i;
	return -1;
}

static bool is_spike(const double *v, size_t n, size_t k, double sigma,
                     bool *counted)
{
	long p = neighbour(v, n, k, -1), q = neighbour(v, n, k, +1);
	double d1, d2, tol;

	*counted = false;
	if (isnan(v[k]) || p < 0 || q < 0)
		return false;
	*counted = true;
	d1 = v[k] - v[p];
	d2 = v[k] - v[q];
	tol = fmax(4 * sigma, 0.02 * fabs(v[p]));
	return (d1 > 0) == (d2 > 0) && fabs(d1) > tol && fabs(d2) > tol &&
	       fabs(v[q] - v[p]) < 0.5 * fmin(fabs(d1), fabs(d2));
}

void bf_detect_suite_spikes(bool *out, double *const *series, size_t nseries,
                            size_t npoints, double share)
{
	double *sigma = bf_xcalloc(nseries + 1, sizeof(*sigma));

	for (size_t s = 0; s < nseries; s++)
		sigma[s] = bf_detect_noise(series[s], npoints);
	for (size_t k = 0; k < npoints; k++) {
		size_t seen = 0, spiked = 0;

		for (size_t s = 0; s < nseries; s++) {
			bool counted;

			spiked += is_spike(series[s], npoints, k, sigma[s],
			                   &counted);
			seen += counted;
		}
		out[k] = seen >= 3 && spiked >= 3 &&
		         (double)spiked >= share * (double)seen;
	}
	free(sigma);
}

/* Whether higher is better for s (the config's rule, as compare's). */
static bool higher_is_better(const struct bf_cfg *cfg,
                             const struct bf_hist_series *s)
{
	bool higher;

	bf_cfg_metric_wanted(bf_cfg_find_benchmark(cfg, s->suite), s->metric,
	                     s->unit, &higher);
	return higher;
}

struct ctx {
	const struct bf_cfg *cfg;
	struct bf_store *store;
	const struct bf_detect_opts *o;
	const char *klass;
	char (*commits)[41];
	size_t ncommits;
	struct bf_history h;
	bool *suppressed;
	json_t *alerts, *suppressed_json;
	json_t *series_json; /* per series: points, strongest statistic */
	/*
	 * Level shifts between identical builds, one entry per pair of
	 * commits (one environment event however many series moved),
	 * and the checks' evidence per pair already read ("lo:k").
	 */
	json_t *env_shifts;
	json_t *evidence;
	struct bf_store_alert *known; /* every stored alert */
	size_t nknown;
	size_t excluded; /* stored series of metrics the config leaves out */
	size_t measured; /* commits of the history with a point */
};

static size_t commit_index(const struct ctx *c, const char *id)
{
	for (size_t i = 0; i < c->ncommits; i++)
		if (!strcmp(c->commits[i], id))
			return i;
	return c->ncommits;
}

/* Whether another suite of the history has s's benchmark and metric. */
static bool shared_name(const struct ctx *c, const struct bf_hist_series *s)
{
	for (size_t i = 0; i < c->h.n; i++) {
		const struct bf_hist_series *o = &c->h.series[i];

		if (o != s && !strcmp(o->benchmark, s->benchmark) &&
		    !strcmp(o->metric, s->metric) && strcmp(o->suite, s->suite))
			return true;
	}
	return false;
}

/*
 * An alert stored before alerts had a suite (schema 5 and older) is the
 * series' only while no other suite prints the same benchmark and
 * metric; when two do, it cannot be told whose it was, and it is
 * neither's (it is not matched, ignored or narrowed for either).
 */
static bool same_series(const struct ctx *c, const struct bf_store_alert *a,
                        const struct bf_hist_series *s)
{
	return !strcmp(a->benchmark, s->benchmark) &&
	       !strcmp(a->metric, s->metric) &&
	       !strcmp(a->device_class ? a->device_class : "", c->klass) &&
	       (a->suite ? !strcmp(a->suite, s->suite) : !shared_name(c, s));
}

static bool is_ignored_of(const struct ctx *c, const struct bf_store_alert *a,
                          const struct bf_hist_series *s)
{
	return !strcmp(a->status, "ignored") && same_series(c, a, s);
}

/* Points of ignored alerts stay out of later fits. */
static void drop_ignored(struct ctx *c, struct bf_hist_series *s)
{
	for (size_t i = 0; i < c->nknown; i++) {
		size_t k;

		if (!is_ignored_of(c, &c->known[i], s))
			continue;
		k = commit_index(c, c->known[i].commit_hi);
		if (k < c->ncommits)
			s->v[k] = NAN;
	}
}

/*
 * With an ignored point left out, the same step shows again one commit
 * later, its range now spanning the ignored commit: that is the step
 * already triaged, not a new one.
 */
static bool covers_ignored(const struct ctx *c, const struct bf_hist_series *s,
                           long lo, size_t hi)
{
	for (size_t i = 0; i < c->nknown; i++) {
		size_t k;

		if (!is_ignored_of(c, &c->known[i], s))
			continue;
		k = commit_index(c, c->known[i].commit_hi);
		if (k < c->ncommits && (long)k > lo && k <= hi)
			return true;
	}
	return false;
}

/*
 * The stored alert of this series and direction whose range overlaps
 * lo..hi: the same step, seen over another range (a backfill measured
 * commits inside it since, or the range grew). NULL when none.
 */
static struct bf_store_alert *known_step(struct ctx *c,
                                         const struct bf_hist_series *s,
                                         const char *direction, long lo,
                                         size_t hi)
{
	for (size_t i = 0; i < c->nknown; i++) {
		struct bf_store_alert *a = &c->known[i];
		size_t klo = commit_index(c, a->commit_lo);
		size_t khi = commit_index(c, a->commit_hi);

		if (same_series(c, a, s) && !strcmp(a->direction, direction) &&
		    klo < c->ncommits && khi < c->ncommits && (long)khi > lo &&
		    klo < hi)
			return a;
	}
	return NULL;
}

static void replace(char **field, const char *v)
{
	free(*field);
	*field = v ? bf_xstrdup(v) : NULL;
}

/*
 * Store a step, or recognise it: a stored alert of the same step over a
 * wider range is narrowed to this one (its id and status kept, its
 * size, score and detail now this fit's, its culprit kept while it lies
 * inside the new range); over the same or a narrower range it is left
 * as it is.
 * *fresh: stored now; *id_out: its id, or the known alert's.
 */
static int store_step(bool *fresh, bool *narrowed, int64_t *id_out,
                      struct ctx *c, const struct bf_hist_series *s,
                      const struct bf_store_alert *a, long lo, size_t hi,
                      struct bf_err *err)
{
	struct bf_store_alert *k = known_step(c, s, a->direction, lo, hi);
	const char *culprit = NULL;
	int rc;

	*fresh = *narrowed = false;
	if (!k) {
		rc = bf_store_alert_add(id_out, c->store, a, err);
		*fresh = !rc;
		return rc == BF_EEXISTS ? 0 : rc;
	}
	*id_out = k->id;
	if ((long)commit_index(c, k->commit_lo) > lo ||
	    commit_index(c, k->commit_hi) < hi ||
	    (!strcmp(k->commit_lo, a->commit_lo) &&
	     !strcmp(k->commit_hi, a->commit_hi)))
		return 0;
	if (k->culprit) {
		size_t ci = commit_index(c, k->culprit);

		if (ci >= c->ncommits || (long)ci <= lo || ci > hi)
			culprit = NULL; /* outside the step as measured now */
		else
			culprit = k->culprit;
	}
	rc = bf_store_alert_narrow(c->store, k->id, a, culprit, err);
	if (rc)
		return rc == BF_EEXISTS ? 0 : rc;
	*narrowed = true;
	replace(&k->commit_lo, a->commit_lo);
	replace(&k->commit_hi, a->commit_hi);
	replace(&k->detail, a->detail);
	if (!culprit) {
		free(k->culprit);
		k->culprit = NULL;
	}
	k->size = a->size;
	k->score = a->score;
	k->group_id = a->group_id;
	return 0;
}

static int64_t group_of(const char *commit)
{
	char head[14];

	memcpy(head, commit, 13);
	head[13] = '\0';
	return (int64_t)strtoll(head, NULL, 16);
}

/*
 * The device checks' evidence around a step between points lo and k
 * (borrowed from the cache; NULL when it cannot be read: a step is
 * still reported without it).
 */
static json_t *evidence_of(struct ctx *c, size_t lo, size_t k)
{
	struct bf_err err = BF_ERR_INIT;
	char key[48];
	json_t *e;

	snprintf(key, sizeof(key), "%zu:%zu", lo, k);
	e = json_object_get(c->evidence, key);
	if (e)
		return json_is_null(e) ? NULL : e;
	if (bf_detect_env_evidence(&e, c->store, &c->h, lo, k, &err))
		e = json_null();
	json_object_set_new(c->evidence, key, e);
	return json_is_null(e) ? NULL : e;
}

/*
 * A level shift between points lo and k of one build: the machine's.
 * It joins the environment event of the same two commits, or starts
 * one with the checks' evidence.
 */
static void report_env_shift(struct ctx *c, const struct bf_hist_series *s,
                             const struct bf_change *ch, size_t lo, size_t k)
{
	json_t *ev = NULL, *e, *series;
	size_t i;

	json_array_foreach(c->env_shifts, i, e)
	{
		if (!strcmp(bf_json_str_or(e, "commit_lo", ""),
		            c->commits[lo]) &&
		    !strcmp(bf_json_str_or(e, "commit_hi", ""), c->commits[k]))
			ev = e;
	}
	if (!ev) {
		json_t *evid = evidence_of(c, lo, k);

		ev = json_pack("{s:s, s:s, s:s?, s:s, s:o, s:[]}", "commit_lo",
		               c->commits[lo], "commit_hi", c->commits[k],
		               "build", c->h.commit[k].build_id, "reason",
		               "the level moved between two measurements of "
		               "the same build: the machine changed, not the "
		               "code",
		               "evidence",
		               evid ? json_incref(evid) : json_null(),
		               "series");
		json_array_append_new(c->env_shifts, ev);
	}
	series = json_object_get(ev, "series");
	json_array_append_new(
	        series,
	        json_pack("{s:s, s:s, s:s, s:s, s:s, s:o, s:o, s:o}", "suite",
	                  s->suite, "benchmark", s->benchmark, "metric",
	                  s->metric, "unit", s->unit, "direction",
	                  ch->direction > 0 ? "up" : "down", "size",
	                  bf_json_real_or_null(ch->size), "before",
	                  bf_json_real_or_null(ch->before), "after",
	                  bf_json_real_or_null(ch->after)));
}

static int report_change(struct ctx *c, const struct bf_hist_series *s,
                         const struct bf_detect_params *p,
                         const struct bf_change *ch, long lo, size_t k,
                         struct bf_err *err)
{
	bool hib = higher_is_better(c->cfg, s);
	bool worse = hib ? ch->direction < 0 : ch->direction > 0;
	struct bf_store_alert a;
	json_t *detail, *j, *evid;
	char *text;
	int64_t id = 0;
	int rc = 0;
	bool fresh = false, narrowed = false, ignored;

	if (lo < 0)
		return 0; /* a step needs a point before it */
	evid = evidence_of(c, (size_t)lo, k);
	detail = json_pack("{s:s, s:o, s:o, s:o, s:o}", "detector",
	                   bf_detector_name(p->detector), "score",
	                   bf_json_real_or_null(ch->score), "before",
	                   bf_json_real_or_null(ch->before), "after",
	                   bf_json_real_or_null(ch->after), "p_value",
	                   bf_json_real_or_null(ch->p_value));
	/* the code changed here, and the machine too: both are said */
	if (evid && json_is_true(json_object_get(evid, "changed")))
		json_object_set_new(detail, "environment", json_incref(evid));
	text = json_dumps(detail, JSON_COMPACT);
	memset(&a, 0, sizeof(a));
	a.benchmark = s->benchmark;
	a.metric = s->metric;
	a.suite = s->suite;
	a.device_class = (char *)c->klass;
	a.commit_lo = c->commits[lo];
	a.commit_hi = c->commits[k];
	a.direction = (char *)(worse ? "regressed" : "improved");
	a.size = isfinite(ch->size) ? ch->size : 0;
	a.score = isfinite(ch->score) ? ch->score : 0;
	a.group_id = group_of(a.commit_hi);
	a.detail = text;
	ignored = covers_ignored(c, s, lo, k);
	if (c->o->store_alerts && !ignored) {
		rc = store_step(&fresh, &narrowed, &id, c, s, &a, lo, k, err);
	} else if (!ignored) {
		/* --dry-run: whether it would be stored as a new alert */
		const struct bf_store_alert *known =
		        known_step(c, s, a.direction, lo, k);

		fresh = !known;
		id = known ? known->id : 0;
	}
	j = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:f, s:b, "
	              "s:I, s:o}",
	              "suite", s->suite, "benchmark", s->benchmark, "metric",
	              s->metric, "unit", s->unit, "commit_lo", a.commit_lo,
	              "commit_hi", a.commit_hi, "direction", a.direction,
	              "size", bf_json_real_or_null(ch->size), "score", a.score,
	              "new", fresh, "group", (json_int_t)a.group_id, "detail",
	              detail);
	if (id)
		json_object_set_new(j, "id", json_integer(id));
	if (narrowed)
		json_object_set_new(j, "narrowed", json_true());
	if (ignored)
		json_object_set_new(j, "ignored", json_true());
	if (k != ch->index)
		json_object_set_new(j, "placed_from",
		                    json_string(c->commits[ch->index]));
	json_array_append_new(c->alerts, j);
	free(text);
	return rc;
}

/*
 * The repeats of the commits whose point is kept (not NaN: an ignored
 * alert's commit, a suite-wide spike), for bf_detect_series_reps: *rv
 * and the returned offsets (free both).
 */
static size_t *kept_repeats(double **rv, const struct bf_hist_series *s,
                            size_t n)
{
	size_t *off = bf_xcalloc(n + 1, sizeof(*off)), k = 0;

	*rv = bf_xcalloc(s->roff[n] + 1, sizeof(**rv));
	for (size_t i = 0; i < n; i++) {
		off[i] = k;
		for (size_t j = s->roff[i];
		     !isnan(s->v[i]) && j < s->roff[i + 1]; j++)
			(*rv)[k++] = s->rv[j];
	}
	off[n] = k;
	return off;
}

/* The series' line of the result: its name, then bf_detect_series_info. */
static void add_series_info(struct ctx *c, const struct bf_hist_series *s,
                            const struct bf_detect_params *p, json_t *info,
                            size_t nsteps)
{
	json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:I}", "suite",
	                      s->suite, "benchmark", s->benchmark, "metric",
	                      s->metric, "unit", s->unit, "better",
	                      higher_is_better(c->cfg, s) ? "higher" : "lower",
	                      "detector", bf_detector_name(p->detector),
	                      "steps", (json_int_t)nsteps);

	json_object_update(j, info);
	json_decref(info);
	json_array_append_new(c->series_json, j);
}

/*
 * Each change the detector found, placed against the builds
 * (bf_detect_place_step): a code step is an alert (once, where two
 * changes land on one build change), a shift between identical builds
 * an environment event.
 */
static int place_changes(struct ctx *c, const struct bf_hist_series *s,
                         const struct bf_detect_params *p,
                         const struct bf_change *ch, size_t nch,
                         struct bf_err *err)
{
	/* the (lo, k) of each placement so far: a step is reported once */
	size_t *seen = bf_xcalloc(3 * nch + 1, 2 * sizeof(*seen)), ns = 0;
	int rc = 0;

	for (size_t i = 0; !rc && i < nch; i++) {
		long lo = neighbour(s->v, c->ncommits, ch[i].index, -1);
		struct bf_step_placed pl[3];
		size_t npl;

		if (lo < 0)
			continue; /* a step needs a point before it */
		npl = bf_detect_place_step(pl, &c->h, s->v, (size_t)lo,
		                           ch[i].index);
		for (size_t j = 0; !rc && j < npl; j++) {
			struct bf_change moved = ch[i];
			bool dup = false;

			for (size_t x = 0; x < ns; x++)
				dup |= seen[2 * x] == pl[j].lo &&
				       seen[2 * x + 1] == pl[j].k;
			if (dup)
				continue;
			seen[2 * ns] = pl[j].lo;
			seen[2 * ns + 1] = pl[j].k;
			ns++;
			/* levels the placement measured replace the fit's */
			if (!isnan(pl[j].before) && !isnan(pl[j].after)) {
				moved.before = pl[j].before;
				moved.after = pl[j].after;
				moved.size =
				        pl[j].before != 0
				                ? pl[j].after / pl[j].before - 1
				                : NAN;
				moved.direction =
				        pl[j].after > pl[j].before ? 1 : -1;
			}
			if (pl[j].kind == BF_STEP_ENV) {
				report_env_shift(c, s, &moved, pl[j].lo,
				                 pl[j].k);
				continue;
			}
			/*
			 * The commits after lo of lo's build, not measured
			 * (copies, or of a build measured elsewhere), are
			 * not the step's: its range starts at the last one
			 */
			while (pl[j].lo + 1 < pl[j].k &&
			       bf_history_same_build(&c->h, pl[j].lo,
			                             pl[j].lo + 1))
				pl[j].lo++;
			rc = report_change(c, s, p, &moved, (long)pl[j].lo,
			                   pl[j].k, err);
		}
	}
	free(seen);
	return rc;
}

static int scan(struct ctx *c, struct bf_err *err)
{
	double **vs = bf_xcalloc(c->h.n + 1, sizeof(*vs));
	bool *copy = bf_xcalloc(c->ncommits + 1, sizeof(*copy));
	int rc = 0;

	/*
	 * A commit recorded as the same build as a measured one repeats
	 * that measurement: it is left out of the fits, which would
	 * otherwise take one measurement for many (and their noise
	 * between commits for none). Its build still places the steps.
	 */
	bf_history_copies(copy, &c->h);
	for (size_t i = 0; i < c->h.n; i++) {
		for (size_t k = 0; k < c->ncommits; k++)
			if (copy[k])
				c->h.series[i].v[k] = NAN;
		drop_ignored(c, &c->h.series[i]);
		vs[i] = c->h.series[i].v;
	}
	free(copy);
	bf_detect_suite_spikes(c->suppressed, vs, c->h.n, c->ncommits,
	                       c->o->spike_share);
	free(vs);
	for (size_t k = 0; k < c->ncommits; k++) {
		if (!c->suppressed[k])
			continue;
		json_array_append_new(
		        c->suppressed_json,
		        json_pack("{s:s, s:s}", "commit", c->commits[k],
		                  "reason",
		                  "suite-wide spike: most benchmarks moved "
		                  "together for this build and came back"));
		for (size_t i = 0; i < c->h.n; i++)
			c->h.series[i].v[k] = NAN;
	}
	for (size_t i = 0; !rc && i < c->h.n; i++) {
		const struct bf_hist_series *s = &c->h.series[i];
		struct bf_change *ch = NULL;
		size_t nch = 0;

		struct bf_detect_params sp;
		json_t *info = NULL;
		double *rv;
		size_t *roff = kept_repeats(&rv, s, c->ncommits);

		rc = bf_detect_params_for_series(
		        &sp, c->cfg, s->suite, s->metric, c->o->algorithm, err);
		if (!rc)
			rc = bf_detect_series_reps(&ch, &nch, &sp, rv, roff,
			                           c->ncommits, err);
		if (!rc)
			rc = bf_detect_series_info_reps(
			        &info, &sp, s->v, rv, roff,
			        (const char(*)[41])c->commits, c->ncommits, ch,
			        nch, err);
		free(rv);
		free(roff);
		if (rc)
			bf_err_prefix(err, "%s %s", s->benchmark, s->metric);
		rc = rc ? rc : place_changes(c, s, &sp, ch, nch, err);
		if (!rc)
			add_series_info(c, s, &sp, info, nch);
		else
			json_decref(info);
		free(ch);
	}
	return rc;
}

/* The history's tip: project.target_branch, else HEAD. */
static const char *tip_of(const struct bf_cfg *cfg)
{
	return cfg->project.target_branch ? cfg->project.target_branch : "HEAD";
}

static int load(struct ctx *c, struct bf_err *err)
{
	struct bf_gitrepo *repo = NULL;
	char **ids = NULL;
	int rc = bf_history_commits(&c->commits, &c->ncommits, &repo, c->cfg,
	                            NULL, err);

	if (!rc) {
		ids = bf_xcalloc(c->ncommits + 1, sizeof(*ids));
		for (size_t i = 0; i < c->ncommits; i++)
			ids[i] = c->commits[i];
		rc = bf_history_load(&c->h, c->store, c->klass, ids,
		                     c->ncommits, err);
	}
	if (!rc)
		c->excluded = bf_history_drop_excluded(&c->h, c->cfg);
	for (size_t k = 0; !rc && k < c->ncommits; k++) {
		bool any = false;

		for (size_t i = 0; !any && i < c->h.n; i++)
			any = !isnan(c->h.series[i].v[k]);
		c->measured += any;
	}
	if (!rc)
		rc = bf_store_alert_list(&c->known, &c->nknown, c->store, NULL,
		                         err);
	free(ids);
	bf_gitrepo_free(repo);
	return rc;
}

int bf_postsubmit_detect(json_t **result_out, const struct bf_cfg *cfg,
                         struct bf_store *store, const struct bf_detect_opts *o,
                         struct bf_err *err)
{
	struct bf_detect_params p;
	time_t now = time(NULL);
	char started[32] = "";
	struct tm tm;
	struct ctx c;
	int rc;

	if (gmtime_r(&now, &tm))
		strftime(started, sizeof(started), "%Y-%m-%dT%H:%M:%SZ", &tm);
	memset(&c, 0, sizeof(c));
	c.cfg = cfg;
	c.store = store;
	c.o = o;
	c.klass = o->device_class ? o->device_class : cfg->devices.pool;
	c.alerts = json_array();
	c.suppressed_json = json_array();
	c.series_json = json_array();
	c.env_shifts = json_array();
	c.evidence = json_object();
	rc = bf_detect_params_from_cfg(&p, cfg, o->algorithm, err);
	if (!rc)
		rc = load(&c, err);
	if (!rc) {
		c.suppressed = bf_xcalloc(c.ncommits + 1, sizeof(bool));
		rc = scan(&c, err);
	}
	if (!rc)
		*result_out = json_pack(
		        "{s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:o, "
		        "s:o, s:o, s:o}",
		        "benchfarm", BF_VERSION, "kind", "detect", "started",
		        started, "detector", bf_detector_name(p.detector),
		        "device_class", c.klass, "branch", tip_of(cfg),
		        "commits", (json_int_t)c.ncommits, "measured",
		        (json_int_t)c.measured, "series", (json_int_t)c.h.n,
		        "excluded_series", (json_int_t)c.excluded, "alerts",
		        json_incref(c.alerts), "suppressed",
		        json_incref(c.suppressed_json), "environment_shifts",
		        json_incref(c.env_shifts), "series_info",
		        json_incref(c.series_json));
	json_decref(c.series_json);
	json_decref(c.env_shifts);
	json_decref(c.evidence);
	json_decref(c.alerts);
	json_decref(c.suppressed_json);
	free(c.suppressed);
	free(c.commits);
	bf_history_release(&c.h);
	bf_store_alerts_free(c.known, c.nknown);
	return rc;
}
