/*
 * Copying one store into another (benchfarm store copy): devices, runs
 * with their samples and checks, the checks of no run, and alerts, all
 * through sql.h, so that either side may be SQLite or PostgreSQL. The
 * SQL is the dialect both accept. Leases are live state and are not
 * copied: a copied device is idle.
 *
 * Every row is matched in the destination by its natural key and
 * skipped when present, so a second copy adds nothing:
 *
 *   device   its name
 *   run      kind, started_at, device, base and patch commit, config
 *            digest and seed; the k-th of several source runs with one
 *            key matches the k-th destination run with it (by id)
 *   sample   with its run: a run that is copied brings its samples and
 *   check    checks; a run that is present already has them
 *   check    of no run: device, check, status and time
 *   alert    the alerts' unique key (suite, benchmark, metric, device
 *            class, commit range)
 *
 * The source is only read, in one read transaction, so that a lab
 * that goes on writing while it is copied is copied as it was at one
 * moment: its counts add up and no row of it is missing its run. On
 * SQLite a deferred BEGIN (the first read takes the snapshot, which WAL
 * mode keeps while others write); on PostgreSQL BEGIN ISOLATION LEVEL
 * REPEATABLE READ READ ONLY. The destination's writes are one write
 * transaction, counted before it commits: all or nothing.
 */
#include "store/sql.h"
#include "store/store.h"

#include <stdio.h>
#include <string.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"

/*
 * A store as this file's messages name it: the one place that says
 * how, so that it follows the store's own rule for showing a location.
 */
static const char *shown(const struct bf_store *s)
{
	return bf_store_shown(s);
}

/* The tables in the order they are copied and reported. */
enum { T_DEVICES, T_RUNS, T_SAMPLES, T_CHECKS, T_ALERTS };

static const char *const table_names[BF_STORE_COPY_TABLES] = {
	"devices", "runs", "samples", "checks", "alerts"
};

/* Fixed texts: a table name is never spliced into SQL. */
static const char *const count_sql[BF_STORE_COPY_TABLES] = {
	"SELECT count(*) FROM devices", "SELECT count(*) FROM runs",
	"SELECT count(*) FROM samples", "SELECT count(*) FROM checks",
	"SELECT count(*) FROM alerts"
};

struct sample_batch;

struct copy {
	struct bf_store *src, *dst;
	struct bf_store_copy_result *res;
	bf_store_copy_progress_fn *progress;
	void *payload;
	struct bf_err *err;
	int64_t run_src, run_dst; /* the run whose samples/checks move */
	struct sample_batch *batch; /* samples not stored yet */
	/* every run's source id and destination id, source ids rising */
	struct run_map {
		int64_t src, dst;
	} * map;
	size_t nmap;
};

static void map_add(struct copy *c, int64_t src, int64_t dst)
{
	c->map = bf_xrealloc(c->map, (c->nmap + 1) * sizeof(*c->map));
	c->map[c->nmap++] = (struct run_map){ src, dst };
}

/* The destination id of source run src, 0 when it was not copied. */
static int64_t map_get(const struct copy *c, int64_t src)
{
	size_t lo = 0, hi = c->nmap;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->map[mid].src == src)
			return c->map[mid].dst;
		if (c->map[mid].src < src)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/*
 * A row's columns as values to bind: types[i] is 'T' (text), 'I'
 * (integer) or 'R' (real) for column first + i; NULL stays NULL. A
 * value the source holds as another type (SQLite keeps any value in any
 * column: the text 'abc' as a sample's value, a name with a NUL in it,
 * a blob as a name) is refused naming the table, the row's id and the
 * column: binding it would copy 0, a name cut at the NUL or an empty
 * one. BF_EINVAL then, and the whole copy is undone.
 */
static int row_vals(struct bf_sql_val *vals, struct copy *c,
                    const struct bf_sql_row *row, int first, const char *types,
                    const char *table, int64_t id)
{
	struct bf_err why = BF_ERR_INIT;

	for (size_t i = 0; types[i]; i++) {
		int col = first + (int)i;
		enum bf_sql_type t = types[i] == 'I'   ? BF_SQL_INT
		                     : types[i] == 'R' ? BF_SQL_REAL
		                                       : BF_SQL_TEXT;

		if (bf_sql_get(&vals[i], row, col, t, &why))
			return bf_err_set(
			        c->err, BF_EINVAL,
			        "cannot copy '%s': %s row %lld, column "
			        "%s: %s; nothing was copied",
			        shown(c->src), table, (long long)id,
			        bf_sql_col_name(row, col), why.msg);
	}
	return 0;
}

static int get_i64(const struct bf_sql_row *row, void *payload)
{
	*(int64_t *)payload = bf_sql_int(row, 0);
	return 0;
}

static int count_rows(int64_t *out, struct bf_store *s, int table,
                      struct bf_err *err)
{
	*out = 0;
	return bf_sql_exec(s, count_sql[table], NULL, 0, get_i64, out, NULL,
	                   err, "cannot count the %s of '%s'",
	                   table_names[table], shown(s));
}

/* One more row of table handled: its count, and the caller's progress. */
static void step(struct copy *c, int table, bool copied)
{
	struct bf_store_copy_table *t = &c->res->t[table];

	if (copied)
		t->copied++;
	else
		t->present++;
	if (c->progress)
		c->progress(t->name, t->copied + t->present, t->source,
		            c->payload);
}

/* Devices: by name, idle (no lease comes with them). */
static int copy_device(const struct bf_sql_row *row, void *payload)
{
	struct copy *c = payload;
	struct bf_sql_val v[16];
	int64_t changes = 0;
	int rc = row_vals(v, c, row, 0, "TTTITTTTTTTTIITT", "devices",
	                  bf_sql_int(row, 16));

	if (!rc)
		rc = bf_sql_exec(
		        c->dst,
		        "INSERT INTO devices (name, type, host, port, \"user\","
		        " key_path, labels, agent_path, adb_serial, host_key_fp,"
		        " health, health_reason, last_check_at, created_at, workdir,"
		        " machine, state) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9,"
		        " ?10, ?11, ?12, ?13, ?14, ?15, ?16, 'idle')"
		        " ON CONFLICT (name) DO NOTHING",
		        v, 16, NULL, NULL, &changes, c->err,
		        "cannot copy device '%s' into '%s'", v[0].text,
		        shown(c->dst));
	if (!rc)
		step(c, T_DEVICES, changes > 0);
	return rc;
}

/*
 * Samples go in batches of SAMPLE_BATCH rows per INSERT: one statement
 * per sample costs a round trip each on a server. A batch binds 55
 * values: PostgreSQL's side of sql.h binds at most 64 per statement.
 * The batch's text is
 * built once and lives as long as the process (a store keeps the text
 * of the statements it prepared); a last, smaller batch goes row by
 * row.
 */
#define SAMPLE_COLS  11
#define SAMPLE_TEXTS 7 /* its text columns, copied while batched */
#define SAMPLE_BATCH 5

#define SAMPLE_INSERT                                                 \
	"INSERT INTO samples (run_id, benchmark, metric, unit, side," \
	" commit_id, device, repeat_idx, iter_idx, value, suite) VALUES "

struct sample_batch {
	struct bf_sql_val v[SAMPLE_BATCH * SAMPLE_COLS];
	char *owned[SAMPLE_BATCH * SAMPLE_TEXTS];
	size_t rows, nowned;
};

/* "(?1, ..., ?11), (?12, ...)" for rows rows. */
static const char *sample_sql(void)
{
	static char sql[sizeof(SAMPLE_INSERT) + SAMPLE_BATCH * SAMPLE_COLS * 8];
	size_t o = strlen(SAMPLE_INSERT), row, col;

	if (sql[0])
		return sql;
	memcpy(sql, SAMPLE_INSERT, o);
	for (row = 0; row < SAMPLE_BATCH; row++)
		for (col = 0; col < SAMPLE_COLS; col++)
			o += (size_t)snprintf(
			        sql + o, sizeof(sql) - o, "%s?%zu%s",
			        col   ? " "
			        : row ? ", ("
			              : "(",
			        row * SAMPLE_COLS + col + 1,
			        col + 1 < SAMPLE_COLS ? "," : ")");
	return sql;
}

static void batch_release(struct sample_batch *b)
{
	for (size_t i = 0; i < b->nowned; i++)
		free(b->owned[i]);
	b->rows = b->nowned = 0;
}

/* Store the batched samples: in one statement when the batch is full. */
static int batch_flush(struct copy *c, struct sample_batch *b)
{
	size_t i;
	int rc = 0;

	if (b->rows == SAMPLE_BATCH)
		rc = bf_sql_exec(
		        c->dst, sample_sql(), b->v, SAMPLE_BATCH * SAMPLE_COLS,
		        NULL, NULL, NULL, c->err,
		        "cannot copy the samples of run %lld into '%s'",
		        (long long)c->run_src, shown(c->dst));
	for (i = 0; !rc && b->rows < SAMPLE_BATCH && i < b->rows; i++)
		rc = bf_sql_exec(
		        c->dst,
		        SAMPLE_INSERT "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8,"
		                      " ?9, ?10, ?11)",
		        b->v + i * SAMPLE_COLS, SAMPLE_COLS, NULL, NULL, NULL,
		        c->err, "cannot copy a sample of run %lld into '%s'",
		        (long long)c->run_src, shown(c->dst));
	for (i = 0; !rc && i < b->rows; i++)
		step(c, T_SAMPLES, true);
	batch_release(b);
	return rc;
}

static int copy_sample(const struct bf_sql_row *row, void *payload)
{
	struct copy *c = payload;
	struct sample_batch *b = c->batch;
	struct bf_sql_val *v = b->v + b->rows * SAMPLE_COLS;
	int rc = row_vals(v + 1, c, row, 0, "TTTTTTIIRT", "samples",
	                  bf_sql_int(row, 10));

	if (rc)
		return rc;
	v[0] = BF_SQL_V_INT(c->run_dst);
	/* the row's text is the source's until the callback returns */
	for (size_t i = 1; i < SAMPLE_COLS; i++)
		if (v[i].type == BF_SQL_TEXT)
			v[i].text = b->owned[b->nowned++] =
			        bf_xstrdup(v[i].text);
	if (++b->rows < SAMPLE_BATCH)
		return 0;
	return batch_flush(c, b);
}

/* A check of run c->run_dst (0: of no run) into the destination. */
static int insert_check(struct copy *c, const struct bf_sql_row *row)
{
	struct bf_sql_val v[8];
	int rc = row_vals(v + 1, c, row, 0, "TTTRRTI", "checks",
	                  bf_sql_int(row, 7));

	if (rc)
		return rc;
	v[0] = c->run_dst ? BF_SQL_V_INT(c->run_dst) : BF_SQL_V_NULL;
	return bf_sql_exec(c->dst,
	                   "INSERT INTO checks (run_id, device, check_id,"
	                   " status, value, threshold, message, at) VALUES"
	                   " (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
	                   v, 8, NULL, NULL, NULL, c->err,
	                   "cannot copy check '%s' of device '%s' into '%s'",
	                   v[2].text, v[1].text, shown(c->dst));
}

static int copy_run_check(const struct bf_sql_row *row, void *payload)
{
	struct copy *c = payload;
	int rc = insert_check(c, row);

	if (!rc)
		step(c, T_CHECKS, true);
	return rc;
}

#define CHECK_COLUMNS \
	"SELECT device, check_id, status, value, threshold, message, at, id"

/*
 * The samples and checks of source run c->run_src: copied into the new
 * run c->run_dst, or, when the run was present (copy false), counted as
 * present by what the destination's run holds, so that a run present
 * with fewer samples than the source's shows in the counts.
 */
static int run_children(struct copy *c, bool copy)
{
	struct bf_sql_val id = BF_SQL_V_INT(c->run_src);
	struct bf_sql_val did = BF_SQL_V_INT(c->run_dst);
	int64_t n = 0;
	int rc;

	if (copy) {
		rc = bf_sql_exec(c->src,
		                 "SELECT benchmark, metric, unit, side,"
		                 " commit_id, device, repeat_idx, iter_idx,"
		                 " value, suite, id FROM samples"
		                 " WHERE run_id = ?1"
		                 " ORDER BY id",
		                 &id, 1, copy_sample, c, NULL, c->err,
		                 "cannot read the samples of run %lld of '%s'",
		                 (long long)c->run_src, shown(c->src));
		rc = rc ? (batch_release(c->batch), rc)
		        : batch_flush(c, c->batch);
		if (!rc)
			rc = bf_sql_exec(
			        c->src,
			        CHECK_COLUMNS " FROM checks WHERE run_id = ?1"
			                      " ORDER BY id",
			        &id, 1, copy_run_check, c, NULL, c->err,
			        "cannot read the checks of run %lld of '%s'",
			        (long long)c->run_src, shown(c->src));
		return rc;
	}
	rc = bf_sql_exec(c->dst,
	                 "SELECT count(*) FROM samples WHERE run_id = ?1", &did,
	                 1, get_i64, &n, NULL, c->err,
	                 "cannot count the samples of run %lld of '%s'",
	                 (long long)c->run_dst, shown(c->dst));
	c->res->t[T_SAMPLES].present += n;
	if (!rc)
		rc = bf_sql_exec(
		        c->dst, "SELECT count(*) FROM checks WHERE run_id = ?1",
		        &did, 1, get_i64, &n, NULL, c->err,
		        "cannot count the checks of run %lld of '%s'",
		        (long long)c->run_dst, shown(c->dst));
	if (!rc)
		c->res->t[T_CHECKS].present += n;
	return rc;
}

/* A run's natural key, ?1..?7, NULLs equal to NULLs. */
#define RUN_KEY                                                             \
	" kind = ?1 AND started_at = ?2 AND device IS NOT DISTINCT FROM ?3" \
	" AND base_commit IS NOT DISTINCT FROM ?4"                          \
	" AND patch_commit IS NOT DISTINCT FROM ?5"                         \
	" AND config_digest IS NOT DISTINCT FROM ?6 AND seed = ?7"

/*
 * Columns 0..6: the key; 7..9: status, finished_at, info; 10: the
 * source's id; 11..13: build_id, base_build_id, measured_by (a source
 * id, an earlier run's: the map gives its destination id).
 */
static int copy_run(const struct bf_sql_row *row, void *payload)
{
	struct copy *c = payload;
	struct bf_sql_val v[13];
	int64_t rank = 0;
	int rc;

	c->run_src = bf_sql_int(row, 10);
	c->run_dst = 0;
	if ((rc = row_vals(v, c, row, 0, "TITTTTITIT", "runs", c->run_src)) ||
	    (rc = row_vals(v + 10, c, row, 11, "TTI", "runs", c->run_src)))
		return rc;
	v[7] = BF_SQL_V_INT(c->run_src);
	/* which of the source's runs with this key it is, from 0 */
	rc = bf_sql_exec(
	        c->src,
	        "SELECT count(*) FROM runs WHERE" RUN_KEY " AND id < ?8", v, 8,
	        get_i64, &rank, NULL, c->err, "cannot read run %lld of '%s'",
	        (long long)c->run_src, shown(c->src));
	v[7] = BF_SQL_V_INT(rank);
	if (!rc)
		rc = bf_sql_exec(c->dst,
		                 "SELECT id FROM runs WHERE" RUN_KEY
		                 " ORDER BY id LIMIT 1 OFFSET ?8",
		                 v, 8, get_i64, &c->run_dst, NULL, c->err,
		                 "cannot look for run %lld in '%s'",
		                 (long long)c->run_src, shown(c->dst));
	if (rc || c->run_dst) {
		if (!rc) {
			map_add(c, c->run_src, c->run_dst);
			step(c, T_RUNS, false);
		}
		return rc ? rc : run_children(c, false);
	}
	row_vals(v, c, row, 0, "TITTTTITIT", "runs", c->run_src);
	row_vals(v + 10, c, row, 11, "TTI", "runs", c->run_src);
	if (v[12].type == BF_SQL_INT)
		v[12] = BF_SQL_V_INT(map_get(c, v[12].i));
	if (v[12].type == BF_SQL_INT && !v[12].i)
		v[12] = BF_SQL_V_NULL; /* its measured run was not copied */
	rc = bf_sql_exec(c->dst,
	                 "INSERT INTO runs (kind, started_at, device,"
	                 " base_commit, patch_commit, config_digest, seed,"
	                 " status, finished_at, info, build_id,"
	                 " base_build_id, measured_by) VALUES (?1, ?2, ?3,"
	                 " ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)"
	                 " RETURNING id",
	                 v, 13, get_i64, &c->run_dst, NULL, c->err,
	                 "cannot copy run %lld into '%s'",
	                 (long long)c->run_src, shown(c->dst));
	if (!rc && !c->run_dst)
		rc = bf_err_set(
		        c->err, BF_ERROR,
		        "cannot copy run %lld into '%s': no id came back",
		        (long long)c->run_src, shown(c->dst));
	if (!rc) {
		map_add(c, c->run_src, c->run_dst);
		step(c, T_RUNS, true);
	}
	return rc ? rc : run_children(c, true);
}

/* A check of no run: present when one with the same facts is. */
static int copy_lone_check(const struct bf_sql_row *row, void *payload)
{
	struct copy *c = payload;
	struct bf_sql_val v[7];
	int64_t found = 0;
	int rc =
	        row_vals(v, c, row, 0, "TTTRRTI", "checks", bf_sql_int(row, 7));

	if (rc)
		return rc;
	v[3] = v[6];
	rc = bf_sql_exec(c->dst,
	                 "SELECT count(*) FROM checks WHERE run_id IS NULL"
	                 " AND device = ?1 AND check_id = ?2 AND status = ?3"
	                 " AND at = ?4",
	                 v, 4, get_i64, &found, NULL, c->err,
	                 "cannot look for check '%s' of device '%s' in '%s'",
	                 v[1].text, v[0].text, shown(c->dst));
	c->run_dst = 0;
	if (!rc && !found)
		rc = insert_check(c, row);
	if (!rc)
		step(c, T_CHECKS, !found);
	return rc;
}

static int copy_alert(const struct bf_sql_row *row, void *payload)
{
	struct copy *c = payload;
	struct bf_sql_val v[14];
	int64_t changes = 0;
	int rc = row_vals(v, c, row, 0, "TTTTTTRRTIITTT", "alerts",
	                  bf_sql_int(row, 14));

	if (!rc)
		rc = bf_sql_exec(
		        c->dst,
		        "INSERT INTO alerts (benchmark, metric, device_class,"
		        " commit_lo, commit_hi, direction, size, score, status,"
		        " created_at, group_id, suite, detail, culprit) VALUES (?1,"
		        " ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)"
		        " ON CONFLICT DO NOTHING",
		        v, 14, NULL, NULL, &changes, c->err,
		        "cannot copy the alert on %s %s into '%s'", v[0].text,
		        v[1].text, shown(c->dst));
	if (!rc)
		step(c, T_ALERTS, changes > 0);
	return rc;
}

static int copy_all(struct copy *c)
{
	int rc;

	rc = bf_sql_exec(c->src,
	                 "SELECT name, type, host, port, \"user\", key_path,"
	                 " labels, agent_path, adb_serial, host_key_fp,"
	                 " health, health_reason, last_check_at, created_at,"
	                 " workdir, machine FROM devices ORDER BY id",
	                 NULL, 0, copy_device, c, NULL, c->err,
	                 "cannot read the devices of '%s'", shown(c->src));
	if (!rc)
		rc = bf_sql_exec(c->src,
		                 "SELECT kind, started_at, device, base_commit,"
		                 " patch_commit, config_digest, seed, status,"
		                 " finished_at, info, id, build_id,"
		                 " base_build_id, measured_by FROM runs"
		                 " ORDER BY id",
		                 NULL, 0, copy_run, c, NULL, c->err,
		                 "cannot read the runs of '%s'", shown(c->src));
	if (!rc)
		rc = bf_sql_exec(
		        c->src,
		        CHECK_COLUMNS " FROM checks WHERE run_id IS NULL"
		                      " ORDER BY id",
		        NULL, 0, copy_lone_check, c, NULL, c->err,
		        "cannot read the checks of '%s'", shown(c->src));
	if (!rc)
		rc = bf_sql_exec(
		        c->src,
		        "SELECT benchmark, metric, device_class,"
		        " commit_lo, commit_hi, direction, size, score,"
		        " status, created_at, group_id, suite, detail,"
		        " culprit, id FROM alerts ORDER BY id",
		        NULL, 0, copy_alert, c, NULL, c->err,
		        "cannot read the alerts of '%s'", shown(c->src));
	return rc;
}

bool bf_store_copy_matches(const struct bf_store_copy_table *t)
{
	return t->copied + t->present == t->source &&
	       t->dest_after == t->dest_before + t->copied;
}

/* Start reading src as one snapshot (see the top of the file). */
static int read_begin(struct bf_store *src, struct bf_err *err)
{
	return bf_sql_exec(src,
	                   bf_sql_backend(src) == BF_SQL_PG
	                           ? "BEGIN ISOLATION LEVEL REPEATABLE READ"
	                             " READ ONLY"
	                           : "BEGIN",
	                   NULL, 0, NULL, NULL, NULL, err,
	                   "cannot start reading '%s' as one snapshot",
	                   shown(src));
}

/* End it: it wrote nothing, so there is nothing to undo or to report. */
static void read_end(struct bf_store *src)
{
	struct bf_err ignored = BF_ERR_INIT;

	bf_sql_exec(src, "ROLLBACK", NULL, 0, NULL, NULL, NULL, &ignored,
	            "end reading '%s'", shown(src));
}

int bf_store_copy(struct bf_store_copy_result *out, struct bf_store *dst,
                  struct bf_store *src, bf_store_copy_progress_fn *progress,
                  void *payload, struct bf_err *err)
{
	struct copy c = { src, dst, out,  progress, payload, err,
		          0,   0,   NULL, NULL,     0 };
	int token, i;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < BF_STORE_COPY_TABLES; i++)
		out->t[i].name = table_names[i];
	if ((rc = read_begin(src, err)))
		return rc;
	for (i = 0; !rc && i < BF_STORE_COPY_TABLES; i++)
		rc = count_rows(&out->t[i].source, src, i, err);
	if (rc || (rc = bf_sql_write_begin(&token, dst, err))) {
		read_end(src);
		return rc;
	}
	c.batch = bf_xcalloc(1, sizeof(*c.batch));
	for (i = 0; !rc && i < BF_STORE_COPY_TABLES; i++)
		rc = count_rows(&out->t[i].dest_before, dst, i, err);
	if (!rc)
		rc = copy_all(&c);
	/* counted inside the transaction: what its commit makes visible */
	for (i = 0; !rc && i < BF_STORE_COPY_TABLES; i++)
		rc = count_rows(&out->t[i].dest_after, dst, i, err);
	free(c.batch);
	free(c.map);
	read_end(src);
	return bf_sql_write_end(dst, token, rc, err);
}
