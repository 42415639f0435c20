# The command line with every value parser behind it: fault=, the
# tracer's trace= and trace_buf=, the profiler's profile= and profile_buf=,
# the virtio-mmio devices' virtio_mmio.device=.
FUZZ_SRCS_cmdline := kernel/cmdline.c kernel/faultinject_cfg.c kernel/fmt.c sched/exectrace_buf.c \
                     sched/profbuf.c kernel/crc32.c drivers/virtio_mmio_cmdline.c
