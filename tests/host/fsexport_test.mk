# The export stream's encoder, on Linux's file system, and its host side
# (tools/run/fsexport.py, run by the test).
fsexport_test_SRCS := posix/fsexport.c kernel/crc32.c posix/cpio.c
