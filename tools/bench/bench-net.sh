#!/bin/bash
# bench-net.sh ARCH SMP [reps=N] [only=user,tap] [mib=N] [secs=N] [queues=N] - network
# benchmarks of apps/httpd, printing "BENCH <name> <value> <unit>" and "# "
# lines as tools/bench/bench.sh does.  `make bench-net [SMP=n] [ARCH=...]
# [BENCH_NET="reps=5 only=user"]` runs it.
#
# For each backend (user, tap) it boots build/ARCH/apps/httpd.elf at SMP
# cores (ARCH x86_64-microvm: x86_64's image on QEMU's microvm, which
# `make bench-net MACHINE=microvm` gives), waits for the page at / (60 s
# at most), then, reps times:
#   - wrk -t1 -c32 -d<secs>s --latency on / (the 612-byte page, keep-alive):
#       BENCH http_rps_<backend>  requests/s
#       BENCH http_p50_<backend>  wrk's 50% latency, in us
#       BENCH http_p99_<backend>  wrk's 99% latency, in us
#   - one TCP stream guest -> host: curl downloads /bytes/<mib MiB> once:
#       BENCH tcp_mbps_<backend>  its bytes * 8 / curl's total time, Mbit/s
#   - from the guest's counters (/debug/sched) before and after wrk:
#       BENCH net_xcore_per_req_<backend>  (wakeups of a G on another core
#       than it last ran on + frames handled away from their queue's core)
#       per request wrk made
# and prints the median of the reps (all in one boot per backend).
#
# Backends:
#   user  QEMU's user network (tools/run/qemu.sh NET=user), wrk and curl on
#         127.0.0.1:<a free port>.  As root this runs in a network namespace
#         of its own (unshare -n, only lo up), so even the host's loopback
#         is not shared; otherwise on the host's loopback.
#   tap   as root only: in a private network namespace (unshare -n, gone
#         when its last process exits), a TAP device spt0 with 192.0.2.1/24
#         (a documentation range), the guest on it (NET=tap TAP=spt0,
#         ip=192.0.2.2/24 gw=192.0.2.1) and wrk and curl against
#         http://192.0.2.2/.  The namespace has lo and spt0 and no other
#         route, so no packet can leave it.  With queues=N (N > 1) the NIC
#         has N queue pairs with RSS on a multi_queue TAP (tools/run/qemu.sh
#         QUEUES=N), and a second backend, tap_q1, runs the same with one
#         queue pair in the same run, for the comparison.
# Defaults: reps=3 (about 45 s a backend, 1.5 min in all), only=user,tap,
# mib=128, secs=10.
#
# wrk corrects its latencies for coordinated omission: a request that took
# T adds samples at T - k * (the mean time between two requests of one
# connection), so a handful of requests stalled for a second (a SYN or a
# request retransmitted by the host's TCP) is enough to put p99 near a
# second.  The comment lines say whether that happened.  On the user
# network it does every run: QEMU's forwarding socket listens with a
# backlog of 1 (ss -ltn shows it), so wrk's 32 connects at once overflow
# it, the dropped SYNs and handshake ACKs come back a second later, and
# p99 there is about 0.4 s whatever the guest does.
#
# Comment lines give the accelerator, arch, cores, host, how busy the host
# was before the run, wrk's errors (socket errors, non-2xx answers) if any,
# and for each rep where the host's CPU went during wrk (QEMU's main loop
# and vCPU threads, with how long each was runnable but had no host core;
# wrk; everything else) and the host TCP's accept queue overflows and
# retransmissions; then the guest's drop counters (from /debug/sched)
# after the run.
# Logs (console, wrk output, /debug/sched before and after) are under
# build/ARCH/bench-net-logs/.  Exits non-zero if a backend failed.
# MEM, ACCEL and VIRTIO pass through to tools/run/qemu.sh (VIRTIO=mmio:
# aarch64 with the NIC on virtio-mmio), CMDLINE is added to the
# guest's command line (netsteal=0, say); TIMEOUT bounds a backend's
# whole run (seconds; default from reps and secs).
set -u
here=$(cd "$(dirname "$0")" && pwd)

# ---- One backend, in its own process (and namespace) ----------------------
# bench-net.sh __run BACKEND: reads ARCH, SMP, IMAGE, REPS, MIB, SECS and
# LOGS from the environment; prints "REP i rps p50 p99 mbps" per rep and
# "# " lines.  QEMU is killed on every way out.
if [ "${1:-}" = __run ]; then
    backend=$2
    qpid=
    cleanup() {
        [ -n "$qpid" ] || return 0
        # QEMU (qemu.sh's child) and qemu.sh, by pid: both are in this
        # process group, so timeout's SIGKILL reaches them as well.
        local pids="$(pgrep -P "$qpid") $qpid"
        kill -TERM $pids 2>/dev/null
        for _ in 1 2 3 4 5 6 7 8 9 10; do
            kill -0 $pids 2>/dev/null || break
            sleep 0.5
        done
        kill -KILL $pids 2>/dev/null
        wait "$qpid" 2>/dev/null
        qpid=
    }
    trap cleanup EXIT
    trap 'exit 143' TERM INT HUP
    fail() { echo "bench-net: $backend: $*" >&2; exit 1; }

    log=$LOGS/$backend
    cmdline=()
    if [ "$(id -u)" = 0 ]; then
        # We are in a fresh network namespace (unshare -n): only lo, down.
        ip link set lo up || fail "cannot bring lo up"
    fi
    case $backend in
    user)
        port=
        for p in $(shuf -i 20000-60000 -n 64); do
            if ! ss -Htln "sport = :$p" | grep -q .; then port=$p; break; fi
        done
        [ -n "$port" ] || fail "no free port on 127.0.0.1"
        url=http://127.0.0.1:$port
        export NET=user HOSTPORT=$port GUESTPORT=80
        unset HOSTFWD
        ;;
    tap | tap_q1)
        q=${QUEUES:-1}
        [ "$backend" = tap_q1 ] && q=1
        mq=
        [ "$q" -gt 1 ] && mq=multi_queue
        ip tuntap add dev spt0 mode tap $mq || fail "ip tuntap add failed"
        ip addr add 192.0.2.1/24 dev spt0 || fail "ip addr add failed"
        ip link set spt0 up || fail "ip link set spt0 up failed"
        # Belt and braces: this namespace must have no way out.
        if [ -n "$(ip route show default)" ] ||
           [ "$(ip -o link show | awk -F': ' '{print $2}' | sort | tr '\n' ' ')" != "lo spt0 " ]; then
            fail "the namespace is not private: $(ip -o link show | tr '\n' ' ')"
        fi
        url=http://192.0.2.2
        export NET=tap TAP=spt0 QUEUES=$q
        cmdline=(ip=192.0.2.2/24 gw=192.0.2.1)
        ;;
    *) fail "unknown backend" ;;
    esac

    # shellcheck disable=SC2086 # CMDLINE is a list of words
    QUIET=0 "$here/../run/qemu.sh" "$ARCH" "$IMAGE" "$SMP" "${cmdline[@]}" ${CMDLINE:-} \
        > "$log.console" 2> "$log.qemu" < /dev/null &
    qpid=$!
    up= deadline=$((SECONDS + 60))
    while [ $SECONDS -lt $deadline ]; do
        if curl -s -m 2 "$url/" 2>/dev/null | grep -q 'Welcome to Spindle'; then
            up=1; break
        fi
        kill -0 "$qpid" 2>/dev/null || break
        sleep 0.5
    done
    if [ -z "$up" ]; then
        echo "bench-net: $backend: the guest did not answer at $url/ within 60 s" >&2
        { tail -n 20 "$log.console"; cat "$log.qemu"; } | sed 's/^/    | /' >&2
        exit 1
    fi
    qemu=$(pgrep -P "$qpid" -f '^qemu-system-' | head -n 1)
    accel=$(sed -n 's/.*accelerator \([a-z]*\).*/\1/p' "$log.qemu" | head -n 1)
    echo "# $backend: accelerator ${accel:-unknown}; $(grep -m1 '^net: address' "$log.console" | tr -d '\r')"
    curl -s -m 10 "$url/debug/sched" > "$log.sched-before"

    # ticks: "<thread id>=<ns on a host core>,<ns waiting for one>" for
    # each of QEMU's threads, from /proc/.../schedstat.  (QEMU names its
    # threads only with -name debug-threads=on; the main loop, which runs
    # the NIC's backend, is the thread whose id is the pid, and under TCG
    # the vCPUs are the busy others.)
    ticks() {
        local t s
        for t in /proc/"$qemu"/task/*; do
            s=$(cat "$t/schedstat" 2>/dev/null) || continue
            set -- $s
            echo "${t##*/}=$1,$2"
        done
    }
    # tcpstat: the host TCP counters that explain latency spikes: accept
    # queue overflows (QEMU's user network listens with a backlog of 1)
    # and retransmission timeouts.  This namespace's own when we are root.
    tcpstat() {
        nstat -asz TcpExtListenOverflows TcpExtTCPTimeouts TcpRetransSegs 2>/dev/null |
            awk '/^Tcp/ { v[$1] = $2 }
                 END { print v["TcpExtListenOverflows"] + 0, v["TcpExtTCPTimeouts"] + 0,
                             v["TcpRetransSegs"] + 0 }'
    }
    # hostcpu: "<busy ticks> <all ticks>" of the whole host, from /proc/stat.
    hostcpu() {
        awk '$1 == "cpu" { for (i = 2; i <= 9; i++) all += $i
                           print all - $5 - $6, all; exit }' /proc/stat
    }
    # kids: CPU seconds of this shell's finished children, from bash's
    # times (run in this shell, not in $(...): a subshell's are its own).
    kids() {
        awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, x, "m"); s += x[1] * 60 + x[2] } print s }' \
            "$log.times"
    }

    # xcore: "<cross-core wakeups> <frames away>" from the guest's counters.
    xcore() {
        curl -s -m 10 "$url/debug/sched" |
            sed -n 's/^net: .*away \([0-9]*\), cross-core wakeups \([0-9]*\).*/\2 \1/p' |
            head -n 1
    }
    for i in $(seq "$REPS"); do
        x0=$(xcore)
        before=$(ticks); n0=$(tcpstat); h0=$(hostcpu); times > "$log.times"; k0=$(kids); t0=$(date +%s.%N)
        timeout -k 5 $((SECS + 60)) wrk -t1 -c32 -d"${SECS}s" --latency "$url/" \
            > "$log.wrk.$i" 2>&1 || fail "wrk failed: $(tail -n 3 "$log.wrk.$i")"
        t1=$(date +%s.%N); after=$(ticks); n1=$(tcpstat); h1=$(hostcpu); times > "$log.times"; k1=$(kids)
        x1=$(xcore)
        rps=$(sed -n 's/^Requests\/sec: *\([0-9.]*\).*/\1/p' "$log.wrk.$i")
        reqs=$(sed -n 's/^ *\([0-9]*\) requests in .*/\1/p' "$log.wrk.$i")
        xpr=$(echo "$x0 $x1 ${reqs:-0}" | awk 'NF == 5 && $5 > 0 {
                  printf "%.4f\n", ($3 - $1 + $4 - $2) / $5; exit } { print "nan" }')
        echo "# $backend rep $i: $reqs requests; guest counters: cross-core wakeups ${x0%% *} -> ${x1%% *}, frames away ${x0##* } -> ${x1##* }"
        # wrk prints 849.00us, 1.14ms, 1.02s or 2.00m.
        lat() {
            sed -n "s/^ *$1% *\([0-9.]*\)\([a-z]*\).*/\1 \2/p" "$log.wrk.$i" |
                awk '{ m = $2 == "us" ? 1 : $2 == "ms" ? 1e3 : $2 == "s" ? 1e6 : $2 == "m" ? 6e7 : -1
                       if (m > 0) printf "%.0f\n", $1 * m }'
        }
        p50=$(lat 50) p99=$(lat 99)
        [ -n "$rps" ] && [ -n "$p50" ] && [ -n "$p99" ] ||
            fail "cannot parse wrk's output ($log.wrk.$i)"
        errs=$(grep -E '^ *(Socket errors|Non-2xx)' "$log.wrk.$i" | sed 's/^ *//' | tr '\n' ';')
        [ -n "$errs" ] && echo "# $backend rep $i: wrk: ${errs%;}"
        # Where the host's CPU went during wrk, in % of one host core:
        # QEMU (its main loop, which runs the NIC's backend, and its busiest
        # other threads: the vCPUs under TCG), wrk, and everything else.
        # "waited": how long a QEMU thread was runnable but had no core.
        awk -v b="$before" -v a="$after" -v main="$qemu" \
            -v ncpu="$(nproc)" -v hs="$h0 $h1" -v ks="$k0 $k1" -v ts="$t0 $t1" \
            -v tag="# $backend rep $i: host CPU during wrk, % of one core of $(nproc)" '
            BEGIN {
                split(ts, T, " "); dt = (T[2] - T[1]) * 1e9
                n = split(b, x, "\n"); for (k = 1; k <= n; k++) { split(x[k], kv, "[=,]"); B[kv[1]] = kv[2]; BW[kv[1]] = kv[3] }
                n = split(a, x, "\n"); for (k = 1; k <= n; k++) { split(x[k], kv, "[=,]"); A[kv[1]] = kv[2]; AW[kv[1]] = kv[3] }
                for (t in A) {
                    p = 100 * (A[t] - B[t]) / dt; q += p; w = 100 * (AW[t] - BW[t]) / dt
                    if (t == main) { m = p; mw = w }
                    else if (p >= 1) { o[++no] = p; ow[no] = w }
                }
                for (i = 1; i <= no; i++)       # busiest first
                    for (j = i + 1; j <= no; j++)
                        if (o[j] > o[i]) { v = o[i]; o[i] = o[j]; o[j] = v; v = ow[i]; ow[i] = ow[j]; ow[j] = v }
                for (i = 1; i <= no; i++) s = s sprintf(" %.0f (waited %.0f)", o[i], ow[i])
                split(hs, H, " "); busy = 100 * ncpu * (H[3] - H[1]) / (H[4] - H[2])
                split(ks, K, " "); wrk = 100 * (K[2] - K[1]) / dt * 1e9
                rest = busy - q - wrk; if (rest < 0) rest = 0
                printf "%s: all %.0f = QEMU %.0f (main loop %.0f (waited %.0f), other threads%s) + wrk %.0f + everything else %.0f\n",
                       tag, busy, q, m, mw, s, wrk, rest
            }'
        echo "$n0 $n1" | awk -v tag="# $backend rep $i: host TCP during wrk" '
            NF == 6 { printf "%s: %d listen queue overflows, %d retransmission timeouts, %d segments retransmitted\n",
                      tag, $4 - $1, $5 - $2, $6 - $3 }'

        bytes=$((MIB * 1024 * 1024))
        out=$(curl -s -o /dev/null -m 300 -w '%{size_download} %{time_total}' \
              "$url/bytes/$bytes") || fail "curl of /bytes/$bytes failed"
        set -- $out
        [ "$1" = "$bytes" ] || fail "curl got $1 of $bytes bytes"
        mbps=$(awk -v b="$1" -v t="$2" 'BEGIN { printf "%.0f\n", b * 8 / t / 1e6 }')
        echo "REP $i $rps $p50 $p99 $mbps $xpr"
    done
    curl -s -m 10 "$url/debug/sched" > "$log.sched-after"
    grep -E '^net: .*(dropped|queue pair|by core|stack lock)' "$log.sched-after" | sed "s/^/# $backend: /"
    exit 0
fi

# ---- The driver ----------------------------------------------------------
if [ $# -lt 2 ]; then
    echo "usage: tools/bench/bench-net.sh ARCH SMP [reps=N] [only=user,tap] [mib=N] [secs=N] [queues=N]" >&2
    exit 2
fi
arch=$1 smp=$2
shift 2
reps=3 only=user,tap mib=128 secs=10 queues=1
for a in "$@"; do
    case $a in
    reps=*) reps=${a#reps=} ;;
    only=*) only=${a#only=} ;;
    mib=*)  mib=${a#mib=} ;;
    secs=*) secs=${a#secs=} ;;
    queues=*) queues=${a#queues=} ;;
    *) echo "bench-net.sh: unknown argument $a (reps=N only=user,tap mib=N secs=N queues=N)" >&2; exit 2 ;;
    esac
done
for v in "$reps" "$mib" "$secs" "$queues"; do
    case $v in ''|*[!0-9]*|0) echo "bench-net.sh: reps, mib, secs and queues are positive numbers" >&2; exit 2 ;; esac
done
if [ "$queues" -gt "$smp" ]; then
    echo "bench-net.sh: queues=$queues is more than the $smp cores (the guest uses one queue pair per core)" >&2
    exit 2
fi
case $arch in
x86_64|aarch64|x86_64-microvm) ;;
*) echo "bench-net.sh: ARCH=$arch has no network (x86_64, x86_64-microvm and aarch64 do)" >&2; exit 2 ;;
esac
image=build/${arch%-microvm}/apps/httpd.elf
if [ ! -f "$image" ]; then
    echo "bench-net.sh: no $image; run 'make bench-net' (or make $image)" >&2
    exit 2
fi
backends=()
for b in ${only//,/ }; do
    case $b in
    user) backends+=(user) ;;
    tap)
        if [ "$(id -u)" != 0 ]; then
            echo "bench-net.sh: the tap backend needs root (a network namespace and a TAP" \
                 "device); run as root, or BENCH_NET=only=user" >&2
            exit 2
        fi
        backends+=(tap)
        [ "$queues" -gt 1 ] && backends+=(tap_q1)
        ;;
    *) echo "bench-net.sh: only=$only: backends are user and tap" >&2; exit 2 ;;
    esac
done
"$here/../build/deps.sh" net || exit 1

logs=build/$arch/bench-net-logs
mkdir -p "$logs"
rm -f "$logs"/*
timeout_s=${TIMEOUT:-$((90 + reps * (secs + 120)))}

# median: the middle of the numbers on stdin (the mean of the two middle
# ones for an even count).
median() {
    sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2];
                   else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

date=$(date '+%Y-%m-%d %H:%M %Z')
others=$(pgrep -c -f '^qemu-system-' || true)
# How busy the host was before we started (2 s of /proc/stat): every
# figure here is host CPU bound, so other load lowers them all.
idle_load=$( { awk '$1 == "cpu" { for (i = 2; i <= 9; i++) t += $i; print t - $5 - $6, t }' /proc/stat
               sleep 2
               awk '$1 == "cpu" { for (i = 2; i <= 9; i++) t += $i; print t - $5 - $6, t }' /proc/stat
             } | awk '{ b[NR] = $1; a[NR] = $2 } END { printf "%.0f\n", 100 * (b[2] - b[1]) / (a[2] - a[1]) }')
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
failed=0
out=()
for b in "${backends[@]}"; do
    wrap=()
    [ "$(id -u)" = 0 ] && wrap=(unshare -n)
    # timeout runs the backend in a process group of its own: pass our
    # INT and TERM on (the backend's trap kills its QEMU).
    ARCH=$arch SMP=$smp IMAGE=$image REPS=$reps MIB=$mib SECS=$secs QUEUES=$queues \
    LOGS=$logs timeout -k 10 "$timeout_s" "${wrap[@]}" "$here/bench-net.sh" __run "$b" \
        > "$logs/$b.out" &
    tpid=$!
    trap 'kill -TERM $tpid 2>/dev/null; wait $tpid; exit 130' INT TERM HUP
    wait $tpid
    rc=$?
    trap - INT TERM HUP
    if [ $rc != 0 ]; then
        [ $rc = 124 ] && echo "bench-net.sh: $b timed out after ${timeout_s}s" >&2
        echo "bench-net.sh: $b failed (exit status $rc); logs in $logs/" >&2
        failed=1
        continue
    fi
    out+=("$b")
done

echo "# bench-net: $arch, $smp cores, accelerator" \
     "$(sed -n 's/^# [a-z]*: accelerator \([a-z]*\).*/\1/p' "$logs"/*.out 2>/dev/null | head -n 1)," \
     "$date, host CPU ${cpu:-unknown} ($(nproc) threads)," \
     "load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# wrk -t1 -c32 -d${secs}s --latency on / (612 bytes); tcp_mbps: one" \
     "$mib MiB download of /bytes/N by curl; median of $reps rep(s), one boot per backend"
others_end=$(pgrep -c -f '^qemu-system-' || true)
if [ "$idle_load" -gt 10 ]; then
    echo "# warning: the host's cores were $idle_load% busy before the run" \
         "(other processes); the figures are unreliable"
fi
if [ "$others" != 0 ] || [ "$others_end" != 0 ]; then
    echo "# warning: other QEMU processes were running ($others at the" \
         "start, $others_end at the end); the figures are unreliable"
fi
for b in "${out[@]}"; do
    f=$logs/$b.out
    grep '^# ' "$f" | grep -v ': accelerator '
    grep -m1 '^# [a-z]*: accelerator' "$f" | sed 's/accelerator [a-z]*; //'
    for k in "2 http_rps req/s" "3 http_p50 us" "4 http_p99 us" "5 tcp_mbps Mbit/s" \
             "6 net_xcore_per_req per-request"; do
        set -- $k
        v=$(awk -v c="$1" '$1 == "REP" && $(c + 1) != "nan" { print $(c + 1) }' "$f" | median)
        if [ "$1" = 6 ]; then
            v=$(awk -v x="$v" 'BEGIN { printf "%.4f", x }')
        elif [ -n "$v" ]; then
            v=$(printf '%.0f' "$v")
        fi
        echo "BENCH ${2}_$b $v $3"
    done
done
exit $failed
