# libFuzzer targets (tests/fuzz/fuzz_*.c), built by clang with ASan and
# UBSan into build/fuzz: `make fuzz FUZZ_SECONDS=N` runs each for N
# seconds; make check runs each briefly and replays the kept crashers
# (tests/e2e/t0090-fuzz.sh).
FUZZ_TARGETS := config proto serve agentconn parse analyze trace report sysfs \
	artifacts
FUZZ_BINS = $(addprefix $(B)/tests/fuzz/fuzz_,$(FUZZ_TARGETS))
FUZZ_SECONDS ?= 60

$(B)/tests/fuzz/fuzz_%: $(B)/tests/fuzz/fuzz_%.o $(B)/tests/mocks/host_mock.o \
		$(addprefix $(B)/,$(ORCH_OBJS) $(PLUGIN_OBJS) $(AGENT_OBJS)) \
		$(B)/libbfcore.a
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_LDFLAGS) -fsanitize=fuzzer -o $@ $^ $(LIBS_ORCH)

fuzz-bins: $(FUZZ_BINS)

# clang, ASan and UBSan, coverage for libFuzzer; warnings are not errors
# in this flavour (gcc's -Werror build is the one that keeps them out).
fuzz-build: deps
	$(Q)$(MAKE) --no-print-directory BUILD_DIR=build/fuzz CC=clang \
		SANITIZE=address,undefined WERROR=0 \
		CFLAGS=-fsanitize=fuzzer-no-link fuzz-bins

fuzz: fuzz-build
	$(Q)BF_FUZZ_BUILD=build/fuzz tests/fuzz/run.sh $(FUZZ_SECONDS) \
		$(FUZZ_TARGETS)

.PHONY: fuzz fuzz-build fuzz-bins
