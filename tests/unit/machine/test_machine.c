/*
 * Unit tests for the same-machine rule (orchestrator/farm/machine.c):
 * the record made from an agent's info, when two records are one
 * machine, and the groups a pool's devices fall into.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "benchfarm/alloc.h"
#include "farm/machine.h"

#define MID_A  "\"machine_id\":\"aaaa\""
#define MID_B  "\"machine_id\":\"bbbb\""
#define BOOT_A "\"boot_id\":\"1111\""
#define BOOT_B "\"boot_id\":\"2222\""
#define HOST   "\"hostname\":\"lab1\",\"cpu\":\"Xeon\",\"kernel\":\"6.1.0\""

static void test_machine__record_from_info(void **state)
{
	json_t *info = json_loads(
	        "{\"machine_id\":\"aaaa\",\"boot_id\":\"1111\","
	        "\"hostname\":\"lab1\",\"kernel\":\"6.1.0\","
	        "\"cpu\":{\"model\":\"Xeon\",\"cores\":[]},\"arch\":\"x86\"}",
	        0, NULL);
	char *rec;

	(void)state;
	rec = bf_machine_from_info(info);
	assert_string_equal(rec, "{\"boot_id\":\"1111\",\"cpu\":\"Xeon\","
	                         "\"hostname\":\"lab1\",\"kernel\":\"6.1.0\","
	                         "\"machine_id\":\"aaaa\"}");
	free(rec);
	/* neither id (an old agent, a bare sysroot): no record */
	json_object_del(info, "machine_id");
	json_object_set_new(info, "boot_id", json_null());
	assert_null(bf_machine_from_info(info));
	/* an empty id is no id */
	json_object_set_new(info, "machine_id", json_string(""));
	assert_null(bf_machine_from_info(info));
	json_object_set_new(info, "boot_id", json_string("1111"));
	rec = bf_machine_from_info(info);
	assert_non_null(strstr(rec, "\"boot_id\":\"1111\""));
	assert_null(strstr(rec, "machine_id"));
	free(rec);
	assert_null(bf_machine_from_info(NULL));
	json_decref(info);
}

static void test_machine__rule(void **state)
{
	static const struct {
		const char *a, *b;
		unsigned want;
	} cases[] = {
		/* both ids: two sshd ports of one host */
		{ "{" MID_A "," BOOT_A "," HOST "}",
		  "{" MID_A "," BOOT_A "," HOST "}",
		  BF_MACHINE_SAME_ID | BF_MACHINE_SAME_BOOT },
		/* rebooted between the records: the machine-id says it */
		{ "{" MID_A "," BOOT_A "," HOST "}",
		  "{" MID_A "," BOOT_B "," HOST "}", BF_MACHINE_SAME_ID },
		/* containers on one kernel: the boot id says it */
		{ "{" MID_A "," BOOT_A "," HOST "}",
		  "{" MID_B "," BOOT_A "," HOST "}", BF_MACHINE_SAME_BOOT },
		/* two machines alike in all but the ids */
		{ "{" MID_A "," BOOT_A "," HOST "}",
		  "{" MID_B "," BOOT_B "," HOST "}", 0 },
		/* a cloned image: its machine-id, another hostname */
		{ "{" MID_A "," BOOT_A "," HOST "}",
		  "{" MID_A "," BOOT_B
		  ",\"hostname\":\"lab2\",\"cpu\":\"Xeon\","
		  "\"kernel\":\"6.1.0\"}",
		  0 },
		/* a corroborating fact that differs vetoes even both ids */
		{ "{" MID_A "," BOOT_A "," HOST "}",
		  "{" MID_A "," BOOT_A
		  ",\"hostname\":\"lab1\",\"cpu\":\"Xeon\","
		  "\"kernel\":\"6.2.0\"}",
		  0 },
		{ "{" MID_A "," BOOT_A "," HOST "}",
		  "{" MID_A "," BOOT_A
		  ",\"hostname\":\"lab1\",\"cpu\":\"EPYC\","
		  "\"kernel\":\"6.1.0\"}",
		  0 },
		/* a fact one side lacks neither vetoes nor confirms */
		{ "{" MID_A "," HOST "}", "{" MID_A "}", BF_MACHINE_SAME_ID },
		/* facts alone never make one machine */
		{ "{" MID_A "," HOST "}", "{" BOOT_A "," HOST "}", 0 },
		{ "{" HOST "}", "{" HOST "}", 0 },
		/* unknown records */
		{ NULL, "{" MID_A "}", 0 },
		{ "{" MID_A "}", NULL, 0 },
		{ "not json", "not json", 0 },
		{ "[1]", "[1]", 0 },
		{ "", "", 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned got = bf_machine_match(cases[i].a, cases[i].b);

		if (got != cases[i].want)
			fail_msg("case %zu: %s vs %s: got %u, want %u", i,
			         cases[i].a ? cases[i].a : "NULL",
			         cases[i].b ? cases[i].b : "NULL", got,
			         cases[i].want);
		/* the rule is symmetric */
		assert_int_equal(bf_machine_match(cases[i].b, cases[i].a), got);
	}
	assert_string_equal(bf_machine_match_name(BF_MACHINE_SAME_ID),
	                    "machine-id");
	assert_string_equal(bf_machine_match_name(BF_MACHINE_SAME_BOOT),
	                    "boot id");
	assert_string_equal(bf_machine_match_name(BF_MACHINE_SAME_ID |
	                                          BF_MACHINE_SAME_BOOT),
	                    "machine-id and boot id");
}

static void test_machine__groups(void **state)
{
	const char *recs[] = {
		"{" MID_A "," BOOT_A "}", /* 0: machine A */
		"{" MID_B "," BOOT_B "}", /* 1: machine B */
		NULL, /* 2: unknown */
		"{" MID_A "," BOOT_A "}", /* 3: machine A */
		"{\"machine_id\":\"cccc\"," BOOT_B "}", /* 4: B by boot id */
		"{\"machine_id\":\"cccc\"}", /* 5: with 4 by machine-id */
		"{\"machine_id\":\"dddd\"}", /* 6: alone */
	};
	int group[7];

	(void)state;
	assert_int_equal(bf_machine_group(group, recs, 7), 2);
	assert_int_equal(group[0], 0);
	assert_int_equal(group[3], 0);
	/* 1 ~ 4 (boot id) and 4 ~ 5 (machine-id): one group, though 1 and
	 * 5 share nothing directly */
	assert_int_equal(group[1], 1);
	assert_int_equal(group[4], 1);
	assert_int_equal(group[5], 1);
	assert_int_equal(group[2], -1);
	assert_int_equal(group[6], -1);
	assert_int_equal(bf_machine_group(group, recs, 0), 0);
	assert_int_equal(bf_machine_group(group, recs + 2, 1), 0);
	assert_int_equal(group[0], -1);
}

/*
 * The serial turn: one holder at a time, and the device that just
 * measured lets a waiting one go first, so both devices of one machine
 * get work and never measure at once.
 */
static void test_machine__slot_takes_turns(void **state)
{
	struct bf_machine_slot s = BF_MACHINE_SLOT_INIT;
	int a = 0, b = 0;

	(void)state;
	/* nobody holds it: the first to ask takes it */
	assert_true(bf_machine_slot_may_take(&s, &a));
	bf_machine_slot_take(&s, &a);
	assert_true(bf_machine_slot_may_take(&s, &a));
	assert_false(bf_machine_slot_may_take(&s, &b));
	/* only the holder gives it back */
	assert_false(bf_machine_slot_give_back(&s, &b));
	s.waiting = 1; /* b waits */
	assert_true(bf_machine_slot_give_back(&s, &a));
	assert_false(bf_machine_slot_give_back(&s, &a));
	/* a just measured and b waits: b first */
	assert_false(bf_machine_slot_may_take(&s, &a));
	assert_true(bf_machine_slot_may_take(&s, &b));
	bf_machine_slot_take(&s, &b);
	assert_false(bf_machine_slot_may_take(&s, &a));
	s.waiting = 0; /* a gave up waiting (no work left) */
	assert_true(bf_machine_slot_give_back(&s, &b));
	/* nobody waits: the last holder may take it again */
	assert_true(bf_machine_slot_may_take(&s, &b));
	assert_true(bf_machine_slot_may_take(&s, &a));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_machine__record_from_info),
		cmocka_unit_test(test_machine__rule),
		cmocka_unit_test(test_machine__groups),
		cmocka_unit_test(test_machine__slot_takes_turns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
