#!/bin/bash
# httpd_clients_test.sh [ARCH...] - slow and greedy clients against
# apps/httpd, each beside honest curl clients (tools/test/httpclients.py
# says what each case does and asserts): slowloris, 10,000 idle keep-alive
# connections, a 10 KB request line (414), a 20 KB header (431), POSTs
# (405), a 10 MB Content-Length (413), pipelining, clients that never read
# and the connection cap.  httpd boots at 2 cores with read=4 write=3
# linger=1, its other limits at their defaults.
#
# The network is a TAP device in a namespace of its own (root, else the
# test says so and counts neither way): tests/host/httpd_tap.sh.
#
# ARCH: x86_64 and/or aarch64; by default each whose httpd image is built
# (make test builds it: tests/host/pprofhttp_test.mk).  HTTPD_IDLE sets
# the idle connections (make soak-httpd: 50,000).  On aarch64, whose TCG
# is slower, make test runs the cases of AARCH64_CASES; HTTPD_CASES=all
# (make soak-httpd) or a list of cases runs those on every arch.  Prints
# the cases' TEST
# lines and `N passed, M failed`; the console's tail after a failure.  Run
# from the top of the tree.
set -u
. tests/host/httpd_tap.sh
httpd_tap_enter httpd_clients "$@"
tmp=$2
shift 2
AARCH64_CASES=slowloris,header431,pipelined,noread

clients() {
    local only=()
    case ${HTTPD_CASES:-} in
    all) ;;
    "") [ "$1" != aarch64 ] || only=(--only "$AARCH64_CASES") ;;
    *) only=(--only "$HTTPD_CASES") ;;
    esac
    python3 tools/test/httpclients.py http://192.0.2.2 "$1" --idle "${HTTPD_IDLE:-10000}" "${only[@]}"
}
httpd_tap_each httpd_clients clients "$@"
