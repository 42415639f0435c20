/*
 * pthread_impl.h - the thread record shared by posix/pthread*.c.
 *
 * A POSIX thread is a G.  Its record is allocated by pthread_create and
 * is what pthread_t points to; a G that no pthread_create made (main, a
 * G of sp_go) gets one the first time it needs one (pthread_self, a key,
 * a name), an "adopted" record.  pthread.c says who frees a record.
 */
#ifndef POSIX_PTHREAD_IMPL_H
#define POSIX_PTHREAD_IMPL_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <spindle/sync.h>

/* The join state of a record (thread->join); atomic. */
enum {
    PT_JOINABLE,                /* running; a join or detach may come */
    PT_DETACHED,                /* running; frees its record at exit */
    PT_JOINING,                 /* running; a joiner waits on `done` */
    PT_EXITED,                  /* exited; the joiner (or detach) frees */
};

/* A key's value in one thread: valid while seq is the key's. */
struct tsd {
    uint32_t seq;
    void *value;
};

struct __pthread {
    /* Fixed at creation (or adoption): */
    void *(*start)(void *);
    void *arg;
    size_t stacksize;           /* what the thread asked for */
    bool adopted;               /* not made by pthread_create */

    /* Written by the creator before the G starts, then by the G: */
    uint64_t goid;              /* the G that runs it */

    /* The thread's own, touched only by the G that runs it: */
    void *ret;                  /* pthread_exit's value, for the joiner */
    struct _pthread_cleanup_context *cleanup;   /* innermost first */
    struct tsd *tsd;            /* PTHREAD_KEYS_MAX values, or NULL */
    int cancelstate, canceltype;    /* recorded: no cancellation */

    /* Any thread's (pthread_setname_np of another thread): */
    char name[16];              /* under name_lock (pthread_attr.c) */

    uint32_t join;              /* PT_*; CAS (pthread.c) */
    sp_sema done;               /* released once at exit: the joiner */
};

/* The calling G's record, adopting it if it has none; NULL only if
   there is no memory for one. */
struct __pthread *pthread_current(void);

/* Runs the calling thread's key destructors (pthread_key.c), at exit. */
void pthread_tsd_run_destructors(struct __pthread *t);

#endif
