/* Unit tests for the build cache (orchestrator/git/buildcache.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/argv.h"
#include "benchfarm/err.h"
#include "benchfarm/fs.h"
#include "config/cfg.h"
#include "git/buildcache.h"

#define TREE "0123456789abcdef0123456789abcdef01234567"

/* The key of building TREE with cfg in the current environment. */
static void key_of(char out[BF_BUILDCACHE_KEY_LEN + 1],
                   const struct bf_cfg *cfg, const char *tree)
{
	json_t *in = bf_buildcache_inputs(tree, cfg);

	bf_buildcache_key(out, in);
	json_decref(in);
}

static void test_buildcache__key_covers_every_input(void **state)
{
	char base[65], k[65];
	struct bf_cfg cfg;

	(void)state;
	unsetenv("CFLAGS");
	unsetenv("BENCHFARM_BUILD_ENV");
	unsetenv("MY_OPT");
	bf_cfg_init(&cfg);
	bf_argv_push(&cfg.project.build, "make");
	key_of(base, &cfg, TREE);
	assert_int_equal(strlen(base), BF_BUILDCACHE_KEY_LEN);
	key_of(k, &cfg, TREE);
	assert_string_equal(k, base);
	/* Not build inputs: the timeout, an unrelated variable. */
	cfg.project.build_timeout_s = 5;
	setenv("SSH_AUTH_SOCK", "/tmp/agent.1", 1);
	key_of(k, &cfg, TREE);
	assert_string_equal(k, base);
	/* Every input changes the key. */
	key_of(k, &cfg, "1123456789abcdef0123456789abcdef01234567");
	assert_string_not_equal(k, base);
	bf_argv_push(&cfg.project.build, "CFLAGS=-O0");
	key_of(k, &cfg, TREE);
	assert_string_not_equal(k, base);
	bf_argv_release(&cfg.project.build);
	bf_argv_push(&cfg.project.build, "make");
	key_of(k, &cfg, TREE);
	assert_string_equal(k, base);
	bf_argv_push(&cfg.project.artifacts, "out/prog");
	key_of(k, &cfg, TREE);
	assert_string_not_equal(k, base);
	bf_argv_release(&cfg.project.artifacts);
	setenv("CFLAGS", "-O0", 1);
	key_of(k, &cfg, TREE);
	assert_string_not_equal(k, base);
	unsetenv("CFLAGS");
	setenv("CMAKE_BUILD_TYPE", "Debug", 1);
	key_of(k, &cfg, TREE);
	assert_string_not_equal(k, base);
	unsetenv("CMAKE_BUILD_TYPE");
	/* A variable the user names in BENCHFARM_BUILD_ENV. */
	setenv("MY_OPT", "1", 1);
	key_of(k, &cfg, TREE);
	assert_string_equal(k, base);
	setenv("BENCHFARM_BUILD_ENV", "OTHER,MY_OPT", 1);
	key_of(base, &cfg, TREE);
	setenv("MY_OPT", "2", 1);
	key_of(k, &cfg, TREE);
	assert_string_not_equal(k, base);
	unsetenv("MY_OPT");
	unsetenv("BENCHFARM_BUILD_ENV");
	bf_cfg_release(&cfg);
}

/*
 * Make's parallelism words are not build inputs: a make running benchfarm
 * under -j hands down a jobserver that may differ on every run. What
 * else the flags say (a variable, -k) is.
 */
static void test_buildcache__make_jobs_are_not_inputs(void **state)
{
	char base[65], k[65];
	char *saved = getenv("MAKEFLAGS");
	struct bf_cfg cfg;

	(void)state;
	saved = saved ? bf_xstrdup(saved) : NULL;
	bf_cfg_init(&cfg);
	bf_argv_push(&cfg.project.build, "make");
	setenv("MAKEFLAGS", "k -- CFLAGS=-O2", 1);
	key_of(base, &cfg, TREE);
	setenv("MAKEFLAGS",
	       "k -j4 --jobserver-auth=fifo:/tmp/GMfifo1 -- CFLAGS=-O2", 1);
	key_of(k, &cfg, TREE);
	assert_string_equal(k, base);
	setenv("MAKEFLAGS", "k --jobs=2 --jobserver-fds=3,4 -j -- CFLAGS=-O2",
	       1);
	key_of(k, &cfg, TREE);
	assert_string_equal(k, base);
	setenv("MAKEFLAGS", "k -j4 -- CFLAGS=-O0", 1);
	key_of(k, &cfg, TREE);
	assert_string_not_equal(k, base);
	setenv("MAKEFLAGS", "-- CFLAGS=-O2", 1);
	key_of(k, &cfg, TREE);
	assert_string_not_equal(k, base);
	if (saved)
		setenv("MAKEFLAGS", saved, 1);
	else
		unsetenv("MAKEFLAGS");
	free(saved);
	bf_cfg_release(&cfg);
}

static void test_buildcache__sizes(void **state)
{
	struct bf_err err = BF_ERR_INIT;
	uint64_t v = 7;
	char buf[32];

	(void)state;
	assert_int_equal(bf_size_parse(&v, "0", &err), 0);
	assert_int_equal(v, 0);
	assert_int_equal(bf_size_parse(&v, "1234", &err), 0);
	assert_int_equal(v, 1234);
	assert_int_equal(bf_size_parse(&v, "512M", &err), 0);
	assert_int_equal(v, 512ull << 20);
	assert_int_equal(bf_size_parse(&v, "5GiB", &err), 0);
	assert_int_equal(v, 5ull << 30);
	assert_int_equal(bf_size_parse(&v, "2T", &err), 0);
	assert_int_equal(v, 2ull << 40);
	v = 7;
	assert_int_equal(bf_size_parse(&v, "", &err), BF_EINVAL);
	assert_int_equal(bf_size_parse(&v, "5X", &err), BF_EINVAL);
	assert_non_null(strstr(err.msg, "'5X' is not a size"));
	assert_int_equal(bf_size_parse(&v, "-1", &err), BF_EINVAL);
	assert_int_equal(bf_size_parse(&v, "1.5G", &err), BF_EINVAL);
	assert_int_equal(bf_size_parse(&v, "99999999999T", &err), BF_EINVAL);
	assert_int_equal(bf_size_parse(&v, "99999999999999999999", &err),
	                 BF_EINVAL);
	assert_int_equal(v, 7);
	bf_size_format(buf, sizeof(buf), 812);
	assert_string_equal(buf, "812 B");
	bf_size_format(buf, sizeof(buf), 88290099);
	assert_string_equal(buf, "84.2 MiB");
	bf_size_format(buf, sizeof(buf), 5ull << 30);
	assert_string_equal(buf, "5.0 GiB");

	unsetenv("BENCHFARM_CACHE_MAX_SIZE");
	assert_int_equal(bf_buildcache_max_size(&v, &err), 0);
	assert_int_equal(v, BF_BUILDCACHE_DEFAULT_MAX);
	setenv("BENCHFARM_CACHE_MAX_SIZE", "0", 1);
	assert_int_equal(bf_buildcache_max_size(&v, &err), 0);
	assert_true(v == UINT64_MAX);
	setenv("BENCHFARM_CACHE_MAX_SIZE", "lots", 1);
	assert_int_equal(bf_buildcache_max_size(&v, &err), BF_EINVAL);
	assert_non_null(strstr(err.msg, "BENCHFARM_CACHE_MAX_SIZE"));
	unsetenv("BENCHFARM_CACHE_MAX_SIZE");
}

/* Entry key in cache/builds with a file of n bytes, last used at t. */
static void make_entry(const char *cache, char key, size_t n, time_t t)
{
	char name[65], *dir, *file, *lock;
	struct timespec ts[2] = { { t, 0 }, { t, 0 } };
	FILE *f;

	memset(name, key, 64);
	name[64] = '\0';
	dir = bf_xasprintf("%s/builds/%s", cache, name);
	file = bf_xasprintf("%s/data", dir);
	lock = bf_xasprintf("%s/builds/%s.lock", cache, name);
	assert_int_equal(bf_fs_mkdirs(dir, 0700, NULL), 0);
	f = fopen(file, "w");
	assert_non_null(f);
	for (size_t i = 0; i < n; i++)
		fputc('x', f);
	fclose(f);
	f = fopen(lock, "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(utimensat(AT_FDCWD, lock, ts, 0), 0);
	free(dir);
	free(file);
	free(lock);
}

static bool entry_exists(const char *cache, char key)
{
	char name[65], *dir;
	bool e;

	memset(name, key, 64);
	name[64] = '\0';
	dir = bf_xasprintf("%s/builds/%s", cache, name);
	e = bf_fs_exists(dir);
	free(dir);
	return e;
}

static void test_buildcache__locks_and_prune(void **state)
{
	char tmpl[] = "/tmp/bf-test-buildcache-XXXXXX";
	struct bf_buildcache_pruned pr;
	struct bf_err err = BF_ERR_INIT;
	char a[65], *builds;
	int rd1 = -1, rd2 = -1, wr = -1;

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	builds = bf_xasprintf("%s/builds", tmpl);
	make_entry(tmpl, 'a', 1000, 1000); /* least recently used */
	make_entry(tmpl, 'b', 1000, 2000);
	make_entry(tmpl, 'c', 1000, 3000);
	memset(a, 'a', 64);
	a[64] = '\0';
	/* Readers share; a writer waits for them (here: does not wait). */
	assert_int_equal(
	        bf_buildcache_lock(&rd1, builds, a, F_RDLCK, false, &err), 0);
	assert_int_equal(
	        bf_buildcache_lock(&rd2, builds, a, F_RDLCK, false, &err), 0);
	assert_int_equal(
	        bf_buildcache_lock(&wr, builds, a, F_WRLCK, false, &err),
	        BF_EBUSY);
	close(rd2);
	/* In use even by this process: the oldest is kept, the next goes. */
	assert_int_equal(bf_buildcache_prune(&pr, tmpl, 2500, false, &err), 0);
	assert_int_equal(pr.removed, 1);
	assert_int_equal(pr.kept_in_use, 1);
	assert_true(entry_exists(tmpl, 'a'));
	assert_false(entry_exists(tmpl, 'b'));
	assert_true(entry_exists(tmpl, 'c'));
	close(rd1);
	/* Under the limit: nothing to do. */
	assert_int_equal(bf_buildcache_prune(&pr, tmpl, 1u << 20, false, &err),
	                 0);
	assert_int_equal(pr.removed, 0);
	assert_int_equal(bf_buildcache_prune(&pr, tmpl, 0, true, &err), 0);
	assert_int_equal(pr.removed, 2);
	assert_false(entry_exists(tmpl, 'a'));
	assert_false(entry_exists(tmpl, 'c'));
	assert_int_equal(bf_fs_rmtree(tmpl, NULL), 0);
	free(builds);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buildcache__key_covers_every_input),
		cmocka_unit_test(test_buildcache__make_jobs_are_not_inputs),
		cmocka_unit_test(test_buildcache__sizes),
		cmocka_unit_test(test_buildcache__locks_and_prune),
	};

	return cmocka_run_group_tests_name("buildcache", tests, NULL, NULL);
}
