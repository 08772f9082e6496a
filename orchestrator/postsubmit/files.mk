ORCH_OBJS += orchestrator/postsubmit/history.o
ORCH_OBJS += orchestrator/postsubmit/detect.o
ORCH_OBJS += orchestrator/postsubmit/detect_params.o
ORCH_OBJS += orchestrator/postsubmit/detect_info.o
ORCH_OBJS += orchestrator/postsubmit/bisect.o
ORCH_OBJS += orchestrator/postsubmit/detect_bisect.o
ORCH_OBJS += orchestrator/postsubmit/bisect_choose.o
ORCH_OBJS += orchestrator/postsubmit/bisect_alert.o
