/*
 * hostile - a hostile peer on a TAP device's side of a network namespace:
 * it writes forged frames straight onto the link (an AF_PACKET socket
 * bound to the device), as an attacker on the guest's link would, and
 * plays its own small TCP from made-up addresses where an attack needs a
 * live connection.  tests/host/hostile_test.sh runs it inside the
 * namespace tools/run/tapns.sh makes; it refuses any device but a TAP
 * one, and every address it uses is a documentation one (RFC 5737).
 *
 *   hostile [--if spt0] [--guest 192.0.2.2] [--port 80] [--count N]
 *           [--rate R] [--hold S] [--slot K] [--echo P] ATTACK
 *
 * --slot K (0-7) keeps the connections of attacks run side by side
 * apart: each slot's peers use ports of their own.
 *
 * Attacks (N frames or connections, R frames a second; defaults below):
 *   synflood  N SYNs from spoofed 198.51.100.x and 192.0.2.128-254
 *   blind     RFC 5961 on a live connection: RSTs and SYNs inside and
 *             outside the window, data outside it, data at the right
 *             sequence number with an ACK outside what the guest sent;
 *             in-window RSTs and SYNs must each get a challenge ACK, none
 *             may reset the connection or inject a byte, whose response
 *             must then come whole
 *   challenge N in-window RSTs on a live connection at R a second
 *             (6,000 at 10,000): the challenge ACKs back must stay
 *             within the guest's limit a second (RFC 5961 7), the
 *             connection must live and its response come whole
 *   segments  N connections sending their request in overlapping,
 *             shuffled pieces; each response must come whole
 *   frags     fragmented pings in order, reversed, overlapping, in
 *             8-byte pieces, past 65,535 bytes, and N datagrams of which
 *             only the first fragment comes; the whole ones must be
 *             answered intact afterwards
 *   zerowin   N connections that close their window while their
 *             response waits, then open it: each response whole
 *   tinymss   N connections with MSS 1, 16 and 88: each response whole
 *   connflood N connections opened R a second and held S seconds (3)
 *             without a byte sent, more than the guest's pools and httpd's cap hold;
 *             then each still open is reset.  Counts those opened, those
 *             the guest reset or closed meanwhile, and those it never
 *             answered
 *   arp       N ARP requests from spoofed senders, replies nobody asked
 *             for, and claims on the guest's own address
 *   ping      N echo requests at R a second, then oversized ones
 *   udp       N datagrams of up to 1,472 bytes to closed ports, and
 *             with --echo P half of them to the guest's UDP echo on P,
 *             with an honest probe every 50th: each of 20 probes sent
 *             after the flood must come back whole
 *
 * Prints what it sent and saw, `hostile: <attack> ...` lines, and a last
 * line `hostile: ok` or `hostile: FAIL <why>` (exit status 0 or 1; 2 for
 * a usage or setup error).
 *
 * The parts (hostile.h): link.c, the packet socket and a small TCP;
 * tcp.c and floods.c, the attacks; pkt.c, the frames.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/hostile/hostile.h"

uint64_t count;
double rate;
double hold = 3.0;

static const struct {
    const char *name;
    void (*fn)(void);
} attacks[] = {
    { "synflood", synflood }, { "blind", blind },
    { "challenge", challenge }, { "segments", segments },
    { "frags", frags }, { "zerowin", zerowin }, { "tinymss", tinymss },
    { "connflood", connflood },
    { "arp", arp }, { "ping", ping }, { "udp", udp },
};

static void usage(void)
{
    fprintf(stderr, "usage: hostile [--if DEV] [--guest A.B.C.D] [--port P] "
            "[--count N] [--rate R] [--hold S] [--slot K] [--echo P] "
            "ATTACK\nattacks:");
    for (size_t i = 0; i < sizeof attacks / sizeof attacks[0]; i++)
        fprintf(stderr, " %s", attacks[i].name);
    fprintf(stderr, "\n");
    exit(2);
}

int main(int argc, char **argv)
{
    const char *dev = "spt0", *what = NULL;
    struct in_addr a;
    double t0;

    for (int i = 1; i < argc; i++) {
        if (i + 1 < argc && !strcmp(argv[i], "--if"))
            dev = argv[++i];
        else if (i + 1 < argc && !strcmp(argv[i], "--guest") &&
                 inet_aton(argv[i + 1], &a))
            guest = ntohl(a.s_addr), i++;
        else if (i + 1 < argc && !strcmp(argv[i], "--port"))
            port = atoi(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--count"))
            count = strtoull(argv[++i], NULL, 10);
        else if (i + 1 < argc && !strcmp(argv[i], "--rate"))
            rate = atof(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--hold"))
            hold = atof(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--echo"))
            echo_port = atoi(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--slot"))
            slot = atoi(argv[++i]) & 7;
        else if (argv[i][0] != '-' && !what)
            what = argv[i];
        else
            usage();
    }
    if (!what || port <= 0 || port > 65535 || rate < 0 || hold < 0 ||
        echo_port < 0 || echo_port > 65535)
        usage();
    if ((guest >> 8) != IP4(192, 0, 2, 0) >> 8) {
        fprintf(stderr, "hostile: the guest must be in 192.0.2.0/24\n");
        return 2;
    }
    for (size_t i = 0; i < sizeof attacks / sizeof attacks[0]; i++) {
        if (strcmp(what, attacks[i].name))
            continue;
        open_dev(dev);
        find_guest();
        t0 = now();
        attacks[i].fn();
        printf("hostile: %s sent %llu frames, %llu bytes, in %.2f s (%llu "
               "not sent: the device's queue was full)\n", what,
               (unsigned long long)sent, (unsigned long long)sent_bytes,
               now() - t0, (unsigned long long)dropped_tx);
        if (failure[0]) {
            printf("hostile: FAIL %s\n", failure);
            return 1;
        }
        printf("hostile: ok\n");
        return 0;
    }
    usage();
}
