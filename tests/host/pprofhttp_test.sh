#!/bin/bash
# pprofhttp_test.sh [ARCH...] - apps/httpd's /debug/pprof under load, read
# by `go tool pprof`, as Go's net/http/pprof is: apps/httpd booted at 2
# cores on QEMU's user network (127.0.0.1 only), wrk keeping 8 connections
# busy meanwhile, and
#   - profile?seconds=3: a CPU profile that `go tool pprof -top` reads, of
#     type cpu, with samples, in which serve (the connections' G) ran; a
#     second profile asked for while it runs gets 500 and Go's message;
#   - goroutine (debug=0), fetched by `go tool pprof` itself: every G, the
#     8 connections' in serve and main in sp_accept;
#   - goroutine?debug=1: "goroutine profile: total N", its groups' counts
#     adding up to N; ?debug=2: N Gs one by one, main [IO wait], and the
#     dump's end.
# ARCH: x86_64 and/or aarch64; by default each whose httpd image is built
# (make test builds it: tests/host/pprofhttp_test.mk).  Prints
# `TEST pprofhttp_<arch> PASS|FAIL <reason>` and `N passed, M failed`; the
# console's tail and what was fetched after a failure.  Run from the top
# of the tree.
set -u
passed=0 failed=0
tmp=$(mktemp -d)
qpid= wpid=
stop() {
    [ -z "$wpid" ] || { kill "$wpid" 2>/dev/null; wait "$wpid" 2>/dev/null; }
    if [ -n "$qpid" ]; then
        kill -TERM $(pgrep -P "$qpid") "$qpid" 2>/dev/null
        wait "$qpid" 2>/dev/null
    fi
    qpid= wpid=
}
trap 'stop; rm -rf "$tmp"' EXIT
export PPROF_TMPDIR=$tmp

arches=("$@")
if [ $# = 0 ]; then
    for a in x86_64 aarch64; do
        [ -f "build/$a/apps/httpd.elf" ] && arches+=("$a")
    done
    [ ${#arches[@]} != 0 ] || arches=(x86_64)
fi

# top FILE-OR-URL OUT: go tool pprof -top into OUT; false if it failed.
top() {
    go tool pprof -top -nodecount=100000 -nodefraction=0 "$1" > "$2" 2>&1
}

# cum OUT NAME: the cum column of NAME's row in go tool pprof -top's OUT.
cum() {
    awk -v f="$2" '$NF == f && $2 ~ /%$/ { print $4; exit }' "$1"
}

check() {                       # arch dir: echoes why it failed, or nothing
    local arch=$1 d=$2 port= url i code n total sum
    for p in $(shuf -i 20000-60000 -n 64); do
        if ! ss -Htln "sport = :$p" | grep -q .; then port=$p; break; fi
    done
    [ -n "$port" ] || { echo "no free port on 127.0.0.1"; return; }
    url=http://127.0.0.1:$port
    NET=user HOSTPORT=$port GUESTPORT=80 QUIET=1 timeout 300 \
        tools/run/qemu.sh "$arch" "build/$arch/apps/httpd.elf" 2 > "$d/console" 2>&1 &
    qpid=$!
    for i in $(seq 120); do
        grep -q '^httpd: serving' "$d/console" && curl -s -m 5 -o /dev/null "$url/" && break
        kill -0 "$qpid" 2>/dev/null || { echo "the machine stopped before serving"; return; }
        sleep 1
    done
    curl -s -m 5 -o /dev/null "$url/" || { echo "httpd did not answer within 2 minutes"; return; }
    wrk -t1 -c8 -d120s "$url/" > "$d/wrk" 2>&1 &
    wpid=$!
    sleep 2

    # The profile, and a second one while it runs.
    curl -s -m 60 -o "$d/cpu.pb.gz" -w '%{http_code}' "$url/debug/pprof/profile?seconds=3" > "$d/cpu.code" &
    local cpid=$!
    sleep 1
    code=$(curl -s -m 60 -o "$d/busy" -w '%{http_code}' "$url/debug/pprof/profile?seconds=1")
    wait "$cpid"
    [ "$(cat "$d/cpu.code")" = 200 ] || { echo "profile?seconds=3: HTTP $(cat "$d/cpu.code")"; return; }
    [ "$code" = 500 ] && grep -q 'cpu profiling already in use' "$d/busy" ||
        { echo "a second profile meanwhile: HTTP $code, $(head -c 100 "$d/busy")"; return; }
    top "$d/cpu.pb.gz" "$d/cpu.top" || { echo "go tool pprof cannot read the profile"; return; }
    grep -q '^Type: cpu$' "$d/cpu.top" || { echo "the profile is not of type cpu"; return; }
    grep -Eq '^Showing nodes accounting for [0-9.]+m?s, 100% of [0-9.]+m?s total$' "$d/cpu.top" &&
        ! grep -q 'accounting for 0, ' "$d/cpu.top" || { echo "no samples: $(grep Showing "$d/cpu.top")"; return; }
    [ -n "$(cum "$d/cpu.top" serve)" ] || { echo "serve is not in the profile"; return; }

    # The goroutine profile, fetched by go tool pprof.
    top "$url/debug/pprof/goroutine" "$d/g.top" || { echo "go tool pprof cannot fetch or read the goroutine profile"; return; }
    grep -q '^Type: goroutine$' "$d/g.top" || { echo "the goroutine profile is not of type goroutine"; return; }
    total=$(sed -n 's/^Showing nodes accounting for \([0-9]*\), 100% of [0-9]* total$/\1/p' "$d/g.top")
    n=$(cum "$d/g.top" serve)
    [ -n "$total" ] && [ "${n:-0}" -ge 8 ] && [ "$(cum "$d/g.top" sp_accept)" = 1 ] ||
        { echo "goroutines: $total in all, ${n:-0} in serve (want 8 or more), $(cum "$d/g.top" sp_accept) in sp_accept (want 1)"; return; }

    # The text forms.
    curl -s -m 30 -o "$d/g1" "$url/debug/pprof/goroutine?debug=1" || { echo "debug=1: no answer"; return; }
    total=$(sed -n '1s/^goroutine profile: total \([0-9]*\)$/\1/p' "$d/g1")
    sum=$(awk '$2 == "@" { s += $1 } END { print s + 0 }' "$d/g1")
    [ -n "$total" ] && [ "$total" = "$sum" ] && [ "$total" -ge 9 ] ||
        { echo "debug=1: total ${total:-?}, groups add up to $sum"; return; }
    curl -s -m 30 -o "$d/g2" "$url/debug/pprof/goroutine?debug=2" || { echo "debug=2: no answer"; return; }
    total=$(sed -n '1s/^goroutine dump: \([0-9]*\) goroutines$/\1/p' "$d/g2")
    n=$(grep -Ec '^goroutine [0-9]+ \[' "$d/g2")
    [ -n "$total" ] && [ "$total" = "$n" ] && grep -q '^goroutine 1 \[IO wait' "$d/g2" &&
        grep -q '^end of goroutine dump$' "$d/g2" ||
        { echo "debug=2: ${total:-?} goroutines said, $n listed, or main not [IO wait], or no end"; return; }
    grep -Eq '^ *[0-9]+ requests in' "$d/wrk" 2>/dev/null || kill -0 "$wpid" 2>/dev/null ||
        { echo "wrk did not run: $(head -c 200 "$d/wrk")"; return; }
}

for arch in "${arches[@]}"; do
    d=$tmp/$arch
    mkdir -p "$d"
    if [ ! -f "build/$arch/apps/httpd.elf" ]; then
        why="no build/$arch/apps/httpd.elf (make ARCH=$arch)"
    else
        check "$arch" "$d" > "$d/why"     # not $(...): stop needs the pids
        why=$(cat "$d/why")
    fi
    stop
    if [ -z "$why" ]; then
        echo "TEST pprofhttp_$arch PASS"
        passed=$((passed + 1))
    else
        echo "TEST pprofhttp_$arch FAIL $why"
        failed=$((failed + 1))
        tail -n 15 "$d/console" "$d"/*.top "$d/g1" "$d/wrk" 2>/dev/null | sed 's/^/    | /'
    fi
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
