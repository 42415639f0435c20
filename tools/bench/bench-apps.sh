#!/bin/bash
# bench-apps.sh ARCH SMP [only=memcached,redis,speedtest1] [reps=N] [secs=N]
#               [warmup=N] [conns=N] [keys=N] [size=N] [requests=N] - real programs on
# Spindle against the same programs in a Linux guest under the same QEMU
# flags, printing "BENCH <name> <value> <unit>" and "# " lines as
# tools/bench/bench.sh does.  `make bench-apps [SMP=n] [BENCH_APPS="..."]`
# builds everything and runs it.
#
# The two machines differ only in what they boot: the same QEMU binary,
# machine (q35), accelerator and CPU model (as tools/run/qemu.sh picks them:
# multi-threaded TCG with qemu64 on a host without hardware
# virtualization), SMP cores and MEM (default 1024 MiB), and for
# memcached the same virtio-net NIC on the same TAP device.  Spindle boots
# its port's image through tools/run/qemu.sh; Linux is Debian's kernel
# (tools/build/linuxguest.sh) with the initramfs of tools/build/linuxapps.sh,
# whose /init (tools/build/linuxinit.c) runs the program.
#
# memcached (as root only): in a private network namespace (unshare -n;
# only lo and a TAP device spt0 at 192.0.2.1/24, no route out), the guest
# at 192.0.2.2/24 runs memcached 1.6.18 with `-U 0 -t SMP -m 64 -c 1024`:
# Spindle's port (build/ARCH/ports/memcached/memcached.elf) or Debian's
# own memcached binary in the Linux guest.  build/host/mcload
# (tools/bench/mcload.c) then preloads `keys` keys and drives `conns`
# connections (32), each with one request in flight, 90% gets and 10%
# sets of 32-byte keys and 100-byte values, for `warmup` seconds (3) and
# then `secs` measured seconds (10):
#   BENCH memcached_<os>_ops   requests answered per second
#   BENCH memcached_<os>_p50, _p99   latency of a request, µs
#   BENCH memcached_ops_ratio, memcached_p99_ratio   Spindle's / Linux's
# redis (as root only): the same namespace, TAP device and addresses;
# the guest runs Redis 7.0.15's redis-server with `--save --appendonly no
# --protected-mode no` (ports/redis/port.mk's arguments): Spindle's port
# (build/ARCH/ports/redis/redis-server.elf) or the same Debian source
# built static for Linux (ports/redis/build.sh host-static, MALLOC=libc
# on both).  The host's redis-benchmark (Debian's redis-tools, 7.0.15)
# then runs `-t set,get,lpush,lpop -c 50 -P 1` and `-P 16`, `requests`
# requests a test (default 100000; 16 times as many with -P 16), in one
# run of each per boot:
#   BENCH redis_<os>_<test>_p<P>_rps   requests per second
#   BENCH redis_<os>_<test>_p<P>_p99   latency of a request, ms
#   BENCH redis_<test>_p<P>_rps_ratio, _p99_ratio   Spindle's / Linux's
# speedtest1 (no root needed): SQLite 3.40.1's speedtest1 `--memdb --size
# N` (size=, default 50), Spindle's port image and the same source built
# static for Linux (ports/sqlite/build.sh host-static); the figure is the
# TOTAL line speedtest1 prints, the sum of its own timings:
#   BENCH speedtest1_<os>_s   seconds
#   BENCH speedtest1_ratio    Spindle's / Linux's (below 1: Spindle faster)
# With reps=N (default 3) each side runs N times, the two sides in turn
# (Spindle, Linux, Spindle, ...), one boot each, and the medians are
# printed.  Logs (consoles, mcload's output) are in build/ARCH/bench-apps-logs/.
# LINUX_CMDLINE adds to the Linux guest's kernel command line (Debian's
# defaults otherwise): "tsc=reliable" keeps the TSC as its clock, which
# under TCG it marks unstable (the vCPUs' TSCs look unsynchronized) for
# the HPET, whose every read is an emulated MMIO access; Spindle reads
# the TSC.  LINUX_WATCH=SECS makes the guest's init print, every SECS
# seconds, where memcached's threads ran and the virtio interrupts per
# CPU into its console log (tools/build/linuxinit.c's watch=).  TIMEOUT
# bounds each boot (seconds; default from secs and size).
# Exits non-zero when a run failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
cd "$top" || exit 2

die() { echo "bench-apps: $*" >&2; exit 1; }

# ---- The two machines -----------------------------------------------------
# boot_spindle LOG IMAGE CMDLINE...  and  boot_linux LOG NET INITARGS...
# start a machine in the background, in a process group of its own whose
# id is set in $qpid (stop_qemu ends it), console in LOG.  NET is "tap"
# or "none"; both bound the machine's life by $boot_timeout.
qpid=
boot_spindle() {
    local log=$1 image=$2
    shift 2
    setsid timeout -k 5 "$boot_timeout" "$here/../run/qemu.sh" "$ARCH" "$image" "$SMP" "$@" \
        > "$log" 2>&1 < /dev/null &
    qpid=$!
}
boot_linux() {
    local log=$1 net=$2 accel_opt cpu nic
    shift 2
    case $ACCEL in
    tcg) accel_opt="-accel tcg,thread=multi" cpu=qemu64 ;;
    kvm) accel_opt="-accel kvm" cpu=host ;;
    esac
    nic=(-nic none)
    # shellcheck disable=SC2054 # QEMU's option values hold commas
    [ "$net" = tap ] && nic=(-netdev "tap,id=n0,ifname=$TAP,script=no,downscript=no,vhost=off"
                             -device virtio-net-pci,netdev=n0)
    # shellcheck disable=SC2086 # accel_opt is a list of words
    setsid timeout -k 5 "$boot_timeout" qemu-system-x86_64 -M q35 $accel_opt -cpu $cpu \
        -smp "$SMP" -m "$MEM" -display none -serial stdio -monitor none -no-reboot "${nic[@]}" \
        -kernel "$LINUX/vmlinuz" -initrd "$LINUXAPPS/initrd.cpio" \
        -append "console=ttyS0 quiet panic=-1 ${LINUX_CMDLINE:-} -- $*" > "$log" 2>&1 < /dev/null &
    qpid=$!
}
stop_qemu() {
    [ -n "$qpid" ] || return 0
    kill -TERM -- "-$qpid" 2>/dev/null
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        kill -0 -- "-$qpid" 2>/dev/null || break
        sleep 0.5
    done
    kill -KILL -- "-$qpid" 2>/dev/null
    wait "$qpid" 2>/dev/null
    qpid=
}
# cpu_s PID: CPU seconds (user + system) of process PID and its threads.
cpu_s() {
    awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); printf "%.2f\n", ($12 + $13) / hz }' \
        "/proc/$1/stat" 2>/dev/null || echo 0
}

# ---- memcached, in the private network namespace ---------------------------
# bench-apps.sh __memcached: reads ARCH SMP MEM ACCEL REPS SECS WARMUP CONNS
# KEYS LOGS LINUX LINUXAPPS boot_timeout from the environment; prints
# "MC <os> <rep> <ops/s> <p50 µs> <p99 µs>" and "# " lines.
# tap_up: in the private namespace (bench-apps.sh __memcached or
# __redis), lo and the TAP device spt0 at 192.0.2.1/24, in $TAP; dies if
# the namespace has anything else.  Stops the machine on exit.
tap_up() {
    trap stop_qemu EXIT
    trap 'exit 143' TERM INT HUP
    TAP=spt0
    ip link set lo up &&
        ip tuntap add dev $TAP mode tap &&
        ip addr add 192.0.2.1/24 dev $TAP &&
        ip link set $TAP up || die "cannot make the TAP device"
    if [ -n "$(ip route show default)" ] ||
       [ "$(ip -o link show | awk -F': ' '{print $2}' | sort | tr '\n' ' ')" != "lo $TAP " ]; then
        die "the namespace is not private: $(ip -o link show | tr '\n' ' ')"
    fi
}

# boot_app OS LOG IMAGE PROGRAM ARGS...: in the namespace, on the TAP
# device at 192.0.2.2, Spindle's port image IMAGE (OS spindle) or the
# Linux guest's PROGRAM as user 65534 (OS linux), with ARGS.
boot_app() {
    local os=$1 log=$2 image=$3 prog=$4
    shift 4
    if [ "$os" = spindle ]; then
        NET=tap TAP=$TAP QUIET=1 boot_spindle "$log" "$image" ip=192.0.2.2/24 gw=192.0.2.1 -- "$@"
    else
        boot_linux "$log" tap net=192.0.2.2/24 uid=65534 \
            ${LINUX_WATCH:+watch=$LINUX_WATCH} "$prog" "$@"
    fi
}

# wait_up WHAT LOG PROBE...: returns once PROBE succeeds, within 120 s
# and while the machine runs; otherwise says so with LOG's tail (the
# machine's console) and exits 1.
wait_up() {
    local what=$1 log=$2 t0=$SECONDS
    shift 2
    while [ $((SECONDS - t0)) -lt 120 ]; do
        if "$@"; then
            echo "bench-apps: $what up after $((SECONDS - t0)) s" >&2
            return 0
        fi
        kill -0 "$qpid" 2>/dev/null || break
    done
    echo "bench-apps: $what did not answer within 120 s" >&2
    tail -n 20 "$log" | sed 's/^/    | /' >&2
    exit 1
}

if [ "${1:-}" = __memcached ]; then
    tap_up
    args=(-U 0 -t "$SMP" -m 64 -c 1024)
    for rep in $(seq "$REPS"); do
        for os in spindle linux; do
            log=$LOGS/memcached-$os.$rep
            echo "bench-apps: memcached on $os (rep $rep): booting" >&2
            boot_app $os "$log.console" "build/$ARCH/ports/memcached/memcached.elf" \
                /usr/bin/memcached "${args[@]}"
            wait_up "memcached on $os at 192.0.2.2:11211" "$log.console" \
                build/host/mcload -P -s 192.0.2.2:11211 -W 2 2>/dev/null
            echo "bench-apps: mcload for $WARMUP + $SECS s" >&2
            qemu=$(pgrep -P "$(pgrep -P "$qpid" | head -n 1)" | head -n 1)
            [ $os = linux ] && qemu=$(pgrep -P "$qpid" | head -n 1)
            c0=$(cpu_s "$qemu")
            timeout -k 5 $((SECS + WARMUP + 120)) build/host/mcload -s 192.0.2.2:11211 \
                -c "$CONNS" -k "$KEYS" -w "$WARMUP" -d "$SECS" > "$log.mcload" 2>&1
            rc=$?
            c1=$(cpu_s "$qemu")
            sed "s/^/# $os rep $rep: /" "$log.mcload"
            [ $os = linux ] && tr -d '\r' < "$log.console" | sed -n "s/^# init: \(clocksource .*\)/# $os rep $rep: the guest kernel's \1/p"
            [ $rc = 0 ] || { echo "bench-apps: mcload against $os failed (status $rc)" >&2; exit 1; }
            awk -v a="$c0" -v b="$c1" -v t=$((SECS + WARMUP)) -v tag="# $os rep $rep" \
                'BEGIN { printf "%s: QEMU used %.0f%% of one host core during mcload\n", tag, 100 * (b - a) / t }'
            stop_qemu
            awk -v os=$os -v rep="$rep" '
                / ops_per_s / { for (i = 1; i < NF; i++) if ($i == "ops_per_s") ops = $(i + 1) }
                / latency_us / { for (i = 1; i < NF; i++) { if ($i == "p50") p50 = $(i + 1); if ($i == "p99") p99 = $(i + 1) } }
                END { print "MC", os, rep, ops, p50, p99 }' "$log.mcload"
        done
    done
    exit 0
fi

# ---- redis, in the private network namespace -------------------------------
# bench-apps.sh __redis: reads ARCH SMP MEM ACCEL REPS REQUESTS LOGS LINUX
# LINUXAPPS boot_timeout from the environment; prints "RD <os> <rep>
# <test> <P> <requests/s> <p99 ms>" and "# " lines.
# redis_answers: 0 if Redis at 192.0.2.2 answers PING, else 1 half a
# second later.
redis_answers() {
    [ "$(timeout 5 redis-cli -h 192.0.2.2 ping 2>/dev/null)" = PONG ] || { sleep 0.5; return 1; }
}

if [ "${1:-}" = __redis ]; then
    tap_up
    args=(--save --appendonly no --protected-mode no)
    for rep in $(seq "$REPS"); do
        for os in spindle linux; do
            log=$LOGS/redis-$os.$rep
            echo "bench-apps: redis on $os (rep $rep): booting" >&2
            boot_app $os "$log.console" "build/$ARCH/ports/redis/redis-server.elf" \
                /usr/bin/redis-server "${args[@]}"
            wait_up "redis on $os at 192.0.2.2:6379" "$log.console" redis_answers
            for p in 1 16; do
                n=$((REQUESTS * p))
                timeout -k 5 $((boot_timeout - 30)) redis-benchmark -h 192.0.2.2 -p 6379 \
                    -t set,get,lpush,lpop -c 50 -P $p -n $n --csv > "$log.p$p" 2> "$log.p$p.err"
                rc=$?
                [ $rc = 0 ] && ! grep -qi 'error' "$log.p$p.err" ||
                    { echo "bench-apps: redis-benchmark -P $p against $os failed (status $rc)" >&2
                      tail -n 5 "$log.p$p.err" | sed 's/^/    | /' >&2; exit 1; }
                # "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
                tr -d '"\r' < "$log.p$p" | awk -F, -v os=$os -v rep="$rep" -v p=$p '
                    NR > 1 && NF >= 7 { print "RD", os, rep, tolower($1), p, $2, $7 }'
            done
            stop_qemu
        done
    done
    exit 0
fi

# ---- The driver -----------------------------------------------------------
if [ $# -lt 2 ]; then
    echo "usage: tools/bench/bench-apps.sh ARCH SMP [only=memcached,redis,speedtest1] [reps=N] [secs=N] [warmup=N] [conns=N] [keys=N] [size=N] [requests=N]" >&2
    exit 2
fi
ARCH=$1 SMP=$2
shift 2
only=memcached,redis,speedtest1 REPS=3 SECS=10 WARMUP=3 CONNS=32 KEYS=10000 SIZE=50 REQUESTS=100000
for a in "$@"; do
    case $a in
    only=*) only=${a#only=} ;;
    reps=*) REPS=${a#reps=} ;;
    secs=*) SECS=${a#secs=} ;;
    warmup=*) WARMUP=${a#warmup=} ;;
    conns=*) CONNS=${a#conns=} ;;
    keys=*) KEYS=${a#keys=} ;;
    size=*) SIZE=${a#size=} ;;
    requests=*) REQUESTS=${a#requests=} ;;
    *) echo "bench-apps.sh: unknown argument $a" >&2; exit 2 ;;
    esac
done
for v in "$REPS" "$SECS" "$CONNS" "$KEYS" "$SIZE" "$WARMUP" "$SMP" "$REQUESTS"; do
    case $v in ''|*[!0-9]*) echo "bench-apps.sh: reps, secs, warmup, conns, keys, size, requests and SMP are numbers" >&2; exit 2 ;; esac
done
[ "$ARCH" = x86_64 ] || die "ARCH=$ARCH: the Linux guest is x86_64 only for now (tools/build/linuxapps.sh)"
do_mc='' do_sql='' do_rd=''
for b in ${only//,/ }; do
    case $b in
    memcached) do_mc=1 ;;
    redis) do_rd=1 ;;
    speedtest1) do_sql=1 ;;
    *) die "only=$only: the benchmarks are memcached, redis and speedtest1" ;;
    esac
done
if [ -n "$do_mc$do_rd" ] && [ "$(id -u)" != 0 ]; then
    die "memcached and redis run on a TAP device in a private network namespace, which needs root;" \
        "run as root, or BENCH_APPS=only=speedtest1"
fi
LINUX=build/linux-$ARCH LINUXAPPS=build/linux-apps-$ARCH
need=("$LINUX/vmlinuz" "$LINUXAPPS/initrd.cpio")
[ -n "$do_mc" ] && need+=(build/host/mcload "build/$ARCH/ports/memcached/memcached.elf")
[ -n "$do_sql" ] && need+=("build/$ARCH/ports/sqlite/speedtest1.elf")
[ -n "$do_rd" ] && need+=("build/$ARCH/ports/redis/redis-server.elf")
if [ -n "$do_rd" ] && ! command -v redis-benchmark > /dev/null; then
    die "no redis-benchmark (tools/build/deps.sh redis installs Debian's redis-tools)"
fi
for f in "${need[@]}"; do
    [ -s "$f" ] || die "no $f; run 'make bench-apps ARCH=$ARCH'"
done

# The accelerator, as tools/run/qemu.sh picks it; both machines get it.
ACCEL=${ACCEL:-}
if [ -z "$ACCEL" ]; then
    ACCEL=tcg
    if [ -e /dev/kvm ] && grep -qE '^kvm_(intel|amd) ' /proc/modules 2>/dev/null &&
       ! grep -q '^kvm_pvm ' /proc/modules 2>/dev/null; then
        ACCEL=kvm
    fi
fi
case $ACCEL in tcg | kvm) ;; *) die "ACCEL=$ACCEL: bench-apps runs under tcg or kvm" ;; esac
MEM=${MEM:-1024}
LOGS=build/$ARCH/bench-apps-logs
mkdir -p "$LOGS"
rm -f "$LOGS"/*
LINUX_CMDLINE=${LINUX_CMDLINE:-}
LINUX_WATCH=${LINUX_WATCH:-}
export ARCH SMP MEM ACCEL LINUX_CMDLINE LINUX_WATCH REPS SECS WARMUP CONNS KEYS REQUESTS LOGS LINUX LINUXAPPS

# median: the middle of the numbers on stdin (the mean of the two middle
# ones for an even count).
median() {
    sort -g | awk '{ v[NR] = $1 } END { if (NR) printf "%.6g\n", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "" && b > 0) printf "%.3f\n", a / b }'; }

date=$(date -u '+%Y-%m-%d %H:%M UTC')
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
others=$(pgrep -c -f '^qemu-system-' || true)
load0=$(cut -d' ' -f1-3 /proc/loadavg)
failed=0
out=$LOGS/results

# in_namespace NAME: bench-apps.sh __NAME in a private network namespace,
# its output in $LOGS/NAME.out, bounded by boot_timeout a boot; sets
# failed if it fails.  A process group of its own (setsid), ended on our
# INT or TERM; its EXIT trap stops its QEMU, and the namespace goes with
# its last process.
in_namespace() {
    local pid rc
    export boot_timeout
    setsid timeout -k 10 $(((boot_timeout + 10) * 2 * REPS)) unshare -n "$here/bench-apps.sh" "__$1" \
        > "$LOGS/$1.out" &
    pid=$!
    # shellcheck disable=SC2064 # the pid now
    trap "kill -TERM -- -$pid 2>/dev/null; wait $pid; exit 130" INT TERM HUP
    wait $pid
    rc=$?
    trap - INT TERM HUP
    if [ $rc != 0 ]; then
        echo "bench-apps: $1 failed (exit status $rc); logs in $LOGS/" >&2
        failed=1
    fi
}

if [ -n "$do_mc" ]; then
    boot_timeout=${TIMEOUT:-$((SECS + WARMUP + 300))}
    in_namespace memcached
fi
if [ -n "$do_rd" ]; then
    boot_timeout=${TIMEOUT:-$((600 + REQUESTS / 100))}
    in_namespace redis
fi

sql_total() { tr -d '\r' < "$1" | sed -n 's/^ *TOTAL\.*  *\([0-9.]*\)s$/\1/p' | head -n 1; }
: > "$LOGS/speedtest1.out"
if [ -n "$do_sql" ]; then
    boot_timeout=${TIMEOUT:-$((120 + SIZE * 10))}
    trap 'stop_qemu; exit 130' INT TERM HUP
    for rep in $(seq "$REPS"); do
        for os in spindle linux; do
            log=$LOGS/speedtest1-$os.$rep.console
            echo "bench-apps: speedtest1 --memdb --size $SIZE on $os (rep $rep)" >&2
            if [ $os = spindle ]; then
                NET='' QUIET=1 boot_spindle "$log" "build/$ARCH/ports/sqlite/speedtest1.elf" \
                    -- --memdb --size "$SIZE"
            else
                boot_linux "$log" none /usr/bin/speedtest1 --memdb --size "$SIZE"
            fi
            wait "$qpid"
            rc=$?
            qpid=
            t=$(sql_total "$log")
            if [ -z "$t" ]; then
                [ $rc = 124 ] && echo "bench-apps: speedtest1 on $os timed out after ${boot_timeout}s" >&2
                echo "bench-apps: speedtest1 on $os printed no TOTAL (status $rc); console: $log" >&2
                tail -n 10 "$log" | sed 's/^/    | /' >&2
                failed=1
                continue
            fi
            [ $os = linux ] && ! grep -q '^# exit status 0' "$log" &&
                { echo "bench-apps: speedtest1 on linux did not exit 0; console: $log" >&2; failed=1; }
            echo "SQL $os $rep $t" >> "$LOGS/speedtest1.out"
            [ $os = linux ] && tr -d '\r' < "$log" | sed -n "s/^# init: \(clocksource .*\)/# speedtest1 $os rep $rep: the guest kernel's \1/p" >> "$LOGS/speedtest1.out"
        done
    done
    trap - INT TERM HUP
fi

others_end=$(pgrep -c -f '^qemu-system-' || true)
{
    echo "# bench-apps: $ARCH, $SMP cores, $MEM MiB, accelerator $ACCEL, $date," \
         "host CPU ${cpu:-unknown} ($(nproc) threads), load average $load0 at the start," \
         "$(cut -d' ' -f1-3 /proc/loadavg) at the end"
    echo "# Linux guest: $(cat "$LINUX/version")${LINUX_CMDLINE:+ with $LINUX_CMDLINE}, $(tr '\n' ',' < "$LINUXAPPS/versions" | sed 's/,$//; s/,/, /g')"
    if [ "$others" != 0 ] || [ "$others_end" != 0 ]; then
        echo "# warning: other QEMU processes were running ($others at the start," \
             "$others_end at the end); the figures are unreliable"
    fi
    if [ -n "$do_mc" ]; then
        echo "# memcached -U 0 -t $SMP -m 64 -c 1024 on a TAP device; mcload: $CONNS connections," \
             "$KEYS keys, 90% get, 32-byte keys, 100-byte values, ${WARMUP} s warm-up, ${SECS} s measured;" \
             "median of $REPS rep(s)"
        grep '^# ' "$LOGS/memcached.out"
        for os in spindle linux; do
            for k in "4 ops ops/s" "5 p50 us" "6 p99 us"; do
                set -- $k
                v=$(awk -v os=$os -v c="$1" '$1 == "MC" && $2 == os { print $c }' "$LOGS/memcached.out" | median)
                eval "mc_${os}_$2=\$v"
                echo "BENCH memcached_${os}_$2 $v $3"
            done
        done
        echo "BENCH memcached_ops_ratio $(ratio "${mc_spindle_ops:-}" "${mc_linux_ops:-}") Spindle/Linux"
        echo "BENCH memcached_p99_ratio $(ratio "${mc_spindle_p99:-}" "${mc_linux_p99:-}") Spindle/Linux"
    fi
    if [ -n "$do_rd" ]; then
        echo "# redis-server 7.0.15 --save --appendonly no on a TAP device (Linux: the port's source" \
             "static, MALLOC=libc); host's $(redis-benchmark --version | cut -d' ' -f1-2) -c 50," \
             "$REQUESTS requests a test at -P 1, $((REQUESTS * 16)) at -P 16; median of $REPS rep(s)"
        grep '^# ' "$LOGS/redis.out"
        for p in 1 16; do
            for t in set get lpush lpop; do
                for os in spindle linux; do
                    for k in "6 rps requests/s" "7 p99 ms"; do
                        set -- $k
                        v=$(awk -v os=$os -v t=$t -v p=$p -v c="$1" \
                            '$1 == "RD" && $2 == os && $4 == t && $5 == p { print $c }' "$LOGS/redis.out" | median)
                        eval "rd_${os}_$2=\$v"
                        echo "BENCH redis_${os}_${t}_p${p}_$2 $v $3"
                    done
                done
                echo "BENCH redis_${t}_p${p}_rps_ratio $(ratio "${rd_spindle_rps:-}" "${rd_linux_rps:-}") Spindle/Linux"
                echo "BENCH redis_${t}_p${p}_p99_ratio $(ratio "${rd_spindle_p99:-}" "${rd_linux_p99:-}") Spindle/Linux"
            done
        done
    fi
    if [ -n "$do_sql" ]; then
        echo "# speedtest1 --memdb --size $SIZE: its TOTAL; median of $REPS rep(s)"
        grep '^# ' "$LOGS/speedtest1.out"
        for os in spindle linux; do
            v=$(awk -v os=$os '$1 == "SQL" && $2 == os { print $4 }' "$LOGS/speedtest1.out" | median)
            eval "sql_$os=\$v"
            echo "BENCH speedtest1_${os}_s $v s"
        done
        echo "BENCH speedtest1_ratio $(ratio "${sql_spindle:-}" "${sql_linux:-}") Spindle/Linux"
    fi
} | tee "$out"
exit $failed
