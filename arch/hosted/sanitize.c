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
