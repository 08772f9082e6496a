/*
 * Walks both command tables and runs the real programs: every command
 * answers -h with exit 0 and a usage line (git's help test).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>

#include "agent.h"
#include "benchfarm/alloc.h"
#include "benchfarm/exitcode.h"
#include "benchfarm/spawn.h"
#include "cmd.h"

static char *program(const char *name)
{
	const char *dir = getenv("BF_BUILD_ABS");

	return bf_xasprintf("%s/%s", dir ? dir : "build/default", name);
}

static void run(struct bf_spawn_result *res, const char *prog, const char *cmd,
                const char *arg)
{
	const char *argv[] = { prog, cmd, arg, NULL };
	struct bf_spawn_opts opts = BF_SPAWN_OPTS_INIT;

	opts.argv = argv;
	opts.timeout_s = 30;
	assert_int_equal(bf_spawn_run(res, &opts, NULL), 0);
}

static void test_commands__every_command_answers_help(void **state)
{
	char *prog = program("benchfarm");

	(void)state;
	assert_true(bf_ncommands >= 11);
	for (size_t i = 0; i < bf_ncommands; i++) {
		struct bf_spawn_result res;

		run(&res, prog, bf_commands[i].name, "-h");
		if (res.exit_code != 0 || strncmp(res.out.buf, "usage: ", 7))
			fail_msg("'%s -h' exited %d with '%s'",
			         bf_commands[i].name, res.exit_code,
			         res.out.buf);
		bf_spawn_result_release(&res);
	}
	free(prog);
}

static void test_commands__contract_names_exist(void **state)
{
	static const char *const names[] = { "compare", "run",    "backfill",
		                             "detect",  "bisect", "alert",
		                             "analyze", "device", "report",
		                             "trace",   "config" };

	(void)state;
	for (size_t i = 0; i < BF_ARRAY_SIZE(names); i++)
		assert_non_null(bf_cmd_find(names[i]));
	assert_null(bf_cmd_find("comparee"));
}

static void test_commands__agent_commands_answer_help(void **state)
{
	static const char *const names[] = { "serve",        "info",
		                             "check",        "run",
		                             "parse",        "lock-clocks",
		                             "unlock-clocks" };
	char *prog = program("benchfarm-agent");

	(void)state;
	for (size_t i = 0; i < BF_ARRAY_SIZE(names); i++)
		assert_non_null(bf_agent_cmd_find(names[i]));
	for (size_t i = 0; i < bf_agent_ncommands; i++) {
		struct bf_spawn_result res;

		run(&res, prog, bf_agent_commands[i].name, "--help");
		if (res.exit_code != 0 || strncmp(res.out.buf, "usage: ", 7))
			fail_msg("agent '%s --help' exited %d",
			         bf_agent_commands[i].name, res.exit_code);
		bf_spawn_result_release(&res);
	}
	free(prog);
}

static void test_commands__unknown_command_is_usage_error(void **state)
{
	char *prog = program("benchfarm");
	struct bf_spawn_result res;

	(void)state;
	run(&res, prog, "frobnicate", NULL);
	assert_int_equal(res.exit_code, BF_EXIT_USAGE);
	assert_non_null(strstr(res.err.buf, "'frobnicate' is not a command"));
	bf_spawn_result_release(&res);
	run(&res, prog, "--version", NULL);
	assert_int_equal(res.exit_code, 0);
	assert_string_equal(res.out.buf, "benchfarm " BF_VERSION "\n");
	bf_spawn_result_release(&res);
	free(prog);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_commands__every_command_answers_help),
		cmocka_unit_test(test_commands__contract_names_exist),
		cmocka_unit_test(test_commands__agent_commands_answer_help),
		cmocka_unit_test(test_commands__unknown_command_is_usage_error),
	};

	return cmocka_run_group_tests_name("commands", tests, NULL, NULL);
}
