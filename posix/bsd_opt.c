/*
 * bsd_opt.c - a socket's options: setsockopt and getsockopt
 * (SO_REUSEADDR, SO_KEEPALIVE, SO_RCVTIMEO, SO_SNDTIMEO, SO_LINGER,
 * SO_TYPE, SO_ACCEPTCONN, SO_ERROR, TCP_NODELAY).  Options are recorded
 * in the struct bsock, where the other calls read them.  SO_LINGER is
 * always off (close returns at once and lwIP sends what is queued): it
 * may be set off, and setting it on fails with ENOPROTOOPT.  fcntl is every
 * descriptor's (fdcalls.c).
 */
#include <errno.h>
#include <string.h>
#include <sys/time.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <spindle/sync.h>
#include "net/bsd.h"
#include "posix/bsdimpl.h"

/* ---- Options -------------------------------------------------------- */

static int opt_int(const void *val, socklen_t len, int *v)
{
    if (!val || len < sizeof(int))
        return EINVAL;
    memcpy(v, val, sizeof *v);
    return 0;
}

static int opt_timeo(const void *val, socklen_t len, uint64_t *ns)
{
    struct timeval tv;

    if (!val || len < sizeof tv)
        return EINVAL;
    memcpy(&tv, val, sizeof tv);
    if (tv.tv_sec < 0 || tv.tv_usec < 0 || tv.tv_usec >= 1000000)
        return EDOM;
    *ns = (uint64_t)tv.tv_sec * 1000000000 + (uint64_t)tv.tv_usec * 1000;
    return 0;
}

/* SO_LINGER's value: 0 if it turns lingering off, the only setting. */
static int opt_linger(const void *val, socklen_t len)
{
    struct linger l;

    if (!val || len < sizeof l)
        return EINVAL;
    memcpy(&l, val, sizeof l);
    return l.l_onoff ? ENOPROTOOPT : 0;
}

int setsockopt(int fd, int level, int name, const void *val, socklen_t len)
{
    struct bsock *b;
    uint64_t ns = 0;
    int e, v = 0;

    if (!(b = bsd_fd_get(fd, &e)))
        return fail(e);
    e = ENOPROTOOPT;
    if (level == SOL_SOCKET) {
        switch (name) {
        case SO_REUSEADDR:      /* sp_listen reuses addresses anyway */
            if (!(e = opt_int(val, len, &v)))
                STORE(b->reuseaddr, v != 0);
            break;
        case SO_KEEPALIVE:      /* recorded, not given to lwIP */
            if (!(e = opt_int(val, len, &v)))
                STORE(b->keepalive, v != 0);
            break;
        case SO_RCVTIMEO:
            if (!(e = opt_timeo(val, len, &ns)))
                STORE(b->rcvtimeo, ns);
            break;
        case SO_SNDTIMEO:
            if (!(e = opt_timeo(val, len, &ns)))
                STORE(b->sndtimeo, ns);
            break;
        case SO_LINGER:
            e = opt_linger(val, len);
            break;
        }
    } else if (level == IPPROTO_TCP && b->type == SOCK_STREAM) {
        if (name == TCP_NODELAY && !(e = opt_int(val, len, &v)))
            STORE(b->nodelay, v != 0);  /* Nagle stays off either way */
    }
    bsd_fd_put(b);
    return e ? fail(e) : 0;
}

int getsockopt(int fd, int level, int name, void *val, socklen_t *len)
{
    struct timeval tv;
    struct bsock *b;
    uint64_t ns = 0;
    int e, v = 0, err = 0;
    bool is_tv = false, is_linger = false;

    if (!(b = bsd_fd_get(fd, &e)))
        return fail(e);
    e = 0;
    if (!val || !len) {
        e = EFAULT;
    } else if (level == SOL_SOCKET) {
        switch (name) {
        case SO_REUSEADDR:  v = LOAD(b->reuseaddr); break;
        case SO_KEEPALIVE:  v = LOAD(b->keepalive); break;
        case SO_TYPE:       v = b->type; break;
        case SO_ACCEPTCONN: v = LOAD(b->state) == ST_LISTEN; break;
        case SO_RCVTIMEO:   ns = LOAD(b->rcvtimeo); is_tv = true; break;
        case SO_SNDTIMEO:   ns = LOAD(b->sndtimeo); is_tv = true; break;
        case SO_LINGER:     is_linger = true; break;
        case SO_ERROR:
            /* A failed non-blocking connect's error, once; else the
               connection's sticky one. */
            sp_mutex_lock(&b->mu);
            v = b->soerror;
            b->soerror = 0;
            sp_mutex_unlock(&b->mu);
            if (!v && LOAD(b->state) == ST_CONNECTED) {
                sp_sock_ready(LOAD(b->s), &err);
                v = -err;
            }
            break;
        default:
            e = ENOPROTOOPT;
        }
    } else if (level == IPPROTO_TCP && b->type == SOCK_STREAM &&
               name == TCP_NODELAY) {
        v = LOAD(b->nodelay);
    } else {
        e = ENOPROTOOPT;
    }
    if (!e && is_tv) {
        tv.tv_sec = (time_t)(ns / 1000000000);
        tv.tv_usec = (suseconds_t)(ns % 1000000000 / 1000);
        memcpy(val, &tv, *len < sizeof tv ? *len : sizeof tv);
        *len = sizeof tv;
    } else if (!e && is_linger) {
        struct linger off = { 0, 0 };

        memcpy(val, &off, *len < sizeof off ? *len : sizeof off);
        *len = sizeof off;
    } else if (!e) {
        memcpy(val, &v, *len < sizeof v ? *len : sizeof v);
        *len = sizeof v;
    }
    bsd_fd_put(b);
    return e ? fail(e) : 0;
}
