# httpd_tap.sh - sourced by the host tests that put clients beside
# apps/httpd on a TAP device in a network namespace of their own
# (tools/run/tapns.sh: the guest 192.0.2.2, the clients 192.0.2.1), not
# QEMU's user network: QEMU listens for a forwarded port with a backlog
# of one, so a burst of connections loses SYNs to the host's accept queue
# and every client waits a second or more for its retransmission; that
# measures QEMU, not httpd.  Hence root.
#
#   httpd_tap_enter NAME "$@"   at the top of the script: without root,
#                               says that NAME was not run and exits 0;
#                               else re-runs the script inside the
#                               namespace as `SCRIPT --inside TMP ARGS...`
#                               and exits with its status
#   httpd_tap_boot ARCH DIR ARGS...  boots build/ARCH/apps/httpd.elf at 2
#                               cores, httpd's ARGS after --, its console
#                               in DIR/console; 0 once it answers, else 1
#                               (and the console's tail printed)
#   httpd_tap_stop              stops that QEMU (also on exit)
#   httpd_tap_each NAME FN ARCH...  for each ARCH (by default each whose
#                               httpd image is built): boots httpd as
#                               above with read=4 write=3 linger=1 echo=7, runs
#                               `FN ARCH` (the clients: TEST lines, then
#                               `N passed, M failed`), stops it; prints
#                               the sum and returns 1 if anything failed;
#                               the console is in $tmp/ARCH (tmp: the
#                               directory httpd_tap_enter passed)
httpd_tap_enter() {
    local name=$1
    shift
    [ "${1:-}" != --inside ] || return 0
    if [ "$(id -u)" != 0 ] || ! command -v unshare ip > /dev/null; then
        echo "# $name: not run: its network namespace needs root, unshare and ip"
        echo "0 passed, 0 failed"
        exit 0
    fi
    local tmp rc
    tmp=$(mktemp -d)
    tools/run/tapns.sh "$tmp/peer" "$0" --inside "$tmp" "$@"
    rc=$?
    rm -rf "$tmp"
    exit $rc
}

httpd_tap_qpid=
httpd_tap_stop() {
    if [ -n "$httpd_tap_qpid" ]; then
        kill -TERM $(pgrep -P "$httpd_tap_qpid") "$httpd_tap_qpid" 2>/dev/null
        wait "$httpd_tap_qpid" 2>/dev/null
    fi
    httpd_tap_qpid=
}
trap httpd_tap_stop EXIT

httpd_tap_boot() {
    local arch=$1 d=$2
    shift 2
    NET=tap TAP=spt0 QUIET=1 timeout 900 tools/run/qemu.sh "$arch" "build/$arch/apps/httpd.elf" 2 \
        tap=spt0 ip=192.0.2.2/24 gw=192.0.2.1 -- 80 "$@" > "$d/console" 2>&1 &
    httpd_tap_qpid=$!
    for _ in $(seq 120); do
        grep -q '^httpd: serving' "$d/console" && curl -s -m 5 -o /dev/null http://192.0.2.2/ && return 0
        kill -0 "$httpd_tap_qpid" 2>/dev/null || break
        sleep 0.5
    done
    tail -n 15 "$d/console" | sed 's/^/    | /'
    httpd_tap_stop
    return 1
}

httpd_tap_each() {
    local name=$1 fn=$2 arch d p f passed=0 failed=0 arches
    shift 2
    arches=("$@")
    if [ $# = 0 ]; then
        for arch in x86_64 aarch64; do
            [ -f "build/$arch/apps/httpd.elf" ] && arches+=("$arch")
        done
        [ ${#arches[@]} != 0 ] || arches=(x86_64)
    fi
    for arch in "${arches[@]}"; do
        d=$tmp/$arch
        mkdir -p "$d"
        if [ ! -f "build/$arch/apps/httpd.elf" ]; then
            echo "TEST ${name}_$arch FAIL no build/$arch/apps/httpd.elf (make ARCH=$arch)"
            failed=$((failed + 1))
            continue
        fi
        if ! httpd_tap_boot "$arch" "$d" read=4 write=3 linger=1 echo=7; then
            echo "TEST ${name}_$arch FAIL httpd did not answer within a minute"
            failed=$((failed + 1))
            continue
        fi
        "$fn" "$arch" > "$d/out" 2>&1
        cat "$d/out"
        p=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$d/out")
        f=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$d/out")
        if [ -z "$p" ]; then
            echo "TEST ${name}_$arch FAIL the clients stopped short: $(tail -n 1 "$d/out")"
            p=0 f=1
        fi
        passed=$((passed + p)) failed=$((failed + f))
        httpd_tap_stop
        if [ "$f" != 0 ]; then
            grep -a '^net: refused\|panic\|assert' "$d/console" | tail -n 4 | sed 's/^/    | /'
            tail -n 12 "$d/console" | sed 's/^/    | /'
        fi
    done
    echo "$passed passed, $failed failed"
    [ "$failed" = 0 ]
}
