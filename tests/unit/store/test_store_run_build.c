/*
 * Unit tests for finding a commit's failed build among the runs
 * (bf_store_run_failed_build, store_run.c): the runs' info is JSON the
 * store reads itself, the same on every backend.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "benchfarm/err.h"
#include "store/store.h"
#include "unit/store/store_fixture.h"

/* Create a finished run of kind/status for commit with info; its id. */
static int64_t add_finished(struct bf_store *s, const char *kind,
                            const char *status, const char *commit,
                            const char *info)
{
	struct bf_store_run run = { .kind = (char *)kind,
		                    .status = (char *)status,
		                    .patch_commit = (char *)commit,
		                    .info = (char *)info };
	struct bf_err err = BF_ERR_INIT;
	int64_t id = 0;

	assert_int_equal(bf_store_run_create(&id, s, &run, &err), 0);
	return id;
}

static int64_t failed_build(struct bf_store *s, const char *commit,
                            const char *key)
{
	struct bf_err err = BF_ERR_INIT;
	int64_t id = -1;

	assert_int_equal(bf_store_run_failed_build(&id, s, commit, key, &err),
	                 0);
	return id;
}

#define BUILD_K1 "{\"stage\": \"build\", \"build_key\": \"k1\"}"

/*
 * Only a failed run (kind run) of the commit whose info is a JSON object
 * with stage "build" and that build_key (a string) counts, the newest
 * first; info that is no JSON, no object, another stage or a key of
 * another type is passed over, never an error.
 */
static void test_store__failed_build_is_read_from_info(void **state)
{
	struct fixture *f = *state;
	int64_t k1, k1_newer, k2;

	add_finished(f->store, "run", "failed", "c1", "not json {");
	add_finished(f->store, "run", "failed", "c1", "[\"build\", \"k1\"]");
	k1 = add_finished(f->store, "run", "failed", "c1", BUILD_K1);
	add_finished(f->store, "run", "failed", "c1",
	             "{\"stage\": \"test\", \"build_key\": \"k1\"}");
	add_finished(f->store, "run", "failed", "c1",
	             "{\"stage\": \"build\", \"build_key\": 5}");
	add_finished(f->store, "run", "complete", "c1", BUILD_K1);
	add_finished(f->store, "compare", "failed", "c1", BUILD_K1);
	add_finished(f->store, "run", "failed", "c1", NULL);
	k2 = add_finished(f->store, "run", "failed", "c1",
	                  "{\"stage\": \"build\", \"build_key\": \"k2\"}");
	add_finished(f->store, "run", "failed", "c2", BUILD_K1);

	assert_int_equal(failed_build(f->store, "c1", "k1"), k1);
	assert_int_equal(failed_build(f->store, "c1", "k2"), k2);
	assert_int_equal(failed_build(f->store, "c1", "k3"), 0);
	assert_int_equal(failed_build(f->store, "c1", "5"), 0);
	assert_int_equal(failed_build(f->store, "c1", NULL), 0);
	assert_int_equal(failed_build(f->store, "c3", "k1"), 0);

	k1_newer = add_finished(f->store, "run", "failed", "c1", BUILD_K1);
	assert_int_equal(failed_build(f->store, "c1", "k1"), k1_newer);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
		        test_store__failed_build_is_read_from_info, setup,
		        teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
