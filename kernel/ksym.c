/*
 * ksym.c - function names for backtraces.
 *
 * The image is linked twice: in the first link the table below is
 * missing (weak undefined symbols resolve to address 0); tools/build/ksyms.sh
 * then lists that image's text symbols into ksyms.S, and the second link
 * adds it.  The table sits after all code, so adding it moves no function.
 */
#include <stddef.h>
#include "kernel/panic.h"

extern const uint64_t ksym_count __attribute__((weak));
extern const uint64_t ksym_link_base __attribute__((weak));
extern const char __kernel_start[] __attribute__((weak));
extern const uint64_t ksym_addrs[] __attribute__((weak));
extern const uint32_t ksym_name_offs[] __attribute__((weak));
extern const char ksym_names[] __attribute__((weak));

const char *ksym_lookup(uintptr_t addr, uintptr_t *off)
{
    size_t lo = 0, hi;

    *off = 0;
    if (!&ksym_count)
        return NULL;
    /* The table holds link addresses; the image may run elsewhere
       (boot/reloc.h). */
    if (ksym_link_base)
        addr -= (uintptr_t)__kernel_start - ksym_link_base;
    hi = ksym_count;
    if (!hi || addr < ksym_addrs[0])
        return NULL;
    /* The last symbol whose address is <= addr. */
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;

        if (ksym_addrs[mid] <= addr)
            lo = mid;
        else
            hi = mid;
    }
    *off = addr - ksym_addrs[lo];
    return ksym_names + ksym_name_offs[lo];
}
