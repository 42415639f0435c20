#!/bin/bash
# hostile_test.sh [ARCH...] - a hostile peer on apps/httpd's link, one case
# per attack, each beside honest curl clients (tools/hostile/hostile.py
# says what each case asserts; tools/hostile/hostile.c what each attack
# sends): a SYN flood from spoofed addresses, blind RSTs, SYNs and data
# near a live connection's sequence numbers (RFC 5961) and a burst of
# RSTs past the challenge-ACK limit, overlapping and
# shuffled segments, fragments in every wrong shape, zero-window and
# tiny-MSS peers, an ARP flood with unasked replies, a ping flood with
# oversized pings, and a UDP flood to closed ports and to httpd's UDP echo.  httpd boots at 2
# cores with read=4 write=3 linger=1 echo=7; the network is a TAP device in a
# namespace of its own (root, else the test says so and counts neither
# way: tests/host/httpd_tap.sh), and the peer sends only there.
#
# ARCH: x86_64 and/or aarch64; by default each whose httpd image is built.
# make test runs a slice: every attack on x86_64, those of AARCH64_CASES
# on aarch64, with hostile.py's counts, in two rounds of attacks side by
# side; HOSTILE_CASES=a,b
# runs those cases so, and HOSTILE_CASES=all (make test-hostile) every
# attack at the peer's own, larger counts and rates.  Prints the cases' TEST lines, their
# figures (`#` lines) and `N passed, M failed`.  Run from the top of the
# tree, with build/host/hostile built (make build/host/hostile).
set -u
. tests/host/httpd_tap.sh
httpd_tap_enter hostile "$@"
tmp=$2
shift 2
# make test's slices: `+` joins attacks run side by side (hostile.py);
# challenge spends the stack's challenge ACKs for the second, which blind
# counts on, so the two never share a group.
X86_64_CASES=blind+segments+zerowin+tinymss+frags+udp,synflood+arp+ping+challenge,connflood
AARCH64_CASES=blind+segments+tinymss+udp

clients() {
    local only
    case ${HOSTILE_CASES:-} in
    all) only=(--full) ;;
    "") [ "$1" = aarch64 ] && only=(--only "$AARCH64_CASES") || only=(--only "$X86_64_CASES") ;;
    *) only=(--only "$HOSTILE_CASES") ;;
    esac
    if [ ! -x build/host/hostile ]; then
        echo "TEST hostile_$1 FAIL no build/host/hostile (make build/host/hostile)"
        echo "0 passed, 1 failed"
        return
    fi
    python3 tools/hostile/hostile.py http://192.0.2.2 "$1" "${only[@]}"
}
httpd_tap_each hostile clients "$@"
