/*
 * Who is alive (see store_int.h for the store's files): this process's
 * holder key, the store's clock, whether a lease holder or waiter is
 * dead, and the heartbeat's "still alive" (bf_store_alive).
 */
#include "store/store_int.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "benchfarm/err.h"
#include "benchfarm/log.h"

/* 8 random bytes: getrandom, else /dev/urandom; false when neither. */
static bool random_bytes(uint64_t *out)
{
	ssize_t n;
	int fd;

	do
		n = getrandom(out, sizeof(*out), 0);
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)sizeof(*out))
		return true;
	fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, out, sizeof(*out));
	close(fd);
	return n == (ssize_t)sizeof(*out);
}

int64_t bf_store__self_key(void)
{
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	static int64_t key;
	static pid_t key_pid;
	uint64_t r = 0;
	int64_t k;

	pthread_mutex_lock(&mu);
	/* a child after fork is a new holder: it draws its own */
	if (key_pid != getpid()) {
		if (!random_bytes(&r)) {
			/* no kernel randomness at all: distinct enough
			 * within a host, and said so */
			struct timespec ts;

			clock_gettime(CLOCK_REALTIME, &ts);
			r = ((uint64_t)getpid() << 32) ^ (uint64_t)ts.tv_nsec ^
			    ((uint64_t)ts.tv_sec << 20);
			BF_LOG_WARN("no kernel randomness for the lease "
			            "holder's key; using the time and pid");
		}
		/* 62 bits, never 0 (0 is a row without a key) */
		key = (int64_t)(r & (((uint64_t)1 << 62) - 1));
		if (!key)
			key = 1;
		key_pid = getpid();
	}
	k = key;
	pthread_mutex_unlock(&mu);
	return k;
}

void bf_store__self_host(char *buf, size_t len)
{
	if (gethostname(buf, len - 1) < 0)
		buf[0] = '\0';
	buf[len - 1] = '\0';
}

static atomic_bool caller_clock;

void bf_store_clock_from_caller(bool on)
{
	atomic_store(&caller_clock, on);
}

static int read_now(const struct bf_sql_row *row, void *payload)
{
	*(int64_t *)payload = bf_sql_int(row, 0);
	return 0;
}

int bf_store__clock(int64_t *now, struct bf_store *store, struct bf_err *err)
{
	if (bf_sql_backend(store) != BF_SQL_PG) {
		*now = (int64_t)time(NULL);
		return 0;
	}
	*now = 0;
	return bf_sql_exec(store,
	                   "SELECT CAST(floor(extract(epoch FROM"
	                   " statement_timestamp())) AS BIGINT)",
	                   NULL, 0, read_now, now, NULL, err,
	                   "cannot read the store's clock");
}

int bf_store__now(int64_t *now, struct bf_store *store, int64_t caller_now,
                  struct bf_err *err)
{
	if (bf_sql_backend(store) != BF_SQL_PG || atomic_load(&caller_clock)) {
		*now = caller_now;
		return 0;
	}
	return bf_store__clock(now, store, err);
}

static _Atomic int64_t started_at;

void bf_store_server_started_at(int64_t t)
{
	atomic_store(&started_at, t);
}

bool bf_store__alive_since_start(struct bf_store *store, int64_t alive_at)
{
	int64_t start = atomic_load(&started_at);

	if (bf_sql_backend(store) != BF_SQL_PG || alive_at <= 0)
		return false;
	if (start)
		return alive_at > start;
	if (bf_sql_exec(store,
	                "SELECT CAST(floor(extract(epoch FROM"
	                " pg_postmaster_start_time())) AS BIGINT)",
	                NULL, 0, read_now, &start, NULL, NULL,
	                "cannot read when the server started") ||
	    start <= 0)
		return false;
	/* floor(alive) > floor(start) means alive came after start */
	return alive_at > start;
}

bool bf_store__holder_dead(struct bf_store *store, const char *host,
                           int64_t key, int64_t alive_at, int64_t now)
{
	char self[256];

	if (key <= 0 || key == bf_store__self_key())
		return false;
	if (bf_sql_backend(store) == BF_SQL_PG) {
		if (alive_at > now - BF_STORE_ALIVE_GRACE_S &&
		    !bf_store__alive_since_start(store, alive_at))
			return false;
	} else {
		bf_store__self_host(self, sizeof(self));
		if (!host || !*self || strcmp(self, host))
			return false;
	}
	return bf_store__holder_lock_held(store, key, NULL) == 0;
}

int bf_store_alive(struct bf_store *store, int64_t run_id, struct bf_err *err)
{
	int64_t now = 0;
	int txn, rc;

	/* the lock first: after a server restart it is taken again */
	rc = bf_store__holder_lock(store, err);
	if (!rc)
		rc = bf_sql_write_begin(&txn, store, err);
	if (rc)
		return rc;
	rc = bf_store__clock(&now, store, err);
	if (!rc && run_id > 0) {
		const struct bf_sql_val v[] = { BF_SQL_V_INT(run_id),
			                        BF_SQL_V_INT(now) };

		rc = bf_sql_exec(store,
		                 "UPDATE runs SET alive_at = ?2"
		                 " WHERE id = ?1 AND status = 'running'",
		                 v, BF_ARRAY_SIZE(v), NULL, NULL, NULL, err,
		                 "cannot mark run %lld alive",
		                 (long long)run_id);
	}
	if (!rc) {
		const struct bf_sql_val v[] = {
			BF_SQL_V_INT(bf_store__self_key()), BF_SQL_V_INT(now)
		};

		rc = bf_sql_exec(store,
		                 "UPDATE leases SET alive_at = ?2"
		                 " WHERE holder_key = ?1",
		                 v, BF_ARRAY_SIZE(v), NULL, NULL, NULL, err,
		                 "cannot mark this process's leases alive");
	}
	return bf_sql_write_end(store, txn, rc, err);
}
