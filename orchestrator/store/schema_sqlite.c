/*
 * The store's SQLite schema: its migrations, the checks that a file is
 * a benchfarm database before anything is written to it, and the
 * counts and integrity checks over its tables (see store_int.h for the
 * store's files).
 */
#include "store/sql_pg.h"
#include "store/sql_sqlite.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "benchfarm/err.h"
#include "benchfarm/fs.h"

/* PRAGMA application_id of a benchfarm database: "bfDB". */
#define STORE_APP_ID 0x62664442

/*
 * Forward migrations: migrations[v] takes schema version v to v + 1. Each
 * runs in its own transaction together with the user_version update.
 * Append only; never edit a step that has shipped.
 */
const char *const bf_store__migrations[] = {
	/* 0 -> 1: the initial schema. */
	"CREATE TABLE meta ("
	" key TEXT PRIMARY KEY,"
	" value TEXT NOT NULL);"
	"INSERT INTO meta (key, value) VALUES ('application', 'benchfarm');"
	"CREATE TABLE devices ("
	" id INTEGER PRIMARY KEY,"
	" name TEXT NOT NULL UNIQUE CHECK (name <> ''),"
	" type TEXT NOT NULL CHECK (type IN ('linux', 'android')),"
	" host TEXT, port INTEGER NOT NULL DEFAULT 0"
	"  CHECK (port BETWEEN 0 AND 65535),"
	" user TEXT, key_path TEXT, labels TEXT NOT NULL DEFAULT '',"
	" agent_path TEXT, adb_serial TEXT, host_key_fp TEXT,"
	" state TEXT NOT NULL DEFAULT 'idle'"
	"  CHECK (state IN ('idle', 'leased', 'running')),"
	" health TEXT NOT NULL DEFAULT 'unknown' CHECK (health IN"
	"  ('unknown', 'good', 'bad', 'maintenance', 'retired')),"
	" health_reason TEXT, last_check_at INTEGER,"
	" created_at INTEGER NOT NULL);"
	"CREATE TABLE leases ("
	" device_id INTEGER PRIMARY KEY"
	"  REFERENCES devices (id) ON DELETE CASCADE,"
	" holder TEXT NOT NULL CHECK (holder <> ''),"
	" acquired_at INTEGER NOT NULL,"
	" expires_at INTEGER NOT NULL);"
	"CREATE TABLE runs ("
	" id INTEGER PRIMARY KEY,"
	" kind TEXT NOT NULL CHECK (kind IN ('compare', 'run', 'bisect')),"
	" status TEXT NOT NULL DEFAULT 'running' CHECK (status IN"
	"  ('running', 'complete', 'failed', 'aborted')),"
	" config_digest TEXT, base_commit TEXT, patch_commit TEXT,"
	" device TEXT, seed INTEGER NOT NULL DEFAULT 0,"
	" started_at INTEGER NOT NULL, finished_at INTEGER, info TEXT);"
	"CREATE INDEX runs_kind ON runs (kind, started_at);"
	"CREATE TABLE samples ("
	" id INTEGER PRIMARY KEY,"
	" run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,"
	" benchmark TEXT NOT NULL, metric TEXT NOT NULL,"
	" unit TEXT NOT NULL DEFAULT '',"
	" side TEXT NOT NULL CHECK (side IN ('base', 'patch', 'commit')),"
	" commit_id TEXT, device TEXT,"
	" repeat_idx INTEGER NOT NULL, iter_idx INTEGER NOT NULL,"
	" value REAL NOT NULL);"
	"CREATE INDEX samples_run ON samples (run_id);"
	"CREATE INDEX samples_series ON samples (benchmark, metric, commit_id);"
	"CREATE TABLE checks ("
	" id INTEGER PRIMARY KEY,"
	" run_id INTEGER REFERENCES runs (id) ON DELETE CASCADE,"
	" device TEXT NOT NULL, check_id TEXT NOT NULL,"
	" status TEXT NOT NULL"
	"  CHECK (status IN ('pass', 'warn', 'fail', 'skip')),"
	" value REAL, threshold REAL, message TEXT, at INTEGER NOT NULL);"
	"CREATE INDEX checks_run ON checks (run_id);"
	"CREATE INDEX checks_device ON checks (device, at);"
	"CREATE TABLE alerts ("
	" id INTEGER PRIMARY KEY,"
	" benchmark TEXT NOT NULL, metric TEXT NOT NULL,"
	" device_class TEXT NOT NULL DEFAULT '',"
	" commit_lo TEXT NOT NULL, commit_hi TEXT NOT NULL,"
	" direction TEXT NOT NULL"
	"  CHECK (direction IN ('regressed', 'improved')),"
	" size REAL NOT NULL, score REAL NOT NULL,"
	" status TEXT NOT NULL DEFAULT 'open'"
	"  CHECK (status IN ('open', 'ack', 'ignored')),"
	" created_at INTEGER NOT NULL, group_id INTEGER,"
	" UNIQUE (benchmark, metric, device_class, commit_lo, commit_hi));"
	"CREATE INDEX alerts_status ON alerts (status, created_at);"
	"PRAGMA application_id = 1650869314;",
	/*
	 * 1 -> 2: where artifacts and builds go on a device (NULL: the
	 * default, ".cache/benchfarm" under the remote home).
	 */
	"ALTER TABLE devices ADD COLUMN workdir TEXT;",
	/*
	 * 2 -> 3: which config benchmark entry produced a sample (one
	 * entry may print many named benchmarks); for postsubmit history
	 * and bisect. Alerts keep it too, with the detector's evidence
	 * (detail, JSON text).
	 */
	"ALTER TABLE samples ADD COLUMN suite TEXT;"
	"ALTER TABLE alerts ADD COLUMN suite TEXT;"
	"ALTER TABLE alerts ADD COLUMN detail TEXT;"
	"CREATE INDEX samples_history ON samples (suite, benchmark, metric);",
	/*
	 * 3 -> 4: no query reads samples by series (history joins runs to
	 * samples by run_id), and keeping that text index up to date was a
	 * quarter of the cost of storing a sample (BENCHMARKS.md).
	 */
	"DROP INDEX IF EXISTS samples_history;",
	/*
	 * 4 -> 5: the commit a bisect named as the cause of an alert's
	 * step (detect --bisect); NULL when not bisected.
	 */
	"ALTER TABLE alerts ADD COLUMN culprit TEXT;",
	/*
	 * 5 -> 6: an alert is one step of one series, and a series is
	 * (suite, benchmark, metric): two config entries printing the same
	 * benchmark name had their alerts refused as duplicates. The key
	 * was a table constraint, so the table is rebuilt without it and
	 * the key becomes an index that includes the suite (NULL as '').
	 */
	"CREATE TABLE alerts_v6 ("
	" id INTEGER PRIMARY KEY,"
	" benchmark TEXT NOT NULL, metric TEXT NOT NULL,"
	" device_class TEXT NOT NULL DEFAULT '',"
	" commit_lo TEXT NOT NULL, commit_hi TEXT NOT NULL,"
	" direction TEXT NOT NULL"
	"  CHECK (direction IN ('regressed', 'improved')),"
	" size REAL NOT NULL, score REAL NOT NULL,"
	" status TEXT NOT NULL DEFAULT 'open'"
	"  CHECK (status IN ('open', 'ack', 'ignored')),"
	" created_at INTEGER NOT NULL, group_id INTEGER,"
	" suite TEXT, detail TEXT, culprit TEXT);"
	"INSERT INTO alerts_v6 (id, benchmark, metric, device_class,"
	" commit_lo, commit_hi, direction, size, score, status, created_at,"
	" group_id, suite, detail, culprit)"
	" SELECT id, benchmark, metric, device_class, commit_lo, commit_hi,"
	" direction, size, score, status, created_at, group_id, suite,"
	" detail, culprit FROM alerts;"
	"DROP TABLE alerts;"
	"ALTER TABLE alerts_v6 RENAME TO alerts;"
	"CREATE INDEX alerts_status ON alerts (status, created_at);"
	"CREATE UNIQUE INDEX alerts_step ON alerts (coalesce(suite, ''),"
	" benchmark, metric, device_class, commit_lo, commit_hi);",
	/*
	 * 6 -> 7: the last index no query reads, for the same reason as
	 * 3 -> 4: samples are read by run (history joins runs to them by
	 * run_id), and this text index cost about a quarter of storing a
	 * sample (BENCHMARKS.md). The store's interface, not its
	 * SQL, is what callers use; a lab that queries the file by series
	 * can create the index it wants.
	 */
	"DROP INDEX IF EXISTS samples_series;",
	/*
	 * 7 -> 8: the host and pid of the process that took a lease, so a
	 * lease whose holder died without releasing it (SIGKILL, a crash)
	 * is taken back at once on that host instead of after its TTL.
	 */
	"ALTER TABLE leases ADD COLUMN host TEXT;"
	"ALTER TABLE leases ADD COLUMN pid INTEGER;",
	/*
	 * 8 -> 9: fencing tokens. Every lease taken increments its
	 * device's lease_gen and keeps the new value as its token, so a
	 * job whose lease expired and went to another job holds a lower
	 * token than the device's and its writes for that device are
	 * refused.
	 */
	"ALTER TABLE devices ADD COLUMN lease_gen INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE leases ADD COLUMN token INTEGER NOT NULL DEFAULT 0;",
	/*
	 * 9 -> 10: the queue of jobs waiting for a busy pool, first come
	 * first served across processes and hosts. A waiter's ticket
	 * grows with each one (the largest live ticket + 1 at least);
	 * pool is the pool's label, or "device:NAME" for one device. A
	 * waiter renews expires_at while it waits; one past it, or whose
	 * process on this host has ended, is skipped and removed.
	 */
	"CREATE TABLE waiters ("
	" ticket INTEGER PRIMARY KEY,"
	" pool TEXT NOT NULL CHECK (pool <> ''),"
	" holder TEXT NOT NULL CHECK (holder <> ''),"
	" host TEXT, pid INTEGER,"
	" since INTEGER NOT NULL,"
	" expires_at INTEGER NOT NULL);"
	"CREATE INDEX waiters_pool ON waiters (pool, ticket);",
	/*
	 * 10 -> 11: liveness that survives a PostgreSQL restart and pid
	 * namespaces. holder_key is the holder's process key (62 random
	 * bits, its liveness lock's key), which pids of other hosts and
	 * containers cannot share; alive_at is when the holder (a lease's,
	 * a waiter's) or the run's job last said it was alive, on the
	 * store's clock. Rows of older builds have neither: their holders
	 * are never judged dead, and their leases lapse at their expiry.
	 */
	"ALTER TABLE leases ADD COLUMN holder_key INTEGER;"
	"ALTER TABLE leases ADD COLUMN alive_at INTEGER;"
	"ALTER TABLE waiters ADD COLUMN holder_key INTEGER;"
	"ALTER TABLE waiters ADD COLUMN alive_at INTEGER;"
	"ALTER TABLE runs ADD COLUMN alive_at INTEGER;",
	/*
	 * 11 -> 12: build identity. build_id is the identity of what the
	 * run's measured side shipped (the patch of a compare, the commit
	 * of a postsubmit run), base_build_id a compare's base's: "bytes:"
	 * or "code:" and a SHA-256 (artifacts.h). measured_by is set on a
	 * postsubmit run that was not measured because a complete run of
	 * the same device class had measured the same build: that run's
	 * samples stand for this one's commit. machine is what a device
	 * said of the machine it runs on (JSON: machine-id, boot id,
	 * hostname, CPU, kernel), to tell two devices that are one.
	 */
	"ALTER TABLE runs ADD COLUMN build_id TEXT;"
	"ALTER TABLE runs ADD COLUMN base_build_id TEXT;"
	"ALTER TABLE runs ADD COLUMN measured_by INTEGER;"
	"ALTER TABLE devices ADD COLUMN machine TEXT;",
};

_Static_assert(BF_ARRAY_SIZE(bf_store__migrations) == BF_STORE_SCHEMA_VERSION,
               "one migration step per schema version");
_Static_assert(STORE_APP_ID == 1650869314, "application id in step 1");

static int not_ours(struct bf_store *s, const char *why, struct bf_err *err)
{
	return bf_err_set(err, BF_ECORRUPT,
	                  "'%s' is not a benchfarm database (%s)", s->path,
	                  why);
}

/*
 * Whether a file can be created beside path (a read-only mount, a
 * directory without write permission).
 */
static bool dir_writable(const char *path)
{
	char *dir = bf_fs_dirname(path);
	bool ok = access(dir, W_OK) == 0;

	free(dir);
	return ok;
}

/*
 * Refuse anything but an empty file or a benchfarm database we can
 * read, using reads only: a refused file is never written to.
 */
static int check_ours(int64_t *version_out, struct bf_store *s,
                      struct bf_err *err)
{
	int64_t ver = 0, nobj = 0, appid = 0, meta = 0;
	int rc;

	rc = bf_store__query_i64(&ver, s->db, "PRAGMA user_version");
	if (rc == SQLITE_OK)
		rc = bf_store__query_i64(&nobj, s->db,
		                         "SELECT count(*) FROM sqlite_master");
	if (rc == SQLITE_OK)
		rc = bf_store__query_i64(&appid, s->db,
		                         "PRAGMA application_id");
	if (rc != SQLITE_OK) {
		if (bf_store__map_rc(rc) == BF_ECORRUPT)
			return not_ours(s, sqlite3_errmsg(s->db), err);
		if (rc == SQLITE_CANTOPEN && !dir_writable(s->path))
			return bf_err_set(
			        err, BF_ESYS,
			        "cannot open '%s': its directory is not writable, "
			        "and SQLite needs to create its -wal and -shm "
			        "files there; make the directory writable, or "
			        "copy the store to one that is and use --db",
			        s->path);
		return bf_store__err(s, rc, err, "cannot read '%s'", s->path);
	}
	if (ver == 0 && nobj == 0)
		goto out;
	if (ver <= 0 || appid != STORE_APP_ID)
		return not_ours(s, "it holds another program's tables", err);
	if (ver > BF_STORE_SCHEMA_VERSION)
		return bf_err_set(
		        err, BF_EVERSION,
		        "'%s' has schema version %lld, newer than this benchfarm (%d); upgrade benchfarm",
		        s->path, (long long)ver, BF_STORE_SCHEMA_VERSION);
	rc = bf_store__query_i64(
	        &meta, s->db,
	        "SELECT count(*) FROM meta WHERE key = 'application'"
	        " AND value = 'benchfarm'");
	if (rc != SQLITE_OK || meta != 1)
		return not_ours(s, "no benchfarm meta table", err);
out:
	*version_out = ver;
	return 0;
}

/*
 * Run the PRAGMA sql and copy the text of its first row into *out (NULL
 * for NULL). Without a row: the store's error "cannot WHAT", WHAT
 * formatted from fmt.
 */
static int pragma_text(char **out, struct bf_store *s, const char *sql,
                       struct bf_err *err, const char *fmt, ...)
        BF_PRINTF(5, 6);
static int pragma_text(char **out, struct bf_store *s, const char *sql,
                       struct bf_err *err, const char *fmt, ...)
{
	char what[BF_ERR_SIZE];
	sqlite3_stmt *st = NULL;
	va_list ap;
	int rc;

	rc = bf_store__prepare(&st, s, -1, sql, err);
	if (rc)
		return rc;
	if (sqlite3_step(st) == SQLITE_ROW) {
		*out = bf_store__col_strdup(st, 0);
	} else {
		va_start(ap, fmt);
		vsnprintf(what, sizeof(what), fmt, ap);
		va_end(ap);
		rc = bf_store__err(s, sqlite3_errcode(s->db), err, "cannot %s",
		                   what);
	}
	sqlite3_finalize(st);
	return rc;
}

/* WAL, foreign keys; only once the file is known to be ours. */
static int configure(struct bf_store *s, struct bf_err *err)
{
	char *mode = NULL;
	int64_t fk = 0;
	int rc;

	rc = pragma_text(&mode, s, "PRAGMA journal_mode = WAL", err,
	                 "switch '%s' to WAL mode", s->path);
	if (!rc && (!mode || strcmp(mode, "wal")))
		rc = bf_err_set(
		        err, BF_ERROR,
		        "cannot switch '%s' to WAL mode (it stays in '%s' mode)",
		        s->path, mode ? mode : "unknown");
	free(mode);
	if (rc)
		return rc;
	rc = sqlite3_exec(
	        s->db, "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON",
	        NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = bf_store__query_i64(&fk, s->db, "PRAGMA foreign_keys");
	if (rc != SQLITE_OK)
		return bf_store__err(s, rc, err, "cannot configure '%s'",
		                     s->path);
	if (fk != 1)
		return bf_err_set(err, BF_ERROR,
		                  "this SQLite cannot enforce foreign keys");
	return 0;
}

/* Apply the step after *ver, unless another process just did. */
static int migrate_step(int64_t *ver, struct bf_store *s, struct bf_err *err)
{
	char sql[64];
	int token;
	int rc;

	rc = bf_store__write_begin(&token, s, err);
	if (rc)
		return rc;
	rc = bf_store__query_i64(ver, s->db, "PRAGMA user_version");
	if (rc == SQLITE_OK && *ver < BF_STORE_SCHEMA_VERSION) {
		snprintf(sql, sizeof(sql), "PRAGMA user_version = %lld",
		         (long long)*ver + 1);
		rc = sqlite3_exec(s->db, bf_store__migrations[*ver], NULL, NULL,
		                  NULL);
		if (rc == SQLITE_OK)
			rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);
	}
	if (rc != SQLITE_OK)
		rc = bf_store__err(s, rc, err,
		                   "cannot migrate '%s' to schema version %lld",
		                   s->path, (long long)*ver + 1);
	else
		*ver += 1;
	return bf_store__write_end(s, token, rc, err);
}

int bf_store__schema_open(struct bf_store *s, struct bf_err *err)
{
	int64_t ver = 0;
	int rc;

	rc = check_ours(&ver, s, err);
	if (!rc)
		rc = configure(s, err);
	while (!rc && ver < BF_STORE_SCHEMA_VERSION)
		rc = migrate_step(&ver, s, err);
	return rc;
}

static int first_int(const struct bf_sql_row *row, void *payload)
{
	*(int64_t *)payload = bf_sql_int(row, 0);
	return 0;
}

int bf_store_count(int64_t *out, struct bf_store *store, const char *table,
                   struct bf_err *err)
{
	/* Table names are matched here, never spliced from the caller. */
	static const char *const sql[][2] = {
		{ "meta", "SELECT count(*) FROM meta" },
		{ "devices", "SELECT count(*) FROM devices" },
		{ "leases", "SELECT count(*) FROM leases" },
		{ "runs", "SELECT count(*) FROM runs" },
		{ "samples", "SELECT count(*) FROM samples" },
		{ "checks", "SELECT count(*) FROM checks" },
		{ "alerts", "SELECT count(*) FROM alerts" },
	};
	size_t i;

	for (i = 0; i < BF_ARRAY_SIZE(sql); i++) {
		if (!table || strcmp(table, sql[i][0]))
			continue;
		*out = 0;
		return bf_sql_exec(store, sql[i][1], NULL, 0, first_int, out,
		                   NULL, err, "cannot count %s in '%s'", table,
		                   store->shown);
	}
	return bf_err_set(err, BF_EINVAL, "no table '%s' in the store",
	                  table ? table : "(null)");
}

int bf_store_integrity_check(struct bf_store *store, struct bf_err *err)
{
	sqlite3_stmt *st = NULL;
	char *res = NULL;
	int rc;

	if (store->pg)
		return bf_store__integrity_pg(store, err);
	rc = pragma_text(&res, store, "PRAGMA integrity_check", err,
	                 "check '%s'", store->path);
	if (!rc && (!res || strcmp(res, "ok")))
		rc = bf_err_set(err, BF_ECORRUPT, "'%s' is damaged: %s",
		                store->path, res ? res : "unknown");
	free(res);
	if (!rc)
		rc = bf_store__prepare(&st, store, -1,
		                       "PRAGMA foreign_key_check", err);
	if (rc)
		goto out;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		rc = bf_err_set(
		        err, BF_ECORRUPT,
		        "'%s' is damaged: row %lld of %s refers to a missing %s",
		        store->path, (long long)sqlite3_column_int64(st, 1),
		        sqlite3_column_text(st, 0) ? bf_store__col_text(st, 0)
		                                   : "?",
		        sqlite3_column_text(st, 2) ? bf_store__col_text(st, 2)
		                                   : "?");
	else if (rc != SQLITE_DONE)
		rc = bf_store__err(store, rc, err, "cannot check '%s'",
		                   store->path);
	else
		rc = 0;
out:
	sqlite3_finalize(st);
	return rc;
}
