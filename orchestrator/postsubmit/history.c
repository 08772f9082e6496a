#include "postsubmit/history.h"

#include <math.h>
#include <stdlib.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/fs.h"
#include "benchfarm/stats.h"
#include "config/cfg.h"
#include "git/gitrepo.h"
#include "store/store.h"

int bf_history_measured(bool *out, struct bf_store *store,
                        const char *device_class, const char *commit,
                        struct bf_err *err)
{
	return bf_store_run_measured(out, store, device_class, commit, err);
}

struct commit_pos {
	const char *id;
	size_t idx; /* in the caller's order */
};

static int cmp_commit(const void *a, const void *b)
{
	return strcmp(((const struct commit_pos *)a)->id,
	              ((const struct commit_pos *)b)->id);
}

/* One (run, repeat) of one series: its iterations, then its median. */
struct acc {
	double *it;
	size_t n, alloc;
};

static void acc_add(struct acc *a, double v)
{
	if (a->n == a->alloc) {
		a->alloc = a->alloc ? 2 * a->alloc : 8;
		a->it = bf_xrealloc(a->it, a->alloc * sizeof(*a->it));
	}
	a->it[a->n++] = v;
}

/* Per commit of one series, the medians of its (run, repeat)s. */
struct points {
	struct acc *per_commit; /* [ncommits] */
};

static struct bf_hist_series *find_series(struct bf_history *h,
                                          const char *suite, const char *bench,
                                          const char *metric)
{
	for (size_t i = h->n; i-- > 0;) {
		struct bf_hist_series *s = &h->series[i];

		if (!strcmp(s->suite, suite) && !strcmp(s->benchmark, bench) &&
		    !strcmp(s->metric, metric))
			return s;
	}
	return NULL;
}

/*
 * Rows arrive ordered by run, series and repeat: close the current
 * (run, repeat) group into its commit's list when the key changes.
 */
struct cursor {
	int64_t run, repeat;
	bool active;
	size_t si, ci;
	struct acc group;
};

static void flush(struct cursor *c, struct points *pts)
{
	if (c->active && c->group.n)
		acc_add(&pts[c->si].per_commit[c->ci],
		        bf_stats_median(c->group.it, c->group.n));
	c->group.n = 0;
}

/* bf_history_load's state while the store hands it the samples. */
struct load {
	struct bf_history *h;
	const struct commit_pos *sorted; /* the commits, by id */
	struct points *pts; /* [h->n] */
	size_t npts;
	struct cursor c;
};

static int load_sample(const struct bf_store_sample *smp, void *payload)
{
	struct load *l = payload;
	struct bf_history *h = l->h;
	size_t ncommits = h->ncommits;
	struct commit_pos key = { smp->commit_id, 0 };
	const struct commit_pos *hit = bsearch(&key, l->sorted, ncommits,
	                                       sizeof(*l->sorted), cmp_commit);
	struct bf_hist_series *s;
	size_t si;

	if (!hit)
		return 0; /* not on this line of history */
	s = find_series(h, smp->suite, smp->benchmark, smp->metric);
	if (!s) {
		h->series =
		        bf_xrealloc(h->series, (h->n + 1) * sizeof(*h->series));
		l->pts = bf_xrealloc(l->pts, (h->n + 1) * sizeof(*l->pts));
		s = &h->series[h->n];
		s->suite = bf_xstrdup(smp->suite);
		s->benchmark = bf_xstrdup(smp->benchmark);
		s->metric = bf_xstrdup(smp->metric);
		s->unit = bf_xstrdup(smp->unit);
		s->v = bf_xcalloc(ncommits + 1, sizeof(*s->v));
		s->lo = bf_xcalloc(ncommits + 1, sizeof(*s->lo));
		s->hi = bf_xcalloc(ncommits + 1, sizeof(*s->hi));
		s->npoints = 0;
		l->pts[h->n].per_commit =
		        bf_xcalloc(ncommits + 1, sizeof(struct acc));
		l->npts = ++h->n;
	}
	si = (size_t)(s - h->series);
	if (!l->c.active || l->c.si != si || l->c.run != smp->run_id ||
	    l->c.repeat != smp->repeat_idx) {
		flush(&l->c, l->pts);
		l->c.active = true;
		l->c.si = si;
		l->c.ci = hit->idx;
		l->c.run = smp->run_id;
		l->c.repeat = smp->repeat_idx;
	}
	acc_add(&l->c.group, smp->value);
	return 0;
}

/* Each commit's run medians, in a row with their offsets. */
static void keep_repeats(struct bf_hist_series *s, const struct acc *pc,
                         size_t ncommits)
{
	size_t total = 0;

	for (size_t k = 0; k < ncommits; k++)
		total += pc[k].n;
	s->rv = bf_xcalloc(total + 1, sizeof(*s->rv));
	s->roff = bf_xcalloc(ncommits + 1, sizeof(*s->roff));
	total = 0;
	for (size_t k = 0; k < ncommits; k++) {
		s->roff[k] = total;
		for (size_t j = 0; j < pc[k].n; j++)
			s->rv[total++] = pc[k].it[j];
	}
	s->roff[ncommits] = total;
}

bool bf_history_same_build(const struct bf_history *h, size_t i, size_t j)
{
	const char *a, *b;

	if (!h->commit || i >= h->ncommits || j >= h->ncommits)
		return false;
	a = h->commit[i].build_id;
	b = h->commit[j].build_id;
	return a && b && !strcmp(a, b);
}

struct run_idx {
	int64_t run;
	size_t idx;
};

static int cmp_run_idx(const void *a, const void *b)
{
	int64_t x = ((const struct run_idx *)a)->run;
	int64_t y = ((const struct run_idx *)b)->run;

	return (x > y) - (x < y);
}

void bf_history_copies(bool *out, const struct bf_history *h)
{
	struct run_idx *m = bf_xcalloc(h->ncommits + 1, sizeof(*m));
	size_t n = 0;

	for (size_t k = 0; k < h->ncommits; k++) {
		out[k] = false;
		if (h->commit && h->commit[k].run_id &&
		    h->commit[k].measured_by == h->commit[k].run_id)
			m[n++] = (struct run_idx){ h->commit[k].run_id, k };
	}
	qsort(m, n, sizeof(*m), cmp_run_idx);
	for (size_t k = 0; h->commit && k < h->ncommits; k++) {
		struct run_idx key = { h->commit[k].measured_by, 0 };

		out[k] = h->commit[k].run_id &&
		         h->commit[k].measured_by != h->commit[k].run_id &&
		         bsearch(&key, m, n, sizeof(*m), cmp_run_idx);
	}
	free(m);
}

struct builds {
	struct bf_history *h;
	const struct commit_pos *sorted;
	/* every run's id and start, ids rising as the store gives them */
	struct run_at {
		int64_t id, at;
	} * runs;
	size_t nruns;
};

/* When run id started (one of the runs seen so far); 0 when unknown. */
static int64_t started_at(const struct builds *l, int64_t id)
{
	size_t lo = 0, hi = l->nruns;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->runs[mid].id == id)
			return l->runs[mid].at;
		if (l->runs[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* Runs come oldest first: a commit's newest run is the one kept. */
static int load_build(const struct bf_store_build *b, void *payload)
{
	struct builds *l = payload;
	struct commit_pos key = { b->commit, 0 };
	const struct commit_pos *hit = bsearch(&key, l->sorted, l->h->ncommits,
	                                       sizeof(*l->sorted), cmp_commit);
	struct bf_hist_commit *c;

	l->runs = bf_xrealloc(l->runs, (l->nruns + 1) * sizeof(*l->runs));
	l->runs[l->nruns++] = (struct run_at){ b->run_id, b->started_at };
	if (!hit)
		return 0;
	c = &l->h->commit[hit->idx];
	free(c->build_id);
	c->build_id = b->build_id ? bf_xstrdup(b->build_id) : NULL;
	c->run_id = b->run_id;
	c->measured_by = b->measured_by ? b->measured_by : b->run_id;
	c->at = b->measured_by ? started_at(l, b->measured_by) : b->started_at;
	return 0;
}

int bf_history_load(struct bf_history *h, struct bf_store *store,
                    const char *device_class, char *const *commits,
                    size_t ncommits, struct bf_err *err)
{
	struct commit_pos *sorted = bf_xcalloc(ncommits + 1, sizeof(*sorted));
	struct load l = {
		h, sorted, NULL, 0, { -1, -1, false, 0, 0, { NULL, 0, 0 } }
	};
	struct points *pts;
	int rc;

	memset(h, 0, sizeof(*h));
	h->ncommits = ncommits;
	for (size_t i = 0; i < ncommits; i++)
		sorted[i] = (struct commit_pos){ commits[i], i };
	qsort(sorted, ncommits, sizeof(*sorted), cmp_commit);
	h->commit = bf_xcalloc(ncommits + 1, sizeof(*h->commit));
	rc = bf_store_history_foreach(store, device_class, load_sample, &l,
	                              err);
	pts = l.pts;
	flush(&l.c, pts);
	if (!rc) {
		struct builds b = { h, sorted, NULL, 0 };

		rc = bf_store_builds_foreach(store, device_class, load_build,
		                             &b, err);
		free(b.runs);
	}
	if (rc)
		goto out;
	for (size_t i = 0; i < h->n; i++) {
		keep_repeats(&h->series[i], pts[i].per_commit, ncommits);
		for (size_t k = 0; k < ncommits; k++) {
			struct acc *a = &pts[i].per_commit[k];

			h->series[i].v[k] =
			        a->n ? bf_stats_median(a->it, a->n) : NAN;
			h->series[i].lo[k] = h->series[i].hi[k] =
			        a->n ? a->it[0] : NAN;
			for (size_t j = 1; j < a->n; j++) {
				if (a->it[j] < h->series[i].lo[k])
					h->series[i].lo[k] = a->it[j];
				if (a->it[j] > h->series[i].hi[k])
					h->series[i].hi[k] = a->it[j];
			}
			h->series[i].npoints += a->n > 0;
		}
	}
out:
	for (size_t i = 0; i < l.npts; i++) {
		for (size_t k = 0; k < ncommits; k++)
			free(pts[i].per_commit[k].it);
		free(pts[i].per_commit);
	}
	free(pts);
	free(l.c.group.it);
	free(sorted);
	if (rc)
		bf_history_release(h);
	return rc;
}

static void series_release(struct bf_hist_series *s)
{
	free(s->suite);
	free(s->benchmark);
	free(s->metric);
	free(s->unit);
	free(s->v);
	free(s->lo);
	free(s->hi);
	free(s->rv);
	free(s->roff);
}

size_t bf_history_drop_excluded(struct bf_history *h, const struct bf_cfg *cfg)
{
	size_t kept = 0, n = h->n;

	for (size_t i = 0; i < n; i++) {
		struct bf_hist_series *s = &h->series[i];
		bool higher;

		if (bf_cfg_metric_wanted(bf_cfg_find_benchmark(cfg, s->suite),
		                         s->metric, s->unit, &higher))
			h->series[kept++] = *s;
		else
			series_release(s);
	}
	h->n = kept;
	return n - kept;
}

void bf_history_release(struct bf_history *h)
{
	for (size_t i = 0; i < h->n; i++)
		series_release(&h->series[i]);
	free(h->series);
	for (size_t k = 0; h->commit && k < h->ncommits; k++)
		free(h->commit[k].build_id);
	free(h->commit);
	memset(h, 0, sizeof(*h));
}

int bf_history_commits(char (**out)[41], size_t *n, struct bf_gitrepo **repo,
                       const struct bf_cfg *cfg, const char *range,
                       struct bf_err *err)
{
	const char *tip = cfg->project.target_branch
	                          ? cfg->project.target_branch
	                          : "HEAD";
	char *dir = bf_fs_dirname(cfg->path);
	char *path = bf_fs_join(dir, cfg->project.repo);
	int rc = bf_gitrepo_open(repo, path, err);

	if (!rc && range &&
	    (rc = bf_gitrepo_first_parent_range(*repo, range, out, n, err)))
		bf_err_prefix(err, "--range");
	else if (!rc && !range &&
	         (rc = bf_gitrepo_first_parent_history(*repo, tip, out, n,
	                                               err)))
		bf_err_prefix(err,
		              "project.target_branch '%s' in %s (set it to the "
		              "branch whose history is measured)",
		              tip, cfg->path);
	free(dir);
	free(path);
	return rc;
}
