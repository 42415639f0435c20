/*
 * sys/signal.h - newlib's <sys/signal.h> (which its <signal.h> includes),
 * with POSIX's struct sigaction and siginfo_t in place of newlib's, and
 * the sigaction flags newlib leaves out on these targets.  posix/signal.c
 * gives their meaning.
 *
 * newlib's struct sigaction has no sa_sigaction and its siginfo_t no
 * si_pid, si_uid or si_addr outside RTEMS, so its own are declared under
 * other names here and these are the ones a program sees: sa_handler and
 * sa_sigaction share a union (as on Linux, a program sets one of them),
 * and SA_SIGINFO says which one the handler is.
 */
#ifndef SPINDLE_SYS_SIGNAL_H
#define SPINDLE_SYS_SIGNAL_H

#define sigaction newlib_sigaction
#define siginfo_t newlib_siginfo_t
#include_next <sys/signal.h>
#undef sigaction
#undef siginfo_t

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int si_signo;               /* the signal */
    int si_errno;               /* 0 */
    int si_code;                /* SI_USER (raise, kill), SI_TIMER (setitimer) */
    pid_t si_pid;               /* SI_USER: the sender, this process */
    uid_t si_uid;               /* SI_USER: the sender's user */
    void *si_addr;              /* NULL: no signal comes from a fault */
    int si_status;
#if defined(_POSIX_REALTIME_SIGNALS) || __POSIX_VISIBLE >= 199309
    union sigval si_value;      /* last: newlib declares union sigval only here */
#endif
} siginfo_t;

struct sigaction {
    union {
        _sig_func_ptr __sa_handler;
        void (*__sa_sigaction)(int, siginfo_t *, void *);
    } __sa_u;
    sigset_t sa_mask;
    int sa_flags;
};
#define sa_handler      __sa_u.__sa_handler
#define sa_sigaction    __sa_u.__sa_sigaction

#define SA_SIGINFO      0x0002  /* sa_sigaction(sig, info, NULL) is the handler */
#define SA_ONSTACK      0x0004  /* accepted, no alternate stack: ignored */
#define SA_RESTART      0x0008  /* accepted: no call is ever interrupted */
#define SA_NODEFER      0x0010  /* the signal stays unblocked in its handler */
#define SA_RESETHAND    0x0020  /* the handler is reset to SIG_DFL on entry */

int sigaction(int sig, const struct sigaction *act, struct sigaction *old);

#ifdef __cplusplus
}
#endif

#endif
