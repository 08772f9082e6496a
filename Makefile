# benchfarm: one non-recursive Makefile (each folder adds its files in
# its files.mk), so make sees every dependency at once.
#   make                 build benchfarm and benchfarm-agent
#   make check           install missing deps, build, run unit + e2e tests
#   make demo            run a presubmit compare on a generated sample repo
#   make SANITIZE=address,undefined check   the sanitizer flavour
#   make memcheck        the unit tests under valgrind (errors and leaks)
#   make install PREFIX=DIR
#   make format / format-check / headercheck / bench / clean
#   make bench-pg        the PostgreSQL store's benchmarks only
#   make bench-noise     record the noise study's corpus again (35 minutes,
#                        on a machine doing nothing else) and replay it
#   make include-check   each program includes only its own and core's headers
#   make fuzz FUZZ_SECONDS=N   run every libFuzzer target N seconds
#   make vendor-check    re-fetch third_party/uplot from npm, verify its SHA-256
#   V=1 shows the full compiler lines.

comma := ,
.DEFAULT_GOAL := all
FLAVOUR := default
ifneq ($(SANITIZE),)
FLAVOUR := sanitize-$(subst $(comma),-,$(SANITIZE))
endif
ifeq ($(DEBUG),1)
FLAVOUR := $(FLAVOUR)-debug
endif
B := $(or $(BUILD_DIR),build/$(FLAVOUR))

CC ?= cc
PKG_CONFIG ?= pkg-config
PREFIX ?= /usr/local

CSTD  = -std=c11 -D_POSIX_C_SOURCE=200809L
CWARN = -Wall -Wextra -pedantic -Wstrict-prototypes -Wold-style-definition \
	-Wmissing-prototypes -Wpointer-arith -Wvla -Wwrite-strings -Wformat=2 \
	-Wshadow -Wdeclaration-after-statement -fno-common
WERROR ?= 1
ifeq ($(WERROR),1)
CWARN += -Werror
endif
ifeq ($(DEBUG),1)
COPT = -O0 -g3
else
COPT = -O2 -g -fno-omit-frame-pointer
endif
ifneq ($(SANITIZE),)
CSAN = -fsanitize=$(SANITIZE) -fno-sanitize-recover=all -fno-omit-frame-pointer
endif

# Recursive (=) on purpose: pkg-config runs only when a recipe needs it,
# so `make check` can install the packages before they are asked for.
PKGS_ORCH  = libgit2 libssh2 jansson yaml-0.1 sqlite3 libpq libelf
PKG_CFLAGS = $(shell $(PKG_CONFIG) --cflags $(PKGS_ORCH) cmocka)
LIBS_CORE  = $(shell $(PKG_CONFIG) --libs jansson) -lm
LIBS_ORCH  = $(shell $(PKG_CONFIG) --libs $(PKGS_ORCH)) -lm
LIBS_TEST  = $(shell $(PKG_CONFIG) --libs cmocka)

# Each program has its own include path, so that it reaches only its own
# headers (named by folder: "store/store.h") and core's public ones
# ("benchfarm/err.h"); tests and fuzz targets reach every program's.
ALL_CFLAGS = $(CSTD) $(CWARN) $(COPT) $(CSAN) -Icore/include $(INCS) \
	$(PKG_CFLAGS) -MMD -MP $(CFLAGS)
INCS =
$(B)/orchestrator/%.o: INCS = -Iorchestrator
$(B)/agent/%.o: INCS = -Iagent
$(B)/plugins/%.o: INCS = -Iplugins
$(B)/tests/%.o: INCS = -Iorchestrator -Iagent -Iplugins -Itests
ALL_LDFLAGS = $(CSAN) $(LDFLAGS)

ifeq ($(V),1)
Q =
else
Q = @
endif

CORE_OBJS :=
ORCH_OBJS :=
AGENT_OBJS :=
PLUGIN_OBJS :=
UNIT_TESTS :=
# The benchmark harness library (agent/harness/files.mk) adds its
# libraries and pkg-config file to HARNESS_TARGETS and its install
# commands to HARNESS_INSTALL.
HARNESS_TARGETS :=
HARNESS_INSTALL :=
TRACER_TARGETS :=
TRACER_INSTALL :=
include core/files.mk
include orchestrator/files.mk
include agent/files.mk
include plugins/files.mk
-include agent/harness/files.mk
include agent/tracer/files.mk
include tests/unit/files.mk
include tests/fuzz/files.mk

CORE_LIB  := $(B)/libbfcore.a
ORCH_LIB  := $(B)/liborch.a
AGENT_LIB := $(B)/libagent.a
BENCHFARM := $(B)/benchfarm
AGENT     := $(B)/benchfarm-agent
UNIT_BINS := $(addprefix $(B)/,$(UNIT_TESTS))

all: $(BENCHFARM) $(AGENT) $(HARNESS_TARGETS) $(TRACER_TARGETS)

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(CORE_LIB): $(addprefix $(B)/,$(CORE_OBJS))
	$(Q)rm -f $@ && ar rcs $@ $^
$(ORCH_LIB): $(addprefix $(B)/,$(ORCH_OBJS) $(PLUGIN_OBJS))
	$(Q)rm -f $@ && ar rcs $@ $^
$(AGENT_LIB): $(addprefix $(B)/,$(AGENT_OBJS))
	$(Q)rm -f $@ && ar rcs $@ $^

$(BENCHFARM): $(B)/orchestrator/main.o $(ORCH_LIB) $(CORE_LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS_ORCH)
$(AGENT): $(B)/agent/main.o $(AGENT_LIB) $(CORE_LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS_CORE)

# A unit test links its own object, the objects it names in
# tests/unit/files.mk as <test>_OBJS, and the core library.
.SECONDEXPANSION:
$(B)/tests/unit/%: $(B)/tests/unit/%.o $$(addprefix $(B)/,$$(tests/unit/%_OBJS)) $(CORE_LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS_ORCH) $(LIBS_TEST)

deps:
	$(Q)ci/deps.sh

tests: all $(UNIT_BINS)

check: deps
	$(Q)$(MAKE) --no-print-directory tests
	$(Q)ci/style-check.sh
	$(Q)python3 ci/include-check.py
	$(Q)BF_BUILD=$(B) ci/run-tests.sh $(addprefix $(B)/,$(UNIT_TESTS))

# The unit tests under valgrind's memcheck (no errors, no leaks).
memcheck: deps
	$(Q)$(MAKE) --no-print-directory tests
	$(Q)ci/memcheck.sh $(addprefix $(B)/,$(UNIT_TESTS))

check-e2e: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)BF_BUILD=$(B) ci/run-tests.sh

demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)BF_BUILD=$(B) ci/demo.sh

bench: deps
	$(Q)BF_DEPS_BENCH=1 ci/deps.sh
	$(Q)$(MAKE) --no-print-directory all
	$(Q)BF_BUILD=$(B) bench/run.sh

# The PostgreSQL store's benchmarks only (part of make bench).
bench-pg: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)BF_BUILD=$(B) sh bench/pg_ingest.sh
	$(Q)BF_BUILD=$(B) sh bench/lease_contend.sh
	$(Q)BF_BUILD=$(B) sh bench/lab_day.sh

# The noise study: record real comparisons quiet and beside a noisy
# neighbour, then replay them (make bench replays the committed corpus).
bench-noise: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)BF_BUILD=$(B) sh bench/noise/record.sh
	$(Q)BF_BUILD=$(B) sh bench/noise/replay.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(BENCHFARM) $(AGENT) $(DESTDIR)$(PREFIX)/bin/
	$(HARNESS_INSTALL)
	$(TRACER_INSTALL)

SOURCES = $(shell git ls-files '*.c' '*.h' 2>/dev/null)
format:
	clang-format-14 -i $(SOURCES)
format-check:
	$(Q)ci/style-check.sh

include-check:
	$(Q)python3 ci/include-check.py

headercheck:
	$(Q)for h in core/include/benchfarm/*.h; do \
		printf '#include "%s"\nint bf_headercheck;\n' "$${h#core/include/}" | \
		$(CC) $(CSTD) $(CWARN) -Icore/include -x c -fsyntax-only - || exit 1; \
	done; echo "headercheck: ok"

clean:
	rm -rf build

.PHONY: all deps tests check memcheck check-e2e demo bench bench-pg bench-noise install format format-check include-check headercheck clean
.SECONDARY:

-include $(shell find $(B) -name '*.d' 2>/dev/null)
