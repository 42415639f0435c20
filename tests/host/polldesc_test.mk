# Go's pollDesc over a shim of the scheduler where Gs are threads: the
# shim's arch/arch.h and <reent.h> come first on the include path.  Its
# races run under ASan+UBSan and under TSan.
polldesc_test_SRCS   := sched/polldesc.c kernel/spinlock.c
polldesc_test_CFLAGS := -Itests/host/polldesc_shim -pthread
polldesc_test_DEPS   := $(wildcard tests/host/polldesc_shim/*.h tests/host/polldesc_shim/*/*.h)
polldesc_test_TSAN   := yes
