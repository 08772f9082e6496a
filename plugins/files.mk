PLUGIN_OBJS += plugins/report_markdown.o
PLUGIN_OBJS += plugins/report_exec.o
PLUGIN_OBJS += plugins/report_json.o
