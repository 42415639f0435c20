# Spindle - one flat Makefile.
#
#   make run [APP=hello] [SMP=n] [ARCH=x86_64] [ACCEL=tcg|kvm] [CMDLINE="..."]
#            [NET=user|] [HOSTPORT=8080] [GUESTPORT=80]
#   make test [T=<test app>] [SMP=n]     host unit tests + in-image tests,
#                                        every arch unless ARCH= names one
#   make bench [SMP=n] [BENCH="reps=5 only=spawn,fib"]   BENCH lines
#   make bench-go [SMP=n] [BENCH=...] [GO=go] [BENCH_GO_ARCH=hosted]
#                                        the same beside Go's, one table (Go
#                                        natively, or in a Linux guest under
#                                        QEMU for BENCH_GO_ARCH=x86_64|aarch64)
#   make soak [SOAK_MIN=60] [SMP=n]      the long mixed workload (soak test)
#   make trace [APP=hello] [SMP=n]       boots the app with the execution
#                                        tracer on: build/<arch>/<app>.trace.json
#                                        for Perfetto, and a summary
#   make trace-png [WINDOW=A:B]          that trace as a PNG (ms A to B)
#   make image [APP=hello] [CMDLINE=...] build/<arch>/<app>.img: a GPT disk
#                                        image booting the app through UEFI
#   make run-efi [APP=hello] [SMP=n]     that image under OVMF (x86_64) or
#                                        AAVMF (aarch64; ACPI=off: a DTB)
#   make run-uboot ARCH=aarch64          that image through U-Boot
#   make test-efi [T=<test app>]         every in-image test through the
#                                        firmware (ARCH=aarch64: 3 ways)
#   make images                          every app and test image
#   make gdb [APP=hello] [GDBPORT=1234]  the app under gdb with
#                                        tools/gdb/spindle.py: in QEMU,
#                                        stopped at its first instruction
#   make clean                           remove build/ (newlib included)
#   V=1 shows the commands.
#
# Every folder under apps/ and tests/<area>/ holding .c files is one image:
# the kernel, that folder's sources and newlib, linked into build/<arch>/
# <folder>.elf; an app's has <folder>.asm (disassembly) and <folder>.sym
# beside it (a test's: make build/<arch>/<folder>.asm).

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

ifeq ($(ARCH),x86_64)
CROSS       :=
ARCH_CFLAGS := -mno-red-zone -mcmodel=small
IMAGE_BIN    = true
else ifeq ($(ARCH),aarch64)
CROSS       := aarch64-linux-gnu-
# FP/SIMD stays usable (apps and newlib compute in double and NEON; the
# trap frame and arch_switch save that state).  Atomics are inline
# load/store-exclusive loops, which every ARMv8 core has (newlib's too:
# tools/newlib.sh); libgcc's helpers that pick the ARMv8.1 LSE
# instructions at run time (-moutline-atomics, gcc's default) cost a call
# and a return per atomic, a quarter of a contended mutex under TCG
# (docs/benchmarks.md).
ARCH_CFLAGS := -march=armv8-a -mno-outline-atomics
# QEMU's -kernel passes the DTB in x0 only to a Linux Image (a raw binary
# with the arm64 Image header), not to an ELF: qemu.sh boots <image>.Image.
IMAGE_BIN    = $(CROSS)objcopy -O binary $(1) $(basename $(1)).Image
else ifeq ($(ARCH),hosted)
# Spindle as a Linux process: arch/hosted/hosted.mk, included below.
CROSS       :=
ARCH_CFLAGS :=
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

# Recursive (=), so that GCC_INC and LIBGCC are expanded only in recipes.
CFLAGS   = -std=gnu11 -O2 -g -Wall -Wextra -Werror -Wno-unused-parameter \
           -ffreestanding -fno-stack-protector -fno-pic -fno-pie \
           -fno-omit-frame-pointer -fno-common $(ARCH_CFLAGS) \
           -nostdinc -isystem $(NEWLIB)/include -isystem $(GCC_INC) \
           -Iarch -Iarch/$(ARCH) -Ikernel -Ikernel/net -Isched -Idrivers -Iinclude \
           -Iinclude/bsd -MMD -MP
LDFLAGS := -nostdlib -static -no-pie -z max-page-size=4096 -z noexecstack \
           -T linker/$(ARCH).ld
LIBS     = --start-group $(NEWLIB)/lib/libc.a $(NEWLIB)/lib/libm.a \
           $(LIBGCC) --end-group

# The kernel: generic folders plus this arch's folders (boot/<arch>
# holds the boot-protocol entries: PVH and EFI on x86_64, the Image
# header and EFI on aarch64; boot/*.c is the kernel's side of the EFI
# handoff, which the hosted build has no use for).
KSRCS := $(wildcard kernel/*.c kernel/net/*.c sched/*.c drivers/*.c) \
         $(wildcard arch/$(ARCH)/*.c arch/$(ARCH)/*.S) \
         $(wildcard boot/$(ARCH)/*.c boot/$(ARCH)/*.S) \
         $(if $(filter hosted,$(ARCH)),,$(wildcard boot/*.c))
# The machine description from ACPI is aarch64's (x86_64 reads its
# tables in arch/x86_64).
KSRCS := $(filter-out $(if $(filter aarch64,$(ARCH)),,kernel/acpi_machine.c),$(KSRCS))
KOBJS := $(patsubst %,$(B)/%.o,$(basename $(KSRCS)))
# The EFI entries share their handoff header with the loader.
$(B)/boot/%.o $(B)/arch/aarch64/entry.o: CFLAGS += -Iboot/efi

# Images: apps and in-image tests (tests/host holds host programs).
IMAGE_DIRS := $(patsubst %/,%,$(sort $(dir $(wildcard apps/*/*.c \
              $(filter-out tests/host/%,$(wildcard tests/*/*/*.c))))))
TEST_DIRS  := $(filter tests/%,$(IMAGE_DIRS))
IMAGES     := $(IMAGE_DIRS:%=$(B)/%.elf)

LIBC_DEP   := $(NEWLIB)/lib/libc.a
IMAGE_RULE := IMAGE
RUN_ARCH   := $(ARCH)
# `make` builds the images, whatever target an included file names first.
.DEFAULT_GOAL := all
ifeq ($(ARCH),hosted)
include arch/hosted/hosted.mk
endif
# lwIP, from Debian's source package: LWIP_LIB, LWIP_INC, LWIP_STAMP.
include kernel/net/lwip.mk
# The framebuffer console's font (kernel/fbcon.c): a console font of
# Debian's console-setup-linux (tools/deps.sh installs it), made a C
# header by tools/psf.py.
FONT_PSF := /usr/share/consolefonts/Lat15-VGA16.psf.gz
FONT_H   := build/gen/fbfont.h
$(FONT_H): tools/psf.py | $(DEPS)
	$(call msg,FONT,$@)
	$(Q)mkdir -p $(@D)
	$(Q)python3 tools/psf.py header $(FONT_PSF) $@
$(B)/kernel/fbcon.o: $(FONT_H)
$(B)/kernel/fbcon.o: CFLAGS += -Ibuild/gen
NET_OBJS := $(patsubst %.c,$(B)/%.o,$(wildcard kernel/net/*.c))
$(NET_OBJS): CFLAGS += $(LWIP_INC) -DNET_STACKS=$(NET_STACKS)
$(NET_OBJS): | $(LWIP_STAMP)

.PHONY: all images run test test-prepare test-host test-images bench bench-go clean deps soak \
        fuzz deps-fuzz trace trace-png \
        deps-go help
all: images
images: $(IMAGES)

help:
	@sed -n '3,26p' Makefile

# Host packages: checked on every build (fast), installed when missing.
deps:
	$(Q)tools/deps.sh $(ARCH)

$(NEWLIB)/lib/libc.a: tools/newlib.sh | $(DEPS)
	$(Q)tools/newlib.sh $(ARCH) $(NEWLIB)

# Another arch's newlib, for test-prepare (which ran deps for it first).
build/newlib/%/lib/libc.a: tools/newlib.sh
	$(Q)tools/newlib.sh $* build/newlib/$*

# Every object depends on the flags it is compiled with, kept in
# $(B)/.cflags, which is rewritten (as the Makefile is read) only when
# they change: a change of ARCH_CFLAGS or CFLAGS rebuilds the objects
# instead of linking stale ones beside new ones.  The flags' text, not
# their value: the compiler may not be installed yet.
CFLAGS_STAMP := $(ARCH_CFLAGS) $(value CFLAGS)
$(shell mkdir -p $(B) && { printf '%s\n' '$(CFLAGS_STAMP)' | cmp -s - $(B)/.cflags || \
    printf '%s\n' '$(CFLAGS_STAMP)' > $(B)/.cflags; })

$(B)/%.o: %.c $(B)/.cflags | $(LIBC_DEP)
	$(call msg,CC,$<)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -c -o $@ $<

$(B)/%.o: %.S $(B)/.cflags | $(LIBC_DEP)
	$(call msg,AS,$<)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -D__ASSEMBLER__ -c -o $@ $<

# Two links: the second adds the symbol table for backtraces, made from
# the first; the table sits after all code, so no function moves.  An
# app's image gets its disassembly (.asm) and symbol list (.sym) beside
# it; a test image's are made when asked for (make build/x86_64/tests/
# sched/chan.asm), as make test builds some 230 images.
define IMAGE
$(B)/$(1).elf: $(KOBJS) $(patsubst %.c,$(B)/%.o,$(wildcard $(1)/*.c)) \
               $(LWIP_LIB) linker/$(ARCH).ld tools/ksyms.sh
	$$(call msg,LD,$$@)
	$(Q)$(LD) $(LDFLAGS) -o $$@.1 $$(filter %.o,$$^) $(LWIP_LIB) $$(LIBS)
	$(Q)tools/ksyms.sh $(NM) $$@.1 > $$@.ksyms.S
	$(Q)$(CC) -c -o $$@.ksyms.o $$@.ksyms.S
	$(Q)$(LD) $(LDFLAGS) -o $$@ $$(filter %.o,$$^) $$@.ksyms.o $(LWIP_LIB) $$(LIBS)
$(if $(filter apps/%,$(1)),	$(Q)$$(call IMAGE_ASM,$$@)
	$(Q)$$(call IMAGE_SYM,$$@))
	$(Q)$$(call IMAGE_BIN,$$@)
	$(Q)rm -f $$@.1
endef
$(foreach d,$(IMAGE_DIRS),$(eval $(call $(IMAGE_RULE),$(d))))

$(B)/%.asm: $(B)/%.elf
	$(call msg,OBJDUMP,$@)
	$(Q)$(call IMAGE_ASM,$<)
$(B)/%.sym: $(B)/%.elf
	$(call msg,NM,$@)
	$(Q)$(call IMAGE_SYM,$<)

# make run gives the guest a NIC on QEMU's user network (NET=user): host
# port HOSTPORT (8080) on 127.0.0.1 reaches the guest's GUESTPORT (80).
# NET= boots without a NIC.  NET=tap (root) boots it in a network
# namespace of its own on a TAP device (tools/tapns.sh: the guest at
# 192.0.2.2, the namespace's end 192.0.2.1), QUEUES=N with N queue pairs
# and RSS; reach it with `nsenter -t <QEMU's pid> -n curl http://192.0.2.2/`.
NET ?= user
run:
	@[ -d apps/$(APP) ] || { echo "make run: no app apps/$(APP)/ (apps: $(notdir $(wildcard apps/*)))"; exit 1; }
	$(Q)$(MAKE) --no-print-directory $(B)/apps/$(APP).elf
ifeq ($(NET),tap)
	$(Q)QUEUES=$(or $(QUEUES),1) tools/tapns.sh /dev/null env NET=tap TAP=spt0 \
	    QUEUES=$(or $(QUEUES),1) tools/qemu.sh $(ARCH) $(B)/apps/$(APP).elf $(SMP) \
	    ip=192.0.2.2/24 gw=192.0.2.1 $(CMDLINE)
else
	$(Q)NET=$(NET) tools/qemu.sh $(ARCH) $(B)/apps/$(APP).elf $(SMP) $(CMDLINE)
endif

# The execution tracer (tools/trace.sh): the app booted with trace=1 and
# its dump converted to $(TRACE_OUT).json for Perfetto, with a summary;
# CMDLINE adds to the command line (trace=wrap, trace_buf=KiB, app args
# after --).  trace-png draws that trace (WINDOW=A:B in ms, GS=N G
# tracks) as $(TRACE_OUT).png.
TRACE_OUT = $(B)/$(APP).trace
trace:
	@[ -d apps/$(APP) ] || { echo "make trace: no app apps/$(APP)/ (apps: $(notdir $(wildcard apps/*)))"; exit 1; }
	$(Q)$(MAKE) --no-print-directory $(B)/apps/$(APP).elf
	$(Q)NET=$(NET) tools/trace.sh $(RUN_ARCH) $(B)/apps/$(APP).elf $(SMP) $(TRACE_OUT) $(CMDLINE)

trace-png:
	@src=$(TRACE_OUT).$(if $(filter hosted,$(ARCH)),dump,log); \
	    [ -f $$src ] || { echo "make trace-png: no $$src; run make trace APP=$(APP) first"; exit 1; }; \
	    python3 tools/trace.py png $$src -o $(TRACE_OUT).png $(if $(WINDOW),--window $(WINDOW)) \
	        $(if $(GS),--gs $(GS)) && echo "trace-png: $(TRACE_OUT).png"

# The soak (tests/stress/soak): its workload for SOAK_MIN minutes at SMP
# cores, a progress line a minute, then the totals and its verdict (its
# exit status).  Bare metal gets a NIC (NET=user) for the network phase.
# The boot is stopped ten minutes after its time is up.
SOAK_MIN ?= 60
soak: $(B)/tests/stress/soak.elf
	@case "$(SOAK_MIN)" in ''|*[!0-9]*|0) echo "make soak: SOAK_MIN=$(SOAK_MIN) is not a whole number of minutes"; exit 2 ;; esac
	$(Q)NET=$(NET) timeout $$(( $(SOAK_MIN) * 60 + 600 )) tools/qemu.sh $(RUN_ARCH) $< $(SMP) \
	    $(CMDLINE) -- min=$(SOAK_MIN) report=60

# make gdb: the app under gdb with tools/gdb/spindle.py loaded (info
# goroutines, goroutine N bt), by tools/gdb.sh.  Bare metal: QEMU starts
# the machine stopped before its first instruction, its gdb stub on
# 127.0.0.1:GDBPORT (default 1234, or a free port when that one is
# taken), and gdb (gdb-multiarch for aarch64) loads the app's ELF and
# connects; QEMU ends with gdb.  Hosted: the app as a process under gdb
# (`run` starts it).
.PHONY: gdb
gdb:
	@[ -d apps/$(APP) ] || { echo "make gdb: no app apps/$(APP)/ (apps: $(notdir $(wildcard apps/*)))"; exit 1; }
	$(Q)tools/deps.sh gdb $(ARCH)
	$(Q)$(MAKE) --no-print-directory $(B)/apps/$(APP).elf
	$(Q)tools/gdb.sh $(RUN_ARCH) $(B)/apps/$(APP).elf $(SMP) $(CMDLINE)

# ---- Firmware boot: the EFI loader and GPT disk images ----------------
#
# boot/efi/ is an EFI application built with Debian's gnu-efi (its crt0,
# linker script and libraries), not part of the kernel: one loader per
# arch serves every app.  `make image` puts it on the EFI system
# partition of build/<arch>/<APP>.img, beside the app's kernel and
# CMDLINE (tools/mkimage.sh); `make run-efi` boots that image under OVMF
# (x86_64) or AAVMF (aarch64), `make run-uboot` (aarch64) through U-Boot,
# and `make test-efi` boots every test image through the firmware.
# x86_64 uses the host's gnu-efi package, converted to PE by objcopy.
# aarch64 uses gnu-efi's arm64 package, unpacked under build/ by
# tools/gnuefi.sh, and `objcopy -O binary`: its crt0 carries the PE
# header itself (bookworm's objcopy writes a broken aarch64 PE).
EB          := build/$(ARCH)/efi
EFI_COMMON  := -std=gnu11 -O2 -Wall -Wextra -Werror -Wno-unused-parameter \
               -ffreestanding -fpic -fshort-wchar -fno-stack-protector \
               -fno-strict-aliasing -Iboot/efi -Ikernel -MMD -MP
EFI_OBJS    := $(patsubst boot/efi/%.c,$(EB)/%.o,$(wildcard boot/efi/*.c) \
               boot/efi/arch/$(ARCH).c)
ifeq ($(ARCH),x86_64)
EFI_LOADER  := $(EB)/BOOTX64.EFI
EFI_USR     := /usr
EFI_TOOLS   := deps-efi
EFI_CC      := gcc
EFI_LD      := ld
EFI_OBJCOPY := objcopy
EFI_CFLAGS  := $(EFI_COMMON) -mno-red-zone -DGNU_EFI_USE_MS_ABI -Iarch/x86_64 \
               -I$(EFI_USR)/include/efi -I$(EFI_USR)/include/efi/x86_64
EFI_PE      := -j .text -j .sdata -j .data -j .dynamic -j .dynsym -j .rel \
               -j .rela -j .reloc --target efi-app-x86_64 --subsystem=10
else
EFI_LOADER  := $(EB)/BOOTAA64.EFI
EFI_USR     := build/gnu-efi-arm64/usr
EFI_TOOLS   := build/gnu-efi-arm64/.stamp
EFI_CC      := aarch64-linux-gnu-gcc
EFI_LD      := aarch64-linux-gnu-ld
EFI_OBJCOPY := aarch64-linux-gnu-objcopy
EFI_CFLAGS  := $(EFI_COMMON) -I$(EFI_USR)/include/efi -I$(EFI_USR)/include/efi/aarch64
EFI_PE      := -j .text -j .sdata -j .data -j .dynamic -j .dynsym -j .rel \
               -j .rela -j .rel.* -j .rela.* -j .reloc -O binary
endif
EFI_LIB     := $(EFI_USR)/lib

.PHONY: deps-efi image run-efi run-uboot test-efi
deps-efi:
	$(Q)tools/deps.sh efi $(ARCH)

build/gnu-efi-arm64/.stamp: tools/gnuefi.sh tools/once.sh | deps-efi
	$(Q)tools/gnuefi.sh build/gnu-efi-arm64

$(EB)/%.o: boot/efi/%.c | $(EFI_TOOLS)
	$(call msg,EFICC,$<)
	$(Q)mkdir -p $(@D)
	$(Q)$(EFI_CC) $(EFI_CFLAGS) -c -o $@ $<

$(EFI_LOADER): $(EFI_OBJS)
	$(call msg,EFILD,$@)
	$(Q)$(EFI_LD) -nostdlib -znocombreloc -shared -Bsymbolic --defsym=EFI_SUBSYSTEM=0xa \
	    $(if $(filter aarch64,$(ARCH)),--no-warn-rwx-segments) \
	    -T $(EFI_LIB)/elf_$(ARCH)_efi.lds -o $@.so $(EFI_LIB)/crt0-efi-$(ARCH).o $^ \
	    -L$(EFI_LIB) -lefi -lgnuefi
	$(Q)$(EFI_OBJCOPY) $(EFI_PE) $@.so $@

# Rebuilt on every call: CMDLINE is part of the image.
ifneq ($(filter x86_64 aarch64,$(ARCH)),)
image: $(EFI_LOADER)
	@[ -d apps/$(APP) ] || { echo "make image: no app apps/$(APP)/ (apps: $(notdir $(wildcard apps/*)))"; exit 1; }
	$(Q)$(MAKE) --no-print-directory $(B)/apps/$(APP).elf
	$(call msg,IMAGE,$(B)/$(APP).img)
	$(Q)tools/mkimage.sh $(EFI_LOADER) $(B)/apps/$(APP).elf $(B)/$(APP).img $(CMDLINE)

run-efi: image
	$(Q)NET=$(NET) tools/qemu.sh $(ARCH)-efi $(B)/$(APP).img $(SMP)
else
image run-efi:
	@echo "make $@: firmware boot is for x86_64 and aarch64 (ARCH=$(ARCH))"; exit 1
endif
ifeq ($(ARCH),aarch64)
run-uboot: image
	$(Q)NET=$(NET) tools/qemu.sh aarch64-uboot $(B)/$(APP).img $(SMP)
else
run-uboot:
	@echo "make run-uboot: U-Boot boots aarch64 images (ARCH=aarch64)"; exit 1
endif

# Benchmarks (README, "What is measured"): one boot at SMP cores (and one at
# 1 core for fib_speedup), printing "BENCH <name> <value> <unit>" lines.
bench: $(B)/apps/bench.elf
	$(Q)CMDLINE="$(CMDLINE)" tools/bench.sh $(RUN_ARCH) $(SMP) $(BENCH)

# Network benchmarks (tools/bench-net.sh): apps/httpd under wrk (req/s, p50,
# p99) and one bulk TCP download (Mbit/s), on QEMU's user network and, as
# root, on a TAP device in a private network namespace; BENCH_NET="reps=3
# only=user,tap mib=128 secs=10".  NET=tap (or user) on make's command
# line runs that backend alone; QUEUES=N gives the TAP's NIC N queue pairs
# with RSS and runs it with one pair too, for the comparison.  Needs wrk
# (tools/deps.sh net).
.PHONY: bench-net
bench-net: $(B)/apps/httpd.elf
	$(Q)CMDLINE="$(CMDLINE)" tools/bench-net.sh $(RUN_ARCH) $(SMP) \
	    $(if $(filter command line,$(origin NET)),only=$(NET)) \
	    $(if $(QUEUES),queues=$(QUEUES)) $(BENCH_NET)

# The same workloads in Go (apps/bench/go), run beside Spindle's bench
# with GOMAXPROCS=SMP and the same BENCH args; tools/bench-table.sh makes
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
	$(Q)tools/deps.sh go

FORCE:

# Debian's Go is installed first when GO is the default (deps-go); another
# GO= is the user's own toolchain, only checked.
build/go/toolchain: FORCE | $(if $(filter go,$(GO)),deps-go)
	$(Q)command -v '$(GO)' >/dev/null || { echo "GO=$(GO): no such Go" \
	    "toolchain (bookworm-backports' golang-1.23-go installs /usr/lib/go-1.23/bin/go)" >&2; exit 1; }
	$(Q)mkdir -p $(@D)
	$(Q)echo '$(GO)' > $@.new && { cmp -s $@.new $@ && rm $@.new || mv $@.new $@; }

# $(call go_build,ENV): apps/bench/go into $@, with ENV (GOOS=, GOARCH=).
GO_SRC := $(wildcard apps/bench/go/*.go) apps/bench/go/go.mod build/go/toolchain
define go_build
	$(call msg,GO,$@)
	$(Q)mkdir -p $(@D)
	$(Q)cd apps/bench/go && $(GO_ENV) $(1) $(GO) build -trimpath -o $(CURDIR)/$@ .
endef

$(GO_BENCH): $(GO_SRC) | deps-go
	$(call go_build,)

# Under QEMU (BENCH_GO_ARCH=x86_64 or aarch64) Go runs as the init of a
# Debian Linux guest: the kernel from tools/linuxguest.sh, the binary for
# the guest's arch in an initramfs (tools/mkcpio.py).
build/go/bench-linux-%: $(GO_SRC) | deps-go
	$(call go_build,GOOS=linux GOARCH=$*)

build/go/initrd-x86_64.cpio: build/go/bench-linux-amd64 tools/mkcpio.py
build/go/initrd-aarch64.cpio: build/go/bench-linux-arm64 tools/mkcpio.py
build/go/initrd-%.cpio:
	$(call msg,CPIO,$@)
	$(Q)python3 tools/mkcpio.py $@ $<

build/linux-%/vmlinuz: tools/linuxguest.sh tools/once.sh
	$(Q)tools/linuxguest.sh $(@D) $*

bench-go: $(if $(filter hosted%,$(BENCH_GO_ARCH)),$(GO_BENCH),\
            build/linux-$(BENCH_GO_ARCH)/vmlinuz build/go/initrd-$(BENCH_GO_ARCH).cpio)
	$(Q)$(MAKE) --no-print-directory ARCH=$(BENCH_GO_ARCH) \
	    build/$(BENCH_GO_ARCH)/apps/bench.elf
	$(Q)tools/bench-go.sh $(BENCH_GO_ARCH) $(SMP) $(BENCH)

# ---- Tests ------------------------------------------------------------

HOST_CC     := gcc
HOST_CFLAGS := -std=gnu11 -O1 -g -Wall -Wextra -Werror -Ikernel -Itests/host \
               -fsanitize=address,undefined -fno-sanitize-recover=all
HOST_TESTS  := cmdline faultcfg fmt page acpi fdt runq runq_tsan virtq polldesc \
               polldesc_tsan netrx efimap loadopt efitime fbcon rss gdb tracebuf
# Host tests that are scripts, run after the programs: tools/trace.py's
# decoder on the dump tracebuf_test writes.
HOST_SCRIPTS := tests/host/tracepy_test.py
HB          := build/host

$(HB)/%_test: tests/host/%_test.c kernel/%.c kernel/%.h tests/host/harness.h
	$(call msg,HOSTCC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(HOST_CC) $(HOST_CFLAGS) -o $@ $< kernel/$*.c

# The ACPI parser and the aarch64 machine description built on it.
$(HB)/acpi_test: tests/host/acpi_test.c kernel/acpi.c kernel/acpi_machine.c kernel/acpi.h \
                 kernel/machine.h tests/host/harness.h
	$(call msg,HOSTCC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(HOST_CC) $(HOST_CFLAGS) -o $@ $< kernel/acpi.c kernel/acpi_machine.c

# The device tree parser is two files: the blob walker and the machine
# summary built on it.
$(HB)/fdt_test: tests/host/fdt_test.c kernel/fdt.c kernel/fdt_blob.c kernel/fdt_machine.c \
                kernel/fdt.h kernel/fdt_blob.h tests/host/harness.h
	$(call msg,HOSTCC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(HOST_CC) $(HOST_CFLAGS) -o $@ $< kernel/fdt.c kernel/fdt_blob.c kernel/fdt_machine.c

# fault= is parsed with the kernel's own printf.
$(HB)/faultcfg_test: tests/host/faultcfg_test.c kernel/faultcfg.c kernel/faultcfg.h \
                     kernel/fmt.c kernel/fmt.h tests/host/harness.h
	$(call msg,HOSTCC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(HOST_CC) $(HOST_CFLAGS) -o $@ $< kernel/faultcfg.c kernel/fmt.c

# The tracer's buffer and dump encoding, and its command-line values
# through the kernel's parser (and printf).
$(HB)/tracebuf_test: tests/host/tracebuf_test.c kernel/tracebuf.c kernel/tracebuf.h \
                     kernel/cmdline.c kernel/fmt.c tests/host/harness.h
	$(call msg,HOSTCC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(HOST_CC) $(HOST_CFLAGS) -o $@ $< kernel/tracebuf.c kernel/cmdline.c kernel/fmt.c

# The framebuffer console's drawing, with the font the kernel gets.
$(HB)/fbcon_test: tests/host/fbcon_test.c kernel/fbcon.c kernel/fbcon.h kernel/bootinfo.h \
                  $(FONT_H) tests/host/harness.h
	$(call msg,HOSTCC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(HOST_CC) $(HOST_CFLAGS) -Ibuild/gen -o $@ $< kernel/fbcon.c

# The EFI loader's memory-map conversion (boot/efi/efimap.c), which is
# pure C so that it builds both into the loader and here.
$(HB)/efimap_test: tests/host/efimap_test.c boot/efi/efimap.c boot/efi/efimap.h \
                   kernel/bootinfo.h tests/host/harness.h
	$(call msg,HOSTCC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(HOST_CC) $(HOST_CFLAGS) -Iboot/efi -o $@ $< boot/efi/efimap.c

# The RSS hash and the queue-steering port choice (kernel/net/rss.c).
$(HB)/rss_test: tests/host/rss_test.c kernel/net/rss.c kernel/net/rss.h tests/host/harness.h
	$(call msg,HOSTCC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(HOST_CC) $(HOST_CFLAGS) -Ikernel/net -o $@ $< kernel/net/rss.c

# The firmware clock's date as Unix time (boot/efi/efitime.c).
$(HB)/efitime_test: tests/host/efitime_test.c boot/efi/efitime.c boot/efi/efitime.h \
                    tests/host/harness.h
	$(call msg,HOSTCC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(HOST_CC) $(HOST_CFLAGS) -Iboot/efi -o $@ $< boot/efi/efitime.c

# The EFI load options as the command line (boot/efi/loadopt.c).
$(HB)/loadopt_test: tests/host/loadopt_test.c boot/efi/loadopt.c boot/efi/loadopt.h \
                    tests/host/harness.h
	$(call msg,HOSTCC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(HOST_CC) $(HOST_CFLAGS) -Iboot/efi -o $@ $< boot/efi/loadopt.c

# The check of a disk image made by make image (tools/mkimage.sh); make
# test runs it on build/<arch>/hello.img when it boots that arch through
# firmware.
$(HB)/efiimage_test $(HB)/efiimage_aarch64_test: tests/host/efiimage_test.c tests/host/harness.h
	$(call msg,HOSTCC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(HOST_CC) $(HOST_CFLAGS) $(if $(findstring aarch64,$@),-DIMAGE='"build/aarch64/hello.img"') \
	    -o $@ $<

# The run queue is lock-free: its stress test also runs under TSan.
# -iquote, so that <pthread.h> finds the system's <sched.h>, not ours.
RUNQ_DEPS := tests/host/runq_test.c sched/runq.c sched/runq.h tests/host/harness.h
RUNQ_CFLAGS := -std=gnu11 -O1 -g -Wall -Wextra -Werror -iquote sched \
               -Itests/host -pthread
$(HB)/runq_test: $(RUNQ_DEPS)
	$(call msg,HOSTCC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(HOST_CC) $(RUNQ_CFLAGS) -fsanitize=address,undefined \
	    -fno-sanitize-recover=all -o $@ tests/host/runq_test.c sched/runq.c
$(HB)/runq_tsan_test: $(RUNQ_DEPS)
	$(call msg,HOSTCC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(HOST_CC) $(RUNQ_CFLAGS) -fsanitize=thread -o $@ \
	    tests/host/runq_test.c sched/runq.c

# The split virtqueue against a simulated device (two cases run the
# device in a thread of its own).
$(HB)/virtq_test: tests/host/virtq_test.c drivers/virtq.c drivers/virtq.h \
                  tests/host/harness.h
	$(call msg,HOSTCC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(HOST_CC) $(HOST_CFLAGS) -iquote drivers -pthread -o $@ $< drivers/virtq.c

# Go's pollDesc (sched/polldesc.c) over a shim of the scheduler where Gs
# are threads (tests/host/polldesc_shim first on the include path): its
# races run under ASan+UBSan and under TSan.
PD_DEPS   := tests/host/polldesc_test.c sched/polldesc.c sched/polldesc.h \
             kernel/spinlock.c kernel/spinlock.h sched/sched.h sched/timers.h \
             sched/netpoll.h $(wildcard tests/host/polldesc_shim/*.h) \
             tests/host/harness.h
PD_CFLAGS := -std=gnu11 -O1 -g -Wall -Wextra -Werror -I tests/host/polldesc_shim \
             -iquote sched -iquote kernel -Iinclude -Itests/host -pthread
PD_SRCS   := tests/host/polldesc_test.c sched/polldesc.c kernel/spinlock.c
$(HB)/polldesc_test: $(PD_DEPS)
	$(call msg,HOSTCC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(HOST_CC) $(PD_CFLAGS) -fsanitize=address,undefined \
	    -fno-sanitize-recover=all -o $@ $(PD_SRCS)
$(HB)/polldesc_tsan_test: $(PD_DEPS)
	$(call msg,HOSTCC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(HOST_CC) $(PD_CFLAGS) -fsanitize=thread -o $@ $(PD_SRCS)

# The receive path: lwIP built for the host with the kernel's lwipopts.h
# and cc.h, fed valid, malformed and randomly mutated frames as
# kernel/net/stack.c feeds it, under ASan+UBSan.  One command: every lwIP
# file depends on lwipopts.h anyway.  --wrap lets the test poison free
# pool elements, so a use after free inside lwIP is reported.
NETRX_DEPS := tests/host/netrx_test.c tests/host/harness.h tests/host/lwip_netif.h \
              kernel/net/lwipopts.h \
              kernel/net/arch/cc.h kernel/printk.h kernel/panic.h $(LWIP_STAMP)
$(HB)/netrx_test: $(NETRX_DEPS)
	$(call msg,HOSTCC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(HOST_CC) $(HOST_CFLAGS) $(LWIP_INC) \
	    -Wl,--wrap=memp_malloc,--wrap=memp_free -o $@ tests/host/netrx_test.c \
	    $(addprefix $(LWIP_DIR)/,$(LWIP_SRCS))

# The gdb script's test: a shell script (tests/host/gdb_test.sh), run as
# the C tests are, debugging the hosted image of tests/kernel/gdb_target
# (GDB_TEST_IMAGE), which test-prepare builds.
GDB_TEST_IMAGE := build/hosted/tests/kernel/gdb_target.elf
$(HB)/gdb_test: tests/host/gdb_test.sh
	$(call msg,CP,$@)
	$(Q)mkdir -p $(@D)
	$(Q)cp $< $@

# The host end of the tests/net/tcp boots (tools/runtests.sh starts it).
$(HB)/netpeer: tools/netpeer.c tests/net/stream.h
	$(call msg,HOSTCC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(HOST_CC) -O2 -Wall -Wextra -Werror -pthread -o $@ tools/netpeer.c

# libFuzzer targets (tests/fuzz/): the parsers of outside input, built
# for the host with clang under ASan+UBSan.  `make test` replays each
# corpus once; `make fuzz` explores for FUZZ_TIME seconds a target.
FUZZ_TARGETS := cmdline fdt acpi virtq netrx
FUZZ_TIME    ?= 60
FB           := build/fuzz
FUZZ_CFLAGS  := -std=gnu11 -O1 -g -Wall -Wextra -Werror -Ikernel -Idrivers \
                -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZ_SRCS_cmdline := kernel/cmdline.c kernel/faultcfg.c kernel/fmt.c kernel/tracebuf.c
FUZZ_SRCS_fdt     := kernel/fdt.c kernel/fdt_blob.c kernel/fdt_machine.c
FUZZ_SRCS_acpi    := kernel/acpi.c kernel/acpi_machine.c
FUZZ_SRCS_virtq   := drivers/virtq.c
FUZZ_SRCS_netrx   := $(addprefix $(LWIP_DIR)/,$(LWIP_SRCS))
$(FB)/netrx: FUZZ_CFLAGS += $(LWIP_INC) -Itests/host \
             -Wno-tautological-constant-out-of-range-compare
$(FB)/netrx: kernel/net/lwipopts.h kernel/net/arch/cc.h tests/host/lwip_netif.h | $(LWIP_STAMP)
.SECONDEXPANSION:
$(FUZZ_TARGETS:%=$(FB)/%): $(FB)/%: tests/fuzz/%.c $$(FUZZ_SRCS_$$*) $$(wildcard kernel/$$*.h drivers/$$*.h)
	$(call msg,FUZZCC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)clang $(FUZZ_CFLAGS) -o $@ $< $(FUZZ_SRCS_$*)

fuzz: deps-fuzz $(FUZZ_TARGETS:%=$(FB)/%)
	$(Q)tools/fuzz.sh explore $(FUZZ_TIME) $(FUZZ_TARGETS:%=$(FB)/%)

deps-fuzz:
	$(Q)tools/deps.sh fuzz

test-host: $(HOST_TESTS:%=$(HB)/%_test)

test-images: $(TEST_DIRS:%=$(B)/%.elf)

# `make test` tests every configuration of TEST_CONFIGS: both bare-metal
# arches (x86_64 at 1, 4 and 8 cores, aarch64 at 4) and the hosted
# build as it is, under ASan+UBSan and under TSan, each at 4.  With ARCH=
# (and SANITIZE=) on the command line, only that one, over its whole
# matrix (x86_64 at 1, 2, 3, 4 and 8, aarch64 at 1, 2 and 4, the hosted
# builds at 1, 2, 4 and 8).  The runner runs the host tests and boots
# every test image of each configuration over its core-count matrix, then
# prints the one total line.
#
# The firmware configurations boot an arch's test images through its EFI
# loader: x86_64-efi under OVMF; aarch64-efi under AAVMF with ACPI,
# aarch64-efi-dtb under AAVMF with a device tree (QEMU's acpi=off),
# aarch64-uboot through U-Boot's bootefi (a device tree too).  In `make
# test` (and with ARCH=x86_64 or aarch64) each boots only the slice
# EFI_TESTS at 2 cores, since the firmware adds 2-6 s a boot: the tests
# of what the firmware hands over (cores, memory map, tables, clocks and
# the timer interrupt, screen), not the scheduler's own; `make test-efi`
# boots every test image through each.
TEST_CONFIGS := x86_64 x86_64-efi aarch64 aarch64-efi aarch64-efi-dtb aarch64-uboot \
                hosted hosted-asan hosted-tsan
FW_CONFIGS   := x86_64-efi aarch64-efi aarch64-efi-dtb aarch64-uboot
fw_configs    = $(filter $(1)-%,$(FW_CONFIGS))
EFI_TESTS    := tests/kernel/smp tests/time/preempt tests/kernel/fbcon tests/kernel/firmware_tables
TEST_RUN     := $(if $(filter command line,$(origin ARCH)),$(RUN_ARCH) \
                    $(call fw_configs,$(RUN_ARCH)),$(TEST_CONFIGS))
TEST_FW      := $(filter $(FW_CONFIGS),$(TEST_RUN))
TEST_SMP_FOR := $(if $(filter command line,$(origin ARCH)),,--smp-for x86_64 "1 4 8" --smp-for aarch64 4 \
                    --smp-for hosted 4 --smp-for hosted-asan 4 --smp-for hosted-tsan 4)
fw_arch       = $(firstword $(subst -, ,$(1)))
config_args   = $(if $(filter hosted-asan,$(1)),ARCH=hosted SANITIZE=address,$(if $(filter hosted-tsan,$(1)),ARCH=hosted SANITIZE=thread,$(if $(filter $(FW_CONFIGS),$(1)),ARCH=$(call fw_arch,$(1)) APP=hello CMDLINE= image,ARCH=$(1))))
# With a firmware configuration, the image check of its arch runs among
# the host tests, on build/<arch>/hello.img.
efi_check     = $(HB)/$(if $(filter aarch64,$(1)),efiimage_aarch64_test,efiimage_test)
EFI_CHECK     = $(foreach a,$(sort $(foreach c,$(TEST_FW),$(call fw_arch,$(c)))),$(call efi_check,$(a)))
# The images a configuration boots.
test_images   = $(if $(filter $(FW_CONFIGS),$(1)),$(EFI_TESTS:%=build/$(call fw_arch,$(1))/%.elf),$(TEST_DIRS:%=build/$(1)/%.elf))

# The images build in parallel, one job per host core, unless make was
# given -j already (then its jobserver shares the jobs out; MAKEFLAGS
# names the jobserver only in recipes, hence =).
TEST_JOBS     = $(if $(findstring jobserver,$(MAKEFLAGS)),,-j$(NPROC))

# Before the boots: the host packages of every configuration, one arch
# at a time (apt-get holds a lock), then everything else in one make
# (one jobserver): newlib for each bare-metal arch, both started first
# as the longest jobs, then lwIP, the host tests and fuzz targets, each
# hosted build's images, and each bare-metal arch's images once its
# newlib is there.
TEST_ARCHES  := $(sort $(foreach c,$(TEST_RUN),$(call fw_arch,$(c))))
TEST_BARE    := $(filter-out hosted,$(TEST_ARCHES))
TEST_NEWLIBS := $(TEST_BARE:%=build/newlib/%/lib/libc.a)
TEST_HOSTED  := $(filter hosted%,$(TEST_RUN))

# The gdb test's hosted image comes with the hosted test images, or on
# its own when the run has no hosted build (one make per build folder).
GDB_TEST_PREP := $(if $(filter hosted,$(TEST_HOSTED)),,gdb-test-image)

test-prepare:
	$(Q)for a in $(TEST_ARCHES) fuzz gdb; do tools/deps.sh $$a; done
	$(Q)for a in $(sort $(foreach c,$(TEST_FW),$(call fw_arch,$(c)))); do tools/deps.sh efi $$a; done
	$(Q)$(MAKE) --no-print-directory $(TEST_JOBS) DEPS_CHECKED=1 $(TEST_NEWLIBS) $(LWIP_STAMP) \
	    test-host $(EFI_CHECK) $(FUZZ_TARGETS:%=$(FB)/%) $(HB)/netpeer $(TEST_HOSTED:%=test-images-%) \
	    $(GDB_TEST_PREP) $(TEST_BARE:%=test-images-arch-%)

.PHONY: gdb-test-image
gdb-test-image: $(LWIP_STAMP)
	$(Q)$(MAKE) --no-print-directory ARCH=hosted SANITIZE= $(GDB_TEST_IMAGE)

# One configuration's test images (test-prepare), after the shared lwIP
# tree exists.
.PHONY: $(TEST_HOSTED:%=test-images-%)
$(TEST_HOSTED:%=test-images-%): test-images-%: $(LWIP_STAMP)
	$(Q)$(MAKE) --no-print-directory $(call config_args,$*) test-images

# One bare-metal arch's images (test-prepare): each configuration of the
# arch in turn, as they share build/<arch>; the font header first, which
# both arches include.
.PHONY: $(TEST_BARE:%=test-images-arch-%)
$(TEST_BARE:%=test-images-arch-%): test-images-arch-%: build/newlib/%/lib/libc.a $(LWIP_STAMP) $(FONT_H)
	$(Q)set -e; $(foreach c,$(filter $*%,$(filter-out $(TEST_HOSTED),$(TEST_RUN))),\
	    $(MAKE) --no-print-directory $(call config_args,$(c)) test-images;)

test: test-prepare
	$(Q)tools/runtests.sh --host "$(HOST_TESTS:%=$(HB)/%_test) $(HOST_SCRIPTS) $(EFI_CHECK)" \
	    --fuzz "$(FUZZ_TARGETS:%=$(FB)/%)" --font $(FONT_PSF) \
	    $(if $(T),--only $(T)) $(if $(filter command line,$(origin SMP)),--smp $(SMP)) \
	    $(TEST_SMP_FOR) $(foreach c,$(TEST_FW),--smp-for $(c) 2) \
	    $(foreach a,$(TEST_RUN),--arch $(a) $(call test_images,$(a)))

# Every in-image test booted through the firmware of RUN_ARCH's
# configurations (at 2 cores unless SMP= says): OVMF for x86_64; AAVMF
# with ACPI, AAVMF with a device tree and U-Boot for aarch64.
test-efi:
	@[ -n "$(call fw_configs,$(RUN_ARCH))" ] || { echo "make test-efi: no firmware boot for ARCH=$(RUN_ARCH)"; exit 1; }
	$(Q)tools/deps.sh efi $(RUN_ARCH)
	$(Q)$(MAKE) --no-print-directory $(TEST_JOBS) ARCH=$(RUN_ARCH) APP=hello CMDLINE= image test-images
	$(Q)$(MAKE) --no-print-directory $(call efi_check,$(RUN_ARCH)) $(HB)/netpeer
	$(Q)tools/runtests.sh --host $(call efi_check,$(RUN_ARCH)) --font $(FONT_PSF) $(if $(T),--only $(T)) \
	    $(if $(filter command line,$(origin SMP)),--smp $(SMP)) \
	    $(foreach c,$(call fw_configs,$(RUN_ARCH)),--arch $(c) $(TEST_DIRS:%=build/$(RUN_ARCH)/%.elf))

clean:
	rm -rf build

-include $(shell find build -name '*.d' 2>/dev/null)
