#include "benchfarm/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/err.h"
#include "spawn_int.h"

/*
 * Running a program to completion: its outputs collected (capped), its
 * stdin fed, ticks while it runs, the deadline, and its process group
 * killed once it has exited. The child is started by spawn_exec.c.
 */

/*
 * wait4() is in glibc and musl but hidden by -D_POSIX_C_SOURCE; it is
 * the only way to get the rusage of exactly one child.
 */
pid_t wait4(pid_t pid, int *status, int options, struct rusage *rusage);

#define SPAWN_OUT_MAX_DEFAULT (1024 * 1024)
#define SPAWN_ERR_MAX_DEFAULT (64 * 1024)

double bf_now_monotonic(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void bf_spawn_result_init(struct bf_spawn_result *res)
{
	memset(res, 0, sizeof(*res));
	bf_buf_init(&res->out, 0);
	bf_buf_init(&res->err, 0);
}

void bf_spawn_result_release(struct bf_spawn_result *res)
{
	if (!res)
		return;
	bf_buf_release(&res->out);
	bf_buf_release(&res->err);
}

bool bf_spawn_is_success(const struct bf_spawn_result *res)
{
	return !res->timed_out && res->term_signal == 0 && res->exit_code == 0;
}

void bf_spawn_describe(const struct bf_spawn_result *res, double timeout_s,
                       char *buf, size_t len)
{
	if (res->timed_out)
		snprintf(buf, len, "timed out after %g s", timeout_s);
	else if (res->term_signal)
		snprintf(buf, len, "killed by signal %d", res->term_signal);
	else
		snprintf(buf, len, "exited with status %d", res->exit_code);
}

struct spawn_io {
	int fd;
	struct bf_buf *buf;
	size_t max;
	bool *truncated;
};

/* Reads what is available from io->fd; returns false at EOF. */
static bool drain(struct spawn_io *io, bool *overflow)
{
	char chunk[16384];
	ssize_t n = read(io->fd, chunk, sizeof(chunk));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return true;
	if (n <= 0)
		return false;
	if (io->buf->len + (size_t)n > io->max) {
		size_t room = io->max - io->buf->len;

		bf_buf_add(io->buf, chunk, room);
		*io->truncated = true;
		*overflow = true;
	} else {
		bf_buf_add(io->buf, chunk, (size_t)n);
	}
	return true;
}

static void feed_stdin(int *fd, const char *data, size_t len, size_t *off)
{
	ssize_t n = write(*fd, data + *off, len - *off);

	if (n > 0)
		*off += (size_t)n;
	if ((n < 0 && errno != EINTR && errno != EAGAIN) || *off >= len) {
		close(*fd);
		*fd = -1;
	}
}

struct spawn_loop {
	struct spawn_io io[2];
	int in_fd;
	size_t in_off;
	pid_t pid;
	int pidfd; /* readable when the child exits; -1: none (old kernel) */
	double deadline;
	double next_tick; /* 0: no ticks */
	double eof_by; /* after the child exited: stop waiting for EOF */
	bool killed;
	bool exited; /* the child (not yet reaped) has exited */
};

/* How long the outputs may stay open after the child has exited and its
 * process group was killed: only a process that left the group (setsid)
 * can hold them that long. */
#define SPAWN_EOF_GRACE_S 2.0
/* Without a pidfd, how often to look whether the child has exited. */
#define SPAWN_EXIT_POLL_MS 100

/* A pidfd for pid (Linux 5.3), or -1. */
static int open_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
	int fd = (int)syscall(SYS_pidfd_open, (long)pid, 0L);

	if (fd >= 0)
		fcntl(fd, F_SETFD, FD_CLOEXEC);
	return fd;
#else
	(void)pid;
	return -1;
#endif
}

/*
 * When the child has exited (it stays unreaped, so its process group id
 * cannot be reused), the rest of its group is killed: a process it
 * forked and left running (a server, a `cmd &`) neither outlives the
 * run nor holds its outputs open.
 */
static void check_exited(struct spawn_loop *l, bool pidfd_ready)
{
	siginfo_t si;

	if (l->exited)
		return;
	if (l->pidfd >= 0 && !pidfd_ready)
		return;
	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)l->pid, &si, WEXITED | WNOWAIT | WNOHANG) < 0 ||
	    si.si_pid != l->pid)
		return;
	l->exited = true;
	kill(-l->pid, SIGKILL);
	l->eof_by = bf_now_monotonic() + SPAWN_EOF_GRACE_S;
}

/* Milliseconds until the next deadline or tick (-1: none). */
static int next_event_ms(const struct spawn_loop *l)
{
	double now = bf_now_monotonic(), at = 0;
	int ms;

	if (l->deadline > 0 && !l->killed)
		at = l->deadline;
	if (l->next_tick > 0 && (at == 0 || l->next_tick < at))
		at = l->next_tick;
	if (l->eof_by > 0 && (at == 0 || l->eof_by < at))
		at = l->eof_by;
	ms = at == 0 ? -1 : at <= now ? 0 : (int)((at - now) * 1000) + 1;
	if (l->pidfd < 0 && !l->exited && (ms < 0 || ms > SPAWN_EXIT_POLL_MS))
		ms = SPAWN_EXIT_POLL_MS;
	return ms;
}

/* Calls opts->tick when due and kills the group at the deadline. */
static void on_timer(struct spawn_loop *l, const struct bf_spawn_opts *opts,
                     struct bf_spawn_result *res)
{
	double now = bf_now_monotonic();

	if (l->next_tick > 0 && now >= l->next_tick) {
		opts->tick(l->pid, opts->payload);
		l->next_tick += opts->tick_s;
		if (l->next_tick <= now) /* fell behind: skip, do not burst */
			l->next_tick = now + opts->tick_s;
	}
	if (!l->killed && l->deadline > 0 && now >= l->deadline) {
		res->timed_out = true;
		kill(-l->pid, SIGKILL);
		l->killed = true;
	}
}

/* Poll until both outputs reach EOF, or timeout/overflow kills. */
static void spawn_loop(struct spawn_loop *l, const struct bf_spawn_opts *opts,
                       struct bf_spawn_result *res)
{
	while (l->io[0].fd >= 0 || l->io[1].fd >= 0) {
		struct pollfd p[4];
		int nfds = 0;
		bool overflow = false;

		for (int i = 0; i < 2; i++)
			p[nfds++] = (struct pollfd){ .fd = l->io[i].fd,
				                     .events = POLLIN };
		p[nfds++] =
		        (struct pollfd){ .fd = l->in_fd, .events = POLLOUT };
		p[nfds++] = (struct pollfd){ .fd = l->exited ? -1 : l->pidfd,
			                     .events = POLLIN };
		if (poll(p, (nfds_t)nfds, next_event_ms(l)) < 0 &&
		    errno != EINTR)
			break;
		check_exited(l, p[3].fd >= 0 && p[3].revents);
		if (l->exited && bf_now_monotonic() >= l->eof_by)
			break; /* held open by a process outside the group */
		for (int i = 0; i < 2; i++) {
			if (l->io[i].fd >= 0 && p[i].revents &&
			    !drain(&l->io[i], &overflow)) {
				close(l->io[i].fd);
				l->io[i].fd = -1;
			}
		}
		if (l->in_fd >= 0 && p[2].revents)
			feed_stdin(&l->in_fd, opts->stdin_data, opts->stdin_len,
			           &l->in_off);
		on_timer(l, opts, res);
		if (!l->killed && overflow && opts->kill_on_overflow) {
			kill(-l->pid, SIGKILL);
			l->killed = true;
		}
	}
}

/*
 * The outputs are closed; wait until the child has exited without
 * reaping it (WNOWAIT), still ticking and enforcing the deadline, then
 * call opts->exited while /proc/PID holds its final times.
 */
static void wait_exit(struct spawn_loop *l, const struct bf_spawn_opts *opts,
                      struct bf_spawn_result *res)
{
	for (;;) {
		bool timers =
		        l->next_tick > 0 || (l->deadline > 0 && !l->killed);
		int flags = WEXITED | WNOWAIT | (timers ? WNOHANG : 0);
		struct timespec ts = { 0, 0 };
		siginfo_t si;
		int ms;

		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, (id_t)l->pid, &si, flags) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (si.si_pid == l->pid) {
			/*
			 * Its outputs reached EOF before its exit showed
			 * (an exiting process closes its files first, and
			 * under load the gap is long): the group kill of
			 * check_exited has not happened yet.
			 */
			if (!l->exited) {
				l->exited = true;
				kill(-l->pid, SIGKILL);
			}
			break;
		}
		/* Rare: the child closed its outputs but runs on. */
		ms = next_event_ms(l);
		ts.tv_nsec = (ms >= 0 && ms < 10 ? ms : 10) * 1000000L;
		nanosleep(&ts, NULL);
		on_timer(l, opts, res);
	}
	if (opts->exited)
		opts->exited(l->pid, opts->payload);
}

static void reap(struct bf_spawn_result *res, pid_t pid, double start)
{
	struct rusage ru;
	int status = 0;

	memset(&ru, 0, sizeof(ru));
	while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR)
		;
	res->wall_s = bf_now_monotonic() - start;
	res->user_s =
	        (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
	res->sys_s =
	        (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	res->maxrss_kb = ru.ru_maxrss;
	res->nvcsw = ru.ru_nvcsw;
	res->nivcsw = ru.ru_nivcsw;
	if (WIFSIGNALED(status)) {
		res->exit_code = -1;
		res->term_signal = WTERMSIG(status);
	} else {
		res->exit_code = WEXITSTATUS(status);
	}
}

int bf_spawn_run(struct bf_spawn_result *res, const struct bf_spawn_opts *opts,
                 struct bf_err *err)
{
	int out[2] = { -1, -1 }, errp[2] = { -1, -1 }, in[2] = { -1, -1 };
	int st[2] = { -1, -1 };
	unsigned long mask[BF_SPAWN_MASK_WORDS];
	struct bf_spawn_child_setup cs = { NULL, opts->set_nice, opts->nice, -1,
		                           -1 };
	int go[2] = { -1, -1 };
	struct spawn_loop l;
	char **env = NULL;
	int ret = 0;
	double start;

	bf_spawn_result_init(res);
	if (!opts->argv || !opts->argv[0])
		BF_BUG("bf_spawn_run without argv");
	if ((opts->tick_s > 0) != (opts->tick != NULL))
		BF_BUG("bf_spawn_run: tick_s and tick go together");
	if (opts->cpus && (ret = bf_spawn__cpu_mask(mask, opts, err)))
		goto out;
	cs.mask = opts->cpus ? mask : NULL;
	if ((ret = bf_spawn__pipe(out, err)) ||
	    (ret = bf_spawn__pipe(errp, err)) ||
	    (ret = bf_spawn__pipe(st, err)) ||
	    (opts->started && (ret = bf_spawn__pipe(go, err))))
		goto out;
	cs.go_rd = go[0];
	cs.go_wr = go[1];
	if (opts->stdin_data) {
		if ((ret = bf_spawn__pipe(in, err)))
			goto out;
	} else if ((in[0] = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) {
		ret = bf_err_sys(err, "cannot open /dev/null");
		goto out;
	}
	env = bf_spawn__env(opts->env_set);
	start = bf_now_monotonic();
	memset(&l, 0, sizeof(l));
	l.pid = fork();
	if (l.pid < 0) {
		ret = bf_err_sys(err, "cannot fork for '%s'", opts->argv[0]);
		goto out;
	}
	if (l.pid == 0)
		bf_spawn__exec_child(opts, env, &cs, in[0], out[1],
		                     opts->merge_stderr ? out[1] : errp[1],
		                     st[1]);
	setpgid(l.pid, l.pid);
	if (opts->started) {
		opts->started(l.pid, opts->payload);
		bf_spawn__close(&go[1]); /* the child goes on to exec */
	}
	bf_spawn__close(&out[1]);
	bf_spawn__close(&errp[1]);
	bf_spawn__close(&st[1]);
	bf_spawn__close(&in[0]);
	l.io[0] = (struct spawn_io){ out[0], &res->out,
		                     opts->out_max ? opts->out_max
		                                   : SPAWN_OUT_MAX_DEFAULT,
		                     &res->out_truncated };
	l.io[1] = (struct spawn_io){ errp[0], &res->err,
		                     opts->err_max ? opts->err_max
		                                   : SPAWN_ERR_MAX_DEFAULT,
		                     &res->err_truncated };
	out[0] = errp[0] = -1;
	l.in_fd = in[1];
	in[1] = -1;
	if (l.in_fd >= 0)
		fcntl(l.in_fd, F_SETFL, O_NONBLOCK);
	l.deadline = opts->timeout_s > 0 ? start + opts->timeout_s : 0;
	l.next_tick = opts->tick ? start + opts->tick_s : 0;
	l.pidfd = open_pidfd(l.pid);
	spawn_loop(&l, opts, res);
	for (int i = 0; i < 2; i++)
		bf_spawn__close(&l.io[i].fd);
	bf_spawn__close(&l.pidfd);
	bf_spawn__close(&l.in_fd);
	wait_exit(&l, opts, res);
	reap(res, l.pid, start);
	ret = bf_spawn__child_failed(st[0], opts, err);
out:
	for (int i = 0; i < 2; i++) {
		bf_spawn__close(&out[i]);
		bf_spawn__close(&errp[i]);
		bf_spawn__close(&in[i]);
		bf_spawn__close(&st[i]);
		bf_spawn__close(&go[i]);
	}
	free(env);
	return ret;
}
