# fault= is parsed with the kernel's own printf.
faultinject_cfg_test_SRCS := kernel/faultinject_cfg.c kernel/fmt.c
