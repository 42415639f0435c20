#!/bin/bash
# bench.sh ARCH SMP [app args...] - runs the benchmark app (bench) and
# prints its "BENCH <name> <value> <unit>" and "# " lines.
#
# It builds nothing: run `make images` first.  Two workloads need one core,
# and the app cannot reboot itself, so there are two boots:
#   1. smp=1 with only=fib,preempt: the 1-core fib time (for fib_speedup)
#      and preempt, which the README's benchmark table runs at 1 core;
#   2. smp=SMP with fib1=<that time>, skip=preempt and the extra app args
#      (reps=N, only=a,b).
# The output is boot 2's lines plus boot 1's preempt lines.  Boot 1 is
# skipped when only= leaves both of its workloads out.  The first line printed says
# what was measured on: arch, cores, accelerator, date, host CPU, load;
# a warning follows when other QEMUs were running (run on a quiet host).
# Exits non-zero if a boot fails, times out (TIMEOUT seconds per boot,
# default 900) or prints "# ERROR"; then it shows that boot's console tail.
# MEM (MiB, default 9216 here: `park` parks 1,000,000 Gs at about 4 KiB
# each where the machine has the memory) and ACCEL pass through to
# tools/run/qemu.sh; CMDLINE is put on the
# kernel command line of both boots (CMDLINE="trace=wrap": the
# workloads with the execution tracer on).
set -u
if [ $# -lt 2 ]; then
    echo "usage: tools/bench/bench.sh ARCH SMP [reps=N] [only=a,b]" >&2
    exit 2
fi
arch=$1 smp=$2
shift 2
image=build/$arch/bench.elf
timeout_s=${TIMEOUT:-900}
if [ ! -f "$image" ]; then
    echo "bench.sh: no $image; run 'make images' first" >&2
    exit 2
fi

logs=build/$arch/bench-logs
mkdir -p "$logs"
export MEM=${MEM:-9216}

# boot SMP LOG ARGS...: boots the app; the console goes to LOG, QEMU's
# accelerator line to LOG.qemu.  Fails (with the console tail shown) on a
# timeout, a non-zero exit status or an "# ERROR" line.
boot() {
    local n=$1 log=$2 rc
    shift 2
    # shellcheck disable=SC2086 # CMDLINE is a list of words
    timeout -k 5 "$timeout_s" tools/run/qemu.sh "$arch" "$image" "$n" ${CMDLINE:-} -- "$@" \
        > "$log" 2> "$log.qemu" < /dev/null
    rc=$?
    sed -i 's/\r$//' "$log"         # the UART sends CR LF
    local why=
    if [ $rc = 124 ] || [ $rc = 137 ]; then why="timed out after ${timeout_s}s"
    elif [ $rc != 0 ]; then why="exit status $rc"
    elif grep -q '^# ERROR' "$log"; then why="it printed # ERROR"
    fi
    [ -z "$why" ] && return 0
    echo "bench.sh: boot at smp=$n ($*) failed: $why" >&2
    echo "    --- last lines of $log ---" >&2
    { tail -n 25 "$log"; grep -v 'accelerator' "$log.qemu"; } | sed 's/^/    | /' >&2
    return 1
}

# runs NAME ARGS...: does the app run workload NAME with these args?  (the
# last only= wins, as in the app)
runs() {
    local name=$1 only=
    shift
    for a in "$@"; do
        case $a in only=*) only=${a#only=} ;; esac
    done
    [ -z "$only" ] && return 0
    case ",$only," in *,"$name",*) return 0 ;; esac
    return 1
}

date=$(date '+%Y-%m-%d %H:%M %Z')
# Other QEMUs take host CPU from the guest's vCPUs and skew every figure.
others=$(pgrep -c -f '^qemu-system-' || true)
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
fib1_args=()
one=()
runs fib "$@" && one+=(fib)
runs preempt "$@" && one+=(preempt)
log1=$logs/smp1-fib-preempt.log
if [ ${#one[@]} -gt 0 ]; then
    reps=()
    for a in "$@"; do
        case $a in reps=*) reps=("$a") ;; esac
    done
    boot 1 "$log1" "only=$(IFS=,; echo "${one[*]}")" "${reps[@]}" || exit 1
    if runs fib "$@"; then
        fib1=$(sed -n 's/^BENCH fib \([0-9.]*\) ms$/\1/p' "$log1")
        if [ -z "$fib1" ]; then
            echo "bench.sh: the 1-core boot printed no 'BENCH fib' line" >&2
            exit 1
        fi
        fib1_args=("fib1=$fib1")
    fi
fi

log=$logs/smp$smp.log
boot "$smp" "$log" "${fib1_args[@]}" skip=preempt "$@" || exit 1
accel=$(sed -n 's/.*accelerator \([a-z]*\).*/\1/p' "$log.qemu" | head -n 1)
echo "# bench: $arch, $smp cores, accelerator ${accel:-unknown},${CMDLINE:+ kernel command line \"$CMDLINE\",}" \
     "$date, host CPU ${cpu:-unknown}" \
     "($(nproc) threads), load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
others_end=$(pgrep -c -f '^qemu-system-' || true)
if [ "$others" != 0 ] || [ "$others_end" != 0 ]; then
    echo "# warning: other QEMU processes were running ($others at the" \
         "start, $others_end at the end); the figures are unreliable"
fi
[ -n "${fib1:-}" ] && echo "# fib at 1 core (the separate 1-core boot): $fib1 ms"
grep -E '^(BENCH |# )' "$log"
if runs preempt "$@"; then
    echo "# preempt: from the 1-core boot, as the README's benchmark table runs it"
    grep -E '^(BENCH preempt_late|# preempt)' "$log1" | grep -v '^# preempt_cost'
fi
exit 0
