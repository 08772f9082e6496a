# libbenchfarm_trace: static and shared, and its pkg-config file. Built
# with its own flags: position-independent, never instrumented itself,
# no sanitizer (it is linked into the user's traced program).
TRACER_SRCS := agent/tracer/trace.c agent/tracer/objects.c
TRACER_PIC := $(addprefix $(B)/tracer-pic/,$(TRACER_SRCS:.c=.o))
TRACER_CFLAGS = $(CSTD) -D_GNU_SOURCE $(CWARN) $(COPT) -fPIC \
	-fno-instrument-functions -fvisibility=default -Iagent/tracer/include \
	-Iagent/tracer -Icore/include -MMD -MP $(CFLAGS)
TRACER_A := $(B)/libbenchfarm_trace.a
TRACER_SO := $(B)/libbenchfarm_trace.so
TRACER_PC := $(B)/benchfarm-trace.pc

$(B)/tracer-pic/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $< (pic)")
	$(Q)$(CC) $(TRACER_CFLAGS) -c -o $@ $<
$(TRACER_A): $(TRACER_PIC)
	$(Q)rm -f $@ && ar rcs $@ $^
$(TRACER_SO): $(TRACER_PIC)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) -shared -Wl,-soname,libbenchfarm_trace.so -o $@ $^
# benchfarm-trace.pc for PREFIX $(1)
tracer_pc = printf '%s\n' 'prefix=$(1)' 'libdir=$${prefix}/lib' \
	'includedir=$${prefix}/include' '' 'Name: benchfarm-trace' \
	'Description: function tracing for -finstrument-functions builds' \
	'Version: 0.1.0' 'Libs: -L$${libdir} -Wl,-rpath,$${libdir} -lbenchfarm_trace' \
	'Cflags: -I$${includedir} -finstrument-functions'
$(TRACER_PC): agent/tracer/files.mk
	@mkdir -p $(dir $@)
	$(Q)$(call tracer_pc,$(PREFIX)) >$@

TRACER_TARGETS += $(TRACER_A) $(TRACER_SO) $(TRACER_PC)
define TRACER_INSTALL_CMDS
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include/benchfarm
	install -m 0644 $(TRACER_A) $(DESTDIR)$(PREFIX)/lib/
	install -m 0755 $(TRACER_SO) $(DESTDIR)$(PREFIX)/lib/
	$(call tracer_pc,$(PREFIX)) >$(DESTDIR)$(PREFIX)/lib/pkgconfig/benchfarm-trace.pc
	install -m 0644 agent/tracer/include/benchfarm/trace.h $(DESTDIR)$(PREFIX)/include/benchfarm/
endef
TRACER_INSTALL = $(TRACER_INSTALL_CMDS)
