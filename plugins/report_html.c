#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchfarm/json.h"
#include "benchfarm/plugin.h"
#include "benchfarm/text.h"
#include "html/assets.h"

/*
 * html: one self-contained page (report.html) for a person to look at: a
 * comparison's samples, change and device checks, or the postsubmit
 * history of `benchfarm dashboard`. Everything is inline: uPlot, the
 * page's script and style, and the result itself as JSON in a
 * <script type="application/json"> element, with '<', '>', '&', U+2028
 * and U+2029 written as \uXXXX so that no text of the result can close
 * the element or start markup, and the C1 controls and invisible
 * direction controls (bf_text_hidden_len) too, so that none is in the
 * page's bytes. The page's script shows every name with textContent,
 * never as markup, and those characters as \u{NNNN} (plots.js: inert).
 * Its Content-Security-Policy allows no request at all: the page works
 * from a CI artifact with no network.
 */

#define FLAME_MAX (16u * 1024 * 1024)

/* JSON text made safe to sit inside a <script> element. */
static void add_script_json(struct bf_buf *b, const char *s)
{
	size_t hidden;
	unsigned cp;

	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '<' || *p == '>' || *p == '&')
			bf_buf_addf(b, "\\u%04x", *p);
		else if (p[0] == 0xe2 && p[1] == 0x80 &&
		         (p[2] == 0xa8 || p[2] == 0xa9)) {
			bf_buf_addf(b, "\\u%04x",
			            p[2] == 0xa8 ? 0x2028 : 0x2029);
			p += 2;
		} else if ((hidden =
		                    bf_text_hidden_len((const char *)p, &cp))) {
			bf_buf_addf(b, "\\u%04x", cp);
			p += hidden - 1;
		} else
			bf_buf_addch(b, (char)*p);
	}
}

static int add_json_block(struct bf_buf *b, const char *id, const json_t *j,
                          size_t flags, struct bf_err *err)
{
	char *text = json_dumps(j, flags | JSON_COMPACT | JSON_ENCODE_ANY);

	if (!text)
		return bf_err_set(err, BF_ERROR, "cannot encode the %s", id);
	bf_buf_addf(b, "<script type=\"application/json\" id=\"%s\">", id);
	add_script_json(b, text);
	bf_buf_addstr(b, "</script>\n");
	free(text);
	return 0;
}

/*
 * The differential flame graph of `compare --trace` (trace.diff_svg, a
 * file beside the result), as a JSON string; the page shows it as an
 * image, where no script of it can run. Only a file named *.svg that
 * starts as an SVG document is read: a result naming any other file
 * cannot copy it into the page. NULL when there is none or it cannot be
 * read (the page then says where it should have been).
 */
/*
 * Whether b starts as an SVG document: white space, an XML declaration,
 * comments and a doctype, then "<svg".
 */
static bool looks_like_svg(const struct bf_buf *b)
{
	const char *p = b->buf, *end = b->buf + b->len;

	while (p < end) {
		const char *close;

		if (strchr(" \t\r\n", *p)) {
			p++;
			continue;
		}
		if ((size_t)(end - p) >= 4 && !strncmp(p, "<svg", 4))
			return true;
		if (end - p < 2 || p[0] != '<' || (p[1] != '?' && p[1] != '!'))
			return false;
		close = memchr(p, '>', (size_t)(end - p));
		if (!close)
			return false;
		p = close + 1;
	}
	return false;
}

static json_t *read_flame(const json_t *result)
{
	const char *path = bf_json_str_or(json_object_get(result, "trace"),
	                                  "diff_svg", NULL);
	struct bf_buf b = BF_BUF_INIT;
	char chunk[8192];
	json_t *svg = NULL;
	size_t n;
	FILE *f;

	n = path ? strlen(path) : 0;
	if (n < 4 || strcmp(path + n - 4, ".svg") || !(f = fopen(path, "rb")))
		return NULL;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0 &&
	       b.len + n <= FLAME_MAX)
		bf_buf_add(&b, chunk, n);
	if (!ferror(f) && b.len && looks_like_svg(&b))
		svg = json_stringn(b.buf, b.len); /* NULL unless UTF-8 */
	fclose(f);
	bf_buf_release(&b);
	return svg;
}

static int html_run(struct bf_report *r, struct bf_err *err, void *payload)
{
	const json_t *result = bf_report_result(r);
	const char *kind = bf_json_str_or(result, "kind", "");
	bool dash = !strcmp(kind, "dashboard");
	json_t *flame = dash ? NULL : read_flame(result);
	struct bf_buf *out;
	int ret;

	(void)payload;
	out = bf_report_add_output(r, "report.html");
	bf_buf_addstr(out,
	              "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	              "<meta charset=\"utf-8\">\n"
	              "<meta http-equiv=\"Content-Security-Policy\" "
	              "content=\"default-src 'none'; script-src "
	              "'unsafe-inline'; style-src 'unsafe-inline'; img-src "
	              "data:\">\n"
	              "<meta name=\"viewport\" content=\"width=device-width, "
	              "initial-scale=1\">\n");
	bf_buf_addf(out, "<title>benchfarm %s</title>\n",
	            dash ? "dashboard" : "comparison");
	bf_buf_addstr(out, "<style>\n");
	bf_buf_add(out, bf_html_uplot_css, bf_html_uplot_css_len);
	bf_buf_addch(out, '\n');
	bf_buf_add(out, bf_html_report_css, bf_html_report_css_len);
	bf_buf_addstr(out, "</style>\n</head>\n<body>\n"
	                   "<main id=\"bf-app\"><noscript>This report needs "
	                   "JavaScript.</noscript></main>\n");
	/* history: 6 significant digits (what the page shows) keep 100,000
	 * points small */
	ret = add_json_block(out, "bf-result", result,
	                     dash ? JSON_REAL_PRECISION(6) : 0, err);
	if (!ret && flame)
		ret = add_json_block(out, "bf-flame", flame, 0, err);
	json_decref(flame);
	if (ret)
		return ret;
	bf_buf_addstr(out, "<script>\n");
	bf_buf_add(out, bf_html_uplot_js, bf_html_uplot_js_len);
	bf_buf_addstr(out, "\n</script>\n<script>\n");
	/* plots.js, then report.js in the same element: report.js runs
	 * with what plots.js defined (bfPage) */
	bf_buf_add(out, bf_html_plots_js, bf_html_plots_js_len);
	bf_buf_addch(out, '\n');
	bf_buf_add(out, bf_html_report_js, bf_html_report_js_len);
	bf_buf_addstr(out, "\n</script>\n</body>\n</html>\n");
	return 0;
}

const struct bf_plugin bf_plugin_html = {
	.abi = BF_PLUGIN_ABI,
	.name = "html",
	.summary = "a self-contained page with plots (uPlot), no network",
	.kinds = "compare,dashboard",
	.run = html_run,
};
