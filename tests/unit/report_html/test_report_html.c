/*
 * The html reporter (plugins/report_html.c): one self-contained page
 * whose only scripts are its own, with the result inside a JSON element
 * that no text of the result can close, and that reads back as the
 * result itself.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <cmocka.h>

#include "benchfarm/report.h"
#include "html/assets.h"
#include "mocks/host_mock.h"

extern const struct bf_plugin bf_plugin_html;

/*
 * A comparison whose names and subject try to end the script element,
 * and a name that carries a bidi override (U+202E) and a C1 control.
 */
static json_t *hostile(void)
{
	return json_pack(
	        "{s:s, s:s, s:{s:s}, s:[{s:s, s:s, s:s, s:s}], s:{s:s}}",
	        "benchfarm", BF_VERSION, "kind", "compare", "base", "subject",
	        "</script><script>alert(1)</script>", "results", "benchmark",
	        "a&b\xe2\x80\xae\xc2\x9b", "name", "</SCRIPT ><!-- <script>",
	        "metric", "m\xe2\x80\xa8n\xe2\x80\xa9", "verdict", "same",
	        "trace", "diff_svg", "/nonexistent/trace-diff.svg");
}

static size_t count_ci(const char *hay, size_t len, const char *needle)
{
	size_t n = 0, k = strlen(needle);

	for (size_t i = 0; i + k <= len; i++)
		if (!strncasecmp(hay + i, needle, k))
			n++;
	return n;
}

static char *render(const json_t *d, size_t *len)
{
	struct bf_report_opts o = BF_REPORT_OPTS_INIT;
	struct bf_err err = BF_ERR_INIT;
	struct bf_report *r = NULL;
	struct host_mock m;
	const struct bf_buf *b;
	char *out;

	assert_int_equal(bf_report_render(&r, &bf_plugin_html, d, &o,
	                                  host_mock_init(&m), &err),
	                 0);
	assert_int_equal(bf_report_noutputs(r), 1);
	assert_string_equal(bf_report_output_name(r, 0), "report.html");
	b = bf_report_output(r, 0);
	out = malloc(b->len + 1);
	memcpy(out, b->buf, b->len);
	out[b->len] = '\0';
	*len = b->len;
	bf_report_free(r);
	host_mock_release(&m);
	return out;
}

static void test_html__names_cannot_close_the_script(void **state)
{
	json_t *d = hostile();
	size_t len;
	char *page = render(d, &len);

	(void)state;
	/* the three elements of ours, and no other */
	assert_int_equal(count_ci(page, len, "</script"), 3);
	assert_int_equal(count_ci(page, len, "<script"), 3);
	assert_int_equal(count_ci(page, len, "<!--"), 0);
	assert_null(strstr(page, "\xe2\x80\xa8"));
	assert_null(strstr(page, "\xe2\x80\xa9"));
	assert_non_null(strstr(page, "\\u003c/script\\u003e"));
	assert_non_null(strstr(page, "a\\u0026b\\u202e\\u009b"));
	/* no hidden character in the page's bytes (the script shows them) */
	assert_null(strstr(page, "\xe2\x80\xae"));
	assert_null(strstr(page, "\xc2\x9b"));
	assert_non_null(strstr(page, "m\\u2028n\\u2029"));
	free(page);
	json_decref(d);
}

static void test_html__the_data_is_the_result(void **state)
{
	static const char open[] =
	        "<script type=\"application/json\" id=\"bf-result\">";
	json_t *d = hostile(), *back;
	size_t len;
	char *page = render(d, &len), *start, *end;

	(void)state;
	start = strstr(page, open);
	assert_non_null(start);
	start += strlen(open);
	end = strstr(start, "</script>");
	assert_non_null(end);
	back = json_loadb(start, (size_t)(end - start), 0, NULL);
	assert_non_null(back);
	assert_true(json_equal(back, d));
	json_decref(back);
	free(page);
	json_decref(d);
}

static void test_html__inline_everything_no_network(void **state)
{
	json_t *d = hostile();
	size_t len;
	char *page = render(d, &len);

	(void)state;
	/* uPlot and our script inline; a policy that allows no request */
	assert_non_null(strstr(page, bf_html_uplot_js));
	assert_non_null(strstr(page, bf_html_plots_js));
	assert_non_null(strstr(page, bf_html_report_js));
	assert_non_null(strstr(page, "default-src 'none'"));
	assert_null(strstr(page, "src=\"http"));
	assert_null(strstr(page, "href=\"http"));
	/* the flame graph file is missing: no element for it */
	assert_null(strstr(page, "id=\"bf-flame\""));
	free(page);
	json_decref(d);
}

static void test_html__only_compare_and_dashboard(void **state)
{
	struct bf_report_opts o = BF_REPORT_OPTS_INIT;
	struct bf_err err = BF_ERR_INIT;
	json_t *d = json_pack("{s:s, s:[]}", "kind", "detect", "alerts");

	(void)state;
	assert_int_equal(bf_report_check(&bf_plugin_html, d, &o, &err),
	                 BF_EINVAL);
	assert_non_null(strstr(err.msg, "compare,dashboard"));
	bf_err_clear(&err);
	json_decref(d);
}

/* The flame graph: an SVG file is inlined, any other file is not. */
static void test_html__flame_graph_only_from_an_svg(void **state)
{
	char dir[] = "/tmp/bf-html-XXXXXX", svg[64], txt[64], fake[64];
	json_t *d = hostile();
	size_t len;
	char *page;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(svg, sizeof(svg), "%s/diff.svg", dir);
	snprintf(txt, sizeof(txt), "%s/secret.txt", dir);
	snprintf(fake, sizeof(fake), "%s/fake.svg", dir);
	f = fopen(svg, "w");
	fputs("<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\">"
	      "<text>main</text></svg>\n",
	      f);
	fclose(f);
	f = fopen(txt, "w");
	fputs("<svg>token=hunter2</svg>\n", f);
	fclose(f);
	f = fopen(fake, "w");
	fputs("token=hunter2 <svg>\n", f);
	fclose(f);

	json_object_set_new(json_object_get(d, "trace"), "diff_svg",
	                    json_string(svg));
	page = render(d, &len);
	assert_non_null(strstr(page, "id=\"bf-flame\""));
	assert_non_null(strstr(page, "\\u003ctext\\u003emain"));
	free(page);
	json_object_set_new(json_object_get(d, "trace"), "diff_svg",
	                    json_string(txt));
	page = render(d, &len);
	assert_null(strstr(page, "hunter2"));
	free(page);
	json_object_set_new(json_object_get(d, "trace"), "diff_svg",
	                    json_string(fake));
	page = render(d, &len);
	assert_null(strstr(page, "hunter2"));
	free(page);
	remove(svg);
	remove(txt);
	remove(fake);
	rmdir(dir);
	json_decref(d);
}

/* Our own files must not end the element they are inlined in. */
static void test_html__assets_do_not_close_their_element(void **state)
{
	(void)state;
	assert_int_equal(
	        count_ci(bf_html_plots_js, bf_html_plots_js_len, "</script"),
	        0);
	assert_int_equal(
	        count_ci(bf_html_report_js, bf_html_report_js_len, "</script"),
	        0);
	assert_int_equal(
	        count_ci(bf_html_uplot_js, bf_html_uplot_js_len, "</script"),
	        0);
	assert_int_equal(
	        count_ci(bf_html_report_css, bf_html_report_css_len, "</style"),
	        0);
	assert_int_equal(
	        count_ci(bf_html_uplot_css, bf_html_uplot_css_len, "</style"),
	        0);
	assert_int_equal(strlen(bf_html_uplot_js), bf_html_uplot_js_len);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_html__names_cannot_close_the_script),
		cmocka_unit_test(test_html__the_data_is_the_result),
		cmocka_unit_test(test_html__inline_everything_no_network),
		cmocka_unit_test(test_html__only_compare_and_dashboard),
		cmocka_unit_test(test_html__assets_do_not_close_their_element),
		cmocka_unit_test(test_html__flame_graph_only_from_an_svg),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
