# libbenchfarm_bench (static and shared), libbenchfarm_bench_main (the
# main() of programs that only define benchmarks) and benchfarm-bench.pc.
# Built with their own flags: position-independent, no sanitizer (linked
# into the user's benchmark programs), only libc, libm and pthreads, and
# only the public API (BF_BENCH_API) visible outside the shared library.
HARNESS_SRCS := agent/harness/logic.c agent/harness/run.c \
	agent/harness/opts.c agent/harness/report.c agent/harness/bench.c
HARNESS_PIC := $(addprefix $(B)/harness-pic/,$(HARNESS_SRCS:.c=.o))
HARNESS_CFLAGS = $(CSTD) -D_GNU_SOURCE $(CWARN) $(COPT) -fPIC \
	-fvisibility=hidden -Iagent/harness/include -Iagent/harness \
	-Icore/include -MMD -MP $(CFLAGS)

# The unit tests build logic, run, opts and report with the project's
# flags (and sanitizers) through the generic rule; they need the header.
$(B)/agent/harness/%.o: ALL_CFLAGS += -Iagent/harness/include
$(B)/tests/unit/harness/%.o: ALL_CFLAGS += -Iagent/harness/include
HARNESS_A := $(B)/libbenchfarm_bench.a
HARNESS_SO := $(B)/libbenchfarm_bench.so
HARNESS_MAIN_A := $(B)/libbenchfarm_bench_main.a
HARNESS_PC := $(B)/benchfarm-bench.pc

$(B)/harness-pic/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $< (pic)")
	$(Q)$(CC) $(HARNESS_CFLAGS) -c -o $@ $<
$(HARNESS_A): $(HARNESS_PIC)
	$(Q)rm -f $@ && ar rcs $@ $^
$(HARNESS_SO): $(HARNESS_PIC)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) -shared -Wl,-soname,libbenchfarm_bench.so -o $@ $^ -lm -lpthread
$(HARNESS_MAIN_A): $(B)/harness-pic/agent/harness/main.o
	$(Q)rm -f $@ && ar rcs $@ $^

# benchfarm-bench.pc for PREFIX $(1)
harness_pc = printf '%s\n' 'prefix=$(1)' 'libdir=$${prefix}/lib' \
	'includedir=$${prefix}/include' '' 'Name: benchfarm-bench' \
	'Description: Jetpack-style microbenchmarks for C and C++' \
	'Version: 0.1.0' \
	'Libs: -L$${libdir} -Wl,-rpath,$${libdir} -lbenchfarm_bench_main -lbenchfarm_bench -lpthread -lm' \
	'Cflags: -I$${includedir}'
$(HARNESS_PC): agent/harness/files.mk
	@mkdir -p $(dir $@)
	$(Q)$(call harness_pc,$(PREFIX)) >$@

# the same for the build tree, for `BF_DEMO=harness make demo` and tests
HARNESS_PC_UNINST := $(B)/pkgconfig-uninstalled/benchfarm-bench.pc
$(HARNESS_PC_UNINST): agent/harness/files.mk
	@mkdir -p $(dir $@)
	$(Q)printf '%s\n' 'Name: benchfarm-bench' \
		'Description: Jetpack-style microbenchmarks (build tree)' \
		'Version: 0.1.0' \
		'Libs: $(abspath $(HARNESS_MAIN_A)) $(abspath $(HARNESS_A)) -lpthread -lm' \
		'Cflags: -I$(CURDIR)/agent/harness/include' >$@

HARNESS_TARGETS += $(HARNESS_A) $(HARNESS_SO) $(HARNESS_MAIN_A) $(HARNESS_PC) \
	$(HARNESS_PC_UNINST)
define HARNESS_INSTALL_CMDS
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include/benchfarm
	install -m 0644 $(HARNESS_A) $(HARNESS_MAIN_A) $(DESTDIR)$(PREFIX)/lib/
	install -m 0755 $(HARNESS_SO) $(DESTDIR)$(PREFIX)/lib/
	$(call harness_pc,$(PREFIX)) >$(DESTDIR)$(PREFIX)/lib/pkgconfig/benchfarm-bench.pc
	install -m 0644 agent/harness/include/benchfarm/bench.h $(DESTDIR)$(PREFIX)/include/benchfarm/
endef
HARNESS_INSTALL = $(HARNESS_INSTALL_CMDS)
