ORCH_OBJS += orchestrator/git/workspace.o
ORCH_OBJS += orchestrator/git/buildcache.o
ORCH_OBJS += orchestrator/git/artifacts.o
ORCH_OBJS += orchestrator/git/gitrepo.o
ORCH_OBJS += orchestrator/git/gitrepo_export.o
ORCH_OBJS += orchestrator/git/buildcache_prune.o
ORCH_OBJS += orchestrator/git/buildid.o
