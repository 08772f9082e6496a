ORCH_OBJS += orchestrator/report/plugins.o
