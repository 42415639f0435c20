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
passed=0 failed=0
AARCH64_CASES=slowloris,header431,pipelined,noread

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
    if ! httpd_tap_boot "$arch" "$d" read=4 write=3 linger=1; then
        echo "TEST httpd_clients_$arch FAIL httpd did not answer within a minute"
        failed=$((failed + 1))
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
    httpd_tap_stop
    if [ "$f" != 0 ]; then
        tail -n 15 "$d/console" | sed 's/^/    | /'
    fi
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
