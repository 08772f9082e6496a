ORCH_OBJS += orchestrator/farm/agentconn.o
ORCH_OBJS += orchestrator/farm/transport_local.o
ORCH_OBJS += orchestrator/farm/devcheck.o
ORCH_OBJS += orchestrator/farm/ssh_session.o
ORCH_OBJS += orchestrator/farm/ssh.o
ORCH_OBJS += orchestrator/farm/ssh_known.o
ORCH_OBJS += orchestrator/farm/ssh_channel.o
ORCH_OBJS += orchestrator/farm/ssh_sftp.o
