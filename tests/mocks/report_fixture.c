#include "mocks/report_fixture.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "benchfarm/alloc.h"
#include "benchfarm/report.h"
#include "mocks/host_mock.h"

#define FIXTURES "tests/fixtures/report/"

json_t *report_fixture(const char *name)
{
	char path[256];
	json_error_t jerr;
	json_t *d;

	snprintf(path, sizeof(path), FIXTURES "%s.json", name);
	d = json_load_file(path, 0, &jerr);
	if (!d)
		fail_msg("%s:%d: %s", path, jerr.line, jerr.text);
	return d;
}

char *report_render_primary(const struct bf_plugin *p, const json_t *d,
                            const struct bf_report_opts *opts, const char *name)
{
	struct bf_err err = BF_ERR_INIT;
	struct bf_report *r = NULL;
	struct host_mock m;
	const struct bf_buf *b;
	char *text;

	if (bf_report_render(&r, p, d, opts, host_mock_init(&m), &err))
		fail_msg("%s: %s", p->name, err.msg);
	assert_string_equal(bf_report_output_name(r, 0), name);
	b = bf_report_output(r, 0);
	text = bf_xstrndup(b->buf, b->len);
	bf_report_free(r);
	host_mock_release(&m);
	return text;
}

size_t report_count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}
