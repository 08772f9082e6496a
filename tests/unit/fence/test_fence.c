/*
 * Unit tests for the agent's lease fence (agent/fence.c): the "fence"
 * of a request and where its state file lives; a newer token ends the
 * older lease's run in progress (its process group is killed) and that
 * run hears it was ended; an older token is refused while a newer
 * lease's run is in progress; the runs of one lease leave each other
 * alone; a group that outlives the wait is an overlap; a line whose
 * group is gone, or whose group id now names another group, is
 * dropped and nothing is killed for it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "benchfarm/err.h"
#include "benchfarm/fs.h"
#include "fence.h"

char *mkdtemp(char *template);

static char tmp[] = "/tmp/bf-fence.XXXXXX";

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(tmp))
		return -1;
	setenv("XDG_STATE_HOME", tmp, 1);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return bf_fs_rmtree(tmp, NULL);
}

/* A fence for device at token (from a request, as serve reads it). */
static struct bf_fence *fence(const char *device, int64_t token)
{
	json_t *req = json_pack("{s:s, s:{s:s, s:I}}", "type", "run", "fence",
	                        "device", device, "token", (json_int_t)token);
	struct bf_fence *f = NULL;

	assert_int_equal(bf_fence_from_request(&f, req, NULL), 0);
	assert_non_null(f);
	json_decref(req);
	return f;
}

/* A child in a process group of its own, waiting to be killed. */
static pid_t sleeper(void)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		setpgid(0, 0);
		for (;;)
			pause();
	}
	setpgid(pid, pid);
	return pid;
}

/* Whether pid's group still has a process (a zombie counts). */
static bool group_exists(pid_t pid)
{
	return kill(-pid, 0) == 0;
}

static void reap(pid_t pid)
{
	kill(-pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

static void test_fence__request(void **state)
{
	struct bf_err err = BF_ERR_INIT;
	struct bf_fence *f = NULL, *g;
	json_t *req = json_pack("{s:s}", "type", "info");
	char want[256];

	(void)state;
	assert_int_equal(bf_fence_from_request(&f, req, NULL), 0);
	assert_null(f);
	json_decref(req);
	req = json_pack("{s:s, s:{s:s, s:i}}", "type", "run", "fence", "device",
	                "dev", "token", 0);
	assert_int_equal(bf_fence_from_request(&f, req, &err), BF_EINVAL);
	assert_non_null(strstr(err.msg, "positive integer \"token\""));
	assert_null(f);
	json_decref(req);
	req = json_pack("{s:s, s:{s:I}}", "type", "run", "fence", "token",
	                (json_int_t)3);
	assert_int_equal(bf_fence_from_request(&f, req, NULL), BF_EINVAL);
	json_decref(req);

	f = fence("dev", 7);
	g = fence("dev2", 7);
	assert_string_equal(f->device, "dev");
	assert_int_equal(f->token, 7);
	snprintf(want, sizeof(want), "%s/benchfarm/fence/", tmp);
	assert_memory_equal(f->path, want, strlen(want));
	assert_int_equal(strlen(f->path), strlen(want) + 64);
	/* two devices of one user keep apart */
	assert_string_not_equal(f->path, g->path);
	bf_fence_free(f);
	bf_fence_free(g);
}

static void test_fence__newer_ends_older(void **state)
{
	struct bf_fence *a = fence("dev", 5), *b = fence("dev", 6);
	struct bf_fence_claim c;
	int64_t ended_by = -1;
	pid_t run = sleeper();

	(void)state;
	assert_int_equal(bf_fence_claim(&c, a, run, 1, NULL), 0);
	assert_int_equal(c.ended, 0);
	/* the reap by its parent, as the agent's spawn loop does */
	signal(SIGCHLD, SIG_IGN);
	assert_int_equal(bf_fence_claim(&c, b, 0, 10, NULL), 0);
	signal(SIGCHLD, SIG_DFL);
	assert_int_equal(c.ended, 1);
	assert_int_equal(c.ended_token, 5);
	assert_false(c.overlap);
	assert_false(group_exists(run));
	/* the ended run hears who ended it */
	assert_int_equal(bf_fence_release(&ended_by, a, run, NULL), 0);
	assert_int_equal(ended_by, 6);
	/* and nothing is left to end */
	assert_int_equal(bf_fence_claim(&c, b, 0, 1, NULL), 0);
	assert_int_equal(c.ended, 0);
	bf_fence_free(a);
	bf_fence_free(b);
}

static void test_fence__older_refused(void **state)
{
	struct bf_err err = BF_ERR_INIT;
	struct bf_fence *a = fence("dev", 6), *b = fence("dev", 7);
	struct bf_fence_claim c;
	int64_t ended_by = -1;
	pid_t run = sleeper(), other = sleeper();

	(void)state;
	assert_int_equal(bf_fence_claim(&c, b, run, 1, NULL), 0);
	assert_int_equal(bf_fence_claim(&c, a, other, 1, &err), BF_EBUSY);
	assert_int_equal(c.newer, 7);
	assert_non_null(strstr(err.msg, "device 'dev' runs a benchmark for a "
	                                "newer lease (token 7 > 6)"));
	assert_true(group_exists(run));
	/* nothing was recorded for the refused one */
	assert_int_equal(bf_fence_release(&ended_by, a, other, NULL), 0);
	assert_int_equal(ended_by, 0);
	assert_int_equal(bf_fence_release(&ended_by, b, run, NULL), 0);
	assert_int_equal(ended_by, 0);
	/* once the newer run is over, the older token is served */
	assert_int_equal(bf_fence_claim(&c, a, 0, 1, NULL), 0);
	assert_true(group_exists(run));
	reap(run);
	reap(other);
	bf_fence_free(a);
	bf_fence_free(b);
}

static void test_fence__same_lease(void **state)
{
	struct bf_fence *a = fence("dev", 3);
	struct bf_fence *other = fence("dev2", 9);
	struct bf_fence_claim c;
	int64_t ended_by = -1;
	pid_t r1 = sleeper(), r2 = sleeper();

	(void)state;
	assert_int_equal(bf_fence_claim(&c, a, r1, 1, NULL), 0);
	assert_int_equal(bf_fence_claim(&c, a, r2, 1, NULL), 0);
	assert_int_equal(bf_fence_claim(&c, a, 0, 1, NULL), 0);
	assert_int_equal(c.ended, 0);
	/* another device's newer token is not this device's */
	assert_int_equal(bf_fence_claim(&c, other, 0, 1, NULL), 0);
	assert_int_equal(c.ended, 0);
	assert_true(group_exists(r1));
	assert_true(group_exists(r2));
	assert_int_equal(bf_fence_release(&ended_by, a, r1, NULL), 0);
	assert_int_equal(ended_by, 0);
	assert_int_equal(bf_fence_release(&ended_by, a, r2, NULL), 0);
	assert_int_equal(ended_by, 0);
	reap(r1);
	reap(r2);
	bf_fence_free(a);
	bf_fence_free(other);
}

static void test_fence__overlap(void **state)
{
	struct bf_fence *a = fence("dev", 2), *b = fence("dev", 3);
	struct bf_fence_claim c;
	pid_t run = sleeper();

	(void)state;
	assert_int_equal(bf_fence_claim(&c, a, run, 1, NULL), 0);
	/* not reaped: its group stays until waited for, past the wait */
	assert_int_equal(bf_fence_claim(&c, b, 0, 0.05, NULL), 0);
	assert_int_equal(c.ended, 1);
	assert_true(c.overlap);
	assert_int_equal(c.overlap_token, 2);
	reap(run);
	assert_int_equal(bf_fence_claim(&c, b, 0, 1, NULL), 0);
	assert_false(c.overlap);
	assert_int_equal(c.ended, 0);
	bf_fence_free(a);
	bf_fence_free(b);
}

static void test_fence__stale_lines(void **state)
{
	struct bf_fence *f = fence("dev", 1);
	struct bf_fence_claim c;
	pid_t run = sleeper();
	char text[256];

	(void)state;
	/*
	 * A newer token's line whose group is gone (its agent was
	 * SIGKILLed with its run) and one whose group id is now another
	 * group's (its leader started at another time): neither refuses
	 * the older token, and the live group is not killed.
	 */
	snprintf(text, sizeof(text), "%s/benchfarm/fence", tmp);
	assert_int_equal(bf_fs_mkdirs(text, 0700, NULL), 0);
	snprintf(text, sizeof(text),
	         "9 2147483600 0 2147483600 0\n8 %d 1 %d 0\n", (int)run,
	         (int)run);
	assert_int_equal(
	        bf_fs_write_atomic(f->path, text, strlen(text), 0600, NULL), 0);
	assert_int_equal(bf_fence_claim(&c, f, 0, 1, NULL), 0);
	assert_int_equal(c.newer, 0);
	assert_int_equal(c.ended, 0);
	assert_true(group_exists(run));
	reap(run);
	bf_fence_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fence__request),
		cmocka_unit_test(test_fence__newer_ends_older),
		cmocka_unit_test(test_fence__older_refused),
		cmocka_unit_test(test_fence__same_lease),
		cmocka_unit_test(test_fence__overlap),
		cmocka_unit_test(test_fence__stale_lines),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
