/*
 * signal.c - signals as one process of Gs sees them.
 *
 * Nothing outside the program sends signals: there is no other process,
 * no terminal, and no kernel event raises one (a write to a closed socket
 * gives EPIPE, never SIGPIPE).  A signal arises only from raise() (and
 * abort(), which calls it) and from the interval timer (itimer.c:
 * SIGALRM).  So the rules are simple and stated here:
 *
 *   - The actions (sigaction, signal) are one table for the process,
 *     under sigmu.  SA_RESETHAND resets the action to SIG_DFL before the
 *     handler runs; SA_SIGINFO calls sa_sigaction with a siginfo_t
 *     (si_signo; si_code SI_USER with this process's pid and uid for
 *     raise, SI_TIMER for the interval timer; no si_addr, since no fault
 *     raises a signal) and a NULL context; SA_RESTART, SA_ONSTACK and
 *     SA_NOCLDSTOP are accepted and mean nothing more (no call is
 *     interrupted, there is no alternate stack and no child).  sa_mask
 *     is recorded and returned, not applied while a handler runs.
 *   - The signal mask is one for the process too (sigprocmask and
 *     pthread_sigmask set the same one: Gs are not threads of the
 *     kernel).  A blocked signal is recorded pending (once, not counted,
 *     with the si_code of its first raising); the call that unblocks it
 *     delivers it before returning.
 *   - Delivery runs the handler in the G that raised the signal (raise),
 *     or in a G of the timer's own (SIGALRM), with nothing interrupted.
 *   - The default action: ignored for SIGCHLD, SIGURG, SIGWINCH, SIGCONT
 *     and the stop signals (there is no job control); for every other
 *     signal the end of the program through the panic path of abort()
 *     (posix/newlib.c's _kill), whose message names the signal.
 *
 * Not done: sigsuspend, sigwait, sigaltstack,
 * sigqueue; kill() is newlib's, over _kill.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <spindle/sync.h>
#include "posix/sig.h"
#include "sched/sched.h"

int _kill(int pid, int sig);    /* posix/newlib.c: the panic path */

static sp_mutex sigmu = SP_MUTEX_INIT;
/* Under sigmu: */
static struct sigaction actions[NSIG];
static sigset_t blocked, pending;
static int pending_code[NSIG];  /* a pending signal's si_code */

static sigset_t sigbit(int sig)
{
    return (sigset_t)1 << sig;
}

static bool sig_valid(int sig)
{
    return sig > 0 && sig < NSIG;
}

static bool ignored_by_default(int sig)
{
    switch (sig) {
    case SIGCHLD: case SIGURG: case SIGWINCH: case SIGCONT:
    case SIGSTOP: case SIGTSTP: case SIGTTIN: case SIGTTOU:
        return true;
    }
    return false;
}

/* Runs sig's action, raised with si_code code (sigmu held on entry,
   released here). */
static void run_action(int sig, int code)
{
    struct sigaction a = actions[sig];
    siginfo_t info;

    if (a.sa_flags & SA_RESETHAND) {
        actions[sig].sa_handler = SIG_DFL;
        actions[sig].sa_flags &= ~SA_SIGINFO;
    }
    sp_mutex_unlock(&sigmu);
    /* SIG_DFL and SIG_IGN are handlers, whatever the flags say. */
    if (a.sa_handler == SIG_IGN)
        return;
    if (a.sa_handler == SIG_DFL) {
        if (!ignored_by_default(sig))
            _kill(getpid(), sig);
        return;
    }
    if (!(a.sa_flags & SA_SIGINFO)) {
        a.sa_handler(sig);
        return;
    }
    memset(&info, 0, sizeof info);
    info.si_signo = sig;
    info.si_code = code;
    if (code == SI_USER) {
        info.si_pid = getpid();
        info.si_uid = getuid();
    }
    a.sa_sigaction(sig, &info, NULL);
}

void sig_deliver(int sig, int code)
{
    sp_mutex_lock(&sigmu);
    if (blocked & sigbit(sig)) {
        if (!(pending & sigbit(sig)))
            pending_code[sig] = code;
        pending |= sigbit(sig);
        sp_mutex_unlock(&sigmu);
        return;
    }
    run_action(sig, code);
}

/* Delivers every pending signal the mask no longer blocks. */
static void deliver_unblocked(void)
{
    for (;;) {
        sigset_t ready;
        int sig;

        sp_mutex_lock(&sigmu);
        ready = pending & ~blocked;
        if (!ready) {
            sp_mutex_unlock(&sigmu);
            return;
        }
        sig = __builtin_ctzl(ready);
        pending &= ~sigbit(sig);
        run_action(sig, pending_code[sig]);
    }
}

int raise(int sig)
{
    if (sig == 0)
        return 0;
    if (!sig_valid(sig)) {
        errno = EINVAL;
        return -1;
    }
    /* Off any G (a failed assert at boot) there is no handler to run. */
    if (!getg()) {
        if (!ignored_by_default(sig))
            _kill(getpid(), sig);
        return 0;
    }
    sig_deliver(sig, SI_USER);
    return 0;
}

int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    if (!sig_valid(sig) || (act && (sig == SIGKILL || sig == SIGSTOP))) {
        errno = EINVAL;
        return -1;
    }
    sp_mutex_lock(&sigmu);
    if (old)
        *old = actions[sig];
    if (act)
        actions[sig] = *act;
    sp_mutex_unlock(&sigmu);
    return 0;
}

_sig_func_ptr signal(int sig, _sig_func_ptr fn)
{
    struct sigaction act, old;

    memset(&act, 0, sizeof act);
    act.sa_handler = fn;
    act.sa_flags = SA_RESTART;
    if (sigaction(sig, &act, &old) < 0)
        return SIG_ERR;
    return old.sa_handler;
}

/* sigprocmask's work; returns an error number. */
static int setmask(int how, const sigset_t *set, sigset_t *old)
{
    sigset_t s = set ? *set & ~(sigbit(SIGKILL) | sigbit(SIGSTOP)) : 0;

    if (set && how != SIG_BLOCK && how != SIG_UNBLOCK && how != SIG_SETMASK)
        return EINVAL;
    sp_mutex_lock(&sigmu);
    if (old)
        *old = blocked;
    if (set)
        blocked = how == SIG_BLOCK ? blocked | s :
                  how == SIG_UNBLOCK ? blocked & ~s : s;
    sp_mutex_unlock(&sigmu);
    deliver_unblocked();
    return 0;
}

int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
    int e = setmask(how, set, old);

    if (e) {
        errno = e;
        return -1;
    }
    return 0;
}

int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
    return setmask(how, set, old);
}

int sigpending(sigset_t *set)
{
    if (!set) {
        errno = EFAULT;
        return -1;
    }
    sp_mutex_lock(&sigmu);
    *set = pending;
    sp_mutex_unlock(&sigmu);
    return 0;
}

/* The set operations, as functions (newlib's <signal.h> also has them as
   macros, which check nothing): these reject a bad signal number. */
int (sigemptyset)(sigset_t *set)
{
    *set = 0;
    return 0;
}

int (sigfillset)(sigset_t *set)
{
    *set = ~(sigset_t)0;
    return 0;
}

int (sigaddset)(sigset_t *set, const int sig)
{
    if (!sig_valid(sig)) {
        errno = EINVAL;
        return -1;
    }
    *set |= sigbit(sig);
    return 0;
}

int (sigdelset)(sigset_t *set, const int sig)
{
    if (!sig_valid(sig)) {
        errno = EINVAL;
        return -1;
    }
    *set &= ~sigbit(sig);
    return 0;
}

int (sigismember)(const sigset_t *set, int sig)
{
    if (!sig_valid(sig)) {
        errno = EINVAL;
        return -1;
    }
    return (*set & sigbit(sig)) != 0;
}
