#ifndef BF_TEST_ADB_STANDIN_H
#define BF_TEST_ADB_STANDIN_H

#include <stddef.h>

struct bf_devfs;
struct bf_err;

/*
 * The Android tests' device: the stand-in adb (tests/fixtures/adb/adb),
 * put first through $BENCHFARM_ADB, replays recorded device output from
 * tests/fixtures/adb/SCENARIO/, selected by the serial, and appends
 * every call it receives to a log. Run from the repository root.
 */

/* Per test: a temporary directory for the stand-in's state and log. */
struct adb_standin {
	char dir[64];
	char log[96];
};

/*
 * cmocka fixtures: *state is a struct adb_standin; setup points
 * BENCHFARM_ADB, BF_ADB_STATE and BF_ADB_LOG at it (setup fails when
 * the stand-in is not found from the working directory).
 */
int adb_standin_setup(void **state);
int adb_standin_teardown(void **state);
/* A cmocka test f run with the stand-in. */
#define ADB_STANDIN_TEST(f)                                   \
	cmocka_unit_test_setup_teardown(f, adb_standin_setup, \
	                                adb_standin_teardown)

/* The calls the stand-in received so far, one argv per line; caller frees. */
char *adb_log(const struct adb_standin *e);
/* How many calls the stand-in received so far. */
size_t adb_calls(const struct adb_standin *e);

/* The adb devfs of serial; fails the test when it cannot be opened. */
struct bf_devfs *open_adb(const char *serial);
/* ret is code and err's message holds needle, else the test fails. */
void assert_err(int ret, int code, const struct bf_err *err,
                const char *needle);

#endif /* BF_TEST_ADB_STANDIN_H */
