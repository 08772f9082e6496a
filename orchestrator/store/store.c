#define BF_STORE_INTERNAL
#include "store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/fs.h"
#include "benchfarm/log.h"

/* PRAGMA application_id of a benchfarm database: "bfDB". */
#define STORE_APP_ID  0x62664442
#define STORE_BUSY_MS 5000

/*
 * Forward migrations: migrations[v] takes schema version v to v + 1. Each
 * runs in its own transaction together with the user_version update.
 * Append only; never edit a step that has shipped.
 */
static const char *const migrations[] = {
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
};

_Static_assert(BF_ARRAY_SIZE(migrations) == BF_STORE_SCHEMA_VERSION,
               "one migration step per schema version");
_Static_assert(STORE_APP_ID == 1650869314, "application id in step 1");

enum { TOKEN_BEGIN = 1, TOKEN_SAVEPOINT = 2 };

static int map_rc(int rc)
{
	switch (rc) {
	case SQLITE_CONSTRAINT_UNIQUE:
	case SQLITE_CONSTRAINT_PRIMARYKEY:
		return BF_EEXISTS;
	case SQLITE_CONSTRAINT_FOREIGNKEY:
		return BF_ENOTFOUND;
	default:
		break;
	}
	switch (rc & 0xff) {
	case SQLITE_CONSTRAINT:
	case SQLITE_MISMATCH:
	case SQLITE_RANGE:
		return BF_EINVAL;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return BF_EBUSY;
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB:
		return BF_ECORRUPT;
	case SQLITE_IOERR:
	case SQLITE_CANTOPEN:
	case SQLITE_FULL:
	case SQLITE_READONLY:
	case SQLITE_PERM:
		return BF_ESYS;
	case SQLITE_TOOBIG:
		return BF_ETOOBIG;
	default:
		return BF_ERROR;
	}
}

int bf_store__err(struct bf_store *store, int rc, struct bf_err *err,
                  const char *fmt, ...)
{
	char ctx[BF_ERR_SIZE];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ctx, sizeof(ctx), fmt, ap);
	va_end(ap);
	return bf_err_set(err, map_rc(rc), "%s: %s", ctx,
	                  sqlite3_errmsg(store->db));
}

int bf_store__prepare(sqlite3_stmt **out, struct bf_store *store, int id,
                      const char *sql, struct bf_err *err)
{
	int rc;

	if (id >= 0 && store->stmt[id]) {
		sqlite3_reset(store->stmt[id]);
		sqlite3_clear_bindings(store->stmt[id]);
		*out = store->stmt[id];
		return 0;
	}
	rc = sqlite3_prepare_v2(store->db, sql, -1, out, NULL);
	if (rc != SQLITE_OK)
		return bf_store__err(store, rc, err, "cannot query '%s'",
		                     store->path);
	if (id >= 0)
		store->stmt[id] = *out;
	return 0;
}

int bf_store__write_begin(int *token, struct bf_store *store,
                          struct bf_err *err)
{
	bool nested = !sqlite3_get_autocommit(store->db);
	int rc;

	rc = sqlite3_exec(store->db,
	                  nested ? "SAVEPOINT bf_write" : "BEGIN IMMEDIATE",
	                  NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return bf_store__err(store, rc, err,
		                     "cannot start a transaction on '%s'",
		                     store->path);
	*token = nested ? TOKEN_SAVEPOINT : TOKEN_BEGIN;
	return 0;
}

int bf_store__write_end(struct bf_store *store, int token, int rc,
                        struct bf_err *err)
{
	int src;

	if (rc == 0) {
		src = sqlite3_exec(store->db,
		                   token == TOKEN_SAVEPOINT ? "RELEASE bf_write"
		                                            : "COMMIT",
		                   NULL, NULL, NULL);
		if (src == SQLITE_OK)
			return 0;
		rc = bf_store__err(store, src, err, "cannot commit to '%s'",
		                   store->path);
	}
	/* SQLite may have rolled back already (I/O errors, full disk). */
	if (sqlite3_get_autocommit(store->db))
		return rc;
	if (token == TOKEN_SAVEPOINT)
		sqlite3_exec(store->db,
		             "ROLLBACK TO bf_write; RELEASE bf_write", NULL,
		             NULL, NULL);
	else
		sqlite3_exec(store->db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

int bf_store__bind_text(sqlite3_stmt *st, int idx, const char *s)
{
	if (!s)
		return sqlite3_bind_null(st, idx);
	return sqlite3_bind_text(st, idx, s, -1, SQLITE_STATIC);
}

int bf_store__bind_real(sqlite3_stmt *st, int idx, double v)
{
	if (isnan(v))
		return sqlite3_bind_null(st, idx);
	return sqlite3_bind_double(st, idx, v);
}

int bf_store__bind_opt_int(sqlite3_stmt *st, int idx, int64_t v)
{
	if (v == 0)
		return sqlite3_bind_null(st, idx);
	return sqlite3_bind_int64(st, idx, v);
}

char *bf_store__col_text(sqlite3_stmt *st, int col)
{
	return (char *)sqlite3_column_text(st, col);
}

char *bf_store__col_strdup(sqlite3_stmt *st, int col)
{
	const char *s = bf_store__col_text(st, col);

	return s ? bf_xstrdup(s) : NULL;
}

double bf_store__col_real(sqlite3_stmt *st, int col)
{
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		return NAN;
	return sqlite3_column_double(st, col);
}

bool bf_store__is_one_of(const char *s, const char *const *set)
{
	if (!s)
		return false;
	for (; *set; set++)
		if (!strcmp(s, *set))
			return true;
	return false;
}

int bf_store_default_path(char **out, const char *db_flag, struct bf_err *err)
{
	const char *env;

	if (db_flag) {
		if (!*db_flag)
			return bf_err_set(err, BF_EINVAL,
			                  "empty database path given");
		*out = bf_xstrdup(db_flag);
		return 0;
	}
	env = getenv("BENCHFARM_DB");
	if (env && *env) {
		*out = bf_xstrdup(env);
		return 0;
	}
	/* The XDG spec says to ignore a relative XDG_DATA_HOME. */
	env = getenv("XDG_DATA_HOME");
	if (env && env[0] == '/') {
		*out = bf_xasprintf("%s/benchfarm/benchfarm.db", env);
		return 0;
	}
	env = getenv("HOME");
	if (env && *env) {
		*out = bf_xasprintf("%s/.local/share/benchfarm/benchfarm.db",
		                    env);
		return 0;
	}
	return bf_err_set(
	        err, BF_ENOTFOUND,
	        "no database path: HOME is not set; use --db or BENCHFARM_DB");
}

/* mkdir -p of path's parent directory, each new level with mode 0700. */
static int make_parent_dirs(const char *path, struct bf_err *err)
{
	char *dir = bf_xstrdup(path);
	char *slash = strrchr(dir, '/');
	struct stat st;
	char *p;
	char c;
	int rc = 0;

	if (!slash || slash == dir)
		goto out;
	*slash = '\0';
	if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
		goto out;
	for (p = dir + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		c = *p;
		*p = '\0';
		if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
			rc = bf_err_sys(err, "cannot create directory '%s'",
			                dir);
			goto out;
		}
		*p = c;
		if (!c)
			break;
	}
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		rc = bf_err_set(err, BF_EINVAL, "'%s' is not a directory", dir);
out:
	free(dir);
	return rc;
}

/* Create path with mode 0600 unless it exists; SQLite then opens it. */
static int create_file(const char *path, struct bf_err *err)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	if (fd < 0)
		return errno == EEXIST
		               ? 0
		               : bf_err_sys(err, "cannot create '%s'", path);
	close(fd);
	return 0;
}

/*
 * Run a constant query returning one integer (0 when it returns no
 * row). Returns an SQLite code; on error sqlite3_errmsg() describes it.
 */
static int query_i64(int64_t *out, sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	int rc;

	rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		goto out;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(st, 0);
	else if (rc == SQLITE_DONE)
		*out = 0;
	else
		goto out;
	rc = SQLITE_OK;
out:
	sqlite3_finalize(st);
	return rc;
}

static int not_ours(struct bf_store *s, const char *why, struct bf_err *err)
{
	return bf_err_set(err, BF_ECORRUPT,
	                  "'%s' is not a benchfarm database (%s)", s->path,
	                  why);
}

/*
 * Refuse anything but an empty file or a benchfarm database we can
 * read, using reads only: a refused file is never written to.
 */
/* Whether a file can be created beside path (a read-only mount, a
 * directory without write permission). */
static bool dir_writable(const char *path)
{
	char *dir = bf_fs_dirname(path);
	bool ok = access(dir, W_OK) == 0;

	free(dir);
	return ok;
}

static int check_ours(int64_t *version_out, struct bf_store *s,
                      struct bf_err *err)
{
	int64_t ver = 0, nobj = 0, appid = 0, meta = 0;
	int rc;

	rc = query_i64(&ver, s->db, "PRAGMA user_version");
	if (rc == SQLITE_OK)
		rc = query_i64(&nobj, s->db,
		               "SELECT count(*) FROM sqlite_master");
	if (rc == SQLITE_OK)
		rc = query_i64(&appid, s->db, "PRAGMA application_id");
	if (rc != SQLITE_OK) {
		if (map_rc(rc) == BF_ECORRUPT)
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
	rc = query_i64(&meta, s->db,
	               "SELECT count(*) FROM meta WHERE key = 'application'"
	               " AND value = 'benchfarm'");
	if (rc != SQLITE_OK || meta != 1)
		return not_ours(s, "no benchfarm meta table", err);
out:
	*version_out = ver;
	return 0;
}

/* WAL, foreign keys; only once the file is known to be ours. */
static int configure(struct bf_store *s, struct bf_err *err)
{
	sqlite3_stmt *st = NULL;
	const char *mode;
	int64_t fk = 0;
	int rc;

	rc = bf_store__prepare(&st, s, -1, "PRAGMA journal_mode = WAL", err);
	if (rc)
		goto out;
	if (sqlite3_step(st) != SQLITE_ROW) {
		rc = bf_store__err(s, sqlite3_errcode(s->db), err,
		                   "cannot switch '%s' to WAL mode", s->path);
		goto out;
	}
	mode = bf_store__col_text(st, 0);
	if (!mode || strcmp(mode, "wal")) {
		rc = bf_err_set(
		        err, BF_ERROR,
		        "cannot switch '%s' to WAL mode (it stays in '%s' mode)",
		        s->path, mode ? mode : "unknown");
		goto out;
	}
	rc = sqlite3_exec(
	        s->db, "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON",
	        NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = query_i64(&fk, s->db, "PRAGMA foreign_keys");
	if (rc != SQLITE_OK) {
		rc = bf_store__err(s, rc, err, "cannot configure '%s'",
		                   s->path);
		goto out;
	}
	if (fk != 1)
		rc = bf_err_set(err, BF_ERROR,
		                "this SQLite cannot enforce foreign keys");
out:
	sqlite3_finalize(st);
	return rc;
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
	rc = query_i64(ver, s->db, "PRAGMA user_version");
	if (rc == SQLITE_OK && *ver < BF_STORE_SCHEMA_VERSION) {
		snprintf(sql, sizeof(sql), "PRAGMA user_version = %lld",
		         (long long)*ver + 1);
		rc = sqlite3_exec(s->db, migrations[*ver], NULL, NULL, NULL);
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

/*
 * Runs left "running" by a killed orchestrator become "aborted". A store
 * that cannot take the write (a read-only copy) is still opened; the
 * runs stay as they are, which is never reported as complete.
 */
static void reap_quietly(struct bf_store *s)
{
	struct bf_err err = BF_ERR_INIT;
	int n = 0;

	if (!bf_store_runs_reap(s, &n, &err) && n > 0)
		BF_LOG_WARN("store: %d run%s left running by an orchestrator "
		            "that stopped (killed or crashed) marked aborted",
		            n, n == 1 ? "" : "s");
}

int bf_store_open(struct bf_store **out, const char *path, struct bf_err *err)
{
	struct bf_store *s = NULL;
	int64_t ver = 0;
	int rc;

	if (!path || !*path) {
		rc = bf_err_set(err, BF_EINVAL, "empty database path given");
		goto out;
	}
	rc = make_parent_dirs(path, err);
	if (!rc)
		rc = create_file(path, err);
	if (rc)
		goto out;
	s = bf_xcalloc(1, sizeof(*s));
	s->lock_fd = -1;
	s->path = bf_xstrdup(path);
	rc = sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE, NULL);
	if (rc != SQLITE_OK) {
		rc = bf_store__err(s, rc, err, "cannot open '%s'", path);
		goto out;
	}
	sqlite3_extended_result_codes(s->db, 1);
	sqlite3_busy_timeout(s->db, STORE_BUSY_MS);
	rc = check_ours(&ver, s, err);
	if (!rc)
		rc = configure(s, err);
	while (!rc && ver < BF_STORE_SCHEMA_VERSION)
		rc = migrate_step(&ver, s, err);
	if (rc)
		goto out;
	reap_quietly(s);
	*out = s;
	s = NULL;
out:
	bf_store_close(s);
	return rc;
}

void bf_store_close(struct bf_store *store)
{
	size_t i;

	if (!store)
		return;
	for (i = 0; i < BF_STORE__NSTMT; i++)
		sqlite3_finalize(store->stmt[i]);
	if (store->db && !sqlite3_get_autocommit(store->db))
		sqlite3_exec(store->db, "ROLLBACK", NULL, NULL, NULL);
	if (sqlite3_close(store->db) != SQLITE_OK)
		BF_BUG("store '%s' closed with statements still open",
		       store->path);
	if (store->lock_fd >= 0)
		close(store->lock_fd); /* releases the runs' locks */
	free(store->path);
	free(store);
}

const char *bf_store_path(const struct bf_store *store)
{
	return store->path;
}

int bf_store_begin(struct bf_store *store, struct bf_err *err)
{
	int rc;

	if (!sqlite3_get_autocommit(store->db))
		return bf_err_set(err, BF_EINVAL,
		                  "a transaction is already open on '%s'",
		                  store->path);
	rc = sqlite3_exec(store->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return bf_store__err(store, rc, err,
		                     "cannot start a transaction on '%s'",
		                     store->path);
	return 0;
}

int bf_store_commit(struct bf_store *store, struct bf_err *err)
{
	int rc;

	if (sqlite3_get_autocommit(store->db))
		return bf_err_set(err, BF_EINVAL,
		                  "no transaction is open on '%s'",
		                  store->path);
	rc = sqlite3_exec(store->db, "COMMIT", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return bf_store__err(store, rc, err, "cannot commit to '%s'",
		                     store->path);
	return 0;
}

int bf_store_rollback(struct bf_store *store, struct bf_err *err)
{
	int rc;

	if (sqlite3_get_autocommit(store->db))
		return 0;
	rc = sqlite3_exec(store->db, "ROLLBACK", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return bf_store__err(store, rc, err, "cannot roll back '%s'",
		                     store->path);
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
	int rc;

	for (i = 0; i < BF_ARRAY_SIZE(sql); i++) {
		if (!table || strcmp(table, sql[i][0]))
			continue;
		rc = query_i64(out, store->db, sql[i][1]);
		if (rc != SQLITE_OK)
			return bf_store__err(store, rc, err,
			                     "cannot count %s in '%s'", table,
			                     store->path);
		return 0;
	}
	return bf_err_set(err, BF_EINVAL, "no table '%s' in the store",
	                  table ? table : "(null)");
}

int bf_store_integrity_check(struct bf_store *store, struct bf_err *err)
{
	sqlite3_stmt *st = NULL;
	const char *res;
	int rc;

	rc = bf_store__prepare(&st, store, -1, "PRAGMA integrity_check", err);
	if (rc)
		goto out;
	if (sqlite3_step(st) != SQLITE_ROW) {
		rc = bf_store__err(store, sqlite3_errcode(store->db), err,
		                   "cannot check '%s'", store->path);
		goto out;
	}
	res = bf_store__col_text(st, 0);
	if (!res || strcmp(res, "ok")) {
		rc = bf_err_set(err, BF_ECORRUPT, "'%s' is damaged: %s",
		                store->path, res ? res : "unknown");
		goto out;
	}
	sqlite3_finalize(st);
	st = NULL;
	rc = bf_store__prepare(&st, store, -1, "PRAGMA foreign_key_check", err);
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

int bf_store__update_row(struct bf_store *store, const char *what,
                         const char *sql, int64_t id, const char *text,
                         int64_t i3, struct bf_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc;

	rc = bf_store__prepare(&st, store, -1, sql, err);
	if (rc)
		goto out;
	sqlite3_bind_int64(st, 1, id);
	bf_store__bind_text(st, 2, text);
	if (sqlite3_bind_parameter_count(st) >= 3)
		sqlite3_bind_int64(st, 3, i3);
	rc = sqlite3_step(st);
	if (rc != SQLITE_DONE)
		rc = bf_store__err(store, rc, err, "cannot update %s %lld",
		                   what, (long long)id);
	else if (sqlite3_changes(store->db) == 0)
		rc = bf_err_set(err, BF_ENOTFOUND, "no %s %lld", what,
		                (long long)id);
	else
		rc = 0;
out:
	sqlite3_finalize(st);
	return rc;
}
