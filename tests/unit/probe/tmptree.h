#ifndef BF_TEST_TMPTREE_H
#define BF_TEST_TMPTREE_H

/*
 * A temporary directory for the agent's device tests (probe, check,
 * throttle): a sysroot that a test fills with tmptree_put, or a state
 * directory. tmptree_setup and tmptree_teardown are cmocka fixtures
 * (*state is the struct tmptree); each also clears $BENCHFARM_THROTTLE_NS
 * (BF_THROTTLE_ENV), which forces the throttle check's measurement, so
 * that no test sees another's.
 */
struct tmptree {
	char dir[64];
};

int tmptree_setup(void **state);
int tmptree_teardown(void **state);

/*
 * Write text to path (a device path, "/proc/loadavg") under root,
 * creating directories; fails the test when it cannot.
 */
void tmptree_put(const char *root, const char *path, const char *text);

#endif /* BF_TEST_TMPTREE_H */
