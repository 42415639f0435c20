# The packed tree's archive reader lives in the POSIX layer's room.
FUZZ_SRCS_cpio := posix/cpio.c
