# The link faults' decisions over a fake clock: the shim's arch/arch.h
# comes first on the include path; fault= is parsed as the kernel does.
faultinject_link_test_SRCS   := kernel/faultinject_link.c kernel/faultinject_cfg.c kernel/fmt.c
faultinject_link_test_CFLAGS := -Itests/host/faultinject_link_shim
faultinject_link_test_DEPS   := tests/host/faultinject_link_shim/arch/arch.h
