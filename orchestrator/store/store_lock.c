/*
 * The liveness locks (see store_int.h): running runs' and lease
 * holders', in PATH.lock beside an SQLite database, and as session
 * advisory locks on PostgreSQL.
 */
#include "store/store_int.h"

#include "store/sql_pg.h"
#include "store/sql_sqlite.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"

int bf_store__lock_file_open(const char *store_path)
{
	bool is_pg = false;
	int fd, saved;
	char *p;

	/* A PostgreSQL location is no file: its liveness locks are the
	 * server's (never a file named after the connection string). */
	if (bf_store_location_kind(&is_pg, store_path, NULL) || is_pg) {
		errno = EINVAL;
		return -1;
	}
	p = bf_xasprintf("%s.lock", store_path);
	fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	saved = errno;
	free(p);
	errno = saved; /* the caller reports open's */
	return fd;
}

int bf_store__lock_byte(int fd, int64_t off, int cmd, short type)
{
	struct flock fl;

	memset(&fl, 0, sizeof(fl));
	fl.l_type = type;
	fl.l_whence = SEEK_SET;
	fl.l_start = (off_t)off;
	fl.l_len = 1;
	if (fcntl(fd, cmd, &fl) < 0)
		return -1;
	return cmd == F_OFD_GETLK ? fl.l_type : 0;
}

/*
 * This process's open file of store_path's lock file: one per store
 * file and process, kept open until the process exits, so the kernel
 * drops the lease locks exactly when the process ends. A child forked
 * from a holder opens its own (the open file it inherited is its
 * parent's). -1 when it cannot be opened or too many store files were
 * leased from.
 */
static int lease_lock_fd(const char *store_path)
{
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	static struct {
		char *path;
		int fd;
		pid_t pid;
	} files[16];
	static size_t nfiles;
	int fd = -1;

	pthread_mutex_lock(&mu);
	for (size_t i = 0; i < nfiles && fd < 0; i++)
		if (files[i].pid == getpid() &&
		    !strcmp(files[i].path, store_path))
			fd = files[i].fd;
	if (fd < 0 && nfiles < BF_ARRAY_SIZE(files)) {
		fd = bf_store__lock_file_open(store_path);
		if (fd >= 0) {
			files[nfiles].path = bf_xstrdup(store_path);
			files[nfiles].fd = fd;
			files[nfiles++].pid = getpid();
		}
	}
	pthread_mutex_unlock(&mu);
	return fd;
}

int bf_store__lease_lock(const char *store_path, int64_t key, int cmd,
                         short type)
{
	int fd = lease_lock_fd(store_path);

	if (fd < 0)
		return -1;
	return bf_store__lock_byte(fd, BF_STORE__HOLDER_LOCK_BASE + key, cmd,
	                           type);
}

/* A run's advisory lock key on PostgreSQL: class 1 in the high half. */
static int64_t run_key(int64_t id)
{
	return ((int64_t)BF_STORE__LIVE_RUN << 32) | (id & 0xffffffff);
}

static int run_lock_open(struct bf_store *store, struct bf_err *err)
{
	if (store->lock_fd >= 0)
		return 0;
	store->lock_fd = bf_store__lock_file_open(store->path);
	if (store->lock_fd < 0)
		return bf_err_sys(err,
		                  "cannot open the run lock file '%s.lock'",
		                  store->path);
	return 0;
}

int bf_store__run_lock(struct bf_store *store, int64_t id, struct bf_err *err)
{
	int rc;

	if (id <= 0 || id > 0xffffffff)
		return bf_err_set(err, BF_EINVAL,
		                  "run id %lld has no liveness lock",
		                  (long long)id);
	if (store->pg)
		return bf_sql_pg__lock(store, run_key(id), err);
	if ((rc = run_lock_open(store, err)))
		return rc;
	if (bf_store__lock_byte(store->lock_fd, id, F_OFD_SETLK, F_WRLCK))
		return bf_err_sys(err, "cannot lock run %lld in '%s.lock'",
		                  (long long)id, store->path);
	return 0;
}

void bf_store__run_unlock(struct bf_store *store, int64_t id)
{
	if (store->pg)
		bf_sql_pg__unlock(store, run_key(id));
	else if (store->lock_fd >= 0)
		bf_store__lock_byte(store->lock_fd, id, F_OFD_SETLK, F_UNLCK);
}

int bf_store__run_lock_held(struct bf_store *store, int64_t id,
                            struct bf_err *err)
{
	int rc, type;

	if (store->pg)
		return bf_sql_pg__lock_held(store, run_key(id), err);
	if ((rc = run_lock_open(store, err)))
		return rc;
	type = bf_store__lock_byte(store->lock_fd, id, F_OFD_GETLK, F_WRLCK);
	if (type < 0)
		return bf_err_sys(err,
		                  "cannot read the lock of run %lld in "
		                  "'%s.lock'",
		                  (long long)id, store->path);
	return type != F_UNLCK;
}

int bf_store__run_alive(bool *alive, struct bf_store *store, int64_t id,
                        struct bf_err *err)
{
	int rc = bf_store__run_lock_held(store, id, err);

	if (rc < 0)
		return rc;
	*alive = rc == 1;
	return 0;
}

/*
 * A lease holder's or waiter's liveness lock, by its holder key (see
 * store_int.h): this process's byte of PATH.lock, or on PostgreSQL the
 * advisory lock of this process's own connection for it.
 */
int bf_store__holder_lock(struct bf_store *store, struct bf_err *err)
{
	int64_t key = bf_store__self_key();

	if (store->pg)
		return bf_store__pg_holder_lock(
		        store, BF_STORE__HOLDER_KEY_BIT | key, err);
	if (bf_store__lease_lock(store->path, key, F_OFD_SETLK, F_WRLCK))
		return bf_err_sys(err,
		                  "cannot take the lease lock in '%s.lock'",
		                  store->shown);
	return 0;
}

int bf_store__holder_lock_held(struct bf_store *store, int64_t key,
                               struct bf_err *err)
{
	int type;

	if (store->pg)
		return bf_sql_pg__lock_held(
		        store, BF_STORE__HOLDER_KEY_BIT | key, err);
	type = bf_store__lease_lock(store->path, key, F_OFD_GETLK, F_WRLCK);
	if (type < 0)
		return bf_err_sys(err,
		                  "cannot read the lease lock in '%s.lock'",
		                  store->shown);
	return type != F_UNLCK;
}
