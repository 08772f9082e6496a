/*
 * Lease fencing on the device (fence.h): the runs in progress of a
 * device in one state file, read and rewritten whole under an
 * exclusive flock.
 */
#include "fence.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/buf.h"
#include "benchfarm/err.h"
#include "benchfarm/fs.h"
#include "benchfarm/json.h"
#include "benchfarm/parse.h"
#include "benchfarm/sha256.h"
#include "benchfarm/spawn.h"

#define FENCE_DIR      "benchfarm/fence"
#define FENCE_MAX      64 /* lines kept; a full file drops ended ones */
#define FENCE_FILE_MAX (FENCE_MAX * 128)
#define FENCE_POLL_MS  10

/* One run in progress: a line of the state file. */
struct entry {
	int64_t token;
	int64_t pgid; /* its process group */
	uint64_t start; /* the group leader's start time (0: unknown) */
	int64_t owner; /* the agent process that runs it */
	int64_t ended_by; /* the token that ended it, 0 while it runs */
};

struct table {
	struct entry e[FENCE_MAX];
	size_t n;
};

static char *state_dir(void)
{
	const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");

	/* a relative XDG_STATE_HOME is ignored, as the XDG spec says */
	if (xdg && xdg[0] == '/')
		return bf_xasprintf("%s/" FENCE_DIR, xdg);
	if (home && *home)
		return bf_xasprintf("%s/.local/state/" FENCE_DIR, home);
	return NULL;
}

int bf_fence_from_request(struct bf_fence **out, const json_t *req,
                          struct bf_err *err)
{
	const json_t *fence = json_object_get(req, "fence");
	const json_t *dev = json_object_get(fence, "device");
	const json_t *tok = json_object_get(fence, "token");
	char hex[BF_SHA256_HEX_LEN + 1];
	unsigned char digest[BF_SHA256_LEN];
	struct bf_fence *f;
	char *dir;

	*out = NULL;
	if (!fence)
		return 0;
	if (!json_is_object(fence) || !json_is_string(dev) ||
	    !*json_string_value(dev) || !json_is_integer(tok) ||
	    json_integer_value(tok) <= 0)
		return bf_err_set(err, BF_EINVAL,
		                  "\"fence\" must be an object with a "
		                  "non-empty \"device\" and a positive "
		                  "integer \"token\"");
	if (!(dir = state_dir()))
		return bf_err_set(err, BF_ENOTFOUND,
		                  "no state directory for the lease fence: "
		                  "set HOME or an absolute XDG_STATE_HOME");
	bf_sha256(digest, json_string_value(dev),
	          strlen(json_string_value(dev)));
	bf_sha256_hex(hex, digest);
	f = bf_xcalloc(1, sizeof(*f));
	f->device = bf_xstrdup(json_string_value(dev));
	f->token = (int64_t)json_integer_value(tok);
	f->path = bf_xasprintf("%s/%s", dir, hex);
	free(dir);
	*out = f;
	return 0;
}

void bf_fence_free(struct bf_fence *f)
{
	if (!f)
		return;
	free(f->device);
	free(f->path);
	free(f);
}

double bf_fence_wait_s(void)
{
	const char *env = getenv("BENCHFARM_AGENT_FENCE_WAIT");
	double v;

	if (!env || !*env || bf_parse_double(&v, env, false, NULL) || v < 0 ||
	    v > 60)
		return BF_FENCE_WAIT_DEFAULT;
	return v;
}

/* The start time of process pid (/proc/PID/stat, field 22), 0: unknown. */
static uint64_t proc_start(int64_t pid)
{
	struct bf_buf b = BF_BUF_INIT;
	char path[64];
	uint64_t start = 0;
	const char *p;
	int field = 2;

	snprintf(path, sizeof(path), "/proc/%lld/stat", (long long)pid);
	if (bf_buf_read_file(&b, path, NULL))
		goto out;
	/* the name (field 2) may hold spaces and ')': after its last ')' */
	if (!(p = strrchr(b.buf, ')')))
		goto out;
	while (*p && field < 22)
		if (*p++ == ' ')
			field++;
	while (*p >= '0' && *p <= '9')
		start = start * 10 + (uint64_t)(*p++ - '0');
out:
	bf_buf_release(&b);
	return start;
}

static bool group_alive(const struct entry *e)
{
	uint64_t start;

	if (kill(-(pid_t)e->pgid, 0) < 0 && errno != EPERM)
		return false;
	/* a leader that started at another time: another group */
	start = proc_start(e->pgid);
	return !e->start || !start || start == e->start;
}

static bool owner_alive(const struct entry *e)
{
	return kill((pid_t)e->owner, 0) == 0 || errno == EPERM;
}

/*
 * Whether e still matters: its group runs, or it was ended and its
 * owner has yet to hear so (bf_fence_release).
 */
static bool entry_live(const struct entry *e)
{
	return group_alive(e) || (e->ended_by && owner_alive(e));
}

/* The next word of *p (cut at a space, *p moved past it), or NULL. */
static char *next_word(char **p, char sep)
{
	char *word = *p, *end;

	if (!word)
		return NULL;
	if ((end = strchr(word, sep))) {
		*end = '\0';
		*p = end + 1;
	} else {
		*p = NULL;
	}
	return word;
}

static int parse_entry(struct entry *e, char *line)
{
	int64_t v[5];
	char *save = line, *word;
	int n = 0;

	while (n < 5 && (word = next_word(&save, ' ')))
		if (bf_parse_i64(&v[n++], word, NULL))
			return -1;
	if (n != 5 || save || v[0] <= 0 || v[1] <= 1 || v[2] < 0)
		return -1;
	*e = (struct entry){ v[0], v[1], (uint64_t)v[2], v[3], v[4] };
	return 0;
}

/* The file's lines into t, those no longer live left out. */
static void table_parse(struct table *t, char *text)
{
	char *save = text, *line;

	t->n = 0;
	while (t->n < FENCE_MAX && (line = next_word(&save, '\n')))
		if (!parse_entry(&t->e[t->n], line) && entry_live(&t->e[t->n]))
			t->n++;
}

/* Open f's state file, locked; its live lines into t. */
static int table_open(int *fd_out, struct table *t, const struct bf_fence *f,
                      struct bf_err *err)
{
	char *dir = bf_fs_dirname(f->path);
	char text[FENCE_FILE_MAX + 1];
	ssize_t n = 0, got;
	int fd = -1, ret;

	if ((ret = bf_fs_mkdirs(dir, 0700, err)))
		goto out;
	fd = open(f->path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		ret = bf_err_sys(err, "cannot open the lease fence '%s'",
		                 f->path);
		goto out;
	}
	while (flock(fd, LOCK_EX) < 0)
		if (errno != EINTR) {
			ret = bf_err_sys(err,
			                 "cannot lock the lease fence '%s'",
			                 f->path);
			goto out;
		}
	while (n < FENCE_FILE_MAX &&
	       (got = read(fd, text + n, (size_t)(FENCE_FILE_MAX - n))) != 0) {
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			ret = bf_err_sys(err,
			                 "cannot read the lease fence '%s'",
			                 f->path);
			goto out;
		}
		n += got;
	}
	text[n] = '\0';
	table_parse(t, text);
out:
	free(dir);
	if (ret && fd >= 0)
		close(fd);
	else
		*fd_out = fd;
	return ret;
}

/* Write t over the file and unlock it (closing fd). */
static int table_close(int fd, const struct table *t, const struct bf_fence *f,
                       struct bf_err *err)
{
	struct bf_buf b = BF_BUF_INIT;
	int ret = 0;

	for (size_t i = 0; i < t->n; i++)
		bf_buf_addf(&b, "%lld %lld %llu %lld %lld\n",
		            (long long)t->e[i].token, (long long)t->e[i].pgid,
		            (unsigned long long)t->e[i].start,
		            (long long)t->e[i].owner,
		            (long long)t->e[i].ended_by);
	if (ftruncate(fd, 0) < 0 ||
	    pwrite(fd, b.buf, b.len, 0) != (ssize_t)b.len)
		ret = bf_err_sys(err, "cannot write the lease fence '%s'",
		                 f->path);
	close(fd);
	bf_buf_release(&b);
	return ret;
}

/* Room for one more line: the oldest ended one goes, else the oldest. */
static void table_make_room(struct table *t)
{
	size_t drop = 0;

	if (t->n < FENCE_MAX)
		return;
	for (size_t i = 0; i < t->n; i++)
		if (t->e[i].ended_by) {
			drop = i;
			break;
		}
	memmove(&t->e[drop], &t->e[drop + 1],
	        (t->n - drop - 1) * sizeof(t->e[0]));
	t->n--;
}

/*
 * End the runs of t of tokens below f's; *waits gets each group still
 * to be waited for (ended now or before). 0, or BF_EBUSY for a run of
 * a greater token in progress.
 */
static int end_older(struct bf_fence_claim *out, struct table *t,
                     struct entry *waits, size_t *nwaits,
                     const struct bf_fence *f, struct bf_err *err)
{
	*nwaits = 0;
	for (size_t i = 0; i < t->n; i++)
		if (!t->e[i].ended_by && t->e[i].token > f->token) {
			out->newer = t->e[i].token;
			return bf_err_set(
			        err, BF_EBUSY,
			        "device '%s' runs a benchmark for a newer "
			        "lease (token %lld > %lld): this request's "
			        "lease was taken over",
			        f->device, (long long)out->newer,
			        (long long)f->token);
		}
	for (size_t i = 0; i < t->n; i++) {
		struct entry *e = &t->e[i];

		if (e->token == f->token && !e->ended_by)
			continue; /* the same lease's other run (a duet) */
		if (!e->ended_by) {
			e->ended_by = f->token;
			out->ended++;
			if (e->token > out->ended_token)
				out->ended_token = e->token;
		}
		if (group_alive(e)) {
			kill(-(pid_t)e->pgid, SIGKILL);
			waits[(*nwaits)++] = *e;
		}
	}
	return 0;
}

/* Wait up to wait_s for the groups in waits to be gone. */
static void wait_gone(struct bf_fence_claim *out, const struct entry *waits,
                      size_t n, double wait_s)
{
	double deadline = bf_now_monotonic() + wait_s;

	for (size_t i = 0; i < n; i++) {
		while (group_alive(&waits[i]) && bf_now_monotonic() < deadline)
			poll(NULL, 0, FENCE_POLL_MS);
		if (group_alive(&waits[i])) {
			out->overlap = true;
			if (waits[i].token > out->overlap_token)
				out->overlap_token = waits[i].token;
		}
	}
}

int bf_fence_claim(struct bf_fence_claim *out, const struct bf_fence *f,
                   pid_t pgid, double wait_s, struct bf_err *err)
{
	struct entry waits[FENCE_MAX];
	struct table t;
	size_t nwaits = 0;
	int fd = -1, ret;

	memset(out, 0, sizeof(*out));
	if ((ret = table_open(&fd, &t, f, err)))
		return ret;
	ret = end_older(out, &t, waits, &nwaits, f, err);
	if (!ret && pgid > 0) {
		table_make_room(&t);
		t.e[t.n++] = (struct entry){ f->token, (int64_t)pgid,
			                     proc_start(pgid),
			                     (int64_t)getpid(), 0 };
	}
	if (!ret)
		ret = table_close(fd, &t, f, err);
	else
		close(fd);
	if (!ret)
		wait_gone(out, waits, nwaits, wait_s);
	return ret;
}

int bf_fence_release(int64_t *ended_by, const struct bf_fence *f, pid_t pgid,
                     struct bf_err *err)
{
	struct table t;
	int fd = -1, ret;

	*ended_by = 0;
	if ((ret = table_open(&fd, &t, f, err)))
		return ret;
	for (size_t i = 0; i < t.n; i++) {
		if (t.e[i].pgid != (int64_t)pgid ||
		    t.e[i].owner != (int64_t)getpid())
			continue;
		*ended_by = t.e[i].ended_by;
		memmove(&t.e[i], &t.e[i + 1], (t.n - i - 1) * sizeof(t.e[0]));
		t.n--;
		break;
	}
	return table_close(fd, &t, f, err);
}
