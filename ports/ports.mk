# ports/ports.mk - Spindle's cross toolchain and the ported programs.
# Included by the Makefile once B, KOBJS, LWIP_LIB, CROSS, ARCH_CFLAGS
# and STACK_CLASH are final.
#
#   make toolchain      build/<arch>/bin/spindle-cc (and -ar, -ranlib,
#                       -nm, -objcopy, -strip, -pkg-config) and the
#                       sysroot build/<arch>/sysroot (tools/build/toolchain.sh)
#   make ports          every port's programs for ARCH
#
# A port is a folder ports/<name>/ with a build.sh that fetches Debian's
# source of it under build/ports/<name>/ once and builds its programs with
# spindle-cc into build/<arch>/ports/<name>/, and a port.mk that names
# them: PORT_ELF_<program> is the image `make run APP=<program>` boots,
# PORT_CMDLINE_<program> its command line when CMDLINE is not given.

TOOLCHAIN := $(B)/bin/spindle-cc
PORT_ELFS :=
PORT_PROGRAMS :=

ifeq ($(ARCH),hosted)
toolchain:
	@echo "make toolchain: the hosted build links glibc; use ARCH=x86_64 or ARCH=aarch64"; exit 1
else
# Rebuilt when a public header is added, changed or removed (a folder's
# mtime changes when a file in it is added or removed).
TOOLCHAIN_DEPS := tools/build/toolchain.sh tools/build/spindle-cc.sh tools/build/ksyms.sh \
                  tools/build/link.sh tools/build/relocs.c boot/reloc.h \
                  tools/build/files.S tools/build/mkcpio.py \
                  linker/$(ARCH).ld $(KOBJS) $(LWIP_LIB) $(LIBC_DEP) \
                  $(shell find include -type f -o -type d 2>/dev/null)
$(TOOLCHAIN): $(TOOLCHAIN_DEPS)
	$(call msg,TOOLCHAIN,$(B)/bin $(B)/sysroot)
	$(Q)tools/build/toolchain.sh $(ARCH) $(B) $(NEWLIB) "$(CROSS)" "$(STACK_CLASH) $(ARCH_CFLAGS)" \
	    $(LWIP_LIB) $(KOBJS)
toolchain: $(TOOLCHAIN)
endif

# What every port's build script uses: a change rebuilds them all.
PORT_SCRIPTS := ports/port.sh ports/debsrc.sh tools/build/once.sh

ifneq ($(ARCH),hosted)
include $(wildcard ports/*/port.mk)
endif

.PHONY: toolchain ports
ports: $(PORT_ELFS)
