ORCH_OBJS += orchestrator/trace/trace_read.o
ORCH_OBJS += orchestrator/trace/trace_sym.o
ORCH_OBJS += orchestrator/trace/trace_tree.o
ORCH_OBJS += orchestrator/trace/trace_filter.o
ORCH_OBJS += orchestrator/trace/trace_render.o
ORCH_OBJS += orchestrator/trace/trace_chrome.o
