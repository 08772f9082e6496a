/* Unit tests for the store's alerts (store_alert.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "benchfarm/err.h"
#include "store/store.h"
#include "unit/store/store_fixture.h"

static void test_store__alerts(void **state)
{
	struct fixture *f = *state;
	struct bf_store_alert a = { 0 }, *list = NULL;
	struct bf_err err = BF_ERR_INIT;
	char bench[] = "BM_x", metric[] = "cpu_time", lo[] = "c1", hi[] = "c2";
	char hi2[] = "c3", dir[] = "regressed", bad[] = "sideways";
	int64_t id1 = 0, id2 = 0;
	size_t n = 0;

	a.benchmark = bench;
	a.metric = metric;
	a.commit_lo = lo;
	a.commit_hi = hi;
	a.direction = dir;
	a.size = 0.12;
	a.score = 31.5;
	a.created_at = 100;
	a.group_id = 7;
	assert_int_equal(bf_store_alert_add(&id1, f->store, &a, &err), 0);
	assert_int_equal(bf_store_alert_add(NULL, f->store, &a, &err),
	                 BF_EEXISTS);
	a.commit_hi = hi2;
	a.created_at = 200;
	a.group_id = 0;
	assert_int_equal(bf_store_alert_add(&id2, f->store, &a, &err), 0);
	assert_true(id2 > id1);
	a.direction = bad;
	assert_int_equal(bf_store_alert_add(NULL, f->store, &a, &err),
	                 BF_EINVAL);

	assert_int_equal(bf_store_alert_list(&list, &n, f->store, NULL, &err),
	                 0);
	assert_int_equal(n, 2);
	assert_int_equal(list[0].id, id2);
	assert_int_equal(list[1].id, id1);
	assert_string_equal(list[1].status, "open");
	assert_string_equal(list[1].device_class, "");
	assert_string_equal(list[1].commit_hi, "c2");
	assert_true(list[1].size == 0.12);
	assert_true(list[1].score == 31.5);
	assert_int_equal(list[1].group_id, 7);
	assert_int_equal(list[0].group_id, 0);
	bf_store_alerts_free(list, n);

	assert_int_equal(bf_store_alert_set_status(f->store, id1, "ack", &err),
	                 0);
	assert_int_equal(bf_store_alert_set_status(f->store, id1, "x", &err),
	                 BF_EINVAL);
	assert_int_equal(bf_store_alert_set_status(f->store, 999, "ack", &err),
	                 BF_ENOTFOUND);
	assert_int_equal(bf_store_alert_list(&list, &n, f->store, "open", &err),
	                 0);
	assert_int_equal(n, 1);
	assert_int_equal(list[0].id, id2);
	bf_store_alerts_free(list, n);
	assert_int_equal(bf_store_alert_list(&list, &n, f->store, "ack", &err),
	                 0);
	assert_int_equal(n, 1);
	assert_int_equal(list[0].id, id1);
	bf_store_alerts_free(list, n);
	assert_int_equal(bf_store_alert_list(&list, &n, f->store, "bad", &err),
	                 BF_EINVAL);

	/* a bisect's culprit is kept with the alert */
	assert_int_equal(bf_store_alert_set_culprit(f->store, id2, "c2b", &err),
	                 0);
	assert_int_equal(bf_store_alert_set_culprit(f->store, 999, "c2b", &err),
	                 BF_ENOTFOUND);
	assert_int_equal(bf_store_alert_list(&list, &n, f->store, NULL, &err),
	                 0);
	assert_string_equal(list[0].culprit, "c2b");
	assert_null(list[1].culprit);
	bf_store_alerts_free(list, n);
}

/*
 * A series is (suite, benchmark, metric): two config entries that print
 * the same benchmark name each get their alert for one range; the same
 * suite (or none, twice) is a duplicate.
 */
static void test_store__alert_key_has_suite(void **state)
{
	struct fixture *f = *state;
	struct bf_err err = BF_ERR_INIT;
	struct bf_store_alert narrow = { 0 }, *list = NULL;
	int64_t id1 = 0, id2 = 0, id3 = 0;
	size_t n = 0;

	add_alert(f->store, &id1, "s1", "c2", 0);
	add_alert(f->store, &id2, "s2", "c2", 0);
	add_alert(f->store, NULL, "s1", "c2", BF_EEXISTS);
	add_alert(f->store, NULL, NULL, "c2", 0);
	add_alert(f->store, NULL, NULL, "c2", BF_EEXISTS);
	assert_int_equal(count(f->store, "alerts"), 3);
	/*
	 * narrowing a step's range: to a free range, not onto another; the
	 * fit's size, score, detail and group replace the stored ones, the
	 * status stays, the culprit is what the caller keeps
	 */
	add_alert(f->store, &id3, "s1", "c5", 0);
	assert_int_equal(bf_store_alert_set_status(f->store, id3, "ack", &err),
	                 0);
	assert_int_equal(bf_store_alert_set_culprit(f->store, id3, "c4", &err),
	                 0);
	narrow.commit_lo = (char *)"c1";
	narrow.commit_hi = (char *)"c3";
	narrow.group_id = 42;
	narrow.size = 0.25;
	narrow.score = 61;
	narrow.detail = (char *)"{\"detector\":\"jetpack\"}";
	assert_int_equal(
	        bf_store_alert_narrow(f->store, id3, &narrow, "c3", &err), 0);
	assert_int_equal(bf_store_alert_list(&list, &n, f->store, "ack", &err),
	                 0);
	assert_int_equal(n, 1);
	assert_int_equal(list[0].id, id3);
	assert_string_equal(list[0].commit_lo, "c1");
	assert_string_equal(list[0].commit_hi, "c3");
	assert_int_equal(list[0].group_id, 42);
	assert_true(list[0].size == 0.25 && list[0].score == 61);
	assert_string_equal(list[0].detail, narrow.detail);
	assert_string_equal(list[0].culprit, "c3");
	bf_store_alerts_free(list, n);
	narrow.commit_hi = (char *)"c2"; /* s1's alert over c1..c2 exists */
	assert_int_equal(
	        bf_store_alert_narrow(f->store, id3, &narrow, NULL, &err),
	        BF_EEXISTS);
	narrow.commit_hi = (char *)"c4";
	assert_int_equal(
	        bf_store_alert_narrow(f->store, 999, &narrow, NULL, &err),
	        BF_ENOTFOUND);
	assert_int_equal(
	        bf_store_alert_narrow(f->store, id3, &narrow, NULL, &err), 0);
	assert_int_equal(bf_store_alert_list(&list, &n, f->store, "ack", &err),
	                 0);
	assert_int_equal(n, 1);
	assert_null(list[0].culprit);
	bf_store_alerts_free(list, n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
		T(test_store__alerts),
		T(test_store__alert_key_has_suite),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
