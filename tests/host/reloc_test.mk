# reloc_test: boot/reloc.c on hand-made tables, and on fixtures holding
# every relocation type tools/build/relocs.c accepts (tests/host/reloc/
# ARCH.S), each linked through tools/build/link.sh at 0x10000000 (.lo)
# and at 0x30000000 (.hi): the .lo image's table must turn it into the
# .hi image.  aarch64's fixture only where its cross assembler is.
RELOC_FIX      := $(HB)/reloc
RELOC_ARCHES   := x86_64 $(if $(shell command -v aarch64-linux-gnu-gcc),aarch64)
reloc_test_SRCS   := boot/reloc.c
reloc_test_DEPS   := build/tools/relocs \
                     $(foreach a,$(RELOC_ARCHES),$(RELOC_FIX)/$(a).o $(RELOC_FIX)/$(a).lo.elf \
                     $(RELOC_FIX)/$(a).hi.elf)
reloc_test_CFLAGS := -DRELOC_FIX='"$(RELOC_FIX)"' \
                     $(if $(filter aarch64,$(RELOC_ARCHES)),-DRELOC_AARCH64=1)
reloc_cross = $(if $(filter aarch64,$(1)),aarch64-linux-gnu-)

$(RELOC_FIX)/%.o: tests/host/reloc/%.S
	$(call msg,AS,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(call reloc_cross,$*)gcc -c -o $@ $<

$(RELOC_FIX)/%.lo.elf $(RELOC_FIX)/%.hi.elf: $(RELOC_FIX)/%.o tests/host/reloc/fixture.ld \
        tools/build/link.sh tools/build/ksyms.sh build/tools/relocs
	$(call msg,LD,$(RELOC_FIX)/$*.lo.elf)
	$(Q)for at in lo:0x10000000 hi:0x30000000; do \
	    tools/build/link.sh $(RELOC_FIX)/$*.$${at%%:*}.elf $(call reloc_cross,$*)ld \
	        $(call reloc_cross,$*)nm $(call reloc_cross,$*)gcc build/tools/relocs \
	        -T tests/host/reloc/fixture.ld --defsym=LINK=$${at#*:} --no-warn-rwx-segments $< \
	        || exit 1; \
	done
