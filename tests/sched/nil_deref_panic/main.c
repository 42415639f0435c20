/*
 * nil_deref_panic - a NULL object passed to the API (here a mutex) is
 * followed, as Go follows a nil pointer: the panic says so in Go's words
 * and names the goroutine (test.conf).
 */
#include <stddef.h>
#include <spindle/sync.h>

int main(void)
{
    sp_mutex *volatile m = NULL;

    sp_mutex_lock(m);
    return 0;
}
