/*
 * pthread_key.c - thread-specific data: keys and their destructors.
 *
 * A key is an index into keys[], whose seq counts its lives: odd while
 * the key exists, even while the index is free.  A thread's values live
 * in its record's tsd array (PTHREAD_KEYS_MAX entries, allocated by its
 * first pthread_setspecific), each stamped with the seq of the key it
 * was set under, so a value set before pthread_key_delete (or under an
 * earlier life of the index) reads as NULL and is never destructed, and
 * delete need not visit the threads.
 *
 * keys_lock serializes create and delete; a key's destructor is written
 * before its seq is published (store-release), and readers load seq
 * with acquire before they read the destructor.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include "posix/pthread_impl.h"

static struct {
    uint32_t seq;               /* odd: in use; store-release under lock */
    void (*dtor)(void *);       /* written before seq goes odd */
} keys[PTHREAD_KEYS_MAX];

static sp_mutex keys_lock = SP_MUTEX_INIT;

static uint32_t key_seq(pthread_key_t k)
{
    return __atomic_load_n(&keys[k].seq, __ATOMIC_ACQUIRE);
}

int pthread_key_create(pthread_key_t *kp, void (*dtor)(void *))
{
    int err = EAGAIN;

    sp_mutex_lock(&keys_lock);
    for (pthread_key_t k = 0; k < PTHREAD_KEYS_MAX; k++) {
        if (keys[k].seq & 1)
            continue;
        keys[k].dtor = dtor;
        __atomic_store_n(&keys[k].seq, keys[k].seq + 1, __ATOMIC_RELEASE);
        *kp = k;
        err = 0;
        break;
    }
    sp_mutex_unlock(&keys_lock);
    return err;
}

int pthread_key_delete(pthread_key_t k)
{
    int err = 0;

    if (k >= PTHREAD_KEYS_MAX)
        return EINVAL;
    sp_mutex_lock(&keys_lock);
    if (keys[k].seq & 1)
        __atomic_store_n(&keys[k].seq, keys[k].seq + 1, __ATOMIC_RELEASE);
    else
        err = EINVAL;
    sp_mutex_unlock(&keys_lock);
    return err;
}

void *pthread_getspecific(pthread_key_t k)
{
    struct __pthread *t = pthread_current();
    struct tsd *d;

    if (k >= PTHREAD_KEYS_MAX || !t || !t->tsd)
        return NULL;
    d = &t->tsd[k];
    return d->seq == key_seq(k) ? d->value : NULL;
}

int pthread_setspecific(pthread_key_t k, const void *v)
{
    struct __pthread *t = pthread_current();
    uint32_t seq;

    if (k >= PTHREAD_KEYS_MAX || !((seq = key_seq(k)) & 1))
        return EINVAL;
    if (!t)
        return ENOMEM;
    if (!t->tsd && !(t->tsd = calloc(PTHREAD_KEYS_MAX, sizeof *t->tsd)))
        return ENOMEM;
    t->tsd[k] = (struct tsd){ .seq = seq, .value = (void *)v };
    return 0;
}

/* POSIX's rounds: each non-NULL value of a live key with a destructor
   is set to NULL and destructed; a destructor may set values again,
   which the next round sees, up to PTHREAD_DESTRUCTOR_ITERATIONS. */
void pthread_tsd_run_destructors(struct __pthread *t)
{
    bool again = true;

    for (int round = 0; again && t->tsd &&
                        round < PTHREAD_DESTRUCTOR_ITERATIONS; round++) {
        again = false;
        for (pthread_key_t k = 0; k < PTHREAD_KEYS_MAX; k++) {
            struct tsd *d = &t->tsd[k];
            uint32_t seq = key_seq(k);
            void (*dtor)(void *) = keys[k].dtor;
            void *v = d->value;

            if (!(seq & 1) || d->seq != seq || !v || !dtor)
                continue;
            d->value = NULL;
            dtor(v);
            again = true;
        }
    }
}
