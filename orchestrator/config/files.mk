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
CFG_OBJS += orchestrator/config/cfg_runs.o
CFG_OBJS += orchestrator/config/cfg_gate.o
ORCH_OBJS += $(CFG_OBJS)
# What a program that loads a config but has no store links: the loader
# checks a store: location with the store's location rules.
CFG_ALONE_OBJS := $(CFG_OBJS) orchestrator/store/store_location.o
