/*
 * files.S - a packed file tree (a cpio "newc" archive, tools/build/
 * mkcpio.py --tree) linked into an image, for kernel/initrd.c: the bytes
 * of the file FILES_CPIO names (a string, -DFILES_CPIO='"path"') in a
 * read-only section of their own, between spindle_files_start and
 * spindle_files_end.  The Makefile (FILES=, a test.conf's `files`) and
 * spindle-cc (--files, --files-archive) assemble it once per archive.
 */
    .section .spindle_files, "a"
    .balign 16
    .globl spindle_files_start, spindle_files_end
spindle_files_start:
    .incbin FILES_CPIO
spindle_files_end:
    .section .note.GNU-stack, "", %progbits
