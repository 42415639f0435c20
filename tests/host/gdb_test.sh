#!/bin/bash
# gdb_test.sh [ARCH] - drives tools/run/gdb/spindle.py in gdb's batch mode
# against tests/kernel/gdb_target (ARCH: hosted, the default, which make
# test runs; x86_64 or aarch64 boot the image under QEMU through
# tools/run/gdb.sh, a smoke check run by hand).  At gdb_stop_here the image
# has main running, three Gs parked in "chan receive" in gdb_recv_worker,
# two in "sleep" in gdb_sleep_worker, and a spinner (gdb_spin_worker):
# at one core the timer preempted it so that main could run; at two it
# runs or was preempted, which the last check allows.  The checks: `info goroutines` lists exactly
# those Gs with those states, wait reasons and places; `goroutine N bt`
# unwinds a parked G through the function it parked in, a preempted one
# from its trap frame and a running one on its core's thread; and the
# image, continued after all that, still passes its own test (the
# registers the script borrowed were put back).
#
# Prints `TEST <name> PASS|FAIL <reason>` per check and `N passed, M
# failed`, as the C host tests do; gdb's transcript is shown, indented,
# after a failure.  Run from the top of the tree; make test builds the
# hosted image first.
set -u
arch=${1:-hosted}
image=build/$arch/tests/kernel/gdb_target.elf
passed=0 failed=0
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

result() {
    local name=$1 reason=$2 out=$3
    if [ -z "$reason" ]; then
        echo "TEST $name PASS"
        passed=$((passed + 1))
    else
        echo "TEST $name FAIL $reason"
        failed=$((failed + 1))
        [ -f "$out" ] && sed 's/^/    | /' "$out"
    fi
}

# miss REASON: the check fails, for REASON unless an earlier one failed.
miss() {
    [ -n "$why" ] || why=$1
}

# session SMP OUT: gdb stopped at gdb_stop_here at SMP cores runs the
# commands of the checks, then continues the image to its end; the
# transcript goes to OUT.
session() {
    local smp=$1 out=$2 start=continue
    case $arch in hosted*) start=run ;; esac
    cat > "$log/cmds" <<EOF
break gdb_stop_here
$start
echo ==== info goroutines\n
info goroutines
echo ==== recv\n
goroutine recv_goid[1] bt
echo ==== sleep\n
goroutine sleep_goid[0] bt
echo ==== spin\n
goroutine spin_goid bt
echo ==== main\n
goroutine 1 bt
echo ==== end\n
delete
continue
EOF
    GDB_BATCH=1 GDB_X=$log/cmds timeout -k 5 60 tools/run/gdb.sh "$arch" "$image" "$smp" \
        > "$out" 2>&1 < /dev/null
}

# section OUT NAME: the lines of OUT between "==== NAME" and the next ====.
section() {
    tr -d '\r' < "$1" | awk -v s="==== $2" '/^==== / { on = ($0 == s); next } on'
}

# expect OUT NAME REGEX REASON: the check fails, for REASON, unless a line
# of OUT's section NAME matches the extended REGEX.
expect() {
    section "$1" "$2" | grep -qE "$3" || miss "$4"
}

# The rows of info goroutines, without the heading: mark, id, the rest.
rows() {
    section "$1" "info goroutines" | grep -E '^[ *] +[0-9]+ '
}

# count OUT REGEX: the rows of info goroutines matching REGEX.
count() {
    rows "$1" | grep -cE "$2"
}

if [ ! -x "$image" ]; then
    result gdb_session "no $image (make ARCH=${arch%%-*} $image)" /dev/null
    echo "$passed passed, $failed failed"
    exit 1
fi

out1=$log/smp1.out
session 1 "$out1"
rc=$?
why=
# Under QEMU, the machine's power-off ends gdb's batch with an error on
# x86_64 (the connection closes), with an exit code on aarch64.
case $arch:$rc in
hosted*:0|x86_64:1|aarch64:0) ;;
*) why="gdb exited with $rc" ;;
esac
grep -q 'Breakpoint 1, gdb_stop_here' "$out1" || miss "never stopped at gdb_stop_here"
result gdb_session "$why" "$out1"

n=$(rows "$out1" | wc -l)
why=
[ "$n" = 7 ] || miss "info goroutines listed $n Gs, want 7"
result info_goroutines_lists_all "$why" "$out1"

why=
ws='[[:space:]]+'
[ "$(count "$out1" "^\*${ws}1${ws}running${ws}0${ws}gdb_stop_here at ")" = 1 ] ||
    miss "main is not listed as G 1 running on core 0 at gdb_stop_here"
[ "$(count "$out1" "^ ${ws}[0-9]+${ws}waiting${ws}chan receive${ws}0${ws}gdb_recv_worker at ")" = 3 ] ||
    miss "want 3 Gs waiting in chan receive in gdb_recv_worker"
[ "$(count "$out1" "^ ${ws}[0-9]+${ws}waiting${ws}sleep${ws}0${ws}gdb_sleep_worker at ")" = 2 ] ||
    miss "want 2 Gs waiting in sleep in gdb_sleep_worker"
[ "$(count "$out1" "^ ${ws}[0-9]+${ws}runnable${ws}\(preempted\)${ws}0${ws}gdb_spin_worker at ")" = 1 ] ||
    miss "want the spinner runnable (preempted) in gdb_spin_worker"
result info_goroutines_states "$why" "$out1"

why=
# A frame: "#N  0xADDR in NAME (" or, for a frame whose callee gdb shows
# inlined into it, "#N  NAME (" with no address.
frame='^#[0-9]+ +(0x[0-9a-f]+ in )?'
expect "$out1" recv '^goroutine [0-9]+ \[waiting, chan receive\]:$' \
    "goroutine recv_goid[1] bt: no heading"
expect "$out1" recv "$frame"'sp_chan_recv ' \
    "no sp_chan_recv frame"
expect "$out1" recv "$frame"'gdb_recv_worker ' \
    "no gdb_recv_worker frame"
expect "$out1" sleep "$frame"'sp_sleep ' \
    "sleeper: no sp_sleep frame"
expect "$out1" sleep "$frame"'gdb_sleep_worker ' \
    "sleeper: no gdb_sleep_worker frame"
result goroutine_bt_parked "$why" "$out1"

why=
expect "$out1" spin '^goroutine [0-9]+ \[runnable, \(preempted\)\]:$' \
    "the spinner is not shown as preempted"
expect "$out1" spin '^#0 .*gdb_spin_worker ' \
    "the preempted spinner's frame #0 is not gdb_spin_worker"
result goroutine_bt_preempted "$why" "$out1"

why=
expect "$out1" main '^goroutine 1 \[running\] on core 0, thread [0-9]+:$' \
    "goroutine 1: not shown running on core 0 with its thread"
expect "$out1" main '^#0 +gdb_stop_here ' \
    "goroutine 1: frame #0 is not gdb_stop_here"
result goroutine_bt_running "$why" "$out1"

why=
expect "$out1" end '^TEST gs_in_place PASS$' \
    "the image did not pass its own test once continued"
result registers_restored "$why" "$out1"

# Two cores: the spinner runs on the other core (maybe inside an
# interrupt there), or was preempted (runnable, or still marked running
# while its core's scheduler switches it out); in every case info
# goroutines places it in gdb_spin_worker, and so does its backtrace.
out2=$log/smp2.out
session 2 "$out2"
why=
n=$(rows "$out2" | wc -l)
[ "$n" = 7 ] || miss "info goroutines listed $n Gs, want 7"
[ "$(count "$out2" "^ ${ws}[0-9]+${ws}(running|runnable)${ws}(\(preempted\)${ws})?[01]${ws}gdb_spin_worker at ")" = 1 ] ||
    miss "the spinner is not listed running or runnable in gdb_spin_worker"
expect "$out2" spin '^#[0-9]+ .*gdb_spin_worker ' \
    "the spinner's backtrace has no gdb_spin_worker"
expect "$out2" end '^TEST gs_in_place PASS$' \
    "the image did not pass its own test once continued"
result two_cores "$why" "$out2"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
