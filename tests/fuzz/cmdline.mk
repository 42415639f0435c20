# The command line with every value parser behind it: fault= and the
# tracer's trace= and trace_buf=.
FUZZ_SRCS_cmdline := kernel/cmdline.c kernel/faultinject_cfg.c kernel/fmt.c sched/exectrace_buf.c
