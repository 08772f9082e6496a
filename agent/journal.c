#include "journal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "benchfarm/fs.h"
#include "benchfarm/json.h"

/*
 * The run journal (journal.h). Several agents on one device (one per
 * connected host) append to the same file: each line is written with
 * one write() while holding an exclusive flock on the file, and a
 * rotation happens under that lock too.
 */

#define JOURNAL_MAX  (8 * 1024 * 1024)
#define JOURNAL_NAME "benchfarm/agent-runs.jsonl"

char *bf_journal_path(void)
{
	const char *env = getenv("BENCHFARM_AGENT_JOURNAL");
	const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");

	if (env)
		return *env ? bf_xstrdup(env) : NULL;
	/* a relative XDG_STATE_HOME is ignored, as the XDG spec says */
	if (xdg && xdg[0] == '/')
		return bf_xasprintf("%s/" JOURNAL_NAME, xdg);
	if (home && *home)
		return bf_xasprintf("%s/.local/state/" JOURNAL_NAME, home);
	return NULL;
}

double bf_journal_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)(ts.tv_nsec / 1000) / 1e6;
}

static int open_locked(int *fd_out, const char *path, struct bf_err *err)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);

	if (fd < 0)
		return bf_err_sys(err, "cannot open run journal '%s'", path);
	while (flock(fd, LOCK_EX) < 0) {
		if (errno != EINTR) {
			int ret = bf_err_sys(
			        err, "cannot lock run journal '%s'", path);

			close(fd);
			return ret;
		}
	}
	*fd_out = fd;
	return 0;
}

/*
 * With fd locked: when the journal is full, move it to PATH.1 and open
 * (and lock) a new one in *fd. A file another agent already moved is
 * not moved again: only the file still at path is.
 */
static int rotate(int *fd, const char *path, struct bf_err *err)
{
	struct stat st, at;
	char *old;
	int ret = 0;

	if (fstat(*fd, &st) < 0 || st.st_size < JOURNAL_MAX)
		return 0;
	if (stat(path, &at) == 0 && at.st_dev == st.st_dev &&
	    at.st_ino == st.st_ino) {
		old = bf_xasprintf("%s.1", path);
		if (rename(path, old) < 0)
			ret = bf_err_sys(err, "cannot rotate run journal '%s'",
			                 path);
		free(old);
	}
	close(*fd);
	*fd = -1;
	return ret ? ret : open_locked(fd, path, err);
}

int bf_journal_append(const char *path, const struct bf_journal_run *run,
                      struct bf_err *err)
{
	json_t *o = json_pack("{s:f, s:f, s:I, s:I}", "start", run->start,
	                      "end", run->end, "pid", (json_int_t)getpid(),
	                      "id", (json_int_t)run->id);
	char *line = NULL, *dir = bf_fs_dirname(path);
	int fd = -1, ret;
	size_t len;
	ssize_t n;

	json_object_set_new(o, "cwd", bf_json_str_or_null(run->cwd));
	json_object_set_new(o, "program", bf_json_str_or_null(run->program));
	json_object_set_new(o, "exit_code",
	                    run->exit_code < 0 ? json_null()
	                                       : json_integer(run->exit_code));
	json_object_set_new(o, "samples",
	                    json_integer((json_int_t)run->samples));
	line = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	if ((ret = bf_fs_mkdirs(dir, 0700, err)) ||
	    (ret = open_locked(&fd, path, err)) ||
	    (ret = rotate(&fd, path, err)))
		goto out;
	len = strlen(line);
	line[len++] = '\n'; /* over the terminating NUL: write len bytes */
	n = write(fd, line, len);
	if (n < 0)
		ret = bf_err_sys(err, "cannot write run journal '%s'", path);
	else if ((size_t)n != len)
		ret = bf_err_set(err, BF_ESYS,
		                 "run journal '%s': short write (disk full?)",
		                 path);
out:
	if (fd >= 0)
		close(fd);
	free(line);
	free(dir);
	json_decref(o);
	return ret;
}
