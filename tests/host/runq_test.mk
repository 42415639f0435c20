# The run queue is lock-free: its stress test also runs under TSan.
runq_test_CFLAGS := -pthread
runq_test_TSAN   := yes
