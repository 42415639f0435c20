# ports/redis/port.mk - Redis 7.0.15's redis-server (ports/redis/build.sh):
# `make run APP=redis [SMP=4]` boots it listening on port 6379, which
# QEMU's user network forwards from 127.0.0.1:HOSTPORT (6379 for this
# program).  tests/host/redis_test.sh checks it from the host in make
# test (redis-cli, a slice of Redis's own Tcl suite); make test-ports
# runs the whole external suite and a redis-benchmark load.

PORT_PROGRAMS += redis
PORT_ELF_redis := $(B)/ports/redis/redis-server.elf
# No save rules (--save with no value is `save ""`): a rule's save runs
# in the background, which needs fork, and after one fails Redis refuses
# writes; no AOF (turning it on starts a background rewrite).  No
# protected mode: clients come from QEMU's user network (10.0.2.2), which
# reaches the guest only from 127.0.0.1.
PORT_CMDLINE_redis = -- --save --appendonly no --protected-mode no
PORT_RUNENV_redis = HOSTPORT=$(or $(HOSTPORT),6379) GUESTPORT=$(or $(GUESTPORT),6379)

$(PORT_ELF_redis): $(TOOLCHAIN) ports/redis/build.sh $(PORT_SCRIPTS)
	+$(Q)ports/redis/build.sh $(ARCH)

# make ports; make test's images of each arch, for tests/host/redis_test.sh.
PORT_ELFS += $(PORT_ELF_redis)
test-images: $(PORT_ELF_redis)
test-ports: test-ports-redis

# make test-ports: Redis's whole Tcl suite against the image, and a
# redis-benchmark load (tests/host/redis_test.sh --full).
.PHONY: test-ports-redis
test-ports-redis: $(PORT_ELF_redis)
	$(Q)tests/host/redis_test.sh --full $(ARCH)
