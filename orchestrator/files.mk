ORCH_OBJS += orchestrator/commands.o
ORCH_OBJS += orchestrator/cmd_config.o
ORCH_OBJS += orchestrator/cmd_compare.o
ORCH_OBJS += orchestrator/cmd_analyze.o
ORCH_OBJS += orchestrator/cmd_device.o
ORCH_OBJS += orchestrator/cmd_device_add.o
ORCH_OBJS += orchestrator/cmd_device_list.o
ORCH_OBJS += orchestrator/cmd_device_check.o
ORCH_OBJS += orchestrator/cmd_device_machine.o
ORCH_OBJS += orchestrator/cmd_postsubmit.o
ORCH_OBJS += orchestrator/cmd_detect.o
ORCH_OBJS += orchestrator/cmd_opts.o
ORCH_OBJS += orchestrator/cmd_history.o
ORCH_OBJS += orchestrator/cmd_dashboard.o
ORCH_OBJS += orchestrator/cmd_bisect.o
ORCH_OBJS += orchestrator/cmd_analyze_step.o
ORCH_OBJS += orchestrator/cmd_report.o
ORCH_OBJS += orchestrator/cmd_trace.o
ORCH_OBJS += orchestrator/cmd_cache.o
ORCH_OBJS += orchestrator/cmd_store.o
include orchestrator/config/files.mk
include orchestrator/store/files.mk
include orchestrator/farm/files.mk
include orchestrator/git/files.mk
include orchestrator/job/files.mk
include orchestrator/postsubmit/files.mk
include orchestrator/report/files.mk
include orchestrator/trace/files.mk
