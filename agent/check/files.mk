AGENT_OBJS += agent/check/check.o
AGENT_OBJS += agent/check/check_eval.o
AGENT_OBJS += agent/check/check_item.o
AGENT_OBJS += agent/check/check_clocks.o
AGENT_OBJS += agent/check/throttle.o
AGENT_OBJS += agent/check/clocks.o
AGENT_OBJS += agent/check/clocks_state.o
