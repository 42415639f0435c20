# Spindle - what an image is, and the targets.
#
#   make run [APP=hello] [SMP=n] [ARCH=x86_64] [ACCEL=tcg|kvm] [CMDLINE="..."]
#            [NET=user|tap|] [HOSTPORT=8080] [GUESTPORT=80] [ELF=path]
#            [MACHINE=microvm]           x86_64 on QEMU's microvm
#            [VIRTIO=pci|mmio]
#            [FILES=dir/]                dir's tree linked into the image
#            [INITRD=dir/|x.cpio]        booted with it as the initrd
#                                        APP: an app of apps/ or a port's
#                                        program (speedtest1); ELF: any image
#   make toolchain | ports               build/<arch>/bin/spindle-cc and its
#                                        sysroot; the ports' programs
#   make test [T=<test>] [SMP=n]         host tests, fuzz corpora and in-image
#                                        tests, every arch unless ARCH= names
#                                        one; also build/test-results.xml
#   make test-efi [T=<test>]             every in-image test through firmware
#   make test-net-faults [T=...] [SMP=n] TCP under each link fault, both arches
#   make bench [SMP=n] [BENCH="reps=5 only=spawn,fib"]   BENCH lines
#   make bench-go [SMP=n] [GO=go] [BENCH_GO_ARCH=hosted]  beside Go's
#   make bench-net [NET=user|tap] [QUEUES=n]  apps/httpd under wrk
#   make bench-apps [SMP=n] [BENCH_APPS=...]  memcached, speedtest1 beside Linux
#   make soak [SOAK_MIN=60] [SMP=n]      the long mixed workload
#            [LINK_FAULTS=1|<fault= list>]  and TCP over a faulty link
#   make soak-httpd [HTTPD_IDLE=50000]   httpd's client test, more idle ones
#   make test-hostile [HOSTILE_CASES=all]  every attack of the hostile peer
#   make fuzz [FUZZ_TIME=60]             explore each libFuzzer target
#   make trace [APP=hello] [SMP=n]       the execution tracer: a Perfetto
#                                        trace in build/<arch>/<app>.trace.json
#   make trace-png [WINDOW=A:B]          that trace as a PNG
#   make profile [APP=hello] [HZ=100]    the CPU profiler: build/<arch>/
#                                        <app>.pb.gz (go tool pprof) and
#                                        <app>.folded (flame graphs)
#   make image [APP=hello] [CMDLINE=...] build/<arch>/<app>.img, a GPT disk
#                                        booting the app through UEFI
#   make run-efi | run-uboot [APP=...]   that image under OVMF/AAVMF or U-Boot
#   make gdb [APP=hello] [GDBPORT=1234]  the app under gdb
#   make images                          every app, bench and test image
#   make clean                           remove build/ (newlib included)
#   V=1 shows the commands.  ARCH=x86_64 (default), aarch64 or hosted.
#   FILES= and INITRD= serve gdb, trace, profile and image as they do run.
#
# An image is the kernel, one folder's sources and newlib, linked into
# build/<arch>/<folder>.elf.  Every folder under apps/ holding .c files is
# an app; bench/ is the benchmark image; every tests/<area>/<name>/ holding
# .c files is an in-image test.  Each area's rules are in its own .mk:
# arch/hosted/hosted.mk, net/net.mk, boot/efi/efi.mk, bench/bench.mk,
# kernel/initrd.mk (FILES=, INITRD=), tests/host/host.mk,
# tests/fuzz/fuzz.mk and tests/tests.mk.

ARCH    ?= x86_64
APP     ?= hello
NPROC   := $(shell nproc 2>/dev/null || echo 2)
SMP     ?= $(shell n=$(NPROC); [ $$n -lt 2 ] && n=2; echo $$n)
V       ?= 0
B       := build/$(ARCH)
NEWLIB  := build/newlib/$(ARCH)
# The host-package check before a build's first step; empty in the
# sub-makes of test-prepare, which checked every arch's packages first.
DEPS    := $(if $(DEPS_CHECKED),,deps)

ifeq ($(V),1)
Q :=
msg = @true
else
Q := @
msg = @printf '  %-7s %s\n' $(1) $(2)
endif

# Per arch: its compiler flags, the firmware parsers its images use, and
# how an image becomes what QEMU boots.
ifeq ($(ARCH),x86_64)
CROSS       :=
ARCH_CFLAGS := -mno-red-zone -mcmodel=small
FIRMWARE    := firmware/acpi.c firmware/aml.c firmware/mptable.c
IMAGE_BIN    = true
else ifeq ($(ARCH),aarch64)
CROSS       := aarch64-linux-gnu-
# FP/SIMD stays usable (apps and newlib compute in double and NEON; the
# trap frame and arch_switch save that state).  Atomics are inline
# load/store-exclusive loops, which every ARMv8 core has (newlib's too:
# tools/build/newlib.sh); libgcc's helpers that pick the ARMv8.1 LSE
# instructions at run time (-moutline-atomics, gcc's default) cost a call
# and a return per atomic, a quarter of a contended mutex under TCG
# (docs/benchmarks.md).
ARCH_CFLAGS := -march=armv8-a -mno-outline-atomics \
               --param stack-clash-protection-guard-size=12
FIRMWARE    := $(wildcard firmware/*.c)
# QEMU's -kernel passes the DTB in x0 only to a Linux Image (a raw binary
# with the arm64 Image header), not to an ELF: qemu.sh boots <image>.Image.
IMAGE_BIN    = $(CROSS)objcopy -O binary $(1) $(basename $(1)).Image
else ifeq ($(ARCH),hosted)
# Spindle as a Linux process: arch/hosted/hosted.mk, included below.
CROSS       :=
ARCH_CFLAGS :=
FIRMWARE    :=
IMAGE_BIN    = true
else
$(error ARCH=$(ARCH) is not supported; use ARCH=x86_64, aarch64 or hosted)
endif

CC      := $(CROSS)gcc
LD      := $(CROSS)ld
NM      := $(CROSS)nm
OBJDUMP := $(CROSS)objdump
# An image's disassembly and symbol list, written beside it.
IMAGE_ASM = $(OBJDUMP) -d $(1) > $(basename $(1)).asm
IMAGE_SYM = $(NM) -n $(1) > $(basename $(1)).sym
# Asked of the compiler on first use, not when the Makefile is read: on a
# fresh machine `deps` installs the cross compiler during this very run
# (before it, GCC_INC would be empty and <stddef.h> not found).
GCC_INC  = $(eval GCC_INC := $(shell $(CC) -print-file-name=include 2>/dev/null))$(GCC_INC)
LIBGCC   = $(eval LIBGCC := $(shell $(CC) -print-libgcc-file-name 2>/dev/null))$(LIBGCC)

# Includes.  The kernel's rooms include each other's headers by their
# path from the repository root ("sched/sched.h"); apps see the public
# headers alone, so that an app including a private one fails to build.
# tools/test/includes.py checks which room may include which.
INC_KERNEL := -I. -Iinclude -Iinclude/bsd -Iinclude/posix
INC_APP    := -Iinclude -Iinclude/bsd -Iinclude/posix
INC         = $(INC_KERNEL)

# A frame larger than a page probes each page it spans
# (-fstack-clash-protection), so that an overflow, however large the
# frame, hits the guard page below the stack and panics as one, never
# writing into the stack below; aarch64's GCC is told that the guard is
# one 4 KiB page (it assumes 64 KiB).
STACK_CLASH := -fstack-clash-protection

# Recursive (=), so that GCC_INC and LIBGCC are expanded only in recipes.
CFLAGS   = -std=gnu11 -O2 -g -Wall -Wextra -Werror -Wno-unused-parameter \
           -ffreestanding -fno-stack-protector -fno-pic -fno-pie \
           -fno-omit-frame-pointer -fno-common $(STACK_CLASH) $(ARCH_CFLAGS) \
           -nostdinc -isystem $(NEWLIB)/include -isystem $(GCC_INC) \
           $(INC) -MMD -MP
LDFLAGS := -nostdlib -static -no-pie -z max-page-size=4096 -z noexecstack \
           -T linker/$(ARCH).ld
LIBS     = --start-group $(NEWLIB)/lib/libc.a $(NEWLIB)/lib/libm.a \
           $(LIBGCC) --end-group

# The kernel: the generic rooms, this arch's folders (boot/<arch> holds
# the boot-protocol entries: PVH and EFI on x86_64, the Image header and
# EFI on aarch64; boot/*.c is the kernel's side of the EFI handoff, which
# the hosted build has no use for), and the firmware parsers it uses.
KSRCS := $(wildcard kernel/*.c net/*.c sched/*.c drivers/*.c posix/*.c) \
         $(wildcard arch/$(ARCH)/*.c arch/$(ARCH)/*.S) \
         $(wildcard boot/$(ARCH)/*.c boot/$(ARCH)/*.S) \
         $(if $(filter hosted,$(ARCH)),,$(wildcard boot/*.c)) $(FIRMWARE)
KOBJS := $(patsubst %,$(B)/%.o,$(basename $(KSRCS)))

# Images: the apps, the benchmarks and the in-image tests.  A test folder
# with a test.conf and no sources is a variant of another test (its
# `image` key): booted, not built (tools/test/runtests.sh).
IMAGE_DIRS := $(patsubst %/,%,$(sort $(dir $(wildcard apps/*/*.c bench/*.c \
              $(filter-out tests/host/% tests/fuzz/%,$(wildcard tests/*/*/*.c))))))
TEST_DIRS  := $(filter tests/%,$(IMAGE_DIRS))
TEST_VARIANTS := $(filter-out $(TEST_DIRS),$(patsubst %/test.conf,%,$(wildcard tests/*/*/test.conf)))
IMAGES     := $(IMAGE_DIRS:%=$(B)/%.elf)

LIBC_DEP   := $(NEWLIB)/lib/libc.a
IMAGE_RULE := IMAGE
# MACHINE=microvm boots x86_64 on QEMU's microvm (no PCI, virtio-mmio)
# instead of q35: tools/run/qemu.sh's x86_64-microvm.
RUN_ARCH   := $(ARCH)$(if $(filter microvm,$(MACHINE)),-microvm)
ifneq ($(filter-out microvm,$(MACHINE)),)
$(error MACHINE=$(MACHINE): the only other machine is microvm (x86_64))
endif
ifeq ($(MACHINE)-$(ARCH),microvm-aarch64)
$(error MACHINE=microvm is x86_64's; aarch64's virt has virtio-mmio devices itself)
endif
# `make` builds the images, whatever target an included file names first.
.DEFAULT_GOAL := all
ifeq ($(ARCH),hosted)
include arch/hosted/hosted.mk
endif
include net/net.mk
$(B)/apps/%.o: INC = $(INC_APP)

# The framebuffer console's font (kernel/fbcon.c): a console font of
# Debian's console-setup-linux (tools/build/deps.sh installs it), made a
# C header by tools/build/psf.py.
FONT_PSF := /usr/share/consolefonts/Lat15-VGA16.psf.gz
FONT_H   := build/gen/fbfont.h
$(FONT_H): tools/build/psf.py | $(DEPS)
	$(call msg,FONT,$@)
	$(Q)mkdir -p $(@D)
	$(Q)python3 tools/build/psf.py header $(FONT_PSF) $@
$(B)/kernel/fbcon.o: $(FONT_H)
$(B)/kernel/fbcon.o: CFLAGS += -Ibuild/gen
# The relocation code runs before the image's absolute addresses are
# right (boot/reloc.h): position-independent, its strings are reached
# PC-relatively, and no jump table holds an address.
$(B)/boot/reloc.o: CFLAGS += -fpie -fno-jump-tables
# The EFI entries share their handoff header with the loader.
$(B)/boot/%.o $(B)/arch/aarch64/entry.o: CFLAGS += -Iboot/efi

.PHONY: all images run test bench clean deps soak soak-httpd test-hostile trace trace-png profile help gdb FORCE
all: images
images: $(IMAGES)

help:
	@sed -n '3,40p' Makefile

# Host packages: checked on every build (fast), installed when missing.
deps:
	$(Q)tools/build/deps.sh $(ARCH)

$(NEWLIB)/lib/libc.a: tools/build/newlib.sh | $(DEPS)
	$(Q)tools/build/newlib.sh $(ARCH) $(NEWLIB)

# Another arch's newlib, for test-prepare (which ran deps for it first).
build/newlib/%/lib/libc.a: tools/build/newlib.sh
	$(Q)tools/build/newlib.sh $* build/newlib/$*

# Every object depends on the flags it is compiled with, kept in
# $(B)/.cflags, which is rewritten (as the Makefile is read) only when
# they change: a change of ARCH_CFLAGS or CFLAGS rebuilds the objects
# instead of linking stale ones beside new ones.  The flags' text, not
# their value: the compiler may not be installed yet.
CFLAGS_STAMP := $(ARCH_CFLAGS) $(STACK_CLASH) $(value CFLAGS) $(INC_KERNEL) $(INC_APP)
$(shell mkdir -p $(B) && { printf '%s\n' '$(CFLAGS_STAMP)' | cmp -s - $(B)/.cflags || \
    printf '%s\n' '$(CFLAGS_STAMP)' > $(B)/.cflags; })

$(B)/%.o: %.c $(B)/.cflags | $(LIBC_DEP)
	$(call msg,CC,$<)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -c -o $@ $<

# An app's sources see include/ alone; a missing header there says why.
$(B)/apps/%.o: apps/%.c $(B)/.cflags | $(LIBC_DEP)
	$(call msg,CC,$<)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -c -o $@ $< 2> $@.err || { cat $@.err >&2; \
	    ! grep -q 'No such file' $@.err || echo "$<: an app sees include/ alone" \
	    "(<spindle/...> and the BSD socket headers); the kernel's own headers are not an app's to use" >&2; \
	    rm -f $@.err; exit 1; }; cat $@.err >&2; rm -f $@.err

$(B)/%.o: %.S $(B)/.cflags | $(LIBC_DEP)
	$(call msg,AS,$<)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -D__ASSEMBLER__ -c -o $@ $<

# The host tool that makes an image's relocation table (boot/reloc.h).
RELOCS := build/tools/relocs
$(RELOCS): tools/build/relocs.c boot/reloc.h
	$(call msg,HOSTCC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)gcc -O2 -Wall -Wextra -Werror -I. -o $@ $<

# $(call IMAGE,FOLDER[,NAME,OBJS]): $(B)/NAME.elf (NAME: FOLDER), the
# kernel and FOLDER's objects, and OBJS (a file tree's, kernel/initrd.mk).
# Two links (tools/build/link.sh): the second adds the symbol table for
# backtraces and the relocation table, made from the first.  An
# app's image gets its disassembly (.asm) and symbol list (.sym) beside
# it; a test image's are made when asked for (make build/x86_64/tests/
# sched/chan.asm), as make test builds some 230 images.
define IMAGE
$(B)/$(or $(2),$(1)).elf: $(KOBJS) $(patsubst %.c,$(B)/%.o,$(wildcard $(1)/*.c)) $(3) \
               $(LWIP_LIB) linker/$(ARCH).ld tools/build/ksyms.sh tools/build/link.sh $(RELOCS)
	$$(call msg,LD,$$@)
	$(Q)tools/build/link.sh $$@ $(LD) $(NM) $(CC) $(RELOCS) $(LDFLAGS) $$(filter %.o,$$^) \
	    $(LWIP_LIB) $$(LIBS)
$(if $(filter apps/%,$(or $(2),$(1))),	$(Q)$$(call IMAGE_ASM,$$@)
	$(Q)$$(call IMAGE_SYM,$$@))
	$(Q)$$(call IMAGE_BIN,$$@)
endef
$(foreach d,$(IMAGE_DIRS),$(eval $(call $(IMAGE_RULE),$(d))))

$(B)/%.asm: $(B)/%.elf
	$(call msg,OBJDUMP,$@)
	$(Q)$(call IMAGE_ASM,$<)
$(B)/%.sym: $(B)/%.elf
	$(call msg,NM,$@)
	$(Q)$(call IMAGE_SYM,$<)

# The image that run, trace, gdb and image boot: ELF= names any image
# (spindle-cc's output), else APP= an app of apps/ or a port's program
# (ports/ports.mk: PORT_ELF_<program>, booted with PORT_CMDLINE_<program>
# when CMDLINE is not given); a clear word on what there is otherwise.
# With FILES=, RUN_ELF is that image with the folder's tree linked in, and
# RUN_INITRD is INITRD='s archive (kernel/initrd.mk).
APP_ELF  = $(or $(ELF),$(PORT_ELF_$(APP)),$(B)/apps/$(APP).elf)
APP_NAME = $(basename $(notdir $(APP_ELF)))
RUN_ELF  = $(if $(FILES),$(FILES_STEM).elf,$(APP_ELF))
RUN_CMDLINE = $(if $(filter command line environment,$(origin CMDLINE)),$(CMDLINE),$(PORT_CMDLINE_$(APP)))
check_app = @[ -n "$(ELF)$(PORT_ELF_$(APP))" ] || [ -d apps/$(APP) ] || { echo "make $@: no app apps/$(APP)/ (apps: $(notdir $(wildcard apps/*)); ports: $(PORT_PROGRAMS); or ELF=path)"; exit 1; }

# make run gives the guest a NIC on QEMU's user network (NET=user): host
# port HOSTPORT (8080) on 127.0.0.1 reaches the guest's GUESTPORT (80);
# a port's PORT_RUNENV_<program> may set other defaults (memcached: 11211).
# NET= boots without a NIC.  NET=tap (root) boots it in a network
# namespace of its own on a TAP device (tools/run/tapns.sh: the guest at
# 192.0.2.2, the namespace's end 192.0.2.1), QUEUES=N with N queue pairs
# and RSS; reach it with `nsenter -t <QEMU's pid> -n curl http://192.0.2.2/`.
# VIRTIO=mmio (aarch64; tools/run/qemu.sh reads it from the environment)
# puts the NIC on the virt machine's virtio-mmio slots instead of PCI.
NET ?= user
run:
	$(check_app)
	$(Q)$(MAKE) --no-print-directory $(RUN_ELF) $(RUN_INITRD)
ifeq ($(NET),tap)
	$(Q)QUEUES=$(or $(QUEUES),1) tools/run/tapns.sh /dev/null env NET=tap TAP=spt0 \
	    QUEUES=$(or $(QUEUES),1) INITRD=$(RUN_INITRD) tools/run/qemu.sh $(RUN_ARCH) $(RUN_ELF) $(SMP) \
	    ip=192.0.2.2/24 gw=192.0.2.1 $(RUN_CMDLINE)
else
	$(Q)NET=$(NET) INITRD=$(RUN_INITRD) $(PORT_RUNENV_$(APP)) tools/run/qemu.sh $(RUN_ARCH) $(RUN_ELF) \
	    $(SMP) $(RUN_CMDLINE)
endif

# The execution tracer (tools/run/trace.sh): the app booted with trace=1
# and its dump converted to $(TRACE_OUT).json for Perfetto, with a
# summary (JSON=0: the summary alone); CMDLINE adds to the command line
# (trace=wrap, trace_buf=KiB, app args after --).  trace-png draws that
# trace (WINDOW=A:B in ms, GS=N G tracks) as $(TRACE_OUT).png.
TRACE_OUT = $(B)/$(APP).trace
trace:
	$(check_app)
	$(Q)$(MAKE) --no-print-directory $(RUN_ELF) $(RUN_INITRD)
	$(Q)NET=$(NET) JSON=$(JSON) INITRD=$(RUN_INITRD) tools/run/trace.sh $(RUN_ARCH) $(RUN_ELF) $(SMP) \
	    $(TRACE_OUT) $(RUN_CMDLINE)

trace-png:
	@src=$(TRACE_OUT).dump; grep -qs '^TRACE BEGIN' $$src || src=$(TRACE_OUT).log; \
	    [ -f $$src ] || { echo "make trace-png: no $$src; run make trace APP=$(APP) first"; exit 1; }; \
	    python3 tools/run/trace.py png $$src -o $(TRACE_OUT).png $(if $(WINDOW),--window $(WINDOW)) \
	        $(if $(GS),--gs $(GS)) && echo "trace-png: $(TRACE_OUT).png"

# The CPU profiler (tools/run/profile.sh): the app booted with
# profile=HZ (100, Go's rate, unless HZ= says) and its dump converted to
# $(PROFILE_OUT).pb.gz for go tool pprof and $(PROFILE_OUT).folded for
# flame graphs; the first lines of go tool pprof -top when Go is there.
# CMDLINE adds to the command line (profile_buf=KiB, app args after --).
PROFILE_OUT = $(B)/$(APP_NAME)
profile:
	$(check_app)
	$(Q)$(MAKE) --no-print-directory $(RUN_ELF) $(RUN_INITRD)
	$(Q)NET=$(NET) INITRD=$(RUN_INITRD) tools/run/profile.sh $(RUN_ARCH) $(RUN_ELF) $(SMP) $(PROFILE_OUT) \
	    $(or $(HZ),100) $(RUN_CMDLINE)

# The soak (tests/stress/soak): its workload for SOAK_MIN minutes at SMP
# cores, a progress line a minute, then the totals and its verdict (its
# exit status).  Bare metal gets a NIC (NET=user) for the network phase.
# LINK_FAULTS=1 adds the network-fault phase under SOAK_LINK_FAULTS (or
# LINK_FAULTS=<a fault= list> under that): a host port, forwarded to the
# guest's :7070, which its clients dial as 10.0.2.2, so that their bytes
# cross the NIC.  The boot is stopped ten minutes after its time is up.
SOAK_MIN ?= 60
SOAK_LINK_FAULTS := rxdrop:20,txdrop:20,rxdup:20,txdup:20,rxreorder:50,txreorder:50,rxcorrupt:20,txcorrupt:20
SOAK_FAULTS = $(if $(filter 1,$(LINK_FAULTS)),$(SOAK_LINK_FAULTS),$(LINK_FAULTS))
soak: $(B)/tests/stress/soak.elf $(if $(LINK_FAULTS),build/host/netpeer)
	@case "$(SOAK_MIN)" in ''|*[!0-9]*|0) echo "make soak: SOAK_MIN=$(SOAK_MIN) is not a whole number of minutes"; exit 2 ;; esac
	@[ -z "$(LINK_FAULTS)" ] || [ "$(NET)" = user ] || { echo "make soak: LINK_FAULTS needs NET=user (a forward of QEMU's)"; exit 2; }
	$(Q)fwd= via=; if [ -n "$(LINK_FAULTS)" ]; then p=$$(build/host/netpeer --probe) || exit 2; \
	    fwd=tcp:127.0.0.1:$$p-:7070 via=via=10.0.2.2:$$p; fi; \
	NET=$(NET) HOSTFWD=$$fwd timeout $$(( $(SOAK_MIN) * 60 + 600 )) tools/run/qemu.sh $(RUN_ARCH) $< $(SMP) \
	    $(CMDLINE) $(if $(SOAK_FAULTS),fault=$(SOAK_FAULTS)) -- min=$(SOAK_MIN) report=60 $$via

# tests/host/httpd_clients_test.sh on RUN_ARCH with HTTPD_IDLE idle
# keep-alive connections (default 50,000) instead of make test's 10,000,
# and every case on aarch64 too.
soak-httpd: $(B)/apps/httpd.elf
	$(Q)HTTPD_CASES=all HTTPD_IDLE=$(or $(HTTPD_IDLE),50000) tests/host/httpd_clients_test.sh $(RUN_ARCH)

# tests/host/hostile_test.sh on RUN_ARCH: every attack of tools/hostile,
# one after the other at the peer's own counts (make test runs a smaller
# slice), or the cases of HOSTILE_CASES=a,b.
test-hostile: $(B)/apps/httpd.elf build/host/hostile
	$(Q)HOSTILE_CASES=$(or $(HOSTILE_CASES),all) tests/host/hostile_test.sh $(RUN_ARCH)

# make gdb: the app under gdb with tools/run/gdb/spindle.py loaded (info
# goroutines, goroutine N bt), by tools/run/gdb.sh.  Bare metal: QEMU
# starts the machine stopped before its first instruction, its gdb stub
# on 127.0.0.1:GDBPORT (default 1234, or a free port when that one is
# taken), and gdb (gdb-multiarch for aarch64) loads the app's ELF and
# connects; QEMU ends with gdb.  Hosted: the app as a process under gdb
# (`run` starts it).
gdb:
	$(check_app)
	$(Q)tools/build/deps.sh gdb $(ARCH)
	$(Q)$(MAKE) --no-print-directory $(RUN_ELF) $(RUN_INITRD)
	$(Q)INITRD=$(RUN_INITRD) tools/run/gdb.sh $(RUN_ARCH) $(RUN_ELF) $(SMP) $(RUN_CMDLINE)

include boot/efi/efi.mk
include bench/bench.mk
include ports/ports.mk
include kernel/initrd.mk
include tests/host/host.mk
include tests/fuzz/fuzz.mk
include tests/tests.mk

clean:
	rm -rf build

# The compilers' dependency files; not under build/ports or
# build/<arch>/ports, where the ports' sources and builds are (memcached's
# source has a DTrace script named memcached_dtrace.d).
-include $(shell find build -path 'build/ports' -prune -o -path 'build/*/ports' -prune -o -name '*.d' -print 2>/dev/null)
