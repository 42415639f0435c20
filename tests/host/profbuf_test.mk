# The profiler's buffer, its dump encoding and its command-line values
# (with the kernel's CRC-32 and printf).  Linked at a fixed address, so
# that the dump it writes names its own functions by the addresses the
# ELF has (tests/host/pprof_test.py symbolizes them with pprof.py).
profbuf_test_SRCS    := sched/profbuf.c kernel/crc32.c kernel/fmt.c
profbuf_test_CFLAGS  := -fno-pie
profbuf_test_LDFLAGS := -no-pie
