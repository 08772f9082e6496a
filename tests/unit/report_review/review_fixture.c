#include "unit/report_review/review_fixture.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "benchfarm/report.h"
#include "mocks/host_mock.h"
#include "mocks/report_fixture.h"

int render(struct outputs *o, const struct bf_plugin *p, json_t *d,
           const struct bf_report_opts *opts, struct bf_err *err)
{
	struct bf_report *r = NULL;
	struct host_mock m;
	int ret;

	memset(o, 0, sizeof(*o));
	ret = bf_report_render(&r, p, d, opts, host_mock_init(&m), err);
	if (!ret) {
		for (o->n = 0; o->n < 6 && bf_report_output(r, o->n); o->n++) {
			const struct bf_buf *b = bf_report_output(r, o->n);

			o->name[o->n] = strdup(bf_report_output_name(r, o->n));
			o->text[o->n] = strndup(b->buf ? b->buf : "", b->len);
		}
	}
	bf_report_free(r);
	assert_int_equal(m.ssh_calls + m.spawn_calls, 0); /* no outside */
	host_mock_release(&m);
	return ret;
}

void outputs_free(struct outputs *o)
{
	for (size_t i = 0; i < o->n; i++) {
		free(o->name[i]);
		free(o->text[i]);
	}
}

void render_ok(struct outputs *o, const struct bf_plugin *p, json_t *d,
               const struct bf_report_opts *opts)
{
	struct bf_err err = BF_ERR_INIT;

	if (render(o, p, d, opts, &err))
		fail_msg("%s: %s", p->name, err.msg);
}

json_t *check_of(const struct outputs *o)
{
	json_t *c;

	assert_string_equal(o->name[0], "github-check.json");
	c = json_loads(o->text[0], 0, NULL);
	assert_non_null(c);
	return c;
}

const char *str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	assert_non_null(s); /* the field is there and a string */
	return s;
}

json_int_t num(const json_t *o, const char *key)
{
	assert_true(json_is_integer(json_object_get(o, key)));
	return json_integer_value(json_object_get(o, key));
}

const json_t *output_of(const json_t *c)
{
	return json_object_get(c, "output");
}

const json_t *annotation(const json_t *c, size_t i)
{
	return json_array_get(json_object_get(output_of(c), "annotations"), i);
}

size_t nannotations(const json_t *c)
{
	const json_t *a = json_object_get(output_of(c), "annotations");

	assert_true(json_is_array(a));
	return json_array_size(a);
}

size_t utf8_chars(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

json_t *many(int n)
{
	json_t *d = json_pack("{s:s, s:[]}", "kind", "compare", "results");
	json_t *res = json_object_get(d, "results");
	char name[320];

	for (int i = 0; i < n; i++) {
		size_t k = 0;

		while (k < 300) {
			name[k++] = (char)0xc3; /* é */
			name[k++] = (char)0xa9;
		}
		snprintf(name + k, sizeof(name) - k, "%d", i);
		json_array_append_new(res, json_pack("{s:s, s:s, s:s}", "name",
		                                     name, "verdict", "same",
		                                     "metric", "m"));
	}
	return d;
}

void assert_cut_well(const char *md, const char *note)
{
	const char *at = strstr(md, note);

	assert_non_null(at);
	/* after the last whole line, every <details> closed, then the note */
	assert_string_equal(at, note);
	assert_int_equal(report_count(md, "<details>"),
	                 report_count(md, "</details>"));
	assert_int_equal(strncmp(at - 12, "\n</details>\n", 12), 0);
	assert_int_equal(strncmp(md, "<!-- benchfarm:report name=", 27), 0);
}
