/*
 * Unit tests for the agent's run journal (agent/journal.c): where it
 * lives ($BENCHFARM_AGENT_JOURNAL, $XDG_STATE_HOME, ~/.local/state),
 * what one line holds, lines appended by several agents at once all
 * whole, and the move to PATH.1 of a full journal.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/buf.h"
#include "benchfarm/err.h"
#include "benchfarm/fs.h"
#include "journal.h"

char *mkdtemp(char *template);

static char tmp[] = "/tmp/bf-journal.XXXXXX";

static int setup(void **state)
{
	(void)state;
	return mkdtemp(tmp) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return bf_fs_rmtree(tmp, NULL);
}

static void expect_path(const char *want)
{
	char *got = bf_journal_path();

	if (!want)
		assert_null(got);
	else
		assert_string_equal(got, want);
	free(got);
}

static void test_journal__path(void **state)
{
	(void)state;
	setenv("HOME", "/home/dev", 1);
	unsetenv("XDG_STATE_HOME");
	unsetenv("BENCHFARM_AGENT_JOURNAL");
	expect_path("/home/dev/.local/state/benchfarm/agent-runs.jsonl");
	setenv("XDG_STATE_HOME", "relative/state", 1); /* ignored */
	expect_path("/home/dev/.local/state/benchfarm/agent-runs.jsonl");
	setenv("XDG_STATE_HOME", "/var/lib/dev", 1);
	expect_path("/var/lib/dev/benchfarm/agent-runs.jsonl");
	setenv("BENCHFARM_AGENT_JOURNAL", "/srv/runs.jsonl", 1);
	expect_path("/srv/runs.jsonl");
	setenv("BENCHFARM_AGENT_JOURNAL", "", 1); /* none kept */
	expect_path(NULL);
	unsetenv("BENCHFARM_AGENT_JOURNAL");
	unsetenv("XDG_STATE_HOME");
	unsetenv("HOME");
	expect_path(NULL);
}

/* The lines of path, each parsed; *n_out of them. */
static json_t **read_lines(size_t *n_out, const char *path)
{
	struct bf_buf b = BF_BUF_INIT;
	json_t **lines = NULL;
	size_t n = 0;
	char *p, *nl;

	assert_int_equal(bf_buf_read_file(&b, path, NULL), 0);
	assert_true(b.len == 0 || b.buf[b.len - 1] == '\n');
	for (p = b.buf; (nl = strchr(p, '\n')); p = nl + 1) {
		json_error_t e;

		lines = bf_xrealloc(lines, (n + 1) * sizeof(*lines));
		lines[n] = json_loadb(p, (size_t)(nl - p), 0, &e);
		if (!lines[n])
			fail_msg("line %zu of %s: %s", n + 1, path, e.text);
		n++;
	}
	bf_buf_release(&b);
	*n_out = n;
	return lines;
}

static void free_lines(json_t **lines, size_t n)
{
	for (size_t i = 0; i < n; i++)
		json_decref(lines[i]);
	free(lines);
}

static void test_journal__line(void **state)
{
	struct bf_journal_run run = {
		1700000000.25, 1700000001.5, 7, "/w/d\"1", "sh", 0, 3
	};
	char *path = bf_xasprintf("%s/a/b/runs.jsonl", tmp);
	struct bf_err err = BF_ERR_INIT;
	json_t **lines;
	struct stat st;
	size_t n;

	(void)state;
	assert_int_equal(bf_journal_append(path, &run, &err), 0);
	run.exit_code = -1; /* killed by a signal */
	run.cwd = NULL;
	assert_int_equal(bf_journal_append(path, &run, &err), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	lines = read_lines(&n, path);
	assert_int_equal(n, 2);
	assert_true(json_real_value(json_object_get(lines[0], "start")) ==
	            1700000000.25);
	assert_true(json_real_value(json_object_get(lines[0], "end")) ==
	            1700000001.5);
	assert_int_equal(json_integer_value(json_object_get(lines[0], "pid")),
	                 getpid());
	assert_int_equal(json_integer_value(json_object_get(lines[0], "id")),
	                 7);
	assert_string_equal(json_string_value(json_object_get(lines[0], "cwd")),
	                    "/w/d\"1");
	assert_string_equal(
	        json_string_value(json_object_get(lines[0], "program")), "sh");
	assert_int_equal(
	        json_integer_value(json_object_get(lines[0], "exit_code")), 0);
	assert_int_equal(
	        json_integer_value(json_object_get(lines[0], "samples")), 3);
	assert_true(json_is_null(json_object_get(lines[1], "exit_code")));
	assert_true(json_is_null(json_object_get(lines[1], "cwd")));
	free_lines(lines, n);
	free(path);
}

#define WRITERS 4
#define EACH    100

/*
 * Agents serving several hosts append at once: every line arrives
 * whole. The working directory makes each line longer than a pipe's
 * atomic write, and a full journal is moved aside meanwhile.
 */
static void test_journal__concurrent(void **state)
{
	char *path = bf_xasprintf("%s/c/runs.jsonl", tmp);
	char *old = bf_xasprintf("%s.1", path);
	char cwd[6000];
	json_t **lines;
	size_t n;
	pid_t pids[WRITERS];

	(void)state;
	memset(cwd, 'x', sizeof(cwd) - 1);
	cwd[sizeof(cwd) - 1] = '\0';
	for (int w = 0; w < WRITERS; w++) {
		pids[w] = fork();
		assert_true(pids[w] >= 0);
		if (pids[w] == 0) {
			struct bf_journal_run run = { 1, 2, 0, cwd, "b", 0, 1 };
			int rc = 0;

			/* the parent's strings are the child's to free too
			 * (valgrind follows the child) */
			free(old);
			for (int i = 0; i < EACH && !rc; i++) {
				run.id = i;
				rc = bf_journal_append(path, &run, NULL);
			}
			free(path);
			_exit(rc ? 1 : 0);
		}
	}
	for (int w = 0; w < WRITERS; w++) {
		int status;

		assert_int_equal(waitpid(pids[w], &status, 0), pids[w]);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	lines = read_lines(&n, path);
	assert_int_equal(n, WRITERS * EACH);
	free_lines(lines, n);

	/* Full: the next line starts a new journal, the old one is .1. */
	assert_int_equal(truncate(path, 8 * 1024 * 1024), 0);
	{
		struct bf_journal_run run = { 3, 4, 9, "/w", "b", 0, 1 };

		assert_int_equal(bf_journal_append(path, &run, NULL), 0);
	}
	lines = read_lines(&n, path);
	assert_int_equal(n, 1);
	assert_int_equal(json_integer_value(json_object_get(lines[0], "id")),
	                 9);
	free_lines(lines, n);
	assert_true(bf_fs_exists(old));
	{
		struct stat st;

		assert_int_equal(stat(old, &st), 0);
		assert_int_equal(st.st_size, 8 * 1024 * 1024);
	}
	free(old);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_journal__path),
		cmocka_unit_test(test_journal__line),
		cmocka_unit_test(test_journal__concurrent),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
