#ifndef BF_HTML_ASSETS_H
#define BF_HTML_ASSETS_H

#include <stddef.h>

/*
 * The files the HTML reporter inlines into every page, compiled into the
 * binary by plugins/html/embed.sh: uPlot (third_party/uplot) and the
 * page's own script and style (plugins/html/plots.js and report.js, one
 * script in that order; report.css). Each is NUL-terminated; _len
 * excludes the NUL.
 */
extern const char bf_html_uplot_js[];
extern const size_t bf_html_uplot_js_len;
extern const char bf_html_uplot_css[];
extern const size_t bf_html_uplot_css_len;
extern const char bf_html_plots_js[];
extern const size_t bf_html_plots_js_len;
extern const char bf_html_report_js[];
extern const size_t bf_html_report_js_len;
extern const char bf_html_report_css[];
extern const size_t bf_html_report_css_len;

#endif /* BF_HTML_ASSETS_H */
