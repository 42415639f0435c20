# The ACPI parser and the aarch64 machine description built on it.
acpi_test_SRCS := firmware/acpi.c firmware/aml.c firmware/acpi_machine.c
