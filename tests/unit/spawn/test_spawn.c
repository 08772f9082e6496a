/* Unit tests for spawn: real child processes, no shell in our code. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "benchfarm/err.h"
#include "benchfarm/spawn.h"

/* The tests use /bin/sh only as a convenient program to run. */
static void run_sh(struct bf_spawn_result *res, const char *script,
                   struct bf_spawn_opts *opts)
{
	const char *argv[] = { "sh", "-c", script, NULL };
	struct bf_err err = BF_ERR_INIT;

	opts->argv = argv;
	assert_int_equal(bf_spawn_run(res, opts, &err), 0);
}

static void test_spawn__captures_stdout_stderr_and_status(void **state)
{
	struct bf_spawn_opts opts = BF_SPAWN_OPTS_INIT;
	struct bf_spawn_result res;

	(void)state;
	run_sh(&res, "echo out; echo err >&2; exit 3", &opts);
	assert_string_equal(res.out.buf, "out\n");
	assert_string_equal(res.err.buf, "err\n");
	assert_int_equal(res.exit_code, 3);
	assert_int_equal(res.term_signal, 0);
	assert_false(bf_spawn_is_success(&res));
	bf_spawn_result_release(&res);
}

static void test_spawn__argv_is_not_interpreted(void **state)
{
	const char *argv[] = { "printf", "%s|", "$(id)", "a b;c", "`x`", NULL };
	struct bf_spawn_opts opts = BF_SPAWN_OPTS_INIT;
	struct bf_spawn_result res;

	(void)state;
	opts.argv = argv;
	assert_int_equal(bf_spawn_run(&res, &opts, NULL), 0);
	assert_string_equal(res.out.buf, "$(id)|a b;c|`x`|");
	assert_true(bf_spawn_is_success(&res));
	bf_spawn_result_release(&res);
}

static void test_spawn__timeout_kills_process_group(void **state)
{
	struct bf_spawn_opts opts = BF_SPAWN_OPTS_INIT;
	struct bf_spawn_result res;
	char desc[64];

	(void)state;
	opts.timeout_s = 0.3;
	/* The grandchild holds stdout; only a group kill ends the wait. */
	run_sh(&res, "sleep 60 & sleep 60; echo never", &opts);
	assert_true(res.timed_out);
	assert_int_equal(res.term_signal, SIGKILL);
	assert_null(strstr(res.out.buf, "never"));
	assert_true(res.wall_s < 30);
	bf_spawn_describe(&res, 0.3, desc, sizeof(desc));
	assert_string_equal(desc, "timed out after 0.3 s");
	bf_spawn_result_release(&res);
}

/*
 * Whether pid, which this process adopted as a subreaper when the
 * shell that started it exited, died of SIGKILL. Without the group
 * kill it would instead sleep its 60 s out and exit 0.
 */
static int killed(long pid)
{
	int status;

	if (waitpid((pid_t)pid, &status, 0) != (pid_t)pid)
		return 0;
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
}

/*
 * A program that leaves a child running: the run ends when the program
 * does, with its output and status, and the child (still in its process
 * group) is killed. Without that, the first case waits for the timeout
 * (the child holds stdout) and the second leaves the child behind. The
 * third closes its outputs and exits only once its stdin is closed,
 * which spawn does after it has seen them reach EOF (1 MiB of input is
 * more than the pipe takes before that): the exit shows after the
 * outputs' EOF, as it does by chance under load (an exiting process
 * closes its files before it can be waited for), and the group must
 * still be killed then.
 */
static void test_spawn__children_left_running_are_killed(void **state)
{
	static const char *const scripts[] = {
		"sleep 60 & echo $!", /* holds stdout and stderr */
		"sleep 60 >/dev/null 2>&1 & echo $!", /* holds nothing */
		"sleep 60 >/dev/null 2>&1 & echo $!; exec >&- 2>&-; "
		"cat >/dev/null",
	};
	static char input[1 << 20];
	struct bf_spawn_opts opts = BF_SPAWN_OPTS_INIT;
	struct bf_spawn_result res;

	(void)state;
	/* orphans come to us, so that we can wait for them */
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1L, 0L, 0L, 0L), 0);
	opts.timeout_s = 50;
	memset(input, 'x', sizeof(input));
	opts.stdin_data = input;
	opts.stdin_len = sizeof(input);
	for (size_t i = 0; i < sizeof(scripts) / sizeof(*scripts); i++) {
		long pid;

		run_sh(&res, scripts[i], &opts);
		assert_false(res.timed_out);
		assert_int_equal(res.exit_code, 0);
		assert_int_equal(sscanf(res.out.buf, "%ld", &pid), 1);
		assert_true(killed(pid));
		bf_spawn_result_release(&res);
	}
}

static void test_spawn__output_cap_truncates(void **state)
{
	struct bf_spawn_opts opts = BF_SPAWN_OPTS_INIT;
	struct bf_spawn_result res;

	(void)state;
	opts.out_max = 1000;
	run_sh(&res,
	       "i=0; while [ $i -lt 500 ]; do echo 0123456789; "
	       "i=$((i+1)); done",
	       &opts);
	assert_int_equal(res.out.len, 1000);
	assert_true(res.out_truncated);
	assert_int_equal(res.exit_code, 0);
	bf_spawn_result_release(&res);

	opts.kill_on_overflow = true;
	run_sh(&res, "while :; do echo 0123456789; done", &opts);
	assert_true(res.out_truncated);
	assert_int_equal(res.term_signal, SIGKILL);
	bf_spawn_result_release(&res);
}

static void test_spawn__missing_program(void **state)
{
	const char *argv[] = { "/nonexistent/bench", NULL };
	struct bf_spawn_opts opts = BF_SPAWN_OPTS_INIT;
	struct bf_err err = BF_ERR_INIT;
	struct bf_spawn_result res;

	(void)state;
	opts.argv = argv;
	assert_int_equal(bf_spawn_run(&res, &opts, &err), BF_ENOTFOUND);
	assert_string_equal(err.msg,
	                    "cannot run '/nonexistent/bench': no such program");
	bf_spawn_result_release(&res);
}

static void test_spawn__stdin_cwd_env(void **state)
{
	const char *env[] = { "BF_TEST_VAR=hello", "HOME=/bf-home", NULL };
	struct bf_spawn_opts opts = BF_SPAWN_OPTS_INIT;
	struct bf_spawn_result res;

	(void)state;
	opts.stdin_data = "abc";
	opts.stdin_len = 3;
	opts.cwd = "/tmp";
	opts.env_set = env;
	run_sh(&res, "cat; echo; pwd; echo $BF_TEST_VAR $HOME", &opts);
	assert_string_equal(res.out.buf, "abc\n/tmp\nhello /bf-home\n");
	bf_spawn_result_release(&res);
}

static void test_spawn__signal_and_rusage(void **state)
{
	struct bf_spawn_opts opts = BF_SPAWN_OPTS_INIT;
	struct bf_spawn_result res;
	char desc[64];

	(void)state;
	run_sh(&res, "kill -TERM $$", &opts);
	assert_int_equal(res.exit_code, -1);
	assert_int_equal(res.term_signal, SIGTERM);
	bf_spawn_describe(&res, 0, desc, sizeof(desc));
	assert_string_equal(desc, "killed by signal 15");
	bf_spawn_result_release(&res);

	/* A CPU-bound child accrues user time and a resident set. */
	run_sh(&res, "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done",
	       &opts);
	assert_true(res.user_s + res.sys_s > 0.01);
	assert_true(res.maxrss_kb > 0);
	assert_true(res.wall_s >= res.user_s * 0.5);
	bf_spawn_result_release(&res);
}

/* What the started hook saw of the child. */
struct started_seen {
	int calls;
	pid_t pid;
	const char *target; /* the program it runs, resolved */
	bool waited; /* the child blocked before it became target */
	const char *file; /* written by the hook, read by the program */
};

/* The state letter of /proc/PID/stat, or 0. */
static char proc_state(pid_t pid)
{
	char path[64], buf[512], *close_paren;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (!(f = fopen(path, "r")))
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	close_paren = strrchr(buf, ')');
	return close_paren && close_paren[1] ? close_paren[2] : 0;
}

/*
 * Until the child either becomes the target program (it did not wait)
 * or blocks (state S) before it has, which it does only when it waits
 * for the hook: a state to reach, not a delay. Before its exec the
 * child is whatever this process is (this test, or valgrind running
 * it), so it is compared with the target, not with this program.
 */
static void on_started(pid_t pid, void *payload)
{
	struct started_seen *s = payload;
	double deadline = bf_now_monotonic() + 30;
	char link[64], exe[4096];
	FILE *f;

	s->calls++;
	s->pid = pid;
	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	while (bf_now_monotonic() < deadline) {
		ssize_t n = readlink(link, exe, sizeof(exe) - 1);

		exe[n > 0 ? n : 0] = '\0';
		if (!strcmp(exe, s->target))
			break;
		if (proc_state(pid) == 'S') {
			s->waited = true;
			break;
		}
	}
	f = fopen(s->file, "w");
	fputs("made by the hook\n", f);
	fclose(f);
}

/*
 * started runs once, while the child waits before exec: the child is
 * still this test program, and what the hook sets up (here a file) is
 * there when the program starts.
 */
static void test_spawn__started_runs_before_exec(void **state)
{
	char file[] = "/tmp/bf-spawn-started.XXXXXX";
	char target[PATH_MAX];
	const char *argv[] = { "/bin/cat", file, NULL };
	struct bf_spawn_opts opts = BF_SPAWN_OPTS_INIT;
	struct started_seen seen = { 0, 0, target, false, file };
	struct bf_spawn_result res;
	struct bf_err err = BF_ERR_INIT;
	int fd = mkstemp(file);

	(void)state;
	assert_true(fd >= 0);
	assert_non_null(realpath(argv[0], target));
	close(fd);
	unlink(file);
	opts.argv = argv;
	opts.started = on_started;
	opts.payload = &seen;
	assert_int_equal(bf_spawn_run(&res, &opts, &err), 0);
	assert_int_equal(seen.calls, 1);
	assert_true(seen.pid > 0);
	assert_true(seen.waited);
	assert_int_equal(res.exit_code, 0);
	assert_string_equal(res.out.buf, "made by the hook\n");
	bf_spawn_result_release(&res);
	unlink(file);
}

static void test_spawn__merge_stderr(void **state)
{
	struct bf_spawn_opts opts = BF_SPAWN_OPTS_INIT;
	struct bf_spawn_result res;

	(void)state;
	opts.merge_stderr = true;
	run_sh(&res, "echo a; echo b >&2", &opts);
	assert_string_equal(res.out.buf, "a\nb\n");
	assert_string_equal(res.err.buf, "");
	bf_spawn_result_release(&res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spawn__captures_stdout_stderr_and_status),
		cmocka_unit_test(test_spawn__argv_is_not_interpreted),
		cmocka_unit_test(test_spawn__timeout_kills_process_group),
		cmocka_unit_test(test_spawn__output_cap_truncates),
		cmocka_unit_test(test_spawn__missing_program),
		cmocka_unit_test(test_spawn__stdin_cwd_env),
		cmocka_unit_test(test_spawn__signal_and_rusage),
		cmocka_unit_test(test_spawn__merge_stderr),
		cmocka_unit_test(test_spawn__started_runs_before_exec),
		cmocka_unit_test(test_spawn__children_left_running_are_killed),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests_name("spawn", tests, NULL, NULL);
}
