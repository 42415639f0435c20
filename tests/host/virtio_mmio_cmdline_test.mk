# The virtio_mmio.device= value is parsed with the kernel's own printf.
virtio_mmio_cmdline_test_SRCS := drivers/virtio_mmio_cmdline.c kernel/fmt.c
