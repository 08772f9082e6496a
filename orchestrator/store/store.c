/*
 * Opening and closing the store, and where its database is by default
 * (see store_int.h for the store's files).
 */
#include "store/store_int.h"

#include "store/sql_pg.h"
#include "store/sql_sqlite.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/log.h"

/* loc, from where (--db, BENCHFARM_DB, store:), into *out when it names a
 * backend. */
static int take_location(char **out, const char *loc, const char *where,
                         struct bf_err *err)
{
	bool is_pg;
	int rc = bf_store_location_kind(&is_pg, loc, err);

	if (rc) {
		char *msg = bf_xstrdup(err ? err->msg : "");

		bf_err_set(err, rc, "%s: %s", where, msg);
		free(msg);
		return rc;
	}
	*out = bf_xstrdup(loc);
	return 0;
}

int bf_store_default_path(char **out, const char *db_flag, struct bf_err *err)
{
	return bf_store_choose(out, db_flag, NULL, err);
}

int bf_store_choose(char **out, const char *db_flag, const char *cfg_loc,
                    struct bf_err *err)
{
	const char *env;

	if (db_flag) {
		if (!*db_flag)
			return bf_err_set(err, BF_EINVAL,
			                  "empty database path given");
		return take_location(out, db_flag, "--db", err);
	}
	env = getenv("BENCHFARM_DB");
	if (env && *env)
		return take_location(out, env, "BENCHFARM_DB", err);
	if (cfg_loc)
		return take_location(out, cfg_loc, "the config's store", err);
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
	bool is_pg = false;
	int rc;

	if (!path || !*path) {
		rc = bf_err_set(err, BF_EINVAL, "empty database path given");
		goto out;
	}
	rc = bf_store_location_kind(&is_pg, path, err);
	if (rc)
		goto out;
	s = bf_xcalloc(1, sizeof(*s));
	s->lock_fd = -1;
	s->path = bf_xstrdup(path);
	s->shown = bf_store_location_display(path);
	if (is_pg) {
		rc = bf_sql_pg__connect(s, err);
		if (!rc)
			rc = bf_store__schema_pg_open(s, err);
		if (rc)
			goto out;
		reap_quietly(s);
		*out = s;
		return 0;
	}
	rc = make_parent_dirs(path, err);
	if (!rc)
		rc = create_file(path, err);
	if (!rc)
		rc = bf_store__connect(s, err);
	if (!rc)
		rc = bf_store__schema_open(s, err);
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
	if (!store)
		return;
	if (store->pg)
		bf_sql_pg__disconnect(store);
	else
		bf_store__disconnect(store);
	if (store->lock_fd >= 0)
		close(store->lock_fd); /* releases the runs' locks */
	free(store->path);
	free(store->shown);
	free(store);
}

const char *bf_store_path(const struct bf_store *store)
{
	return store->path;
}

const char *bf_store_shown(const struct bf_store *store)
{
	return store->shown;
}
