# ports/libevent/port.mk - libevent 2.1.12 as static libraries in the
# sysroot (ports/libevent/build.sh), for the ports that use it
# (ports/memcached).  tools/build/toolchain.sh makes the sysroot afresh,
# which removes them, so they are installed again after it.

LIBEVENT := $(B)/sysroot/lib/libevent.a
$(LIBEVENT): $(TOOLCHAIN) ports/libevent/build.sh $(PORT_SCRIPTS)
	+$(Q)ports/libevent/build.sh $(ARCH)
