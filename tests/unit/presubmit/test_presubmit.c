/*
 * The measuring engine (orchestrator/job/presubmit.c) prints nothing: a
 * job that cannot start, or whose build fails, tells its caller through
 * the note callback and its struct bf_err, and standard output and
 * error stay empty. A real git repository, config and store in a
 * temporary directory.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/buf.h"
#include "benchfarm/err.h"
#include "benchfarm/exitcode.h"
#include "benchfarm/fs.h"
#include "benchfarm/json.h"
#include "benchfarm/spawn.h"
#include "config/cfg.h"
#include "job/presubmit.h"
#include "store/store.h"

#define MAX_NOTES 16

/* What the job told its caller, in order. */
struct notes {
	size_t n;
	enum bf_job_note kind[MAX_NOTES];
	char *text[MAX_NOTES];
};

static void collect(void *arg, enum bf_job_note kind, const char *text)
{
	struct notes *ns = arg;

	assert_true(ns->n < MAX_NOTES);
	ns->kind[ns->n] = kind;
	ns->text[ns->n++] = bf_xstrdup(text);
}

static void notes_release(struct notes *ns)
{
	for (size_t i = 0; i < ns->n; i++)
		free(ns->text[i]);
	ns->n = 0;
}

struct fixture {
	char *tmp; /* mkdtemp directory holding everything below */
	struct bf_cfg cfg;
	struct bf_store *store;
};

static struct fixture fx;

static char *path_in(const char *name)
{
	return bf_xasprintf("%s/%s", fx.tmp, name);
}

static void write_file(const char *name, const char *text)
{
	char *path = path_in(name);
	struct bf_err err = BF_ERR_INIT;

	if (bf_fs_write_atomic(path, text, strlen(text), 0644, &err))
		fail_msg("%s", err.msg);
	free(path);
}

/* git with args (NULL-terminated) in the repository; it must succeed. */
static void git(const char *const *args)
{
	static const char *const env[] = {
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=Ada Author",
		"GIT_AUTHOR_EMAIL=ada@example.com",
		"GIT_COMMITTER_NAME=Cy Committer",
		"GIT_COMMITTER_EMAIL=cy@example.com",
		NULL,
	};
	const char *argv[8] = { "git" };
	struct bf_spawn_opts opts = BF_SPAWN_OPTS_INIT;
	struct bf_spawn_result res;

	for (size_t i = 0; args[i]; i++) {
		assert_true(i + 2 < BF_ARRAY_SIZE(argv));
		argv[i + 1] = args[i];
	}
	opts.argv = argv;
	opts.cwd = fx.tmp;
	opts.env_set = env;
	assert_int_equal(bf_spawn_run(&res, &opts, NULL), 0);
	if (!bf_spawn_is_success(&res))
		fail_msg("git %s failed: %s", args[0], res.err.buf);
	bf_spawn_result_release(&res);
}

/* A repository of one commit whose build fails, saying so in its log. */
static int setup(void **state)
{
	char tmpl[] = "/tmp/bf-presubmit-XXXXXX";
	struct bf_err err = BF_ERR_INIT;
	char *cache, *cfg, *db;

	(void)state;
	if (!mkdtemp(tmpl))
		return -1;
	fx.tmp = bf_xstrdup(tmpl);
	cache = path_in("cache");
	setenv("BENCHFARM_CACHE", cache, 1);
	free(cache);
	write_file("b.sh", "echo 'x 1 ns'\n");
	write_file("bf.yaml",
	           "version: 1\n"
	           "project: {repo: ., target_branch: main,\n"
	           "          build: [sh, -c, 'echo compiling; echo error: "
	           "boom; exit 2']}\n"
	           "benchmarks:\n"
	           "  - {name: b, command: [sh, b.sh], format: lines}\n");
	git((const char *[]){ "init", "-q", "-b", "main", NULL });
	git((const char *[]){ "add", "-A", NULL });
	git((const char *[]){ "commit", "-qm", "one", NULL });
	cfg = path_in("bf.yaml");
	db = path_in("bf.db");
	if (bf_cfg_load(&fx.cfg, cfg, &err) ||
	    bf_store_open(&fx.store, db, &err))
		fail_msg("%s", err.msg);
	free(cfg);
	free(db);
	return 0;
}

static int teardown(void **state)
{
	const char *argv[] = { "rm", "-rf", fx.tmp, NULL };
	struct bf_spawn_opts opts = BF_SPAWN_OPTS_INIT;
	struct bf_spawn_result res;

	(void)state;
	bf_store_close(fx.store);
	bf_cfg_release(&fx.cfg);
	bf_spawn_result_init(&res);
	opts.argv = argv;
	if (!strncmp(fx.tmp, "/tmp/bf-presubmit-", 18))
		bf_spawn_run(&res, &opts, NULL);
	bf_spawn_result_release(&res);
	free(fx.tmp);
	return 0;
}

/*
 * Run the job with standard output and error going to a file; returns
 * its exit code, and asserts that nothing was written there.
 */
static int run_silent(const struct bf_presubmit_opts *o, struct bf_err *err)
{
	char *path = path_in("printed");
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	int out = dup(1), errfd = dup(2), ret;
	struct bf_buf b;

	assert_true(fd >= 0 && out >= 0 && errfd >= 0);
	fflush(stdout);
	fflush(stderr);
	dup2(fd, 1);
	dup2(fd, 2);
	ret = bf_presubmit_run(o, &fx.cfg, fx.store, err);
	fflush(stdout);
	fflush(stderr);
	dup2(out, 1);
	dup2(errfd, 2);
	close(out);
	close(errfd);
	close(fd);
	bf_buf_init(&b, 64 * 1024);
	assert_int_equal(bf_buf_read_file(&b, path, NULL), 0);
	free(path);
	if (b.len)
		fail_msg("the job printed: %s", b.buf);
	bf_buf_release(&b);
	return ret;
}

static void test_presubmit__unknown_revision_is_a_note(void **state)
{
	struct bf_presubmit_opts o = BF_PRESUBMIT_OPTS_INIT;
	struct bf_err err = BF_ERR_INIT;
	struct notes ns = { 0 };

	(void)state;
	o.patch = "no-such-rev";
	o.note = collect;
	o.note_arg = &ns;
	assert_int_equal(run_silent(&o, &err), BF_EXIT_USAGE);
	assert_int_equal(ns.n, 1);
	assert_int_equal(ns.kind[0], BF_JOB_ERROR);
	assert_non_null(strstr(ns.text[0], "no-such-rev"));
	assert_int_not_equal(err.code, 0);
	assert_string_equal(err.msg, ns.text[0]);
	notes_release(&ns);
}

static void test_presubmit__failed_build_is_notes(void **state)
{
	struct bf_presubmit_opts o = BF_PRESUBMIT_OPTS_INIT;
	struct bf_err err = BF_ERR_INIT;
	struct notes ns = { 0 };
	json_t *failure = NULL;

	(void)state;
	o.record = true;
	o.note = collect;
	o.note_arg = &ns;
	o.failure_out = &failure;
	assert_int_equal(run_silent(&o, &err), BF_EXIT_INFRA);
	assert_int_equal(ns.n, 3);
	assert_int_equal(ns.kind[0], BF_JOB_PREPARING);
	assert_true(!strncmp(ns.text[0], "commit ", 7) &&
	            strlen(ns.text[0]) == 7 + 12);
	assert_int_equal(ns.kind[1], BF_JOB_ERROR);
	assert_non_null(strstr(ns.text[1], "build of "));
	assert_int_equal(ns.kind[2], BF_JOB_BUILD_LOG);
	assert_non_null(strstr(ns.text[2], "error: boom"));
	assert_string_equal(err.msg, ns.text[1]);
	assert_string_equal(bf_json_str_or(failure, "stage", ""), "build");
	assert_string_equal(bf_json_str_or(failure, "error", ""), ns.text[1]);
	json_decref(failure);
	notes_release(&ns);
}

/* Without a note function the notes are dropped, and err still says. */
static void test_presubmit__no_note_function(void **state)
{
	struct bf_presubmit_opts o = BF_PRESUBMIT_OPTS_INIT;
	struct bf_err err = BF_ERR_INIT;

	(void)state;
	o.record = true;
	assert_int_equal(run_silent(&o, &err), BF_EXIT_INFRA);
	assert_non_null(strstr(err.msg, "build of "));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_presubmit__unknown_revision_is_a_note),
		cmocka_unit_test(test_presubmit__failed_build_is_notes),
		cmocka_unit_test(test_presubmit__no_note_function),
	};

	return cmocka_run_group_tests_name("presubmit", tests, setup, teardown);
}
