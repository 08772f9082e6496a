/*
 * Starting a child: the pipes, the environment, and in the child the
 * file descriptors, working directory, CPU affinity and niceness before
 * exec, with a failure reported to the parent over a status pipe. Used
 * by bf_spawn_run (spawn.c) and bf_child_start (spawn_child.c); it
 * calls neither.
 */
#include "spawn_int.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"

extern char **environ;

/* What the child reports through the status pipe when it cannot exec. */
enum child_stage {
	STAGE_EXEC,
	STAGE_CWD,
	STAGE_AFFINITY,
	STAGE_NICE,
};

struct child_status {
	int stage; /* enum child_stage */
	int err; /* errno */
};

/* environ plus opts->env_set, later entries overriding earlier ones. */
char **bf_spawn__env(const char *const *set)
{
	size_t n = 0, m = 0, k = 0;
	char **env;

	while (environ[n])
		n++;
	while (set && set[m])
		m++;
	env = bf_xcalloc(n + m + 1, sizeof(char *));
	for (size_t i = 0; i < n; i++) {
		const char *eq = strchr(environ[i], '=');
		size_t klen = eq ? (size_t)(eq - environ[i]) : 0;
		bool overridden = false;

		for (size_t j = 0; j < m && klen; j++)
			if (!strncmp(set[j], environ[i], klen + 1))
				overridden = true;
		if (!overridden)
			env[k++] = environ[i];
	}
	for (size_t j = 0; j < m; j++)
		env[k++] = (char *)set[j];
	return env;
}

/* In the child: set up fds, affinity, niceness and exec; never returns. */
BF_NORETURN void bf_spawn__exec_child(const struct bf_spawn_opts *opts,
                                      char **env,
                                      const struct bf_spawn_child_setup *cs,
                                      int in_fd, int out_fd, int err_fd,
                                      int status_fd)
{
	struct child_status st = { STAGE_EXEC, 0 };

	setpgid(0, 0);
	signal(SIGPIPE, SIG_DFL);
	if (dup2(in_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0)
		goto fail;
	st.stage = STAGE_CWD;
	if (opts->cwd && chdir(opts->cwd) < 0)
		goto fail;
	st.stage = STAGE_AFFINITY;
	if (cs->mask &&
	    syscall(SYS_sched_setaffinity, 0L,
	            (long)(BF_SPAWN_MASK_WORDS * sizeof(unsigned long)),
	            cs->mask) < 0)
		goto fail;
	st.stage = STAGE_NICE;
	if (cs->set_nice && setpriority(PRIO_PROCESS, 0, cs->nice) < 0)
		goto fail;
	st.stage = STAGE_EXEC;
	if (cs->go_rd >= 0) {
		char c;

		close(cs->go_wr);
		while (read(cs->go_rd, &c, 1) < 0 && errno == EINTR)
			;
	}
	environ = env;
	execvp(opts->argv[0], (char *const *)opts->argv);
fail:
	st.err = errno;
	if (write(status_fd, &st, sizeof(st)) < 0)
		_exit(127);
	_exit(127);
}

/* The child's report on the status pipe as an error; 0 when it exec'd. */
int bf_spawn__child_failed(int status_fd, const struct bf_spawn_opts *opts,
                           struct bf_err *err)
{
	static const char *const what[] = {
		[STAGE_EXEC] = "",
		[STAGE_CWD] = ": cannot change to its directory",
		[STAGE_AFFINITY] = ": cannot set its CPU affinity",
		[STAGE_NICE] = ": cannot set its niceness",
	};
	struct child_status st;

	if (read(status_fd, &st, sizeof(st)) != (ssize_t)sizeof(st))
		return 0;
	errno = st.err;
	if (st.stage == STAGE_EXEC && st.err == ENOENT)
		return bf_err_set(err, BF_ENOTFOUND,
		                  "cannot run '%s': no such program",
		                  opts->argv[0]);
	return bf_err_sys(err, "cannot run '%s'%s", opts->argv[0],
	                  what[st.stage]);
}

/* The affinity mask of opts->cpus into mask (BF_SPAWN_MASK_WORDS words). */
int bf_spawn__cpu_mask(unsigned long *mask, const struct bf_spawn_opts *opts,
                       struct bf_err *err)
{
	memset(mask, 0, BF_SPAWN_MASK_WORDS * sizeof(unsigned long));
	for (size_t i = 0; i < opts->ncpus; i++) {
		int c = opts->cpus[i];

		if (c < 0 || c >= BF_SPAWN_CPUS_MAX)
			return bf_err_set(err, BF_EINVAL,
			                  "CPU %d out of range 0..%d", c,
			                  BF_SPAWN_CPUS_MAX - 1);
		mask[(size_t)c / BF_SPAWN_MASK_WORD_BITS] |=
		        1UL << ((size_t)c % BF_SPAWN_MASK_WORD_BITS);
	}
	return 0;
}

int bf_spawn__pipe(int fds[2], struct bf_err *err)
{
	if (pipe(fds) < 0)
		return bf_err_sys(err, "cannot create pipe");
	fcntl(fds[0], F_SETFD, FD_CLOEXEC);
	fcntl(fds[1], F_SETFD, FD_CLOEXEC);
	return 0;
}

void bf_spawn__close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}
