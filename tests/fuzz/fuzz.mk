# tests/fuzz/fuzz.mk - libFuzzer targets: the parsers of outside input,
# built for the host with clang under ASan+UBSan.  `make test` replays
# each corpus once; `make fuzz` explores for FUZZ_TIME seconds a target.
#
# Each tests/fuzz/<name>.c is a target, build/fuzz/<name>, with its corpus
# in tests/fuzz/<name>/ (tools/test/fuzz.sh).  It links the room's source
# of the same name unless tests/fuzz/<name>.mk says otherwise:
#
#   FUZZ_SRCS_<name>     the sources it links instead
#   FUZZ_CFLAGS_<name>   more flags
#   FUZZ_DEPS_<name>     more prerequisites

FUZZ_TARGETS := $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/*.c))
FUZZ_TIME    ?= 60
FB           := build/fuzz
FUZZ_CFLAGS  := -std=gnu11 -O1 -g -Wall -Wextra -Werror -I. -Iinclude \
                -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all

include $(filter-out tests/fuzz/fuzz.mk,$(wildcard tests/fuzz/*.mk))

define FUZZ_TARGET
FUZZ_SRCS_$(1) ?= $$(wildcard $$(addsuffix /$(1).c,kernel sched drivers net firmware))
$(FB)/$(1): tests/fuzz/$(1).c $$(FUZZ_SRCS_$(1)) $$(FUZZ_DEPS_$(1)) \
            $$(wildcard tests/fuzz/$(1).mk)
	$$(call msg,FUZZCC,$$@)
	$(Q)mkdir -p $$(@D)
	$(Q)clang $(FUZZ_CFLAGS) $$(FUZZ_CFLAGS_$(1)) -o $$@ $$< $$(FUZZ_SRCS_$(1))
endef
$(foreach t,$(FUZZ_TARGETS),$(eval $(call FUZZ_TARGET,$(t))))

.PHONY: fuzz deps-fuzz
fuzz: deps-fuzz $(FUZZ_TARGETS:%=$(FB)/%)
	$(Q)tools/test/fuzz.sh explore $(FUZZ_TIME) $(FUZZ_TARGETS:%=$(FB)/%)

deps-fuzz:
	$(Q)tools/build/deps.sh fuzz
