/*
 * Unit tests for keeping a duet's runs apart (agent/duet_isolate.c): a
 * run isolated as far as the machine allows is the first process of a
 * PID namespace of its own whose /proc lists nothing of the test's, and
 * it cannot signal the test's process by its number, and it runs on its
 * one CPU and cannot move to another (a cpuset, or its affinity pinned
 * by a seccomp filter); where the machine cannot, it says why. The modes parse,
 * and a run short of what its mode needs is refused with what it lacks.
 */
#define _GNU_SOURCE 1 /* sched_getaffinity, CPU_COUNT */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "duet_isolate.h"

/* What the isolated child found, sent back to the test. */
struct seen {
	struct bf_duet_iso iso;
	pid_t pid; /* its own pid */
	int kill_errno; /* kill(test, 0): 0 when it could */
	int listed; /* the test's pid is in its /proc */
	int ncpus; /* CPUs its affinity allows */
	int move_errno; /* moving to every CPU: 0 when it could */
};

/* How many CPUs the caller may run on, and whether it can widen that. */
static void affinity(struct seen *s)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	s->ncpus =
	        sched_getaffinity(0, sizeof(set), &set) ? -1 : CPU_COUNT(&set);
	for (int c = 0; c < 64; c++)
		CPU_SET(c, &set);
	s->move_errno = sched_setaffinity(0, sizeof(set), &set) ? errno : 0;
}

/* Whether /proc lists pid. */
static int listed(pid_t pid)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	char name[32];
	int found = 0;

	snprintf(name, sizeof(name), "%ld", (long)pid);
	while (d && (e = readdir(d)))
		if (!strcmp(e->d_name, name))
			found = 1;
	if (d)
		closedir(d);
	return found;
}

static void test_duet_isolate__cannot_see_or_signal_the_agent(void **state)
{
	pid_t test = getpid(), pid;
	struct seen s;
	int fds[2], st = 0;
	ssize_t n;

	(void)state;
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		memset(&s, 0, sizeof(s));
		bf_duet_isolate(&s.iso, BF_DUET_ISO_BEST_EFFORT, 0, 0);
		s.pid = getpid();
		s.kill_errno = kill(test, 0) ? errno : 0;
		s.listed = listed(test);
		affinity(&s);
		_exit(write(fds[1], &s, sizeof(s)) == (ssize_t)sizeof(s) ? 0
		                                                         : 1);
	}
	close(fds[1]);
	n = read(fds[0], &s, sizeof(s));
	close(fds[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_int_equal(n, (ssize_t)sizeof(s));
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	bf_duet_cpuset_remove(0);
	if (!s.iso.processes) {
		/* this machine cannot: it says why, and nothing else holds */
		print_message("not isolated here: %s\n", s.iso.processes_why);
		assert_true(s.iso.processes_why[0] != '\0');
		return;
	}
	assert_int_equal(s.pid, 1);
	assert_int_equal(s.kill_errno, ESRCH);
	assert_int_equal(s.listed, 0);
	if (!s.iso.cores) {
		print_message("cores not isolated here: %s\n", s.iso.cores_why);
		assert_true(s.iso.cores_why[0] != '\0');
		return;
	}
	assert_int_equal(s.ncpus, 1);
	if (s.iso.pinned)
		assert_int_equal(s.move_errno, EPERM);
}

static void test_duet_isolate__none_says_so(void **state)
{
	struct bf_duet_iso iso;
	char msg[512];

	(void)state;
	bf_duet_isolate(&iso, BF_DUET_ISO_NONE, 0, 0);
	assert_false(iso.processes);
	assert_false(iso.cores);
	assert_non_null(strstr(iso.processes_why, "duet_isolation: none"));
	assert_false(
	        bf_duet_iso_is_short(&iso, BF_DUET_ISO_NONE, msg, sizeof(msg)));
	assert_false(bf_duet_iso_is_short(&iso, BF_DUET_ISO_BEST_EFFORT, msg,
	                                  sizeof(msg)));
	assert_true(bf_duet_iso_is_short(&iso, BF_DUET_ISO_PROCESSES, msg,
	                                 sizeof(msg)));
	assert_non_null(strstr(msg, "processes needs each side in its own "
	                            "PID namespace"));
	iso.processes = true;
	assert_false(bf_duet_iso_is_short(&iso, BF_DUET_ISO_PROCESSES, msg,
	                                  sizeof(msg)));
	assert_true(
	        bf_duet_iso_is_short(&iso, BF_DUET_ISO_FULL, msg, sizeof(msg)));
	assert_non_null(strstr(msg, "full needs each side held on its core"));
}

static void test_duet_isolate__modes(void **state)
{
	enum bf_duet_iso_mode m = BF_DUET_ISO_NONE;

	(void)state;
	assert_int_equal(bf_duet_iso_mode_of(&m, NULL), 0);
	assert_int_equal(m, BF_DUET_ISO_BEST_EFFORT);
	assert_int_equal(bf_duet_iso_mode_of(&m, "full"), 0);
	assert_int_equal(m, BF_DUET_ISO_FULL);
	assert_int_equal(bf_duet_iso_mode_of(&m, "none"), 0);
	assert_int_equal(m, BF_DUET_ISO_NONE);
	assert_int_not_equal(bf_duet_iso_mode_of(&m, "fully"), 0);
	assert_int_equal(m, BF_DUET_ISO_NONE);
}

static void test_duet_isolate__json(void **state)
{
	struct bf_duet_iso iso = { .processes = true,
		                   .cores_why = "no cpuset" };
	json_t *o = bf_duet_iso_json(&iso, 7);

	(void)state;
	assert_string_equal(json_string_value(json_object_get(o, "type")),
	                    "isolation");
	assert_true(json_is_true(json_object_get(o, "processes")));
	assert_null(json_object_get(o, "processes_why"));
	assert_string_equal(json_string_value(json_object_get(o, "cores_why")),
	                    "no cpuset");
	json_decref(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
		        test_duet_isolate__cannot_see_or_signal_the_agent),
		cmocka_unit_test(test_duet_isolate__none_says_so),
		cmocka_unit_test(test_duet_isolate__modes),
		cmocka_unit_test(test_duet_isolate__json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
