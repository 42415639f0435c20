# gdb_test.sh debugs the hosted image of tests/kernel/gdb_target, which
# test-prepare builds (tests/tests.mk).
GDB_TEST_IMAGE := build/hosted/tests/kernel/gdb_target.elf
