/*
 * reloc.h - moving the kernel image to another physical address: the
 * table of its absolute addresses (made by tools/build/relocs.c at link
 * time) and the code that applies it (reloc.c).
 *
 * The kernel is linked at one address (linker/<arch>.ld) and may run at
 * any other a multiple of RELOC_ALIGN away.  Its code reaches its own
 * code and data PC-relatively (x86_64 RIP-relative and rel32 calls,
 * aarch64 ADRP/ADR, branches, :lo12: offsets, which a 4 KiB-aligned move
 * keeps), except at the sites the table lists: each holds the absolute
 * address of something in the image, 64 bits wide (pointers in data,
 * aarch64 literal pools and GOT slots) or 32 (x86_64's mcmodel=small
 * code: zero-extended R_X86_64_32 or sign-extended R_X86_64_32S, which
 * keep the x86_64 kernel below 2 GiB).  Moving the image by d adds d at
 * every site.  Absolute symbols (__tls_align) and undefined weak ones
 * are no sites: they do not move with the image.
 *
 * The table (section .relocs, 8-byte aligned, little-endian) is a struct
 * reloc_header, then count[RELOC_64] + count[RELOC_32] + count[RELOC_32S]
 * uint32_t offsets from link_base, each kind's ascending.  It sits after
 * every section that holds a site (the final link adds it and the symbol
 * table there, moving no site); sites_end, its own link address in the
 * link it was made from, proves that at run time.
 */
#ifndef BOOT_RELOC_H
#define BOOT_RELOC_H

#include <stdint.h>

#define RELOC_MAGIC 0x4c455253u     /* "SREL" */
#define RELOC_ALIGN 4096u           /* a move keeps every :lo12: and page offset */

enum { RELOC_64, RELOC_32, RELOC_32S, RELOC_KINDS };

struct reloc_header {
    uint32_t magic;                 /* RELOC_MAGIC */
    uint32_t count[RELOC_KINDS];    /* sites of each kind */
    uint64_t link_base;             /* __kernel_start's link address */
    uint64_t sites_end;             /* every site lies below this: the
                                       table's link address when made */
};

/* What reloc_apply found wrong; reloc_error says it in words. */
enum {
    RELOC_OK,
    RELOC_ENOTABLE,         /* moved, but the image has no table */
    RELOC_ESHORT,           /* shorter than its header */
    RELOC_EMAGIC,
    RELOC_ESIZE,            /* counts disagree with the length */
    RELOC_ELINK,            /* made for another link address */
    RELOC_ESTALE,           /* made for another link of the image */
    RELOC_EALIGN,           /* the move is not a multiple of RELOC_ALIGN */
    RELOC_ERANGE,           /* a site outside the image's sites */
    RELOC_EORDER,           /* offsets not ascending */
    RELOC_EOVERFLOW,        /* a 32-bit site cannot hold its new value */
    RELOC_ERRORS
};

/*
 * Checks the table (len bytes at table, inside the image whose first
 * byte, linked at link, is at base) and, if write, adds base - link at
 * every site.  Returns RELOC_OK or the first thing wrong, in which case
 * nothing was written.  With no table (len 0) only base == link is fine.
 *
 * It runs at the kernel's entry before anything is relocated, so it
 * touches no global or jump table, only its arguments and the memory
 * they point to (the kernel's build compiles reloc.c position-
 * independent and without jump tables; so may reloc_error run then).
 */
int reloc_apply(uint8_t *base, uint64_t link, const uint8_t *table, uint64_t len,
                int write);

/* err in words ("the relocation table's counts disagree with its
   length"); "unknown error" for a code it does not know. */
const char *reloc_error(int err);

#endif
