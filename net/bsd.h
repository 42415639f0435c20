/*
 * bsd.h - what the BSD socket calls (bsd*.c, include/bsd/) need from the
 * socket layer (sock.c) beyond spindle/net.h, and what newlib's system
 * calls (posix/newlib.c) need from them.
 *
 * Free of the BSD headers and of lwIP's, so that sock.c and newlib.c can
 * include it; bsd*.c are built for bare metal only (ARCH=hosted has
 * glibc's sockets), sock.c for every arch.  What the bsd*.c files share
 * among themselves is bsdimpl.h.
 */
#ifndef NET_BSD_H
#define NET_BSD_H

#include <stdbool.h>
#include <stddef.h>

struct g;
struct sp_sock;
struct stack;

/* ---- sock.c, for bsd*.c ---------------------------------------------- */

/* sp_sock_ready's bits. */
#define SP_SOCK_IN      1   /* a read, accept or recvfrom would not wait */
#define SP_SOCK_OUT     2   /* a write would queue bytes without waiting
                               (TCP: lwIP's low-water marks of buffer and
                               queue, as its own socket API's select) */
#define SP_SOCK_ERR     4   /* the connection failed: *err says how */
#define SP_SOCK_HUP     8   /* the connection is gone (failed or closed) */
#define SP_SOCK_RDHUP   16  /* TCP: the peer's FIN came */

/*
 * What s is ready for now, without waiting: SP_SOCK_* bits; *err (if
 * not NULL) gets the connection's sticky error (-errno, 0 if none).  s
 * must not have been sp_close'd.  A G holding no spinlock.
 */
int sp_sock_ready(struct sp_sock *s, int *err);

/*
 * sp_read that leaves what it copies queued (MSG_PEEK): the next read
 * gets the same bytes.  Waits as sp_read does when nothing is queued.
 */
long sp_peek(struct sp_sock *c, void *buf, size_t len);

/*
 * sp_write that never waits: queues as much of buf as lwIP takes now and
 * sends it.  Returns the count (> 0), -EAGAIN if nothing fit, or the
 * connection's error (-EPIPE once it is closed).  Writers of c must not
 * overlap (the same rule as sp_write's).
 */
long sp_write_nowait(struct sp_sock *c, const void *buf, size_t len);

/*
 * Called by sock.c's lwIP callbacks (under the lock of st, the stack
 * whose callback it is, in any context: the NIC's poll function, lwIP's
 * timer, a G inside the stack) whenever s may have become readable or
 * writable, or failed, after they have recorded why under the lock that
 * sp_sock_ready(s) takes.  If s has an owner (sp_sock_set_owner) and a
 * hook is installed, it calls sock_event_hook(owner, NULL): the POSIX
 * layer's, which tells the watchers of the owner's file.  The hook runs
 * under st's lock, never parks, and returns the Gs to make runnable
 * (linked through g->schedlink), which sock_event hands to st.
 */
void sock_event(struct stack *st, struct sp_sock *s);
extern struct g *(*sock_event_hook)(void *owner, struct g *list);

/* Names what sock_event passes to the hook for s (NULL: nothing). */
void sp_sock_set_owner(struct sp_sock *s, void *owner);

#endif
