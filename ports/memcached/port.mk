# ports/memcached/port.mk - memcached 1.6.18 on libevent
# (ports/memcached/build.sh): `make run APP=memcached [SMP=4]` boots it
# with a thread per core, listening on port 11211, which QEMU's user
# network forwards from 127.0.0.1:HOSTPORT (11211 for this program).
# tests/host/memcached_test.sh runs memccapable against it in make test;
# make test-ports runs memcached's own Perl suite and a memcslap load
# (tests/host/memcached_suite.sh).

PORT_PROGRAMS += memcached
PORT_ELF_memcached := $(B)/ports/memcached/memcached.elf
# -U 0: TCP only; -t: a worker thread per core; 64 MiB of items; 1024
# connections.  (memcached refuses root without -u; getuid is 1000 here.)
PORT_CMDLINE_memcached = -- -U 0 -t $(SMP) -m 64 -c 1024
PORT_RUNENV_memcached = HOSTPORT=$(or $(HOSTPORT),11211) GUESTPORT=$(or $(GUESTPORT),11211)

$(PORT_ELF_memcached): $(TOOLCHAIN) $(LIBEVENT) ports/memcached/build.sh $(PORT_SCRIPTS)
	+$(Q)ports/memcached/build.sh $(ARCH)

# libevent and memcached need <netdb.h> (getaddrinfo), which posix/ is
# gaining: until it has it, make ports and make test leave them out.
ifneq ($(wildcard include/posix/netdb.h),)
PORT_ELFS += $(PORT_ELF_memcached)
test-images: $(PORT_ELF_memcached)
endif

# make test-ports: memcached's Perl suite and a memcslap load against
# the image (tests/host/memcached_suite.sh; a few minutes).
.PHONY: test-ports
test-ports: $(PORT_ELF_memcached)
	$(Q)tests/host/memcached_suite.sh $(ARCH)
