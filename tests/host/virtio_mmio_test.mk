# The virtio-mmio transport over simulated registers: the shim's
# arch/arch.h comes first on the include path and sends every register
# access to the test.  The command line and its virtio_mmio.device=
# parser are the kernel's own.
virtio_mmio_test_SRCS   := drivers/virtio.c drivers/virtio_mmio.c drivers/virtio_mmio_cmdline.c \
                           drivers/virtq.c kernel/cmdline.c kernel/fmt.c
virtio_mmio_test_CFLAGS := -Itests/host/virtio_mmio_shim
virtio_mmio_test_DEPS   := tests/host/virtio_mmio_shim/arch/arch.h tests/host/virtq_dev.h
