# posix/memmove.c under another name, so that the test compares it with
# a reference rather than replacing the host's memmove (and ASan's).
memmove_test_SRCS := posix/memmove.c
memmove_test_CFLAGS := -Dmemmove=posix_memmove
