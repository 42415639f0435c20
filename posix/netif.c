/*
 * netif.c - the interface-name calls of <net/if.h>.  No NIC has a name a
 * program can look up (net/if.h says why), so every lookup misses.
 */
#include <errno.h>
#include <stdlib.h>
#include <net/if.h>

unsigned if_nametoindex(const char *name)
{
    (void)name;
    return 0;
}

char *if_indextoname(unsigned index, char *name)
{
    (void)index;
    (void)name;
    errno = ENXIO;
    return NULL;
}

/* An empty list: only the terminating entry; ENOBUFS if that fails. */
struct if_nameindex *if_nameindex(void)
{
    struct if_nameindex *list = calloc(1, sizeof *list);

    if (!list)
        errno = ENOBUFS;
    return list;
}

void if_freenameindex(struct if_nameindex *list)
{
    free(list);
}
