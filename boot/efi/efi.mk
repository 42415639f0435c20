# boot/efi/efi.mk - firmware boot: the EFI loader and GPT disk images.
#
# boot/efi/ is an EFI application built with Debian's gnu-efi (its crt0,
# linker script and libraries), not part of the kernel: one loader per
# arch serves every app.  `make image` puts it on the EFI system
# partition of build/<arch>/<APP>.img, beside the app's kernel (FILES=:
# with that tree linked in), CMDLINE and INITRD= (tools/build/
# mkimage.sh); `make run-efi` boots that image under OVMF (x86_64) or
# AAVMF (aarch64), `make run-uboot` (aarch64) through U-Boot, and `make
# test-efi` boots every test image through the firmware.
# x86_64 uses the host's gnu-efi package, converted to PE by objcopy.
# aarch64 uses gnu-efi's arm64 package, unpacked under build/ by
# tools/build/gnuefi.sh, and `objcopy -O binary`: its crt0 carries the PE
# header itself (bookworm's objcopy writes a broken aarch64 PE).
EB          := build/$(ARCH)/efi
EFI_COMMON  := -std=gnu11 -O2 -Wall -Wextra -Werror -Wno-unused-parameter \
               -ffreestanding -fpic -fshort-wchar -fno-stack-protector \
               -fno-strict-aliasing -I. -MMD -MP
EFI_OBJS    := $(patsubst boot/efi/%.c,$(EB)/%.o,$(wildcard boot/efi/*.c) \
               boot/efi/arch/$(ARCH).c) $(EB)/reloc.o
ifeq ($(ARCH),x86_64)
EFI_LOADER  := $(EB)/BOOTX64.EFI
EFI_USR     := /usr
EFI_TOOLS   := deps-efi
EFI_CC      := gcc
EFI_LD      := ld
EFI_OBJCOPY := objcopy
EFI_CFLAGS  := $(EFI_COMMON) -mno-red-zone -DGNU_EFI_USE_MS_ABI \
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
	$(Q)tools/build/deps.sh efi $(ARCH)

build/gnu-efi-arm64/.stamp: tools/build/gnuefi.sh tools/build/once.sh | deps-efi
	$(Q)tools/build/gnuefi.sh build/gnu-efi-arm64

$(EB)/%.o: boot/efi/%.c | $(EFI_TOOLS)
	$(call msg,EFICC,$<)
	$(Q)mkdir -p $(@D)
	$(Q)$(EFI_CC) $(EFI_CFLAGS) -c -o $@ $<

# The relocation table's check (boot/reloc.c), shared with the kernel.
$(EB)/reloc.o: boot/reloc.c | $(EFI_TOOLS)
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
	$(check_app)
	$(Q)$(MAKE) --no-print-directory $(RUN_ELF) $(RUN_INITRD)
	$(call msg,IMAGE,$(B)/$(APP_NAME).img)
	$(Q)INITRD=$(RUN_INITRD) tools/build/mkimage.sh $(EFI_LOADER) $(RUN_ELF) $(B)/$(APP_NAME).img \
	    $(RUN_CMDLINE)

run-efi: image
	$(Q)NET=$(NET) INITRD= tools/run/qemu.sh $(ARCH)-efi $(B)/$(APP_NAME).img $(SMP)
else
image run-efi:
	@echo "make $@: firmware boot is for x86_64 and aarch64 (ARCH=$(ARCH))"; exit 1
endif
ifeq ($(ARCH),aarch64)
run-uboot: image
	$(Q)NET=$(NET) INITRD= tools/run/qemu.sh aarch64-uboot $(B)/$(APP_NAME).img $(SMP)
else
run-uboot:
	@echo "make run-uboot: U-Boot boots aarch64 images (ARCH=aarch64)"; exit 1
endif
