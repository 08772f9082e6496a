ORCH_OBJS += orchestrator/config/cfg.o
ORCH_OBJS += orchestrator/config/cfg_json.o
ORCH_OBJS += orchestrator/config/cfg_walk.o
ORCH_OBJS += orchestrator/config/cfg_schema.o
ORCH_OBJS += orchestrator/config/cfg_words.o
