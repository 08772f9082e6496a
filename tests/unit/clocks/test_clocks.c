/*
 * Unit tests for lock-clocks / unlock-clocks (agent/check/clocks.c,
 * clocks_state.c, agent/cmd_clocks.c): Jetpack's frequency rule, and locking
 * and restoring on copies of the sysroot trees in tests/fixtures/clocks/ (run
 * from the repository root, as make check does). Files made unwritable are
 * replaced by directories, which stops root too.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent.h"
#include "benchfarm/buf.h"
#include "benchfarm/err.h"
#include "benchfarm/fs.h"
#include "benchfarm/spawn.h"
#include "check/clocks.h"
#include "probe/devfs.h"
#include "unit/clocks/clocks_tree.h"

#define FIXTURES "tests/fixtures/clocks/"
#define CPU      "/sys/devices/system/cpu/"

static void test_clocks__jetpack_target_rule(void **state)
{
	static const int64_t little[] = { 300000,  576000,  768000,
		                          1017600, 1248000, 1804800 };
	static const int64_t odd[] = { 2000000, 999999, 1000400, 1500000 };
	struct bf_err err = BF_ERR_INIT;
	int64_t t = 0;
	bool table = false;

	(void)state;
	/* 50% of 1804800 kHz is 902.4 MHz: threshold 902 MHz. */
	assert_int_equal(
	        bf_clocks_target_khz(&t, &table, 1804800, little, 6, &err), 0);
	assert_int_equal(t, 1017600);
	assert_true(table);
	/* Unsorted; whole MHz: 999999 is 999 MHz < 1000, 1000400 is in. */
	assert_int_equal(
	        bf_clocks_target_khz(&t, &table, 2000000, odd, 4, &err), 0);
	assert_int_equal(t, 1000400);
	/* Jetpack compares whole MHz: 999500 kHz is 999 MHz, and 50% of
	 * 1999999 kHz is 999.9995 MHz, floored to 999. */
	assert_int_equal(bf_clocks_target_khz(
	                         &t, &table, 1999999,
	                         (const int64_t[]){ 999500, 1200000 }, 2, &err),
	                 0);
	assert_int_equal(t, 999500);
	/* Exactly 50% qualifies. */
	assert_int_equal(
	        bf_clocks_target_khz(&t, &table, 2035200, little, 6, &err), 0);
	assert_int_equal(t, 1017600);
	/* No table: the threshold itself, floor(max * 50 / 100000) MHz. */
	assert_int_equal(
	        bf_clocks_target_khz(&t, &table, 2899999, NULL, 0, &err), 0);
	assert_int_equal(t, 1449000);
	assert_false(table);
	/* Nothing reaches 50%, or no maximum: refused. */
	assert_int_equal(
	        bf_clocks_target_khz(&t, &table, 4000000, little, 6, &err),
	        BF_EINVAL);
	assert_string_equal(err.msg, "no available frequency reaches 2000 MHz "
	                             "(50% of 4000000 kHz)");
	assert_int_equal(bf_clocks_target_khz(&t, &table, 0, little, 6, &err),
	                 BF_EINVAL);
}

static void test_clocks__lock_then_unlock_exactly(void **state)
{
	struct clocks_tree t;
	json_t *report, *cores;
	struct stat st;

	(void)state;
	tree_open(&t, "phone");
	report = lock_ok(&t);
	/* Little cores: 1017600 of 1804800; big core: 1363200 of 2476800. */
	assert_pinned(&t, 0, "1017600\n");
	assert_pinned(&t, 1, "1017600\n");
	assert_pinned(&t, 2, "1363200\n");
	/* The offline big core came online; cpu0 has no online file. */
	assert_cpu_file(&t, "cpu2/online", "1\n");
	cores = json_object_get(report, "cores");
	assert_int_equal(json_array_size(cores), 3);
	assert_true(json_is_true(
	        json_object_get(json_array_get(cores, 2), "onlined")));
	assert_null(json_object_get(json_array_get(cores, 0), "onlined"));
	assert_true(json_is_null(json_object_get(
	        json_object_get(json_array_get(cores, 0), "was"), "online")));
	assert_string_equal(json_string_value(json_object_get(report, "state")),
	                    "saved");
	assert_int_equal(json_integer_value(json_object_get(
	                         json_array_get(cores, 2), "target_khz")),
	                 1363200);
	/* The state file is private. */
	assert_int_equal(stat(t.state, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	json_decref(report);
	/* Unlocked, every file is as it was, to the byte. */
	unlock_ok(&t);
	assert_restored(&t, NULL);
	/* Including the set speed of the core that was on userspace. */
	assert_cpu_file(&t, "cpu1/cpufreq/scaling_setspeed", "576000\n");
	assert_cpu_file(&t, "cpu2/online", "0\n");
	tree_close(&t);
}

static void test_clocks__locking_twice_keeps_the_original(void **state)
{
	struct bf_buf first = BF_BUF_INIT, second = BF_BUF_INIT;
	struct clocks_tree t;
	json_t *report;

	(void)state;
	tree_open(&t, "phone");
	json_decref(lock_ok(&t));
	assert_int_equal(bf_buf_read_file(&first, t.state, NULL), 0);
	report = lock_ok(&t);
	assert_string_equal(json_string_value(json_object_get(report, "state")),
	                    "kept");
	json_decref(report);
	assert_int_equal(bf_buf_read_file(&second, t.state, NULL), 0);
	assert_string_equal(first.buf, second.buf);
	assert_non_null(strstr(first.buf, "\"schedutil\""));
	unlock_ok(&t);
	assert_restored(&t, NULL);
	bf_buf_release(&first);
	bf_buf_release(&second);
	tree_close(&t);
}

static void test_clocks__no_frequency_table(void **state)
{
	struct clocks_tree t;
	json_t *report;

	(void)state;
	tree_open(&t, "notable");
	report = lock_ok(&t);
	assert_pinned(&t, 0, "1700000\n");
	assert_pinned(&t, 1, "1449000\n");
	assert_true(json_is_false(json_object_get(
	        json_array_get(json_object_get(report, "cores"), 1),
	        "from_table")));
	json_decref(report);
	unlock_ok(&t);
	assert_restored(&t, NULL);
	assert_cpu_file(&t, "cpu1/cpufreq/scaling_governor", "performance\n");
	tree_close(&t);
}

static void test_clocks__unwritable_file_is_recorded(void **state)
{
	const char *broken = "cpu2/cpufreq/scaling_setspeed";
	struct clocks_tree t;

	(void)state;
	tree_open(&t, "phone");
	break_file(&t, broken);
	json_decref(lock_fails(&t, "cannot write '" CPU
	                           "cpu2/cpufreq/scaling_setspeed'"));
	/* Half done (cpu0, cpu1 pinned, cpu2 online), but recorded. */
	assert_pinned(&t, 0, "1017600\n");
	assert_cpu_file(&t, "cpu2/online", "1\n");
	assert_true(bf_fs_exists(t.state));
	unlock_ok(&t);
	assert_restored(&t, broken);
	tree_close(&t);
}

static void test_clocks__bad_input_changes_nothing(void **state)
{
	static const struct {
		const char *file, *text, *want;
	} cases[] = {
		{ "cpu1/cpufreq/scaling_available_frequencies", "300000 x\n",
		  "scaling_available_frequencies: 'x' is not a frequency" },
		{ "cpu1/cpufreq/scaling_max_freq", "fast\n",
		  "scaling_max_freq: 'fast' is not an integer" },
		{ "cpu2/cpufreq/cpuinfo_max_freq", "-5\n",
		  "cpu2: maximum frequency -5 kHz is not positive" },
		{ "cpu0/cpufreq/scaling_available_governors",
		  "performance schedutil userspacex\n",
		  "cpu0 has no userspace governor" },
		{ "cpu1/online", "", "online: '' is not an integer" },
		{ "cpu1/cpufreq/scaling_min_freq", NULL,
		  "nothing changed: cannot read '" },
	};

	(void)state;
	for (size_t i = 0; i < BF_ARRAY_SIZE(cases); i++) {
		struct clocks_tree t;
		char path[256];

		tree_open(&t, "phone");
		snprintf(path, sizeof(path), CPU "%s", cases[i].file);
		if (!cases[i].text)
			break_file(&t, cases[i].file);
		else
			assert_int_equal(
			        bf_devfs_write(t.fs, path, cases[i].text, NULL),
			        0);
		json_decref(lock_fails(&t, cases[i].want));
		assert_false(bf_fs_exists(t.state));
		assert_restored(&t, cases[i].file);
		tree_close(&t);
	}
}

static void test_clocks__offline_core_without_cpufreq(void **state)
{
	struct clocks_tree t;
	char path[256];

	(void)state;
	tree_open(&t, "phone");
	/* Offline, its cpufreq is gone, and stays gone once online. */
	snprintf(path, sizeof(path), "%s" CPU "cpu2/cpufreq", t.root);
	assert_int_equal(bf_fs_rmtree(path, NULL), 0);
	json_decref(lock_fails(&t, "cpu2 has no cpufreq"));
	/* Onlining it was recorded first: unlock takes it offline again. */
	assert_cpu_file(&t, "cpu2/online", "1\n");
	unlock_ok(&t);
	assert_cpu_file(&t, "cpu2/online", "0\n");
	assert_restored(&t, "cpu2/cpufreq");
	tree_close(&t);
}

/*
 * A kernel stand-in over the local sysroot: cpu2's cpufreq directory
 * exists only while cpu2 is online (kept as cpufreq.off meanwhile), as
 * on devices where an offline policy is out of reach.
 */
/*
 * A kernel stand-in over the local sysroot: cpu2's cpufreq directory
 * exists only while cpu2 is online (kept as cpufreq.off meanwhile), as
 * on devices where an offline policy is out of reach.
 */
static const char *hotplug_root;
static const struct bf_devfs_ops *hotplug_local;

static void hotplug_move(bool online)
{
	char on[200], off[256];

	snprintf(on, sizeof(on), "%s" CPU "cpu2/cpufreq", hotplug_root);
	snprintf(off, sizeof(off), "%s.off", on);
	rename(online ? off : on, online ? on : off);
}

static int hotplug_write(void *st, const char *path, const char *data,
                         struct bf_err *err)
{
	int ret = hotplug_local->write(st, path, data, err);

	if (!ret && !strcmp(path, CPU "cpu2/online"))
		hotplug_move(data[0] == '1');
	return ret;
}

static void test_clocks__offline_cpufreq_recorded_once_online(void **state)
{
	struct bf_buf saved = BF_BUF_INIT;
	struct bf_devfs_ops ops;
	struct bf_devfs fs;
	json_t *report = NULL;
	struct clocks_tree t;

	(void)state;
	tree_open(&t, "phone");
	hotplug_root = t.root;
	hotplug_local = t.fs->ops;
	ops = *t.fs->ops;
	ops.write = hotplug_write;
	fs = (struct bf_devfs){ &ops, t.fs->state, t.fs->desc };
	hotplug_move(false);
	assert_int_equal(bf_clocks_lock(&report, &fs, t.state, NULL), 0);
	json_decref(report);
	assert_pinned(&t, 2, "1363200\n");
	/* What cpu2 had once online was recorded before it was pinned. */
	assert_int_equal(bf_buf_read_file(&saved, t.state, NULL), 0);
	assert_non_null(strstr(saved.buf, "\"min_khz\": 652800"));
	assert_non_null(strstr(saved.buf, "\"max_khz\": 2476800"));
	assert_int_equal(bf_clocks_unlock(&report, &fs, t.state, NULL), 0);
	json_decref(report);
	/* Restored while online, then offline (and out of reach) again. */
	hotplug_move(true);
	assert_restored(&t, NULL);
	bf_buf_release(&saved);
	tree_close(&t);
}

static void test_clocks__state_of_another_device_or_damaged(void **state)
{
	struct bf_err err = BF_ERR_INIT;
	struct clocks_tree t, other;
	json_t *report = NULL;
	FILE *f;

	(void)state;
	tree_open(&t, "phone");
	tree_open(&other, "notable");
	json_decref(lock_ok(&other));
	/* other's state file, given for t: refused, t untouched. */
	snprintf(t.state, sizeof(t.state), "%s", other.state);
	json_decref(lock_fails(&t, "holds the clocks of sysroot '"));
	assert_restored(&t, NULL);
	assert_int_equal(bf_clocks_unlock(&report, t.fs, t.state, &err),
	                 BF_EINVAL);
	json_decref(report);
	assert_true(bf_fs_exists(other.state));
	/* A damaged state file: named, nothing changed. */
	f = fopen(other.state, "w");
	assert_non_null(f);
	fputs("{\"version\": 1, \"cores\": 7}", f);
	fclose(f);
	json_decref(lock_fails(&t, "is not a benchfarm clock state file"));
	assert_int_equal(bf_clocks_unlock(&report, t.fs, t.state, &err),
	                 BF_ECORRUPT);
	assert_non_null(strstr(err.msg, other.state));
	json_decref(report);
	assert_restored(&t, NULL);
	tree_close(&other);
	tree_close(&t);
}

static void test_clocks__unlock_without_state(void **state)
{
	struct bf_err err = BF_ERR_INIT;
	struct clocks_tree t;
	json_t *report = NULL;

	(void)state;
	tree_open(&t, "phone");
	assert_int_equal(bf_clocks_unlock(&report, t.fs, t.state, &err), 0);
	assert_true(json_is_false(json_object_get(report, "restored")));
	json_decref(report);
	assert_restored(&t, NULL);
	tree_close(&t);
}

/* Run an agent command with stdout into out. */
static int run_cmd(struct bf_buf *out, const char *const *args)
{
	struct bf_agent_ctx ctx = { "/", NULL, NULL };
	char *argv[16], chunk[4096];
	FILE *f = tmpfile();
	int argc = 0, saved, ret;
	size_t n;

	while (args[argc]) {
		argv[argc] = (char *)args[argc];
		argc++;
	}
	argv[argc] = NULL;
	fflush(stdout);
	saved = dup(1);
	dup2(fileno(f), 1);
	ret = bf_agent_cmd_find(args[0])->fn(argc, argv, &ctx);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	rewind(f);
	bf_buf_reset(out);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		bf_buf_add(out, chunk, n);
	fclose(f);
	return ret;
}

static void test_clocks__commands(void **state)
{
	struct bf_buf out = BF_BUF_INIT;
	char statefile[128];
	struct clocks_tree t;

	(void)state;
	tree_open(&t, "phone");
	{
		const char *lock[] = { "lock-clocks", "--root", t.root,
			               "--state-dir", t.dir,    NULL };
		const char *unlock[] = { "unlock-clocks", "--root", t.root,
			                 "--state-dir",   t.dir,    NULL };
		const char *help[] = { "lock-clocks", "-h", NULL };
		const char *extra[] = { "unlock-clocks", "now", NULL };

		snprintf(statefile, sizeof(statefile), "%s/clocks-local.json",
		         t.dir);
		assert_int_equal(run_cmd(&out, lock), 0);
		assert_non_null(strstr(out.buf, "\"locked\": true"));
		assert_true(bf_fs_exists(statefile));
		assert_pinned(&t, 2, "1363200\n");
		assert_int_equal(run_cmd(&out, unlock), 0);
		assert_non_null(strstr(out.buf, "\"restored\": true"));
		assert_false(bf_fs_exists(statefile));
		assert_restored(&t, NULL);
		assert_int_equal(run_cmd(&out, help), 0);
		assert_int_equal(run_cmd(&out, extra), 2);
	}
	bf_buf_release(&out);
	tree_close(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clocks__jetpack_target_rule),
		cmocka_unit_test(test_clocks__lock_then_unlock_exactly),
		cmocka_unit_test(test_clocks__locking_twice_keeps_the_original),
		cmocka_unit_test(test_clocks__no_frequency_table),
		cmocka_unit_test(test_clocks__unwritable_file_is_recorded),
		cmocka_unit_test(test_clocks__bad_input_changes_nothing),
		cmocka_unit_test(test_clocks__offline_core_without_cpufreq),
		cmocka_unit_test(
		        test_clocks__offline_cpufreq_recorded_once_online),
		cmocka_unit_test(
		        test_clocks__state_of_another_device_or_damaged),
		cmocka_unit_test(test_clocks__unlock_without_state),
		cmocka_unit_test(test_clocks__commands),
	};

	return cmocka_run_group_tests_name("clocks", tests, NULL, NULL);
}
