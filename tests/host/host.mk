# tests/host/host.mk - host unit tests: programs built for the host that
# test one piece of the kernel on its own, under ASan+UBSan.
#
# Each tests/host/<name>_test.c is one test, build/host/<name>_test; it
# links the room's source of the same name (kernel/<name>.c, sched/,
# drivers/, net/, firmware/ or boot/efi/) unless tests/host/<name>_test.mk
# says otherwise, with these variables:
#
#   <name>_test_SRCS     the sources it links instead
#   <name>_test_CFLAGS   flags before the common ones (include paths that
#                        must come first, -pthread)
#   <name>_test_LDFLAGS  link flags
#   <name>_test_DEPS     more prerequisites (generated headers)
#   <name>_test_TSAN     yes: also build/host/<name>_tsan_test, under TSan
#   <name>_test_FW       yes: run only beside a firmware boot (tests/tests.mk)
#
# A tests/host/<name>_test.sh is a test too (copied to build/host), and a
# tests/host/<name>_test.py a script run after the programs.  Each prints
# "TEST <case> PASS|FAIL" lines and its own total (tests/host/harness.h).

HOST_CC     := gcc
HB          := build/host
HOST_SAN    := -fsanitize=address,undefined -fno-sanitize-recover=all
HOST_CFLAGS := -std=gnu11 -O1 -g -Wall -Wextra -Werror -I. -Iinclude -Itests/host

HOST_C_TESTS  := $(patsubst tests/host/%_test.c,%,$(wildcard tests/host/*_test.c))
HOST_SH_TESTS := $(patsubst tests/host/%_test.sh,%,$(wildcard tests/host/*_test.sh))
HOST_SCRIPTS  := $(wildcard tests/host/*_test.py)

include $(wildcard tests/host/*_test.mk)

# The room's source named like the test.
host_default_srcs = $(wildcard $(addsuffix /$(1).c,kernel sched drivers net firmware boot/efi))

# $(call HOST_TEST,name,binary,sanitizer flags)
define HOST_TEST
$(1)_test_SRCS ?= $$(call host_default_srcs,$(1))
$(HB)/$(2): tests/host/$(1)_test.c $$($(1)_test_SRCS) tests/host/harness.h \
            $$($(1)_test_DEPS) $$(wildcard tests/host/$(1)_test.mk)
	$$(call msg,HOSTCC,$$@)
	$(Q)mkdir -p $$(@D)
	$(Q)$(HOST_CC) $$($(1)_test_CFLAGS) $(HOST_CFLAGS) $(3) -o $$@ $$< \
	    $$($(1)_test_SRCS) $$($(1)_test_LDFLAGS)
endef
$(foreach t,$(HOST_C_TESTS),$(eval $(call HOST_TEST,$(t),$(t)_test,$(HOST_SAN))))
HOST_TSAN := $(foreach t,$(HOST_C_TESTS),$(if $(filter yes,$($(t)_test_TSAN)),$(t)))
$(foreach t,$(HOST_TSAN),$(eval $(call HOST_TEST,$(t),$(t)_tsan_test,-fsanitize=thread)))

$(HOST_SH_TESTS:%=$(HB)/%_test): $(HB)/%_test: tests/host/%_test.sh
	$(call msg,CP,$@)
	$(Q)mkdir -p $(@D)
	$(Q)cp $< $@

# The programs make test runs on every configuration.
HOST_FW    := $(foreach t,$(HOST_C_TESTS),$(if $(filter yes,$($(t)_test_FW)),$(t)))
HOST_TESTS := $(filter-out $(HOST_FW),$(HOST_C_TESTS)) $(HOST_TSAN:%=%_tsan) $(HOST_SH_TESTS)

.PHONY: test-host
test-host: $(HOST_TESTS:%=$(HB)/%_test)

# The host end of the tests/net/tcp boots (tools/test/runtests.sh starts it).
$(HB)/netpeer: tools/test/netpeer.c tests/lib/stream.h
	$(call msg,HOSTCC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(HOST_CC) -O2 -Wall -Wextra -Werror -I. -pthread -o $@ tools/test/netpeer.c
