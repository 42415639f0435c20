# tests/tests.mk - make test and make test-efi: the host tests, the fuzz
# corpora and every in-image test, booted over each configuration's
# core counts by tools/test/runtests.sh, which ends with one line
# "N passed, M failed" and writes build/test-results.xml (JUnit).
#
# An in-image test is a folder tests/<area>/<name>/ with its sources and
# a test.conf (docs/testing.md); a folder with only a test.conf whose
# `image` names another test is a variant of it, booted from that image.
# tools/test/includes.py, the check of which room may include which,
# runs among the host tests.

# The folders booted: the tests and their variants.
TEST_BOOTS := $(sort $(TEST_DIRS) $(TEST_VARIANTS))

.PHONY: test-prepare test-images test-efi test-net-faults
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
# the timer interrupt, screen, the initrd), not the scheduler's own; `make
# test-efi` boots every test image through each.
#
# x86_64-microvm boots x86_64's images directly on QEMU's microvm machine
# (no PCI: virtio-mmio), the slice MICROVM_TESTS at 4 cores in `make
# test` (1 and 4 with ARCH=x86_64): the foundation's (the initrd's among
# them), the scheduler's and the network's tests.
TEST_CONFIGS := x86_64 x86_64-efi x86_64-microvm aarch64 aarch64-efi aarch64-efi-dtb \
                aarch64-uboot hosted hosted-asan hosted-tsan
FW_CONFIGS   := x86_64-efi aarch64-efi aarch64-efi-dtb aarch64-uboot
MACHINE_CONFIGS := x86_64-microvm
fw_configs    = $(filter $(1)-%,$(FW_CONFIGS))
machine_configs = $(filter $(1)-%,$(MACHINE_CONFIGS))
EFI_TESTS    := tests/kernel/smp tests/time/preempt tests/kernel/fbcon tests/kernel/firmware_tables \
                tests/kernel/initrd tests/kernel/moved tests/net/placed
MICROVM_TESTS := tests/kernel/smp tests/kernel/smp_mptable tests/sched/spawn tests/sched/chan tests/time/timers \
                 tests/time/preempt tests/net/nonic tests/net/tcp tests/net/icmp tests/net/mmiomq \
                 tests/kernel/initrd
TEST_RUN     := $(if $(filter command line,$(origin ARCH)),$(RUN_ARCH) \
                    $(call fw_configs,$(RUN_ARCH)) $(call machine_configs,$(RUN_ARCH)),$(TEST_CONFIGS))
TEST_FW      := $(filter $(FW_CONFIGS),$(TEST_RUN))
TEST_SMP_FOR := $(if $(filter command line,$(origin ARCH)),,--smp-for x86_64 "1 4 8" --smp-for aarch64 4 \
                    --smp-for x86_64-microvm 4 \
                    --smp-for hosted 4 --smp-for hosted-asan 4 --smp-for hosted-tsan 4)
fw_arch       = $(firstword $(subst -, ,$(1)))
config_args   = $(if $(filter hosted-asan,$(1)),ARCH=hosted SANITIZE=address,$(if $(filter hosted-tsan,$(1)),ARCH=hosted SANITIZE=thread,$(if $(filter $(FW_CONFIGS),$(1)),ARCH=$(call fw_arch,$(1)) APP=hello CMDLINE= image,ARCH=$(call fw_arch,$(1)))))
# With a firmware configuration, the image check of its arch runs among
# the host tests, on build/<arch>/hello.img.
efi_check     = $(HB)/$(if $(filter aarch64,$(1)),efiimage_aarch64_test,efiimage_test)
EFI_CHECK     = $(foreach a,$(sort $(foreach c,$(TEST_FW),$(call fw_arch,$(c)))),$(call efi_check,$(a)))
# The images a configuration boots.
test_images   = $(if $(filter $(FW_CONFIGS),$(1)),$(EFI_TESTS:%=build/$(call fw_arch,$(1))/%.elf),$(if $(filter $(MACHINE_CONFIGS),$(1)),$(MICROVM_TESTS:%=build/$(call fw_arch,$(1))/%.elf),$(TEST_BOOTS:%=build/$(1)/%.elf)))

# The images build in parallel, one job per host core, unless make was
# given -j already (then its jobserver shares the jobs out; MAKEFLAGS
# names the jobserver only in recipes, hence =).
TEST_JOBS     = $(if $(findstring jobserver,$(MAKEFLAGS)),,-j$(NPROC))

# Before the boots: the host packages of every configuration, one arch
# at a time (apt-get holds a lock), Go, whose `go tool pprof` reads the
# profiles tests/sched/profile and apps/httpd make, and wrk and curl,
# which tests/host/pprofhttp_test.sh loads httpd with; then everything else in one make
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
	$(Q)for a in $(TEST_ARCHES) fuzz gdb go net; do tools/build/deps.sh $$a; done
	$(Q)for a in $(sort $(foreach c,$(TEST_FW),$(call fw_arch,$(c)))); do tools/build/deps.sh efi $$a; done
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
	$(Q)tools/test/runtests.sh --host "$(HOST_TESTS:%=$(HB)/%_test) tools/test/includes.py $(HOST_SCRIPTS) $(EFI_CHECK)" \
	    --fuzz "$(FUZZ_TARGETS:%=$(FB)/%)" --font $(FONT_PSF) \
	    $(if $(T),--only $(T)) $(if $(filter command line,$(origin SMP)),--smp $(SMP)) \
	    $(TEST_SMP_FOR) $(foreach c,$(TEST_FW),--smp-for $(c) 2) \
	    $(foreach a,$(TEST_RUN),--arch $(a) $(call test_images,$(a)))

# Every in-image test booted through the firmware of RUN_ARCH's
# configurations (at 2 cores unless SMP= says): OVMF for x86_64; AAVMF
# with ACPI, AAVMF with a device tree and U-Boot for aarch64.
test-efi:
	@[ -n "$(call fw_configs,$(RUN_ARCH))" ] || { echo "make test-efi: no firmware boot for ARCH=$(RUN_ARCH)"; exit 1; }
	$(Q)tools/build/deps.sh efi $(RUN_ARCH)
	$(Q)$(MAKE) --no-print-directory $(TEST_JOBS) ARCH=$(RUN_ARCH) APP=hello CMDLINE= image test-images
	$(Q)$(MAKE) --no-print-directory $(call efi_check,$(RUN_ARCH)) $(HB)/netpeer
	$(Q)tools/test/runtests.sh --host $(call efi_check,$(RUN_ARCH)) --font $(FONT_PSF) $(if $(T),--only $(T)) \
	    $(if $(filter command line,$(origin SMP)),--smp $(SMP)) \
	    $(foreach c,$(call fw_configs,$(RUN_ARCH)),--arch $(c) $(TEST_BOOTS:%=build/$(RUN_ARCH)/%.elf))

# `make test-net-faults`: tests/net/faults under each link fault alone and
# all together (tests/net/faults/*/test.conf: one queue at 1 and 4 cores,
# a queue per core at 4, virtio-mmio), on x86_64, aarch64 and x86_64's
# microvm, or the one ARCH= names; T= and SMP= as for make test.  make
# test boots only tests/net/faults itself, every fault at once.
NET_FAULTS_BOOTS := $(patsubst %/test.conf,%,$(wildcard tests/net/faults/*/test.conf))
NET_FAULTS_RUN   := $(if $(filter command line,$(origin ARCH)),$(RUN_ARCH) $(call machine_configs,$(RUN_ARCH)),x86_64 x86_64-microvm aarch64)
test-net-faults:
	$(Q)for a in $(sort $(foreach c,$(NET_FAULTS_RUN),$(call fw_arch,$(c)))) net; do tools/build/deps.sh $$a; done
	$(Q)$(MAKE) --no-print-directory $(HB)/netpeer
	$(Q)set -e; for a in $(sort $(foreach c,$(NET_FAULTS_RUN),$(call fw_arch,$(c)))); do \
	    $(MAKE) --no-print-directory ARCH=$$a build/$$a/tests/net/faults.elf; done
	$(Q)TIMEOUT=$${TIMEOUT:-300} tools/test/runtests.sh $(if $(T),--only $(T)) $(if $(filter command line,$(origin SMP)),--smp $(SMP)) \
	    $(foreach c,$(NET_FAULTS_RUN),--arch $(c) $(NET_FAULTS_BOOTS:%=build/$(call fw_arch,$(c))/%.elf))
