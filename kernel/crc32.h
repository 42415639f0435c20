/*
 * crc32.h - zlib's CRC-32 (the IEEE 802.3 polynomial, reflected, as
 * Python's zlib.crc32 computes it), for the checksums of dumps that a
 * host tool reads back from the console (sched/profbuf.h,
 * sched/exectrace_buf.h).  Pure C with no state: callable from any
 * context, and by the host tests.
 */
#ifndef KERNEL_CRC32_H
#define KERNEL_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* The CRC-32 of buf[0..n), continuing from crc (0 to start). */
uint32_t crc32_update(uint32_t crc, const void *buf, size_t n);

#endif
