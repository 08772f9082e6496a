/*
 * Unit tests for the hyperfine parser (agent/parse/parse_hyperfine.c):
 * captured exports and a live run of Debian's hyperfine, compared with
 * the file as jansson reads it. Run from the repository root (make
 * check does).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <unistd.h>

#include "benchfarm/alloc.h"
#include "benchfarm/buf.h"
#include "benchfarm/err.h"
#include "benchfarm/json.h"
#include "benchfarm/sample.h"
#include "benchfarm/spawn.h"
#include "parse/parse.h"
#include "unit/parse/parse_helpers.h"
#include "unit/testutil.h"

#define HYPERFINE_DIR "tests/fixtures/hyperfine/"

/* Compares the parse of a hyperfine export with jansson's reading. */
static void check_hyperfine(const struct bf_samples *s, const json_t *root,
                            size_t results)
{
	json_t *row, *v;
	size_t i, j, expected = 0;

	assert_int_equal(json_array_size(json_object_get(root, "results")),
	                 results);
	json_array_foreach(json_object_get(root, "results"), i, row)
	{
		const char *cmd = bf_json_str_or(row, "command", "?");

		json_array_foreach(json_object_get(row, "times"), j, v)
		{
			expect_sample(s, cmd, "wall_time", "ns", (int)j,
			              json_number_value(v) * 1e9);
			expected++;
		}
		expect_sample(s, cmd, "user_time_mean", "ns", 0,
		              json_number_value(json_object_get(row, "user")) *
		                      1e9);
		expect_sample(
		        s, cmd, "system_time_mean", "ns", 0,
		        json_number_value(json_object_get(row, "system")) *
		                1e9);
		expected += 2;
		assert_int_equal(count_samples(s, cmd, NULL), j + 2);
	}
	assert_int_equal(s->n, expected);
}

static void test_parse_hyperfine__fixtures(void **state)
{
	struct bf_samples s = BF_SAMPLES_INIT;
	json_t *root;

	(void)state;
	parse_fixture(&s, "hyperfine", HYPERFINE_DIR "two_commands.json");
	assert_int_equal(s.n, 2 * (5 + 2));
	expect_nth(&s, 0, "true", "wall_time", "ns", 0, 0.000838361 * 1e9);
	expect_nth(&s, 4, "true", "wall_time", "ns", 4,
	           0.0007562980000000001 * 1e9);
	expect_nth(&s, 5, "true", "user_time_mean", "ns", 0, 0.0006592 * 1e9);
	expect_nth(&s, 6, "true", "system_time_mean", "ns", 0, 0);
	expect_nth(&s, 7, "sleep 0.01", "wall_time", "ns", 0,
	           0.011456477000000001 * 1e9);
	root = load_json(HYPERFINE_DIR "two_commands.json");
	check_hyperfine(&s, root, 2);
	json_decref(root);
	bf_samples_release(&s);

	/* --command-name and -L name the benchmark; -i failures are kept. */
	parse_fixture(&s, "hyperfine", HYPERFINE_DIR "params_failures.json");
	expect_sample(&s, "exit 3", "wall_time", "ns", 2, 0.001187852 * 1e9);
	root = load_json(HYPERFINE_DIR "params_failures.json");
	check_hyperfine(&s, root, 2);
	json_decref(root);
	bf_samples_release(&s);

	/* stddev is null for a single run. */
	parse_fixture(&s, "hyperfine", HYPERFINE_DIR "single_run.json");
	assert_int_equal(s.n, 3);
	expect_sample(&s, "true", "wall_time", "ns", 0, 0.001328301 * 1e9);
	bf_samples_release(&s);
}

static void test_parse_hyperfine__repeated_command(void **state)
{
	static const char text[] =
	        "{\"results\": [{\"command\": \"x\", \"times\": [1, 2]},"
	        " {\"command\": \"x\", \"times\": [3], \"user\": 0.5,"
	        " \"system\": null, \"exit_codes\": [null]}]}";
	struct bf_samples s = BF_SAMPLES_INIT;

	(void)state;
	parse_ok(&s, "hyperfine", text, strlen(text));
	assert_int_equal(s.n, 4);
	expect_iterations(&s, 0, "x", "wall_time", "ns", VALUES(1e9, 2e9, 3e9));
	expect_nth(&s, 3, "x", "user_time_mean", "ns", 1, 0.5e9);
	bf_samples_release(&s);
}

/*
 * Runs Debian's hyperfine (argv, no shell; -N runs the command without
 * one too) and compares what the parser makes of its export with the
 * file as jansson reads it.
 */
static void test_parse_hyperfine__real_program(void **state)
{
	static const char hint[] =
	        "this test needs hyperfine (make check installs it through ci/deps.sh)";
	char dir[] = "/tmp/bf-test-parse-more-XXXXXX";
	char *path;
	struct bf_spawn_result run;
	struct bf_samples s = BF_SAMPLES_INIT;
	json_t *root;

	(void)state;
	assert_non_null(mkdtemp(dir));
	path = bf_xasprintf("%s/hyperfine.json", dir);
	{
		const char *const argv[] = {
			"hyperfine", "--runs",        "5",  "--style", "basic",
			"-N",        "--export-json", path, "true",    NULL
		};

		run_or_fail(&run, argv, 120, hint);
	}
	parse_fixture(&s, "hyperfine", path);
	assert_int_equal(count_samples(&s, "true", "wall_time"), 5);
	root = load_json(path);
	check_hyperfine(&s, root, 1);
	json_decref(root);
	bf_spawn_result_release(&run);

	/* A failing run without -i: exit 1 and an empty export file. */
	{
		const char *const argv[] = {
			"hyperfine", "--runs",        "2",  "--style", "basic",
			"-N",        "--export-json", path, "false",   NULL
		};
		struct bf_spawn_opts opts = BF_SPAWN_OPTS_INIT;
		struct bf_buf b;

		opts.argv = argv;
		opts.timeout_s = 120;
		assert_int_equal(bf_spawn_run(&run, &opts, NULL), 0);
		assert_int_equal(run.exit_code, 1);
		read_fixture(&b, path);
		expect_fail("hyperfine", b.buf, b.len, path, BF_EINVAL,
		            "empty output, expected hyperfine --export-json");
		bf_buf_release(&b);
	}

	unlink(path);
	rmdir(dir);
	free(path);
	bf_spawn_result_release(&run);
	bf_samples_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_hyperfine__fixtures),
		cmocka_unit_test(test_parse_hyperfine__repeated_command),
		cmocka_unit_test(test_parse_hyperfine__real_program),
	};

	return cmocka_run_group_tests_name("parse_hyperfine", tests, NULL,
	                                   NULL);
}
