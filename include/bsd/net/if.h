/*
 * net/if.h - network interface names (POSIX) on Spindle (bare metal; see
 * sys/socket.h).  Spindle's NICs have no names a program can use, so no
 * name maps to an index: if_nametoindex returns 0, if_indextoname fails
 * with ENXIO and if_nameindex returns an empty list.  Programs include
 * it for IPv6 scope ids (libevent's evutil.c).
 */
#ifndef SPINDLE_BSD_NET_IF_H
#define SPINDLE_BSD_NET_IF_H

#define IF_NAMESIZE 16

struct if_nameindex {
    unsigned if_index;          /* 1.., 0 ends the list */
    char *if_name;
};

unsigned if_nametoindex(const char *name);
char *if_indextoname(unsigned index, char *name);
struct if_nameindex *if_nameindex(void);
void if_freenameindex(struct if_nameindex *list);

#endif
