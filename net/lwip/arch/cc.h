/*
 * arch/cc.h - lwIP's port header for Spindle (included by lwip/arch.h).
 *
 * The same header serves newlib (bare metal) and glibc (ARCH=hosted): the
 * types, limits and errno come from the C library, output and failures go
 * to the kernel's printk and panic, and the kernel defines lwip_rand().
 */
#ifndef NET_LWIP_ARCH_CC_H
#define NET_LWIP_ARCH_CC_H

#include <stdint.h>
#include <inttypes.h>
#include <limits.h>
/*
 * BYTE_ORDER: both arches are little-endian, and both C libraries define
 * BYTE_ORDER and LITTLE_ENDIAN in <sys/types.h>.  cc.h takes theirs: a
 * BYTE_ORDER of ours would be spelled differently from libc's, a
 * redefinition error under -Werror in any file that includes <sys/types.h>
 * before lwIP.  (lwIP's fallback LITTLE_ENDIAN has libc's value, 1234, and
 * libc's header replaces it silently.)  <sys/types.h> also gives ssize_t.
 */
#include <sys/types.h>
#if BYTE_ORDER != LITTLE_ENDIAN
#error "Spindle's lwIP port is little-endian only"
#endif

/*
 * lwIP typedefs its own int ssize_t unless SSIZE_MAX is defined.  glibc's
 * <limits.h> defines it (under _GNU_SOURCE); newlib's does not, yet its
 * <sys/types.h> has ssize_t as long, which lwIP's int would contradict.
 */
#ifndef SSIZE_MAX
#define SSIZE_MAX LONG_MAX
#endif
/* ssize_t came from <sys/types.h>: lwIP needs nothing from <unistd.h>. */
#define LWIP_NO_UNISTD_H 1

/* lwIP's errno names (socket API only) are the C library's. */
#define LWIP_ERRNO_STDINCLUDE 1

/*
 * Only lwip_htons() and friends: the plain htons/ntohl macros lwIP would
 * add collide with the C library's when a file includes both.  The swaps
 * are the compiler's builtins (one instruction), not calls into def.c.
 */
#define LWIP_DONT_PROVIDE_BYTEORDER_FUNCTIONS 1
#define lwip_htons(x) __builtin_bswap16(x)
#define lwip_htonl(x) __builtin_bswap32(x)

#include "kernel/panic.h"
#include "kernel/printk.h"

/* x is a parenthesized printf argument list: LWIP_PLATFORM_DIAG(("%d", n)). */
#define LWIP_PLATFORM_DIAG(x) do { printk x; } while (0)
#define LWIP_PLATFORM_ASSERT(x) panic("lwip: %s at %s:%d", x, __FILE__, __LINE__)

/* Defined by the kernel: a random 32-bit number (first ephemeral TCP and UDP
 * ports, DHCP transaction ids). */
uint32_t lwip_rand(void);
#define LWIP_RAND() lwip_rand()

/*
 * lwIP's pools and heap (memp.c's memp_memory_*_base, mem.c's ram_heap:
 * some 26 MB for the four stacks) live in .lwipbss, which the linker
 * scripts place after .bss, outside what the boot code clears: lwIP's
 * init writes everything of them it later reads (each pool's free list,
 * the heap's first and last blocks), and clearing them meant touching
 * 26 MB of fresh memory at every boot, half the kernel's start-up under
 * QEMU.  GCC would mark a named section as holding data; the assembler's
 * comment character after the flags given here drops its own.
 */
#if defined(__aarch64__)
#define LWIPBSS_SECTION ".lwipbss,\"aw\",%nobits //"
#else
#define LWIPBSS_SECTION ".lwipbss,\"aw\",@nobits #"
#endif
#define LWIP_DECLARE_MEMORY_ALIGNED(variable_name, size) \
    u8_t variable_name[LWIP_MEM_ALIGN_BUFFER(size)]    \
        __attribute__((section(LWIPBSS_SECTION)))

#endif
