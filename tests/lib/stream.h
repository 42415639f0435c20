/*
 * stream.h - the byte stream and checksum that tests/net/tcp and its host
 * peer (tools/test/netpeer.c) agree on; plain C, for the guest and the host.
 *
 *   byte i of the stream:  (uint8_t)(i * 2654435761u >> 24), i as uint32_t
 *   checksum:              FNV-1a, 32 bits, over the bytes
 *
 * A stream of up to 4 GiB never repeats a short pattern, so a dropped,
 * doubled or reordered segment shows up at its first byte.
 */
#ifndef TESTS_LIB_STREAM_H
#define TESTS_LIB_STREAM_H

#include <stddef.h>
#include <stdint.h>

#define FNV1A_INIT 2166136261u

static inline uint8_t stream_byte(uint64_t i)
{
    return (uint8_t)((uint32_t)i * 2654435761u >> 24);
}

/* Bytes off .. off+n-1 of the stream into buf. */
static inline void stream_fill(uint64_t off, void *buf, size_t n)
{
    uint8_t *b = buf;

    for (size_t k = 0; k < n; k++)
        b[k] = stream_byte(off + k);
}

/* The index within buf of the first byte that is not the stream's at
   off + index, or n if all match. */
static inline size_t stream_check(uint64_t off, const void *buf, size_t n)
{
    const uint8_t *b = buf;

    for (size_t k = 0; k < n; k++)
        if (b[k] != stream_byte(off + k))
            return k;
    return n;
}

/* FNV-1a over buf, continuing from h (FNV1A_INIT to start). */
static inline uint32_t fnv1a(uint32_t h, const void *buf, size_t n)
{
    const uint8_t *b = buf;

    for (size_t k = 0; k < n; k++) {
        h ^= b[k];
        h *= 16777619u;
    }
    return h;
}

#endif
