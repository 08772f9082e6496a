AGENT_OBJS += agent/parse/parse.o
AGENT_OBJS += agent/parse/parse_util.o
AGENT_OBJS += agent/parse/parse_gbench.o
AGENT_OBJS += agent/parse/parse_lines.o
AGENT_OBJS += agent/parse/parse_jetpack.o
AGENT_OBJS += agent/parse/parse_hyperfine.o
AGENT_OBJS += agent/parse/parse_native.o
