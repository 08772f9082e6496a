AGENT_OBJS += agent/commands.o
AGENT_OBJS += agent/options.o
AGENT_OBJS += agent/serve.o
AGENT_OBJS += agent/req_reply.o
AGENT_OBJS += agent/req_run.o
AGENT_OBJS += agent/req_duet.o
AGENT_OBJS += agent/duet_isolate.o
AGENT_OBJS += agent/duet_pin.o
AGENT_OBJS += agent/run_measure.o
AGENT_OBJS += agent/counters.o
AGENT_OBJS += agent/cachegrind.o
AGENT_OBJS += agent/journal.o
AGENT_OBJS += agent/fence.o
AGENT_OBJS += agent/verify.o
AGENT_OBJS += agent/req_info.o
AGENT_OBJS += agent/cmd_oneshot.o
AGENT_OBJS += agent/cmd_device.o
AGENT_OBJS += agent/cmd_clocks.o
AGENT_OBJS += agent/req_check.o
AGENT_OBJS += agent/android_run.o
AGENT_OBJS += agent/info.o
AGENT_OBJS += agent/req_instrument.o
include agent/parse/files.mk
include agent/probe/files.mk
include agent/check/files.mk
