/*
 * The liveness locks in PATH.lock beside the store's database (see
 * store_int.h): running runs' and lease holders'.
 */
#include "store/store_int.h"

#include "store/sql_sqlite.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"

int bf_store__lock_file_open(const char *store_path)
{
	char *p = bf_xasprintf("%s.lock", store_path);
	int fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	int saved = errno;

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

int bf_store__lease_lock(const char *store_path, int64_t pid, int cmd,
                         short type)
{
	int fd = lease_lock_fd(store_path);

	if (fd < 0)
		return -1;
	return bf_store__lock_byte(fd, BF_STORE__LEASE_LOCK_BASE + pid, cmd,
	                           type);
}

/* Open the store's lock file for its runs' liveness locks, once. */
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
	int rc = run_lock_open(store, err);

	if (!rc &&
	    bf_store__lock_byte(store->lock_fd, id, F_OFD_SETLK, F_WRLCK))
		rc = bf_err_sys(err, "cannot lock run %lld in '%s.lock'",
		                (long long)id, store->path);
	return rc;
}

void bf_store__run_unlock(struct bf_store *store, int64_t id)
{
	if (store->lock_fd >= 0)
		bf_store__lock_byte(store->lock_fd, id, F_OFD_SETLK, F_UNLCK);
}

int bf_store__run_alive(bool *alive, struct bf_store *store, int64_t id,
                        struct bf_err *err)
{
	int rc = run_lock_open(store, err);

	/* a lock nobody holds is never taken again */
	if (!rc)
		*alive = bf_store__lock_byte(store->lock_fd, id, F_OFD_GETLK,
		                             F_WRLCK) != F_UNLCK;
	return rc;
}
