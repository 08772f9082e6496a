/*
 * Long-running children: one the caller talks to over pipes (the local
 * agent), stopped with a grace period, and the strays a subreaper kills
 * after a run.
 */
#include "benchfarm/spawn.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "benchfarm/err.h"
#include "spawn_int.h"

int bf_child_start(struct bf_child *c, const char *const *argv,
                   const char *const *env_set, struct bf_err *err)
{
	int in[2] = { -1, -1 }, out[2] = { -1, -1 }, st[2] = { -1, -1 };
	struct bf_spawn_opts opts = BF_SPAWN_OPTS_INIT;
	struct bf_spawn_child_setup cs = { NULL, false, 0, -1, -1 };
	char **env = NULL;
	int ret;

	c->pid = 0;
	c->in_fd = c->out_fd = -1;
	if ((ret = bf_spawn__pipe(in, err)) ||
	    (ret = bf_spawn__pipe(out, err)) || (ret = bf_spawn__pipe(st, err)))
		goto out;
	opts.argv = argv;
	env = bf_spawn__env(env_set);
	c->pid = fork();
	if (c->pid < 0) {
		c->pid = 0;
		ret = bf_err_sys(err, "cannot fork for '%s'", argv[0]);
		goto out;
	}
	if (c->pid == 0)
		bf_spawn__exec_child(&opts, env, &cs, in[0], out[1], 2, st[1]);
	bf_spawn__close(&st[1]);
	if ((ret = bf_spawn__child_failed(st[0], &opts, err))) {
		waitpid(c->pid, NULL, 0);
		c->pid = 0;
		goto out;
	}
	c->in_fd = in[1];
	c->out_fd = out[0];
	in[1] = out[0] = -1;
out:
	for (int i = 0; i < 2; i++) {
		bf_spawn__close(&in[i]);
		bf_spawn__close(&out[i]);
		bf_spawn__close(&st[i]);
	}
	free(env);
	return ret;
}

void bf_child_stop(struct bf_child *c, double grace_s, int *status_out)
{
	double deadline = bf_now_monotonic() + grace_s;
	int status = 0;
	pid_t got = 0;

	bf_spawn__close(&c->in_fd);
	if (c->pid > 0) {
		while ((got = waitpid(c->pid, &status, WNOHANG)) == 0 &&
		       bf_now_monotonic() < deadline) {
			struct timespec ts = { 0, 10 * 1000 * 1000 };

			nanosleep(&ts, NULL);
		}
		if (got == 0) {
			kill(-c->pid, SIGKILL);
			kill(c->pid, SIGKILL);
			waitpid(c->pid, &status, 0);
		}
	}
	bf_spawn__close(&c->out_fd);
	if (status_out)
		*status_out = WIFSIGNALED(status) ? 128 + WTERMSIG(status)
		                                  : WEXITSTATUS(status);
	c->pid = 0;
}

/* The parent pid in /proc/PID/stat, or -1. */
static pid_t proc_ppid(const char *pid)
{
	char path[64], buf[512];
	const char *close_paren;
	long ppid = -1;
	size_t n;
	FILE *f;

	if (snprintf(path, sizeof(path), "/proc/%s/stat", pid) >=
	    (int)sizeof(path))
		return -1;
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* "PID (COMM) STATE PPID ...": COMM may hold ')' and spaces */
	close_paren = strrchr(buf, ')');
	if (!close_paren || sscanf(close_paren + 1, " %*c %ld", &ppid) != 1)
		return -1;
	return (pid_t)ppid;
}

int bf_spawn_kill_strays(void)
{
	pid_t me = getpid();
	int total = 0;

	/* each pass kills our children; theirs come to us as they die */
	for (int pass = 0; pass < 1000; pass++) {
		pid_t found[256];
		size_t n = 0;
		struct dirent *de;
		DIR *d = opendir("/proc");

		if (!d)
			break;
		while ((de = readdir(d)) && n < BF_ARRAY_SIZE(found)) {
			if (de->d_name[0] < '1' || de->d_name[0] > '9')
				continue;
			if (proc_ppid(de->d_name) == me) {
				found[n] = (pid_t)strtol(de->d_name, NULL, 10);
				kill(found[n++], SIGKILL);
			}
		}
		closedir(d);
		for (size_t i = 0; i < n; i++)
			while (waitpid(found[i], NULL, 0) < 0 && errno == EINTR)
				;
		if (!n)
			break;
		total += (int)n;
	}
	return total;
}
