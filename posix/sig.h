/*
 * sig.h - signal delivery inside the POSIX layer (posix/signal.c), for
 * the calls that raise signals themselves (the interval timer).
 */
#ifndef POSIX_SIG_H
#define POSIX_SIG_H

/*
 * Delivers sig (valid, not 0) to the process in the calling G: runs its
 * recorded handler here (an SA_SIGINFO handler is told code as si_code:
 * SI_USER, SI_TIMER), or does its default action, or records it pending
 * if it is blocked (sigprocmask), to be delivered by the call that
 * unblocks it.  From a G.
 */
void sig_deliver(int sig, int code);

#endif
