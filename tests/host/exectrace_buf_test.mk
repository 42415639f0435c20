# The tracer's buffer and dump encoding, and its command-line values
# through the kernel's parser (and printf).
exectrace_buf_test_SRCS := sched/exectrace_buf.c kernel/cmdline.c kernel/crc32.c kernel/fmt.c
