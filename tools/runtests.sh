#!/bin/bash
# runtests.sh - runs the host unit tests, then boots every in-image test app
# over the core-count matrix, and ends with one line "N passed, M failed".
#
#   runtests.sh --arch ARCH [--host "BIN..."] [--only NAME] [--smp N] IMAGE...
#
# A case counts once per boot: each "TEST <name> PASS|FAIL" line of a boot
# is one result.  A boot that times out, ends without its closing
# "N passed, M failed" line, disagrees with it, or exits non-zero without
# a failing case counts as one failure, and its console tail is shown.
# A test folder with an `expect` file is a fatal-path test instead: the boot
# must end with the panic exit status (or the one a line `status N` names)
# and print every other line of `expect` (each an extended regular
# expression); it counts as one result.
# A test folder with a `cmdlines` file boots once per line of it (each line
# a kernel command line) at every core count.  One with a `hostcpu` file
# (a number) must keep QEMU's host CPU use between its "IDLE START" and
# "IDLE END" console lines under that percent of one host core.
# Any sanitizer report in the console (hosted builds) is one more failure.
# TIMEOUT (seconds per boot, default 120) and MEM pass through.
set -u
arch=x86_64 host= only= smp=
while [ $# -gt 0 ]; do
    case $1 in
    --arch) arch=$2; shift 2 ;;
    --host) host=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --smp) smp=$2; shift 2 ;;
    *) break ;;
    esac
done
images=("$@")
timeout_s=${TIMEOUT:-120}
panic_status=112
logs=build/$arch/test-logs
mkdir -p "$logs"

case $arch in
x86_64) matrix="1 2 3 4 8" ;;
aarch64) matrix="1 2 4" ;;
*) matrix="1 2 4 8" ;;
esac
[ -n "$smp" ] && matrix=$smp

passed=0 failed=0

# cpu_ticks PID: user + system clock ticks a process (and its threads) used.
cpu_ticks() {
    [ -n "$1" ] && awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null
}

# boot_measured LOG ARGS...: boots like the plain path, and prints the
# percent of one host core QEMU used between IDLE START and IDLE END.
boot_measured() {
    local log=$1 pid qpid t0 t1 c0 c1 hz
    shift
    QUIET=1 timeout -k 5 "$timeout_s" tools/qemu.sh "$@" > "$log" 2>&1 < /dev/null &
    pid=$!
    hz=$(getconf CLK_TCK)
    while kill -0 $pid 2>/dev/null && ! grep -q '^IDLE START' "$log"; do sleep 0.02; done
    case $arch in
    hosted*) qpid=$(pgrep -P $pid | head -n 1) ;;   # timeout's child: the image
    *) qpid=$(pgrep -f "qemu-system.*$img" | head -n 1) ;;
    esac
    c0=$(cpu_ticks "$qpid"); t0=$(date +%s%N)
    while kill -0 $pid 2>/dev/null && ! grep -q '^IDLE END' "$log"; do sleep 0.02; done
    c1=$(cpu_ticks "$qpid"); t1=$(date +%s%N)
    wait $pid
    rc=$?
    if [ -n "$c0" ] && [ -n "$c1" ]; then
        echo $(( (c1 - c0) * 100 * 1000000000 / hz / (t1 - t0 + 1) )) > "$log.cpu"
    else
        echo "unmeasured" > "$log.cpu"
    fi
    return $rc
}

tail_of() {
    echo "    --- last lines of $1 ---"
    tail -n 25 "$1" | sed 's/^/    | /'
}

# Host unit tests: one result per TEST line.
for bin in $host; do
    name=$(basename "$bin")
    [ -n "$only" ] && [ "$only" != "$name" ] && [ "$only" != host ] && continue
    log=$logs/host-$name.log
    "$bin" > "$log" 2>&1
    rc=$?
    p=$(grep -c '^TEST .* PASS$' "$log")
    f=$(grep -c '^TEST .* FAIL' "$log")
    if [ $rc != 0 ] && [ "$f" = 0 ]; then f=1; fi
    passed=$((passed + p)) failed=$((failed + f))
    printf '%-52s %3d passed, %d failed\n' "host $name" "$p" "$f"
    if [ "$f" != 0 ]; then grep '^TEST .* FAIL' "$log" | sed 's/^/    /'; tail_of "$log"; fi
done

nboots=0
for img in "${images[@]}"; do
    dir=${img#build/$arch/}; dir=${dir%.elf}
    [ -n "$only" ] && [ "$only" != "$(basename "$dir")" ] && [ "$only" != "$dir" ] && continue
    nvar=1
    [ -f "$dir/cmdlines" ] && nvar=$(grep -c . "$dir/cmdlines")
    for n in $matrix; do nboots=$((nboots + nvar)); done
done

i=0
for img in "${images[@]}"; do
    dir=${img#build/$arch/}; dir=${dir%.elf}
    name=$(basename "$dir")
    [ -n "$only" ] && [ "$only" != "$name" ] && [ "$only" != "$dir" ] && continue
    variants=("")
    [ -f "$dir/cmdlines" ] && mapfile -t variants < <(grep . "$dir/cmdlines")
    for n in $matrix; do
    for v in "${!variants[@]}"; do
        kargs=${variants[$v]}
        i=$((i + 1))
        log=$logs/$name-smp$n${kargs:+-v$v}.log
        start=$(date +%s%N)
        # shellcheck disable=SC2086 # kargs is a list of words
        if [ -f "$dir/hostcpu" ]; then
            boot_measured "$log" "$arch" "$img" "$n" $kargs -- "cores=$n"
            rc=$?
        else
            QUIET=1 timeout -k 5 "$timeout_s" \
                tools/qemu.sh "$arch" "$img" "$n" $kargs -- "cores=$n" > "$log" 2>&1 < /dev/null
            rc=$?
        fi
        sed -i 's/\r$//' "$log"        # the UART sends CR LF
        ms=$((($(date +%s%N) - start) / 1000000))
        label=$(printf '[%2d/%d] %s smp=%d%s' "$i" "$nboots" "$dir" "$n" "${kargs:+ [$kargs]}")
        why=
        if [ -f "$dir/expect" ]; then
            p=1 f=0
            want=$(sed -n 's/^status \([0-9]*\)$/\1/p' "$dir/expect")
            want=${want:-$panic_status}
            if [ $rc = 124 ] || [ $rc = 137 ]; then why="timed out after ${timeout_s}s"
            elif [ $rc != "$want" ]; then why="exit status $rc, expected $want"
            else
                while IFS= read -r re; do
                    case $re in ""|"status "*) continue ;; esac
                    grep -qE -- "$re" "$log" || { why="missing expected output: $re"; break; }
                done < "$dir/expect"
            fi
            [ -n "$why" ] && p=0 f=1
        else
            p=$(grep -c '^TEST .* PASS$' "$log")
            f=$(grep -c '^TEST .* FAIL' "$log")
            total=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
            if [ $rc = 124 ] || [ $rc = 137 ]; then why="timed out after ${timeout_s}s"
            elif [ -z "$total" ]; then why="no closing 'N passed, M failed' line (exit status $rc)"
            elif [ "$total" != "$p passed, $f failed" ]; then why="closing line '$total' does not match the $p PASS / $f FAIL lines"
            elif [ $rc != 0 ] && [ "$f" = 0 ]; then why="exit status $rc"
            fi
            if [ -z "$why" ] && [ -f "$dir/hostcpu" ]; then
                cpu=$(cat "$log.cpu")
                if ! grep -q '^IDLE END' "$log"; then why="no IDLE START/IDLE END window"
                elif [ "$cpu" = unmeasured ]; then why="could not read QEMU's CPU time"
                elif [ "$cpu" -ge "$(cat "$dir/hostcpu")" ]; then why="idle guest used $cpu% of a host core (limit $(cat "$dir/hostcpu")%)"
                else p=$((p + 1)); echo "    idle guest: $cpu% of a host core"
                fi
            fi
            [ -n "$why" ] && f=$((f + 1))
        fi
        # A sanitizer report (hosted builds) fails the run, whatever else.
        if grep -qE '^(==[0-9]+==ERROR: |WARNING: ThreadSanitizer|SUMMARY: [A-Za-z]+Sanitizer)|runtime error: ' "$log"; then
            why="sanitizer report"; f=$((f + 1))
        fi
        passed=$((passed + p)) failed=$((failed + f))
        printf '%-52s %3d passed, %d failed  (%d.%02d s)\n' "$label" "$p" "$f" $((ms / 1000)) $((ms % 1000 / 10))
        if [ "$f" != 0 ]; then
            grep '^TEST .* FAIL' "$log" | sed 's/^/    /'
            [ -n "$why" ] && echo "    $why"
            tail_of "$log"
        fi
    done
    done
done

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
