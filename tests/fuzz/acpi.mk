# The ACPI parser and the aarch64 machine description built on it.
FUZZ_SRCS_acpi := firmware/acpi.c firmware/aml.c firmware/acpi_machine.c
