/*
 * initrd.h - the packed file tree the machine boots with: a cpio "newc"
 * archive, linked into the image (make FILES=, spindle-cc --files; the
 * symbols of tools/build/files.S) or loaded beside it by the boot path
 * (make INITRD=: QEMU's -initrd through PVH's module list or the device
 * tree's /chosen, the EFI loader's EFI/spindle/initrd, the hosted
 * build's -initrd).
 *
 * When both are there, the boot path's wins: the archive a machine is
 * booted with is the later, more specific choice.  The console says so
 * in the one line it prints for the archive at boot.
 */
#ifndef KERNEL_INITRD_H
#define KERNEL_INITRD_H

#include <stdbool.h>
#include <stddef.h>

struct bootinfo;

/* The packed tree: a cpio "newc" archive, linked into the image (FILES=
   at link time) or loaded beside it by the boot path (an initrd).
   Returns false if there is none; else its bytes, which stay mapped
   (kernel virtual address, readable) and untouched for the life of the
   machine, and where they came from ("image", "pvh", "dtb", "efi", ...). */
bool initrd_get(const void **base, size_t *len, const char **source);

/*
 * kernel_main's, before mem_setup: checks the boot path's initrd
 * (bi->initrd, initrd_size, initrd_from) and reserves it in bi, or, if
 * its address or size is nonsense (0, wrapping, not all of it in the
 * RAM of bi's memory map, or no reserved entry left for it), warns on
 * the console and zeroes bi->initrd and initrd_size; then decides what
 * initrd_get returns (the boot path's, else the image's) and prints one
 * line about it.  Reads none of the archive's bytes, which need not be
 * mapped yet.  Called once, on the boot core.
 */
void initrd_setup(struct bootinfo *bi);

#endif
