#ifndef BF_STORE_INT_H
#define BF_STORE_INT_H

/*
 * The store's internals, shared by the files of orchestrator/store/ and
 * included by no caller (callers see store.h: an opaque struct bf_store
 * and functions). The files, each calling only the ones below it:
 *
 *   store.c          open and close, the database's default path
 *   store_lease.c    leases, on the devices of
 *   store_device.c   devices
 *   store_run.c      runs
 *   store_sample.c   samples, checks, and the postsubmit history
 *   store_alert.c    alerts
 *   store_copy.c     copying a store into another, through sql.h only
 *   schema_sqlite.c  the schema, its migrations, counts and checks
 *   sql_sqlite.c     the SQLite connection, statements and transactions
 *   store_lock.c     the liveness locks in PATH.lock
 *
 * The subject files check their callers' input themselves and run
 * their SQL (SQLite's dialect) through sql_sqlite.h, the one header
 * that names SQLite's types. A second backend sits behind the same
 * store.h: its connection and schema beside sql_sqlite.c and
 * schema_sqlite.c, and its own SQL for the subjects.
 */
#include "store/sql_sqlite.h"
#include "store/store.h"

/* Whether s is one of the NULL-terminated set (the columns' values). */
static inline bool bf_store__is_one_of(const char *s, const char *const *set)
{
	if (!s)
		return false;
	for (; *set; set++)
		if (!strcmp(s, *set))
			return true;
	return false;
}

/*
 * Liveness locks (store_lock.c): one byte of PATH.lock per live holder,
 * held by an open file description (F_OFD_SETLK). Such a lock belongs
 * to the open file, not to the process: another handle's close does not
 * drop it, and the kernel drops it when the process dies, SIGKILL
 * included, so a lock nobody holds names a holder that has ended. A
 * running run locks byte ID through its store's own open file
 * (store_run.c); a lease holder locks BF_STORE__LEASE_LOCK_BASE + its
 * pid through one open file per process (store_lease.c).
 */
#define BF_STORE__LEASE_LOCK_BASE ((int64_t)1 << 30)
/*
 * The constants are the kernel's ABI; <fcntl.h> shows them only under
 * _GNU_SOURCE, which the build does not define (it asks for POSIX 2008
 * alone).
 */
#ifndef F_OFD_GETLK
#define F_OFD_GETLK 36
#define F_OFD_SETLK 37
#endif

/*
 * Open (creating it, mode 0600) store_path's lock file PATH.lock: a new
 * descriptor, or -1 with errno set.
 */
int bf_store__lock_file_open(const char *store_path);

/*
 * Take (cmd F_OFD_SETLK, type F_WRLCK), drop (F_OFD_SETLK, F_UNLCK) or
 * ask about (F_OFD_GETLK, F_WRLCK) the lock on byte off of the lock file
 * fd. Returns 0 for SETLK, the type another open file holds (F_UNLCK:
 * none) for GETLK, or -1 when fcntl fails.
 */
int bf_store__lock_byte(int fd, int64_t off, int cmd, short type);

/*
 * The same on pid's lease byte, through this process's own open file
 * of store_path's lock file (opened on first use, kept open until the
 * process exits: a lease outlives the store handle that took it). -1
 * also when that file cannot be opened.
 */
int bf_store__lease_lock(const char *store_path, int64_t pid, int cmd,
                         short type);

#endif /* BF_STORE_INT_H */
