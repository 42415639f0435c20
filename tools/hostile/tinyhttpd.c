/*
 * tinyhttpd - the Linux guest's server in tools/hostile/synflood_linux.sh:
 * on port 80, one connection at a time, it reads a request's head and
 * answers 200 with apps/httpd's page size (612 bytes) and
 * `Connection: close`, then closes.  The least a server does, so that
 * what the SYN-flood comparison measures is the kernel's TCP.
 */
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(void)
{
    static char page[612], head[128], buf[4096];
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(80) };
    int one = 1, l = socket(AF_INET, SOCK_STREAM, 0), hl;

    memset(page, 'p', sizeof page);
    hl = snprintf(head, sizeof head, "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\n"
                  "Connection: close\r\n\r\n", sizeof page);
    setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) || listen(l, 128)) {
        perror("tinyhttpd");
        return 1;
    }
    printf("tinyhttpd: serving on port 80\n");
    fflush(stdout);
    for (;;) {
        int c = accept(l, NULL, NULL);
        size_t got = 0;
        ssize_t n;

        if (c < 0)
            continue;
        while (got < sizeof buf - 1 &&
               (n = read(c, buf + got, sizeof buf - 1 - got)) > 0) {
            got += (size_t)n;
            buf[got] = 0;
            if (strstr(buf, "\r\n\r\n"))
                break;
        }
        if (write(c, head, (size_t)hl) == hl)
            (void)!write(c, page, sizeof page);
        close(c);
    }
}
