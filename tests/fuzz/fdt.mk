# The device tree parser: the blob walker and the machine summary.
FUZZ_SRCS_fdt := firmware/fdt.c firmware/fdt_blob.c firmware/fdt_machine.c
