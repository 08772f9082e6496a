AGENT_OBJS += agent/probe/devfs.o
AGENT_OBJS += agent/probe/cpuusage.o
AGENT_OBJS += agent/probe/devfs_adb.o
AGENT_OBJS += agent/probe/probe_android.o
AGENT_OBJS += agent/probe/probe_sys.o
AGENT_OBJS += agent/probe/probe_cpu.o
AGENT_OBJS += agent/probe/probe_thermal.o
AGENT_OBJS += agent/probe/probe_power.o
