#define BF_STORE_INTERNAL
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
	sqlite3_stmt *st = NULL;
	int rc =
	        bf_store__prepare(&st, store, -1,
	                          "SELECT count(*) FROM runs WHERE kind = 'run'"
	                          " AND status = 'complete' AND device = ?1"
	                          " AND patch_commit = ?2",
	                          err);

	if (rc)
		return rc;
	bf_store__bind_text(st, 1, device_class);
	bf_store__bind_text(st, 2, commit);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*out = sqlite3_column_int64(st, 0) > 0;
		rc = 0;
	} else {
		rc = bf_store__err(store, rc, err, "cannot read the runs");
	}
	sqlite3_finalize(st);
	return rc;
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

static const char *col(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return t ? (const char *)t : "";
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

int bf_history_load(struct bf_history *h, struct bf_store *store,
                    const char *device_class, char *const *commits,
                    size_t ncommits, struct bf_err *err)
{
	struct commit_pos *sorted = bf_xcalloc(ncommits + 1, sizeof(*sorted));
	struct points *pts = NULL;
	size_t npts = 0;
	struct cursor c = { -1, -1, false, 0, 0, { NULL, 0, 0 } };
	sqlite3_stmt *st = NULL;
	int rc;

	memset(h, 0, sizeof(*h));
	h->ncommits = ncommits;
	for (size_t i = 0; i < ncommits; i++)
		sorted[i] = (struct commit_pos){ commits[i], i };
	qsort(sorted, ncommits, sizeof(*sorted), cmp_commit);
	rc = bf_store__prepare(
	        &st, store, -1,
	        "SELECT r.id, r.patch_commit, coalesce(s.suite, s.benchmark),"
	        " s.benchmark, s.metric, s.unit, s.repeat_idx, s.value"
	        " FROM samples s JOIN runs r ON r.id = s.run_id"
	        " WHERE r.kind = 'run' AND r.status = 'complete'"
	        " AND r.device = ?1 AND s.side = 'commit'"
	        " ORDER BY r.id, 3, s.benchmark, s.metric, s.repeat_idx",
	        err);
	if (rc)
		goto out;
	bf_store__bind_text(st, 1, device_class);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct commit_pos key = { col(st, 1), 0 };
		struct commit_pos *hit = bsearch(&key, sorted, ncommits,
		                                 sizeof(*sorted), cmp_commit);
		int64_t run = sqlite3_column_int64(st, 0);
		int64_t rep = sqlite3_column_int64(st, 6);
		struct bf_hist_series *s;
		size_t si;

		if (!hit)
			continue; /* not on this line of history */
		s = find_series(h, col(st, 2), col(st, 3), col(st, 4));
		if (!s) {
			h->series = bf_xrealloc(
			        h->series, (h->n + 1) * sizeof(*h->series));
			pts = bf_xrealloc(pts, (h->n + 1) * sizeof(*pts));
			s = &h->series[h->n];
			s->suite = bf_xstrdup(col(st, 2));
			s->benchmark = bf_xstrdup(col(st, 3));
			s->metric = bf_xstrdup(col(st, 4));
			s->unit = bf_xstrdup(col(st, 5));
			s->v = bf_xcalloc(ncommits + 1, sizeof(*s->v));
			s->lo = bf_xcalloc(ncommits + 1, sizeof(*s->lo));
			s->hi = bf_xcalloc(ncommits + 1, sizeof(*s->hi));
			s->npoints = 0;
			pts[h->n].per_commit =
			        bf_xcalloc(ncommits + 1, sizeof(struct acc));
			npts = ++h->n;
		}
		si = (size_t)(s - h->series);
		if (!c.active || c.si != si || c.run != run ||
		    c.repeat != rep) {
			flush(&c, pts);
			c.active = true;
			c.si = si;
			c.ci = hit->idx;
			c.run = run;
			c.repeat = rep;
		}
		acc_add(&c.group, sqlite3_column_double(st, 7));
	}
	flush(&c, pts);
	if (rc != SQLITE_DONE) {
		rc = bf_store__err(store, rc, err, "cannot read the history");
		goto out;
	}
	rc = 0;
	for (size_t i = 0; i < h->n; i++) {
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
	for (size_t i = 0; i < npts; i++) {
		for (size_t k = 0; k < ncommits; k++)
			free(pts[i].per_commit[k].it);
		free(pts[i].per_commit);
	}
	free(pts);
	free(c.group.it);
	sqlite3_finalize(st);
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
