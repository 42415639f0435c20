#!/bin/bash
# httpd_clients_test.sh [ARCH...] - slow and greedy clients against
# apps/httpd, each beside honest curl clients (tools/test/httpclients.py
# says what each case does and asserts): slowloris, 10,000 idle keep-alive
# connections, a 10 KB request line (414), a 20 KB header (431), POSTs
# (405), a 10 MB Content-Length (413), pipelining, clients that never read
# and the connection cap.  httpd boots at 2 cores with read=4 write=3
# linger=1, its other limits at their defaults.
#
# The network is a TAP device in a namespace of its own
# (tools/run/tapns.sh: the guest 192.0.2.2, the clients 192.0.2.1), not
# QEMU's user network: QEMU listens for a forwarded port with a backlog of
# one, so a burst of connections loses SYNs to the host's accept queue and
# every client, honest or not, waits a second or more for its
# retransmission; that measures QEMU, not httpd.  So the test needs root;
# without it, it says so and counts neither way.
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
if [ "${1:-}" != --inside ]; then
    if [ "$(id -u)" != 0 ] || ! command -v unshare ip > /dev/null; then
        echo "# httpd_clients: not run: its network namespace needs root, unshare and ip"
        echo "0 passed, 0 failed"
        exit 0
    fi
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    tools/run/tapns.sh "$tmp/peer" "$0" --inside "$tmp" "$@"
    exit $?
fi
tmp=$2
shift 2
passed=0 failed=0 qpid=
AARCH64_CASES=slowloris,header431,pipelined,noread
stop() {
    if [ -n "$qpid" ]; then
        kill -TERM $(pgrep -P "$qpid") "$qpid" 2>/dev/null
        wait "$qpid" 2>/dev/null
    fi
    qpid=
}
trap stop EXIT

arches=("$@")
if [ $# = 0 ]; then
    for a in x86_64 aarch64; do
        [ -f "build/$a/apps/httpd.elf" ] && arches+=("$a")
    done
    [ ${#arches[@]} != 0 ] || arches=(x86_64)
fi

for arch in "${arches[@]}"; do
    d=$tmp/$arch
    mkdir -p "$d"
    if [ ! -f "build/$arch/apps/httpd.elf" ]; then
        echo "TEST httpd_clients_$arch FAIL no build/$arch/apps/httpd.elf (make ARCH=$arch)"
        failed=$((failed + 1))
        continue
    fi
    NET=tap TAP=spt0 QUIET=1 timeout 600 tools/run/qemu.sh "$arch" "build/$arch/apps/httpd.elf" 2 \
        tap=spt0 ip=192.0.2.2/24 gw=192.0.2.1 -- 80 read=4 write=3 linger=1 > "$d/console" 2>&1 &
    qpid=$!
    up=
    for _ in $(seq 120); do
        grep -q '^httpd: serving' "$d/console" && curl -s -m 5 -o /dev/null http://192.0.2.2/ && { up=1; break; }
        kill -0 "$qpid" 2>/dev/null || break
        sleep 0.5
    done
    if [ -z "$up" ]; then
        echo "TEST httpd_clients_$arch FAIL httpd did not answer within a minute"
        failed=$((failed + 1))
        tail -n 15 "$d/console" | sed 's/^/    | /'
        stop
        continue
    fi
    only=()
    case ${HTTPD_CASES:-} in
    all) ;;
    "") [ "$arch" != aarch64 ] || only=(--only "$AARCH64_CASES") ;;
    *) only=(--only "$HTTPD_CASES") ;;
    esac
    python3 tools/test/httpclients.py http://192.0.2.2 "$arch" --idle "${HTTPD_IDLE:-10000}" \
        "${only[@]}" > "$d/out" 2>&1
    cat "$d/out"
    p=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$d/out")
    f=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$d/out")
    if [ -z "$p" ]; then
        echo "TEST httpd_clients_$arch FAIL the clients stopped short: $(tail -n 1 "$d/out")"
        p=0 f=1
    fi
    passed=$((passed + p)) failed=$((failed + f))
    stop
    if [ "$f" != 0 ]; then
        tail -n 15 "$d/console" | sed 's/^/    | /'
    fi
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
