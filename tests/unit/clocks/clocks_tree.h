#ifndef BF_TEST_CLOCKS_TREE_H
#define BF_TEST_CLOCKS_TREE_H

#include <jansson.h>

struct bf_devfs;

/*
 * The clocks tests' devices: a copy of a sysroot tree of
 * tests/fixtures/clocks/ in a temporary directory, and checks on what
 * locking and unlocking left in it. Each helper fails the running test
 * instead of returning an error. Run from the repository root.
 */

/* A copy of a fixture tree, its devfs and where its state goes. */
struct clocks_tree {
	char dir[64]; /* temporary directory */
	char root[96]; /* dir/root: the sysroot */
	char pristine[96]; /* the fixture it was copied from */
	char state[96]; /* dir/state.json */
	struct bf_devfs *fs;
};

/* Copy tests/fixtures/clocks/FIXTURE into a new t. */
void tree_open(struct clocks_tree *t, const char *fixture);
/* Close t's devfs and remove its directory. */
void tree_close(struct clocks_tree *t);

/* The content of a file of the tree ("cpu0/cpufreq/scaling_governor"). */
char *cpu_file(struct clocks_tree *t, const char *rel);
void assert_cpu_file(struct clocks_tree *t, const char *rel, const char *want);
/* Make a file of the tree unusable: a directory in its place. */
void break_file(struct clocks_tree *t, const char *rel);

/*
 * Every file of the pristine fixture has the same bytes in the copy,
 * except scaling_setspeed of a core whose governor is not userspace (the
 * kernel shows "<unsupported>" there by itself) and skip.
 */
void assert_same_tree(const char *pristine, const char *copy, const char *skip);
/* assert_same_tree of t's fixture and t. */
void assert_restored(struct clocks_tree *t, const char *skip);

/* bf_clocks_lock of t succeeds; its report (the caller decrefs). */
json_t *lock_ok(struct clocks_tree *t);
/* bf_clocks_unlock of t succeeds and removes the state file. */
void unlock_ok(struct clocks_tree *t);
/*
 * bf_clocks_lock of t fails with an error holding want, which the
 * report repeats; the report (the caller decrefs).
 */
json_t *lock_fails(struct clocks_tree *t, const char *want);
/* cpuN is on "userspace" with min, max and set speed all khz. */
void assert_pinned(struct clocks_tree *t, int cpu, const char *khz);

#endif /* BF_TEST_CLOCKS_TREE_H */
