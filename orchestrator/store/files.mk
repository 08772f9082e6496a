# The store (store_int.h lists its files and how they call each other);
# STORE_OBJS is also what a unit test links to have the store.
STORE_OBJS := orchestrator/store/store.o orchestrator/store/store_device.o \
	orchestrator/store/store_lease.o orchestrator/store/store_run.o \
	orchestrator/store/store_sample.o orchestrator/store/store_alert.o \
	orchestrator/store/schema_sqlite.o orchestrator/store/sql_sqlite.o \
	orchestrator/store/store_lock.o orchestrator/store/sql.o \
	orchestrator/store/sql_pg.o orchestrator/store/sql_pg_text.o \
	orchestrator/store/sql_pg_copy.o \
	orchestrator/store/schema_pg.o \
	orchestrator/store/store_location.o orchestrator/store/store_rows.o \
	orchestrator/store/store_copy.o orchestrator/store/store_queue.o \
	orchestrator/store/store_live.o orchestrator/store/store_holder_pg.o
ORCH_OBJS += $(STORE_OBJS)
