# The config module; tests that load a config link CFG_OBJS.
CFG_OBJS := orchestrator/config/cfg.o
CFG_OBJS += orchestrator/config/cfg_load.o
CFG_OBJS += orchestrator/config/cfg_json.o
CFG_OBJS += orchestrator/config/cfg_walk.o
CFG_OBJS += orchestrator/config/cfg_table.o
CFG_OBJS += orchestrator/config/cfg_words.o
CFG_OBJS += orchestrator/config/cfg_suggest.o
CFG_OBJS += orchestrator/config/cfg_schema.o
CFG_OBJS += orchestrator/config/cfg_detector.o
ORCH_OBJS += $(CFG_OBJS)
