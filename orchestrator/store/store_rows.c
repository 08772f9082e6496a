/*
 * Reading and writing rows through sql.h, for the subject files (see
 * store_int.h for the store's files): one row, a list of rows, a write
 * that must change a row. The same on every backend.
 */
#include "store/store_int.h"

#include <stdarg.h>
#include <stdio.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"

/* A row reader and its record, for get_first. */
struct first {
	bf_store__get_fn *read;
	void *out;
};

/* Read the first row into the record and stop the query (1: found). */
static int get_first(const struct bf_sql_row *row, void *payload)
{
	struct first *f = payload;

	f->read(f->out, row);
	return 1;
}

int bf_store__get(struct bf_store *store, const char *sql,
                  const struct bf_sql_val *vals, size_t n,
                  bf_store__get_fn *read, void *out, struct bf_err *err,
                  const char *fmt, ...)
{
	struct first f = { read, out };
	char what[BF_ERR_SIZE];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	rc = bf_sql_exec(store, sql, vals, n, get_first, &f, NULL, err,
	                 "cannot read %s", what);
	if (rc == 1)
		return 0;
	if (rc == 0)
		return bf_err_set(err, BF_ENOTFOUND, "no %s", what);
	return rc;
}

/* The records read so far by get_all. */
struct all {
	char *recs;
	size_t n, alloc, size;
	bf_store__get_fn *read;
};

static int get_all(const struct bf_sql_row *row, void *payload)
{
	struct all *a = payload;

	if (a->n == a->alloc) {
		a->alloc = a->alloc ? 2 * a->alloc : 8;
		a->recs = bf_xreallocarray(a->recs, a->alloc, a->size);
	}
	a->read(a->recs + a->n++ * a->size, row);
	return 0;
}

int bf_store__get_all(void **out, size_t *n_out, struct bf_store *store,
                      const char *sql, const struct bf_sql_val *vals, size_t n,
                      size_t size, bf_store__get_fn *read,
                      bf_store__free_fn *release, const char *what,
                      struct bf_err *err)
{
	struct all a = { .size = size, .read = read };
	int rc;

	rc = bf_sql_exec(store, sql, vals, n, get_all, &a, NULL, err,
	                 "cannot list %s", what);
	if (rc) {
		for (size_t i = 0; i < a.n; i++)
			release(a.recs + i * size);
		free(a.recs);
		return rc;
	}
	*out = a.recs;
	*n_out = a.n;
	return 0;
}

int bf_store__change(struct bf_store *store, const char *sql,
                     const struct bf_sql_val *vals, size_t n, bool must_change,
                     struct bf_err *err, const char *fmt, ...)
{
	char what[BF_ERR_SIZE];
	int64_t changes = 0;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	rc = bf_sql_exec(store, sql, vals, n, NULL, NULL, &changes, err,
	                 "cannot update %s", what);
	if (!rc && must_change && changes == 0)
		rc = bf_err_set(err, BF_ENOTFOUND, "no %s", what);
	return rc;
}

int bf_store__change_row(struct bf_store *store, const char *what,
                         const char *sql, int64_t id, const char *text,
                         struct bf_err *err)
{
	const struct bf_sql_val vals[] = { BF_SQL_V_INT(id),
		                           BF_SQL_V_TEXT(text) };

	return bf_store__change(store, sql, vals, BF_ARRAY_SIZE(vals), true,
	                        err, "%s %lld", what, (long long)id);
}

int bf_store__read_int(const struct bf_sql_row *row, void *payload)
{
	*(int64_t *)payload = bf_sql_int(row, 0);
	return 0;
}
