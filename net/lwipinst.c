/*
 * lwipinst.c - the table of each copy of lwIP (lwipinst.h).
 */
#include "net/lwipinst.h"

#define DECLARE(i, name) extern __typeof__(name) lw##i##_##name;
#define ENTRY(i, name) .name = lw##i##_##name,
#define COPY(i)                                                           \
    LWIP_CALLS(DECLARE, i)                                                \
    extern struct stats_ lw##i##_lwip_stats;
#define TABLE(i) [i] = { LWIP_CALLS(ENTRY, i) .stats = &lw##i##_lwip_stats },

COPY(0)
#if NET_STACKS > 1
COPY(1)
#endif
#if NET_STACKS > 2
COPY(2)
#endif
#if NET_STACKS > 3
COPY(3)
#endif
#if NET_STACKS > 4
#error "lwipinst.c names copies 0 to 3: add lines for more"
#endif

const struct lwip_api lwip_copies[NET_STACKS] = {
    TABLE(0)
#if NET_STACKS > 1
    TABLE(1)
#endif
#if NET_STACKS > 2
    TABLE(2)
#endif
#if NET_STACKS > 3
    TABLE(3)
#endif
};
