#include "unit/clocks/clocks_tree.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "benchfarm/buf.h"
#include "benchfarm/err.h"
#include "benchfarm/fs.h"
#include "benchfarm/spawn.h"
#include "check/clocks.h"
#include "probe/devfs.h"

#define FIXTURES "tests/fixtures/clocks/"
#define CPU      "/sys/devices/system/cpu/"

void tree_open(struct clocks_tree *t, const char *fixture)
{
	const char *argv[] = { "cp", "-R", t->pristine, t->root, NULL };
	struct bf_spawn_opts opts = BF_SPAWN_OPTS_INIT;
	struct bf_spawn_result res;

	snprintf(t->dir, sizeof(t->dir), "/tmp/bf-clocks.XXXXXX");
	assert_non_null(mkdtemp(t->dir));
	snprintf(t->root, sizeof(t->root), "%s/root", t->dir);
	snprintf(t->pristine, sizeof(t->pristine), FIXTURES "%s", fixture);
	snprintf(t->state, sizeof(t->state), "%s/state.json", t->dir);
	opts.argv = argv;
	assert_int_equal(bf_spawn_run(&res, &opts, NULL), 0);
	if (!bf_spawn_is_success(&res))
		fail_msg("cannot copy %s (run from the repository root): %s",
		         t->pristine, res.err.buf);
	bf_spawn_result_release(&res);
	assert_int_equal(bf_devfs_open_local(&t->fs, t->root, NULL), 0);
}

void tree_close(struct clocks_tree *t)
{
	bf_devfs_free(t->fs);
	assert_int_equal(bf_fs_rmtree(t->dir, NULL), 0);
}

char *cpu_file(struct clocks_tree *t, const char *rel)
{
	struct bf_buf b = BF_BUF_INIT;
	char path[256];

	snprintf(path, sizeof(path), CPU "%s", rel);
	if (bf_devfs_read(t->fs, path, &b, NULL))
		fail_msg("cannot read %s", path);
	return bf_buf_detach(&b, NULL);
}

void assert_cpu_file(struct clocks_tree *t, const char *rel, const char *want)
{
	char *got = cpu_file(t, rel);

	if (strcmp(got, want))
		fail_msg("%s: '%s', want '%s'", rel, got, want);
	free(got);
}

void break_file(struct clocks_tree *t, const char *rel)
{
	char path[256];

	snprintf(path, sizeof(path), "%s" CPU "%s", t->root, rel);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkdir(path, 0755), 0);
}

void assert_same_tree(const char *pristine, const char *copy, const char *skip)
{
	struct bf_buf a = BF_BUF_INIT, b = BF_BUF_INIT;
	char pa[512], pb[512], gov[512];
	struct dirent *de;
	DIR *d = opendir(pristine);
	struct stat st;

	assert_non_null(d);
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(pa, sizeof(pa), "%s/%s", pristine, de->d_name);
		snprintf(pb, sizeof(pb), "%s/%s", copy, de->d_name);
		assert_int_equal(stat(pa, &st), 0);
		if (S_ISDIR(st.st_mode)) {
			assert_same_tree(pa, pb, skip);
			continue;
		}
		if (skip && strstr(pb, skip))
			continue;
		snprintf(gov, sizeof(gov), "%s/scaling_governor", pristine);
		bf_buf_reset(&a);
		bf_buf_reset(&b);
		if (!strcmp(de->d_name, "scaling_setspeed") &&
		    (bf_buf_read_file(&a, gov, NULL) ||
		     strcmp(a.buf, "userspace\n")))
			continue;
		bf_buf_reset(&a);
		assert_int_equal(bf_buf_read_file(&a, pa, NULL), 0);
		if (bf_buf_read_file(&b, pb, NULL) || strcmp(a.buf, b.buf))
			fail_msg("%s: '%s', want '%s'", pb, b.buf, a.buf);
	}
	closedir(d);
	bf_buf_release(&a);
	bf_buf_release(&b);
}

void assert_restored(struct clocks_tree *t, const char *skip)
{
	assert_same_tree(t->pristine, t->root, skip);
}

json_t *lock_ok(struct clocks_tree *t)
{
	struct bf_err err = BF_ERR_INIT;
	json_t *report = NULL;

	if (bf_clocks_lock(&report, t->fs, t->state, &err))
		fail_msg("lock: %s", err.msg);
	assert_true(json_is_true(json_object_get(report, "locked")));
	return report;
}

void unlock_ok(struct clocks_tree *t)
{
	struct bf_err err = BF_ERR_INIT;
	json_t *report = NULL;

	if (bf_clocks_unlock(&report, t->fs, t->state, &err))
		fail_msg("unlock: %s", err.msg);
	assert_true(json_is_true(json_object_get(report, "restored")));
	json_decref(report);
	assert_false(bf_fs_exists(t->state));
}

void assert_pinned(struct clocks_tree *t, int cpu, const char *khz)
{
	static const char *const files[] = { "scaling_min_freq",
		                             "scaling_max_freq",
		                             "scaling_setspeed" };
	char rel[64];

	snprintf(rel, sizeof(rel), "cpu%d/cpufreq/scaling_governor", cpu);
	assert_cpu_file(t, rel, "userspace\n");
	for (size_t i = 0; i < BF_ARRAY_SIZE(files); i++) {
		snprintf(rel, sizeof(rel), "cpu%d/cpufreq/%s", cpu, files[i]);
		assert_cpu_file(t, rel, khz);
	}
}

json_t *lock_fails(struct clocks_tree *t, const char *want)
{
	struct bf_err err = BF_ERR_INIT;
	json_t *report = NULL;

	assert_true(bf_clocks_lock(&report, t->fs, t->state, &err) < 0);
	if (!strstr(err.msg, want))
		fail_msg("error '%s' lacks '%s'", err.msg, want);
	assert_true(json_is_false(json_object_get(report, "locked")));
	assert_string_equal(json_string_value(json_object_get(report, "error")),
	                    err.msg);
	return report;
}
