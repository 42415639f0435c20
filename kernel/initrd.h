/*
 * initrd.h - the packed tree's bytes: a cpio "newc" archive, linked into
 * the image or loaded beside it by the boot path.
 */
#ifndef KERNEL_INITRD_H
#define KERNEL_INITRD_H

#include <stdbool.h>
#include <stddef.h>

/* false if there is none; else its bytes, which stay mapped and
   untouched for the life of the machine, and where they came from. */
bool initrd_get(const void **base, size_t *len, const char **source);

#endif
