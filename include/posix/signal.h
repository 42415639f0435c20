/*
 * signal.h - newlib's <signal.h>, plus the sigaction flags it leaves out
 * on these targets (Linux's names; posix/signal.c gives their meaning).
 *
 * SA_SIGINFO and sa_sigaction are not offered: newlib's struct sigaction
 * has the three-argument handler only with _POSIX_REALTIME_SIGNALS.
 */
#ifndef SPINDLE_SIGNAL_H
#define SPINDLE_SIGNAL_H

#include_next <signal.h>

#ifndef SA_RESTART
#define SA_ONSTACK      0x0004  /* accepted, no alternate stack: ignored */
#define SA_RESTART      0x0008  /* accepted: no call is ever interrupted */
#define SA_NODEFER      0x0010  /* the signal stays unblocked in its handler */
#define SA_RESETHAND    0x0020  /* the handler is reset to SIG_DFL on entry */
#endif

#endif
