/*
 * sanitize.c (hosted) - the sanitizers' default options for hosted
 * images.  Read by ASan and TSan at start-up when they are linked in;
 * plain builds never call these.  Each option says why.
 */

/*
 * detect_leaks=0: LeakSanitizer finds live memory by scanning thread
 * stacks, TLS and globals.  A parked G's stack is in Spindle's own G slot
 * area, which LSan does not scan, so a block only a parked G points to
 * would be reported as a leak.  Spindle checks its own leaks in-image.
 * handle_segv etc.: Spindle handles faults itself (trap.c), so a stack
 * overflow is reported as the bare-metal panic naming the G.
 */
const char *__asan_default_options(void)
{
    return "detect_leaks=0:handle_segv=0:handle_sigbus=0:handle_sigill=0:"
           "handle_sigfpe=0:handle_abort=0:allow_user_segv_handler=1";
}

/* TSan: the same fault handling; reports make the process fail. */
const char *__tsan_default_options(void)
{
    return "handle_segv=0:handle_sigbus=0:handle_sigill=0:handle_sigfpe=0:"
           "handle_abort=0:allow_user_segv_handler=1";
}

const char *__ubsan_default_options(void)
{
    return "print_stacktrace=1:halt_on_error=1";
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#include <stddef.h>
#include <stdio.h>

/* sanitizer/allocator_interface.h, which gcc 12 does not install. */
size_t __sanitizer_get_current_allocated_bytes(void);

/*
 * The sanitizers bring their own allocator: glibc's malloc_stats then
 * reports an empty arena, and ASan's replacement writes to fd 2 behind
 * stdio's back.  The sanitizer builds' malloc_stats prints glibc's "in
 * use bytes" line through stderr instead, with the sanitizer allocator's
 * count of the bytes it has handed out and not had back.
 */
void malloc_stats(void)
{
    fprintf(stderr, "in use bytes     = %10zu\n",
            __sanitizer_get_current_allocated_bytes());
}
#endif
