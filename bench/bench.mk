# bench/bench.mk - the benchmarks: bench/ (Spindle), bench/go (the same
# workloads in Go) and apps/httpd under wrk.

# Benchmarks (README, "Figures"): one boot at SMP cores (and one at
# 1 core for fib_speedup), printing "BENCH <name> <value> <unit>" lines.
bench: $(B)/bench.elf
	$(Q)CMDLINE="$(CMDLINE)" tools/bench/bench.sh $(RUN_ARCH) $(SMP) $(BENCH)

# Network benchmarks (tools/bench/bench-net.sh): apps/httpd under wrk (req/s, p50,
# p99) and one bulk TCP download (Mbit/s), on QEMU's user network and, as
# root, on a TAP device in a private network namespace; BENCH_NET="reps=3
# only=user,tap mib=128 secs=10".  NET=tap (or user) on make's command
# line runs that backend alone; QUEUES=N gives the TAP's NIC N queue pairs
# with RSS and runs it with one pair too, for the comparison.  Needs wrk
# (tools/build/deps.sh net).
.PHONY: bench-net bench-go deps-go
bench-net: $(B)/apps/httpd.elf
	$(Q)CMDLINE="$(CMDLINE)" tools/bench/bench-net.sh $(RUN_ARCH) $(SMP) \
	    $(if $(filter command line,$(origin NET)),only=$(NET)) \
	    $(if $(QUEUES),queues=$(QUEUES)) $(BENCH_NET)

# The same workloads in Go (bench/go), run beside Spindle's bench
# with GOMAXPROCS=SMP and the same BENCH args; tools/bench/bench-table.sh makes
# one table of both.  BENCH_GO_ARCH is the Spindle build compared, built
# by a sub-make since its rules exist only when ARCH names it.  Go is
# needed for this alone (deps-go), and builds with its cache under build/.
# GO= picks another Go toolchain (e.g. /usr/lib/go-1.23/bin/go); the
# binary is built again when it changes (build/go/toolchain).
BENCH_GO_ARCH ?= hosted
GO            ?= go
GO_BENCH      := build/go/bench
GO_ENV        := GOCACHE=$(CURDIR)/build/go/cache GOPATH=$(CURDIR)/build/go/path \
                 GOPROXY=off GOFLAGS= CGO_ENABLED=0

deps-go:
	$(Q)tools/build/deps.sh go

# Debian's Go is installed first when GO is the default (deps-go); another
# GO= is the user's own toolchain, only checked.
build/go/toolchain: FORCE | $(if $(filter go,$(GO)),deps-go)
	$(Q)command -v '$(GO)' >/dev/null || { echo "GO=$(GO): no such Go" \
	    "toolchain (bookworm-backports' golang-1.23-go installs /usr/lib/go-1.23/bin/go)" >&2; exit 1; }
	$(Q)mkdir -p $(@D)
	$(Q)echo '$(GO)' > $@.new && { cmp -s $@.new $@ && rm $@.new || mv $@.new $@; }

# $(call go_build,ENV): bench/go into $@, with ENV (GOOS=, GOARCH=).
GO_SRC := $(wildcard bench/go/*.go) bench/go/go.mod build/go/toolchain
define go_build
	$(call msg,GO,$@)
	$(Q)mkdir -p $(@D)
	$(Q)cd bench/go && $(GO_ENV) $(1) $(GO) build -trimpath -o $(CURDIR)/$@ .
endef

$(GO_BENCH): $(GO_SRC) | deps-go
	$(call go_build,)

# Under QEMU (BENCH_GO_ARCH=x86_64 or aarch64) Go runs as the init of a
# Debian Linux guest: the kernel from tools/build/linuxguest.sh, the binary for
# the guest's arch in an initramfs (tools/build/mkcpio.py).
build/go/bench-linux-%: $(GO_SRC) | deps-go
	$(call go_build,GOOS=linux GOARCH=$*)

build/go/initrd-x86_64.cpio: build/go/bench-linux-amd64 tools/build/mkcpio.py
build/go/initrd-aarch64.cpio: build/go/bench-linux-arm64 tools/build/mkcpio.py
build/go/initrd-%.cpio:
	$(call msg,CPIO,$@)
	$(Q)python3 tools/build/mkcpio.py $@ $<

build/linux-%/vmlinuz: tools/build/linuxguest.sh tools/build/once.sh
	$(Q)tools/build/linuxguest.sh $(@D) $*

bench-go: $(if $(filter hosted%,$(BENCH_GO_ARCH)),$(GO_BENCH),\
            build/linux-$(BENCH_GO_ARCH)/vmlinuz build/go/initrd-$(BENCH_GO_ARCH).cpio)
	$(Q)$(MAKE) --no-print-directory ARCH=$(BENCH_GO_ARCH) \
	    build/$(BENCH_GO_ARCH)/bench.elf
	$(Q)tools/bench/bench-go.sh $(BENCH_GO_ARCH) $(SMP) $(BENCH)

# Real programs on Spindle against the same programs in a Linux guest
# under the same QEMU flags (tools/bench/bench-apps.sh): memcached under
# mcload (tools/bench/mcload.c) and Redis under redis-benchmark on a TAP
# device, as root; SQLite's speedtest1.  BENCH_APPS="only=memcached,
# redis,speedtest1 reps=3 secs=10 warmup=3 conns=32 keys=10000 size=50
# requests=N".  The guest is Debian's kernel (tools/build/linuxguest.sh)
# with an initramfs of Debian's memcached binary, a static speedtest1 and
# a static redis-server (tools/build/linuxapps.sh); x86_64 only.
.PHONY: bench-apps
MCLOAD := build/host/mcload
$(MCLOAD): tools/bench/mcload.c
	$(call msg,HOSTCC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)gcc -O2 -Wall -Wextra -Werror -o $@ $<

build/ports/sqlite/host-static/speedtest1: ports/sqlite/build.sh ports/port.sh ports/debsrc.sh
	+$(Q)ports/sqlite/build.sh host-static

build/ports/redis/host-static/redis-server: ports/redis/build.sh ports/port.sh ports/debsrc.sh
	+$(Q)ports/redis/build.sh host-static

build/linux-apps-x86_64/initrd.cpio: build/linux-x86_64/vmlinuz \
    build/ports/sqlite/host-static/speedtest1 build/ports/redis/host-static/redis-server \
    tools/build/linuxapps.sh tools/build/linuxinit.c tools/build/mkcpio.py
	$(Q)tools/build/linuxapps.sh $(@D) x86_64 build/linux-x86_64/modules \
	    build/ports/sqlite/host-static/speedtest1 build/ports/redis/host-static/redis-server

ifeq ($(ARCH),x86_64)
bench-apps: build/linux-x86_64/vmlinuz build/linux-apps-x86_64/initrd.cpio $(MCLOAD) \
            $(B)/ports/memcached/memcached.elf $(B)/ports/sqlite/speedtest1.elf \
            $(B)/ports/redis/redis-server.elf
	$(Q)tools/bench/bench-apps.sh $(ARCH) $(SMP) $(BENCH_APPS)
else
bench-apps:
	@echo "make bench-apps: ARCH=$(ARCH): its Linux guest is x86_64 only" >&2; exit 2
endif
