/*
 * syslog.c - the system log of <syslog.h> on the console: one line per
 * message on stderr, "ident: message".  The ident and the mask are the
 * process's, set rarely (at start-up) and read without a lock: a message
 * racing openlog may carry either ident.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>

static const char *log_ident;
static int log_mask = 0xff;     /* every priority */

void openlog(const char *ident, int option, int facility)
{
    (void)option;
    (void)facility;
    log_ident = ident;
}

void closelog(void)
{
    log_ident = NULL;
}

int setlogmask(int mask)
{
    int old = log_mask;

    if (mask)
        log_mask = mask;
    return old;
}

/* One fprintf of the whole line, so that lines of two Gs do not mix. */
void vsyslog(int priority, const char *format, va_list ap)
{
    char msg[512];
    size_t n;

    if (!(log_mask & LOG_MASK(LOG_PRI(priority))))
        return;
    vsnprintf(msg, sizeof msg, format, ap);
    n = strlen(msg);
    if (n && msg[n - 1] == '\n')
        msg[n - 1] = '\0';
    fprintf(stderr, "%s%s%s\n", log_ident ? log_ident : "", log_ident ? ": " : "", msg);
}

void syslog(int priority, const char *format, ...)
{
    va_list ap;

    va_start(ap, format);
    vsyslog(priority, format, ap);
    va_end(ap);
}
