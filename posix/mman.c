/*
 * mman.c - anonymous memory mappings on the page allocator.
 *
 * mmap(MAP_ANONYMOUS | MAP_PRIVATE) takes the pages, rounded up, as one
 * contiguous zeroed run from the physical page allocator (kernel/mem.h)
 * and returns their direct-map address: page aligned, zeroed, reachable
 * from every core.  Each mapping is recorded (maps[], under mapmu);
 * munmap gives back exactly the pages of the range that lie in recorded
 * mappings, splitting or trimming them, and ignores the rest (Linux's
 * rule: unmapping nothing is not an error).  madvise(MADV_DONTNEED or
 * MADV_FREE) zeroes the pages, as a private anonymous mapping reads
 * after it on Linux; other advice is accepted.  msync, mlock and
 * munlock check the range and succeed.
 *
 * mprotect checks the range and the protection and records it, but does
 * not enforce it: the direct map stays readable and writable, so a
 * PROT_NONE guard page does not fault.  Programs that use guard pages to
 * catch overflows lose that check, nothing else.
 *
 * Not done: file and shared mappings (ENODEV: there are no files),
 * MAP_FIXED (EINVAL unless the address is exactly a mapping's start and
 * the length its own: a remap in place, zeroed), mremap, more than
 * MAP_MAX mappings at once (ENOMEM).
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <spindle/sync.h>
#include "kernel/mem.h"

#define PAGE_BYTES      4096UL
#define MAP_MAX         1024

struct mapping {
    uintptr_t start, end;       /* page aligned; start 0: a free entry */
    int prot;
};

static sp_mutex mapmu = SP_MUTEX_INIT;
static struct mapping maps[MAP_MAX];    /* under mapmu */

static size_t pages_of(size_t len)
{
    return (len + PAGE_BYTES - 1) / PAGE_BYTES;
}

/* A free entry, or NULL.  mapmu held. */
static struct mapping *map_slot(void)
{
    for (int i = 0; i < MAP_MAX; i++)
        if (!maps[i].start)
            return &maps[i];
    return NULL;
}

/* The mapping that starts at a and ends at e exactly, or NULL. */
static struct mapping *map_exact(uintptr_t a, uintptr_t e)
{
    for (int i = 0; i < MAP_MAX; i++)
        if (maps[i].start == a && maps[i].end == e)
            return &maps[i];
    return NULL;
}

/* Whether every page of [a, e) lies in recorded mappings.  mapmu held. */
static bool map_covers(uintptr_t a, uintptr_t e)
{
    while (a < e) {
        int i;

        for (i = 0; i < MAP_MAX; i++)
            if (maps[i].start && maps[i].start <= a && a < maps[i].end)
                break;
        if (i == MAP_MAX)
            return false;
        a = maps[i].end;
    }
    return true;
}

/* A page-aligned, non-empty range that does not wrap; false if not. */
static bool range_of(void *addr, size_t len, uintptr_t *a, uintptr_t *e)
{
    *a = (uintptr_t)addr;
    if ((*a & (PAGE_BYTES - 1)) || !len ||
        len > UINTPTR_MAX - *a - PAGE_BYTES)
        return false;
    *e = *a + pages_of(len) * PAGE_BYTES;
    return true;
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    struct mapping *m;
    uintptr_t a, e;
    uint64_t pa;

    if (!(flags & MAP_ANONYMOUS)) {
        errno = fd < 0 ? EBADF : ENODEV;
        return MAP_FAILED;
    }
    if ((flags & MAP_SHARED) || !(flags & MAP_PRIVATE) || !len ||
        len > (1UL << 40) || (prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC))) {
        errno = (flags & MAP_SHARED) && (flags & MAP_PRIVATE) ? EINVAL :
                (flags & MAP_SHARED) ? ENODEV : EINVAL;
        return MAP_FAILED;
    }
    if (flags & MAP_FIXED) {
        sp_mutex_lock(&mapmu);
        m = range_of(addr, len, &a, &e) ? map_exact(a, e) : NULL;
        if (m) {
            memset((void *)a, 0, e - a);
            m->prot = prot;
        }
        sp_mutex_unlock(&mapmu);
        if (!m) {
            errno = EINVAL;
            return MAP_FAILED;
        }
        return (void *)a;
    }
    pa = mem_alloc_pages(pages_of(len));
    if (!pa) {
        errno = ENOMEM;
        return MAP_FAILED;
    }
    a = (uintptr_t)phys_to_virt(pa);
    sp_mutex_lock(&mapmu);
    m = map_slot();
    if (m)
        *m = (struct mapping){ a, a + pages_of(len) * PAGE_BYTES, prot };
    sp_mutex_unlock(&mapmu);
    if (!m) {
        mem_free_pages(pa, pages_of(len));
        errno = ENOMEM;
        return MAP_FAILED;
    }
    return (void *)a;
}

/* The direct map is the identity (mem.h's phys_to_virt): a mapping's
   address is its pages' physical address. */
static void give_back(uintptr_t a, uintptr_t e)
{
    if (a < e)
        mem_free_pages((uint64_t)a, (e - a) / PAGE_BYTES);
}

int munmap(void *addr, size_t len)
{
    uintptr_t a, e;
    int err = 0;

    if (!range_of(addr, len, &a, &e)) {
        errno = EINVAL;
        return -1;
    }
    sp_mutex_lock(&mapmu);
    for (int i = 0; i < MAP_MAX && !err; i++) {
        struct mapping *m = &maps[i], *rest;
        uintptr_t lo, hi;

        if (!m->start || m->end <= a || e <= m->start)
            continue;
        lo = a > m->start ? a : m->start;
        hi = e < m->end ? e : m->end;
        if (lo > m->start && hi < m->end) {
            /* The middle: the part above becomes a mapping of its own. */
            if (!(rest = map_slot())) {
                err = ENOMEM;
                break;
            }
            *rest = (struct mapping){ hi, m->end, m->prot };
            m->end = lo;
        } else if (lo > m->start) {
            m->end = lo;
        } else if (hi < m->end) {
            m->start = hi;
        } else {
            m->start = m->end = 0;
        }
        give_back(lo, hi);
    }
    sp_mutex_unlock(&mapmu);
    if (err) {
        errno = err;
        return -1;
    }
    return 0;
}

/* Checks that [addr, addr + len) is mapped: 0, or an error number. */
static int check_mapped(void *addr, size_t len)
{
    uintptr_t a, e;
    bool ok;

    if (!range_of(addr, len, &a, &e))
        return EINVAL;
    sp_mutex_lock(&mapmu);
    ok = map_covers(a, e);
    sp_mutex_unlock(&mapmu);
    return ok ? 0 : ENOMEM;
}

static int result(int err)
{
    if (err) {
        errno = err;
        return -1;
    }
    return 0;
}

int mprotect(void *addr, size_t len, int prot)
{
    uintptr_t a = 0, e = 0;
    int err;

    if (prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC))
        return result(EINVAL);
    if ((err = check_mapped(addr, len)))
        return result(err);
    range_of(addr, len, &a, &e);
    sp_mutex_lock(&mapmu);
    for (int i = 0; i < MAP_MAX; i++)
        if (maps[i].start == a && maps[i].end == e)
            maps[i].prot = prot;    /* recorded for a whole mapping */
    sp_mutex_unlock(&mapmu);
    return 0;
}

int madvise(void *addr, size_t len, int advice)
{
    int err = check_mapped(addr, len);

    if (err)
        return result(err);
    switch (advice) {
    case MADV_DONTNEED:
    case MADV_FREE:
        memset(addr, 0, pages_of(len) * PAGE_BYTES);
        return 0;
    case MADV_NORMAL: case MADV_RANDOM: case MADV_SEQUENTIAL:
    case MADV_WILLNEED: case MADV_HUGEPAGE: case MADV_NOHUGEPAGE:
        return 0;
    }
    return result(EINVAL);
}

int posix_madvise(void *addr, size_t len, int advice)
{
    if (advice == POSIX_MADV_DONTNEED)
        return check_mapped(addr, len);     /* advice, not zeroing */
    return madvise(addr, len, advice) ? errno : 0;
}

int msync(void *addr, size_t len, int flags)
{
    if ((flags & ~(MS_ASYNC | MS_SYNC | MS_INVALIDATE)) ||
        ((flags & MS_ASYNC) && (flags & MS_SYNC)))
        return result(EINVAL);
    return result(check_mapped(addr, len));
}

/* Nothing is ever paged out: locking is a check. */
int mlock(const void *addr, size_t len)
{
    return result(check_mapped((void *)addr, len));
}

int munlock(const void *addr, size_t len)
{
    return result(check_mapped((void *)addr, len));
}

int mlockall(int flags)
{
    return result(flags & ~(MCL_CURRENT | MCL_FUTURE) || !flags ? EINVAL : 0);
}

int munlockall(void)
{
    return 0;
}
