PLUGIN_OBJS += plugins/report_markdown.o
PLUGIN_OBJS += plugins/report_markdown_table.o
PLUGIN_OBJS += plugins/report_markdown_text.o
PLUGIN_OBJS += plugins/report_exec.o
PLUGIN_OBJS += plugins/report_json.o
PLUGIN_OBJS += plugins/report_github.o
PLUGIN_OBJS += plugins/report_github_check.o
PLUGIN_OBJS += plugins/report_github_commands.o
PLUGIN_OBJS += plugins/report_gitlab.o
PLUGIN_OBJS += plugins/report_gerrit.o
PLUGIN_OBJS += plugins/report_gerrit_message.o
PLUGIN_OBJS += plugins/report_gerrit_server.o
PLUGIN_OBJS += plugins/report_junit.o
PLUGIN_OBJS += plugins/report_skia_perf.o
PLUGIN_OBJS += plugins/report_bmf.o
PLUGIN_OBJS += plugins/report_util.o
PLUGIN_OBJS += plugins/report_html.o
PLUGIN_OBJS += plugins/html/assets.o

# The HTML reporter's page: uPlot and our script (plots.js, then
# report.js) and style, compiled in as bytes (plugins/html/embed.sh) so
# the binary writes pages alone.
HTML_ASSETS := uplot_js=third_party/uplot/uPlot.iife.min.js \
	uplot_css=third_party/uplot/uPlot.min.css \
	plots_js=plugins/html/plots.js report_js=plugins/html/report.js \
	report_css=plugins/html/report.css
$(B)/plugins/html/assets.c: plugins/html/embed.sh $(foreach a,$(HTML_ASSETS),$(lastword $(subst =, ,$(a))))
	@mkdir -p $(dir $@)
	$(Q)sh plugins/html/embed.sh $@ $(HTML_ASSETS)
$(B)/plugins/html/assets.o: $(B)/plugins/html/assets.c
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

# uPlot re-fetched from npm and checked against third_party/uplot/SHA256SUMS.
vendor-check:
	$(Q)third_party/uplot/fetch.sh
.PHONY: vendor-check
