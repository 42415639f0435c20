/*
 * fatal_unlock_unlocked - Go's TestMutexMisuse (sync/mutex_test.go): each
 * misuse of a Mutex or RWMutex, named as in Go by the first word of argv
 * (Mutex.Unlock when there is none), is fatal, with a message about an
 * unlocked lock (see test.conf; tests/go/fatal_rwmutex_unlock and
 * tests/go/fatal_rwmutex_runlock boot this image for the RWMutex ones).
 */
#include <stdio.h>
#include <string.h>
#include <spindle/sync.h>

static void mutex_unlock(void)
{
    sp_mutex mu = SP_MUTEX_INIT;

    sp_mutex_unlock(&mu);
}

static void mutex_unlock2(void)
{
    sp_mutex mu = SP_MUTEX_INIT;

    sp_mutex_lock(&mu);
    sp_mutex_unlock(&mu);
    sp_mutex_unlock(&mu);
}

static void rwmutex_unlock(void)
{
    sp_rwmutex mu = SP_RWMUTEX_INIT;

    sp_rwmutex_unlock(&mu);
}

static void rwmutex_unlock2(void)
{
    sp_rwmutex mu = SP_RWMUTEX_INIT;

    sp_rwmutex_rlock(&mu);
    sp_rwmutex_unlock(&mu);
}

static void rwmutex_unlock3(void)
{
    sp_rwmutex mu = SP_RWMUTEX_INIT;

    sp_rwmutex_lock(&mu);
    sp_rwmutex_unlock(&mu);
    sp_rwmutex_unlock(&mu);
}

static void rwmutex_runlock(void)
{
    sp_rwmutex mu = SP_RWMUTEX_INIT;

    sp_rwmutex_runlock(&mu);
}

static void rwmutex_runlock2(void)
{
    sp_rwmutex mu = SP_RWMUTEX_INIT;

    sp_rwmutex_lock(&mu);
    sp_rwmutex_runlock(&mu);
}

static void rwmutex_runlock3(void)
{
    sp_rwmutex mu = SP_RWMUTEX_INIT;

    sp_rwmutex_rlock(&mu);
    sp_rwmutex_runlock(&mu);
    sp_rwmutex_runlock(&mu);
}

static const struct {
    const char *name;
    void (*f)(void);
} misuse_tests[] = {
    { "Mutex.Unlock", mutex_unlock },
    { "Mutex.Unlock2", mutex_unlock2 },
    { "RWMutex.Unlock", rwmutex_unlock },
    { "RWMutex.Unlock2", rwmutex_unlock2 },
    { "RWMutex.Unlock3", rwmutex_unlock3 },
    { "RWMutex.RUnlock", rwmutex_runlock },
    { "RWMutex.RUnlock2", rwmutex_runlock2 },
    { "RWMutex.RUnlock3", rwmutex_runlock3 },
};

int main(int argc, char **argv)
{
    /* The runner's own "cores=N" comes after the test's words. */
    const char *name = argc > 1 && strncmp(argv[1], "cores=", 6)
                           ? argv[1] : "Mutex.Unlock";

    for (size_t i = 0; i < sizeof misuse_tests / sizeof misuse_tests[0];
         i++) {
        if (!strcmp(misuse_tests[i].name, name)) {
            misuse_tests[i].f();
            printf("test completed\n");     /* not fatal: the boot fails */
            return 0;
        }
    }
    printf("unknown test %s\n", name);
    return 1;
}
