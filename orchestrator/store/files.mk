ORCH_OBJS += orchestrator/store/store.o
ORCH_OBJS += orchestrator/store/store_device.o
ORCH_OBJS += orchestrator/store/store_run.o
ORCH_OBJS += orchestrator/store/store_alert.o
