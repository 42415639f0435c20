# kernel/initrd.c reserves through bootinfo.c's helpers.
initrd_test_SRCS := kernel/initrd.c kernel/bootinfo.c
