#include "unit/report_gerrit/gerrit_fixture.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "benchfarm/alloc.h"
#include "benchfarm/report.h"
#include "mocks/host_mock.h"
#include "mocks/report_fixture.h"

void opts_init(struct bf_report_opts *o)
{
	struct bf_report_opts init = BF_REPORT_OPTS_INIT;

	*o = init;
	o->check_name = "perf/pixel";
	o->gerrit_label = "Performance-Verified";
	o->link = LINK;
}

int render(const json_t *d, const struct bf_report_opts *o,
           const struct bf_host *h, char **text, struct bf_err *err)
{
	struct bf_report *r = NULL;
	const struct bf_buf *b;
	int ret = bf_report_render(&r, &bf_plugin_gerrit, d, o, h, err);

	if (!ret) {
		assert_int_equal(bf_report_noutputs(r), 1);
		assert_string_equal(bf_report_output_name(r, 0),
		                    "gerrit-review.json");
		b = bf_report_output(r, 0);
		assert_int_equal(strlen(b->buf), b->len);
		if (text)
			*text = bf_xstrdup(b->buf);
	} else {
		assert_null(r);
	}
	bf_report_free(r);
	return ret;
}

json_t *review_of(const json_t *d, const struct bf_report_opts *o)
{
	struct bf_err err = BF_ERR_INIT;
	struct host_mock m;
	json_t *rv;
	char *text = NULL;

	if (render(d, o, host_mock_init(&m), &text, &err))
		fail_msg("gerrit: %s", err.msg);
	assert_int_equal(m.ssh_calls, 0);
	assert_int_equal(m.spawn_calls, 0);
	rv = json_loads(text, 0, NULL);
	assert_non_null(rv);
	free(text);
	host_mock_release(&m);
	return rv;
}

json_t *review_of_fixture(const char *name, const struct bf_report_opts *o)
{
	json_t *d = report_fixture(name), *rv = review_of(d, o);

	json_decref(d);
	return rv;
}

const char *msg_of(const json_t *rv)
{
	const char *m = json_string_value(json_object_get(rv, "message"));

	assert_non_null(m);
	return m;
}

void assert_json_equal(json_t *got, json_t *want)
{
	if (!json_equal(got, want)) {
		char *g = json_dumps(got, JSON_INDENT(1) | JSON_SORT_KEYS);
		char *w = json_dumps(want, JSON_INDENT(1) | JSON_SORT_KEYS);

		print_error("got:\n%s\nwant:\n%s\n", g, w);
		free(g);
		free(w);
		fail();
	}
}

json_t *comment(const char *message, int line, bool unresolved)
{
	json_t *c = json_pack("{s:s, s:b}", "message", message, "unresolved",
	                      unresolved);

	if (line)
		json_object_set_new(c, "line", json_integer(line));
	return c;
}

json_t *robot(const char *message, int line)
{
	json_t *c =
	        json_pack("{s:s, s:s, s:s, s:s}", "robot_id", "perf/pixel",
	                  "robot_run_id", "7", "message", message, "url", LINK);

	if (line)
		json_object_set_new(c, "line", json_integer(line));
	return c;
}

json_int_t vote(const json_t *rv)
{
	const json_t *l = json_object_get(rv, "labels");

	if (!l)
		return 99; /* no vote */
	assert_int_equal(json_object_size(l), 1);
	assert_true(
	        json_is_integer(json_object_get(l, "Performance-Verified")));
	return json_integer_value(json_object_get(l, "Performance-Verified"));
}
