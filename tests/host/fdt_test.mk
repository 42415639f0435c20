# The device tree parser is two files, the blob walker and the machine
# summary built on it.
fdt_test_SRCS := firmware/fdt.c firmware/fdt_blob.c firmware/fdt_machine.c
