# The packed tree's archive reader, from the POSIX layer's room.
cpio_test_SRCS := posix/cpio.c
