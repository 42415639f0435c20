#!/bin/bash
# quitkey_test.sh [ARCH...] - Ctrl-\ on the console sets off the
# scheduler's goroutine dump, and the app goes on: tests/kernel/quitkey
# booted with `-- wait` at 2 cores prints QUITKEY READY, then gets one
# Ctrl-\ (the byte 0x1c written to QEMU's serial console through its
# standard input, a fifo; on the hosted build, SIGQUIT), and must print
# the dump's first line (`goroutine 1 [`) and its last (`end of
# goroutine dump`), then QUITKEY DONE, and exit with status 0.  ARCH:
# x86_64, aarch64 and/or hosted; by default each whose image is built
# (make test builds them with the arch's test images).  Prints `TEST
# quitkey_<arch> PASS|FAIL <reason>` and `N passed, M failed`; the
# console's tail after a failure (KEEP=1 keeps the logs, named on
# stderr).  Run from the top of the tree.
set -u
passed=0 failed=0
tmp=$(mktemp -d)
[ -z "${KEEP:-}" ] || echo "quitkey: logs in $tmp" >&2
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
img=tests/kernel/quitkey.elf

# wait_for LOG RE SECS PID: until a line of LOG matches RE (0), PID has
# ended (1) or SECS have passed (2).
wait_for() {
    local i
    for ((i = 0; i < $3 * 10; i++)); do
        grep -Eq "$2" "$1" 2>/dev/null && return 0
        kill -0 "$4" 2>/dev/null || { grep -Eq "$2" "$1" 2>/dev/null; return $?; }
        sleep 0.1
    done
    return 2
}

arches=("$@")
if [ $# = 0 ]; then
    for a in x86_64 aarch64 hosted; do
        [ -f "build/$a/$img" ] && arches+=("$a")
    done
    [ ${#arches[@]} != 0 ] || arches=(x86_64)
fi
for arch in "${arches[@]}"; do
    why= log=$tmp/$arch.log fifo=$tmp/$arch.in rc=
    if [ ! -f "build/$arch/$img" ]; then
        echo "TEST quitkey_$arch FAIL no build/$arch/$img (make ARCH=$arch)"
        failed=$((failed + 1))
        continue
    fi
    # The fifo is opened read-write here, so neither end waits for the
    # other, and stays open until QEMU is done: no end of file meanwhile.
    mkfifo "$fifo"
    exec 3<> "$fifo"
    QUIET=1 timeout -k 5 120 tools/run/qemu.sh "$arch" "build/$arch/$img" 2 \
        -- wait < "$fifo" > "$log" 2>&1 &
    pid=$!
    if ! wait_for "$log" '^QUITKEY READY' 90 "$pid"; then
        why="no QUITKEY READY"
    else
        if [ "${arch#hosted}" != "$arch" ]; then
            kill -QUIT "$pid"       # hosted.sh execs the image: pid is it
        else
            printf '\034' >&3
        fi
        wait_for "$log" '^QUITKEY (DONE|no)' 90 "$pid"
    fi
    wait "$pid"
    rc=$?
    exec 3>&-
    if [ -n "$why" ]; then
        :
    elif ! grep -q '^goroutine 1 \[' "$log"; then
        why="no 'goroutine 1 [' line after the key"
    elif ! grep -q '^end of goroutine dump' "$log"; then
        why="no 'end of goroutine dump' line"
    elif ! grep -q '^QUITKEY DONE' "$log"; then
        why="the app did not go on: $(grep -m 1 '^QUITKEY no' "$log")"
    elif [ "$rc" != 0 ]; then
        why="exit status $rc"
    elif [ "$(grep -n '^QUITKEY READY' "$log" | cut -d: -f1)" -gt \
           "$(grep -n '^goroutine 1 \[' "$log" | head -n 1 | cut -d: -f1)" ]; then
        why="a dump before the key"
    fi
    if [ -z "$why" ]; then
        echo "TEST quitkey_$arch PASS"
        passed=$((passed + 1))
    else
        echo "TEST quitkey_$arch FAIL $why"
        failed=$((failed + 1))
        tail -n 15 "$log" | sed 's/^/    | /'
    fi
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
