# arch/hosted/hosted.mk - ARCH=hosted: the kernel as a Linux process
# (included by the Makefile after its generic definitions, which this
# file overrides).  Each image is an ordinary x86_64 Linux executable
# linked with the host's glibc instead of newlib.
#
#   SANITIZE=thread    TSan build, in build/hosted-tsan
#   SANITIZE=address   ASan + UBSan build, in build/hosted-asan
#
# Both sanitizer builds check the lock order (SP_LOCKRANK, lockrank.h).
#
# Images are linked -no-pie: TSan leaves the address range of the kernel
# areas (arch_impl.h) free only when the binary is not loaded there.

SANITIZE ?=
SAN_LDFLAGS :=
ifeq ($(SANITIZE),)
B         := build/hosted
SAN_FLAGS :=
else ifeq ($(SANITIZE),thread)
B         := build/hosted-tsan
SAN_FLAGS := -fsanitize=thread --param tsan-instrument-func-entry-exit=0
else ifeq ($(SANITIZE),address)
B         := build/hosted-asan
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all
else
$(error SANITIZE=$(SANITIZE): use thread or address)
endif
RUN_ARCH  := $(notdir $(B))

# glibc's own socket headers, not include/bsd's.
INC_KERNEL := -I. -Iinclude
INC_APP    := -Iinclude
# Recursive (=) for INC, which is the app's for an app's files (Makefile).
# SPINDLE_HOSTED picks arch/hosted/arch_impl.h (arch/arch.h);
# arch/hosted/include has <reent.h>.
CFLAGS = -std=gnu11 -O2 -g -Wall -Wextra -Werror -Wno-unused-parameter \
         -fno-omit-frame-pointer -fno-common -fno-pie -pthread $(STACK_CLASH) \
         -D_GNU_SOURCE -DSPINDLE_HOSTED -Dmain=spindle_main \
         -include arch/hosted/libc.h -Iarch/hosted/include $(INC) \
         -MMD -MP $(SAN_FLAGS) $(if $(SANITIZE),-DSP_LOCKRANK)
# __text_start and __text_end bound the image's code, as the bare-metal
# linker scripts define them (sched/profile.c).
LDFLAGS := -no-pie -pthread $(SAN_FLAGS) $(SAN_LDFLAGS) \
           -Wl,--defsym=__text_start=__executable_start,--defsym=__text_end=etext
LIBS    := -lm -lrt

# No newlib to build first, but the host packages are still checked
# (tools/build/deps.sh hosted: gcc, make, binutils, procps, and the sanitizer
# runtimes of libgcc-12-dev).
LIBC_DEP   := $(DEPS)
IMAGE_RULE := HOSTED_IMAGE
# No newlib and no POSIX layer (glibc stands in: posix/'s calls would
# replace the host's), and no firmware tables to parse (FIRMWARE is
# empty).
KSRCS := $(filter-out posix/%.c kernel/acpi_env.c,$(KSRCS))
KOBJS := $(patsubst %,$(B)/%.o,$(basename $(KSRCS)))
# The POSIX layer's tests test posix/, which is not here.
IMAGE_DIRS := $(filter-out tests/posix/%,$(IMAGE_DIRS))
TEST_DIRS  := $(filter-out tests/posix/%,$(TEST_DIRS))
IMAGES := $(IMAGE_DIRS:%=$(B)/%.elf)

# Two links, as for bare metal: the symbol table for backtraces comes
# from the first and lands in read-only data after the code.  The same
# arguments as the Makefile's IMAGE.
define HOSTED_IMAGE
$(B)/$(or $(2),$(1)).elf: $(KOBJS) $(patsubst %.c,$(B)/%.o,$(wildcard $(1)/*.c)) $(3) \
               $(LWIP_LIB) tools/build/ksyms.sh arch/hosted/hosted.mk
	$$(call msg,LD,$$@)
	$(Q)$(CC) $(LDFLAGS) -o $$@.1 $$(filter %.o,$$^) $(LWIP_LIB) $(LIBS)
	$(Q)tools/build/ksyms.sh $(NM) $$@.1 > $$@.ksyms.S
	$(Q)$(CC) -Wa,--noexecstack -c -o $$@.ksyms.o $$@.ksyms.S
	$(Q)$(CC) $(LDFLAGS) -o $$@ $$(filter %.o,$$^) $$@.ksyms.o $(LWIP_LIB) $(LIBS)
$(if $(filter apps/%,$(or $(2),$(1))),	$(Q)$$(call IMAGE_SYM,$$@))
	$(Q)rm -f $$@.1
endef
