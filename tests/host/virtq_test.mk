# Two cases run the simulated device in a thread of its own.
virtq_test_CFLAGS := -pthread
virtq_test_DEPS   := tests/host/virtq_dev.h
