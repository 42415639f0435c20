#!/bin/bash
# redis_test.sh [--full] [ARCH...] - the Redis port (ports/redis) booted
# at 2 cores on QEMU's user network, checked from the host.  ARCH:
# x86_64 and/or aarch64; by default each whose image is built (make test
# builds it with the arch's test images: ports/redis/port.mk).
#
# REDIS_UNITS="unit/a unit/b" runs those units instead of the slice (or,
# with --full, of every unit; the benchmark still runs).
#
# Each boot: redis-cli round trips (PING; SET then GET; INFO names the
# version and the epoll loop; BGSAVE fails at once, since there is no
# fork, and the server answers after it), then units of Redis's own Tcl
# suite (tests/ of the arch's build tree) in external-server mode
# (`runtest --host --port --durable`): in make test the slice SLICE
# (on aarch64, whose TCG is slower, the shorter SLICE_AARCH64),
# below, with --full (make test-ports) every unit, then 30 s of
# redis-benchmark.  The suite's tests that cannot pass here are skipped,
# each listed with its reason in tests/host/redis_exceptions; any other
# failure fails its unit.
#
# The server runs with the suite's settings (tests/assets/default.conf)
# that matter to it, no save rules and no AOF (both need fork) and no
# protected mode (clients come from QEMU's user network).  If it stops
# answering, it is booted again for the next unit.
#
# Prints `TEST redis_<arch>_cli_<check> PASS|FAIL`, `TEST
# redis_<arch>_<unit> PASS|FAIL` per suite unit (the failed tests below
# it), `TEST redis_<arch>_benchmark PASS|FAIL`, then `N passed, M
# failed`; the console tail after a failure.  Run from the top of the tree.
set -u
full=
[ "${1:-}" = --full ] && { full=1; shift; }
passed=0 failed=0
tmp=$(mktemp -d)
pgid= port=
trap 'stop; rm -rf "$tmp"' EXIT

# make test's slice: units that take a few seconds each under TCG.
SLICE=(unit/type/incr unit/info-command unit/protocol unit/keyspace unit/pubsub unit/functions
       unit/multi unit/other)
SLICE_AARCH64=(unit/type/incr unit/protocol unit/multi)
SMP=2
ARGS=(--save --appendonly no --protected-mode no --enable-debug-command yes
      --enable-protected-configs yes --enable-module-command yes
      --notify-keyspace-events KEA --latency-monitor-threshold 1
      --repl-diskless-sync-delay 0 --propagation-error-behavior panic)

# result NAME PASS|FAIL [NOTE]: a PASS line ends in PASS (the runner's
# rule), its note on the line below; a FAIL line carries its reason.
result() {
    if [ "$2" = PASS ]; then
        passed=$((passed + 1))
        echo "TEST $1 PASS"
        [ -z "${3:-}" ] || echo "    $3"
    else
        failed=$((failed + 1))
        echo "TEST $1 FAIL${3:+ $3}"
    fi
}

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

cli() { timeout 20 redis-cli -h 127.0.0.1 -p "$port" "$@" 2>&1; }

# boot ARCH LOG: boots the image; 0 once it answers PING (within 90 s).
boot() {
    local i
    port=$(free_port)
    setsid env NET=user HOSTPORT="$port" GUESTPORT=6379 QUIET=1 \
        timeout -k 5 3600 tools/run/qemu.sh "$1" "build/$1/ports/redis/redis-server.elf" "$SMP" \
        -- "${ARGS[@]}" > "$2" 2>&1 < /dev/null &
    pgid=$!
    for i in $(seq 90); do
        sleep 1
        kill -0 "$pgid" 2>/dev/null || return 1
        [ "$(cli ping)" = PONG ] && return 0
    done
    return 1
}

stop() {
    [ -n "$pgid" ] || return 0
    kill -- "-$pgid" 2>/dev/null
    wait "$pgid" 2>/dev/null
    pgid=
}

# check NAME CMD...: PASS if CMD succeeds, else FAIL with its output.
check() {
    local name=$1
    shift
    if "$@" > "$tmp/check" 2>&1; then
        result "$name" PASS
    else
        result "$name" FAIL "$(head -c 200 "$tmp/check" | tr '\n' ' ')"
    fi
}

cli_checks() {
    local n=redis_$1_cli
    check "${n}_ping" test "$(cli ping)" = PONG
    check "${n}_set_get" test "$(cli set spindle:k "v $1"; cli get spindle:k)" = "OK
v $1"
    cli info server > "$tmp/info"
    check "${n}_info" grep -q '^redis_version:7.0.15' "$tmp/info"
    check "${n}_epoll" grep -q '^multiplexing_api:epoll' "$tmp/info"
    # No fork: BGSAVE is refused (an error reply, at once), and the
    # server goes on serving.
    check "${n}_bgsave_fails" bash -c "timeout 5 redis-cli -h 127.0.0.1 -p $port bgsave | grep -q ERR"
    check "${n}_after_bgsave" test "$(cli get spindle:k)" = "v $1"
    cli del spindle:k > /dev/null
}

# suite ARCH UNIT...: runs the units, one result per unit.
suite() {
    local arch=$1 unit u log out why
    shift
    local src=build/$arch/ports/redis/src
    grep -v '^[#@]' tests/host/redis_exceptions | grep -v '^[[:space:]]*$' > "$tmp/skip"
    for unit; do
        u=redis_${arch}_${unit//\//_} log=$tmp/suite.$arch.${unit//\//_}
        why=
        if [ "$(cli ping)" != PONG ]; then
            stop
            tail -n 30 "$tmp/console.$arch" | sed 's/^/    | /'
            boot "$arch" "$tmp/console.$arch" ||
                { result "$u" FAIL "Redis did not answer after a reboot"; continue; }
        fi
        # The unit's own options (`@UNIT OPTIONS...` in the exceptions).
        read -r -a opts <<< "$(awk -v u="@$unit" '$1 == u { $1 = ""; print }' tests/host/redis_exceptions)"
        cli flushall > /dev/null
        # --baseport: where the suite's own server looks for a free port,
        # away from its default, which another run may hold, and below
        # Linux's ephemeral ports (32768 up), which connections take.
        (cd "$src" && timeout 900 ./runtest --host 127.0.0.1 --port "$port" --durable \
            --clients 1 --timeout 300 --baseport $((21000 + RANDOM % 11000)) \
            --skipfile "$tmp/skip" "${opts[@]}" --single "$unit") > "$log" 2>&1
        rc=$?
        sed -i 's/\x1b\[[0-9;]*m//g' "$log"
        out=$(grep -E '^\[(err|exception)\]|^\[TIMEOUT\]' "$log")
        [ -z "$out" ] && [ $rc != 0 ] && why="runtest exited with $rc"
        [ -z "$out" ] && ! grep -q 'All tests passed without errors' "$log" &&
            why="${why:-runtest did not finish}"
        if [ -z "$out" ] && [ -z "$why" ]; then
            result "$u" PASS "$(grep -c '^\[ok\]' "$log") passed, $(grep -c '^\[skip\]' "$log") excepted, $(grep -c '^\[ignore\]' "$log") not for an external server$(sed -n 's/^\[1\/1 done\]: [^ ]* (\(.*\))$/, \1/p' "$log")"
        else
            result "$u" FAIL "${why:-$(echo "$out" | wc -l) failed}"
            # Each failure, and the line after it: what the test expected.
            grep -A1 -E '^\[(err|exception)\]|^\[TIMEOUT\]' "$log" | grep -v '^--$' |
                head -n 40 | cut -c1-300 | sed 's/^/    /'
            [ -n "$out" ] || tail -n 15 "$log" | sed 's/^/    | /'
        fi
    done
}

# The suite's units, as runtest lists them.
all_units() {
    (cd "build/$1/ports/redis/src" && tclsh8.6 tests/test_helper.tcl --list-tests) |
        grep -E '^(unit|integration)/'
}

benchmark() {
    local n=redis_$1_benchmark why= end=$((SECONDS + 30)) rounds=0
    while [ $SECONDS -lt $end ]; do
        if ! timeout 120 redis-benchmark -h 127.0.0.1 -p "$port" -c 20 -n 5000 -q \
                -t set,get,incr,lpush,rpop,sadd,hset,zadd,mset > "$tmp/bench" 2>&1 ||
            grep -qi 'error\|refused\|reset' "$tmp/bench"; then
            why="redis-benchmark: $(grep -i 'error\|refused\|reset' "$tmp/bench" | head -n 1)"
            break
        fi
        rounds=$((rounds + 1))
    done
    [ "$(cli ping)" = PONG ] || why="${why:+$why; }Redis stopped answering"
    if [ -z "$why" ]; then
        result "$n" PASS "($rounds rounds in 30 s; last: $(tr '\r' '\n' < "$tmp/bench" | grep -m 1 '^GET'))"
    else
        result "$n" FAIL "$why"
        tr '\r' '\n' < "$tmp/bench" | tail -n 10 | sed 's/^/    | /'
    fi
}

arches=("$@")
if [ $# = 0 ]; then
    for a in x86_64 aarch64; do
        [ -f "build/$a/ports/redis/redis-server.elf" ] && arches+=("$a")
    done
fi
[ ${#arches[@]} != 0 ] || arches=(x86_64)
deps=
tools/build/deps.sh redis > "$tmp/deps" 2>&1 || deps=$(tail -n 1 "$tmp/deps")
for arch in "${arches[@]}"; do
    if [ -n "$deps" ]; then
        result "redis_$arch" FAIL "no redis-cli or tclsh8.6: $deps"
        continue
    elif [ ! -f "build/$arch/ports/redis/redis-server.elf" ]; then
        result "redis_$arch" FAIL "no build/$arch/ports/redis/redis-server.elf (make ports ARCH=$arch)"
        continue
    elif ! boot "$arch" "$tmp/console.$arch"; then
        result "redis_$arch" FAIL "Redis did not answer on 127.0.0.1:$port within 90 s"
        tail -n 30 "$tmp/console.$arch" | sed 's/^/    | /'
        stop
        continue
    fi
    cli_checks "$arch"
    # The suite runs redis-cli and redis-benchmark from the tree (its
    # integration units): Debian's, of the same version, stand in.
    ln -sf "$(command -v redis-cli)" "build/$arch/ports/redis/src/src/redis-cli"
    ln -sf "$(command -v redis-benchmark)" "build/$arch/ports/redis/src/src/redis-benchmark"
    if [ -n "${REDIS_UNITS:-}" ]; then
        read -r -a units <<< "$REDIS_UNITS"
    elif [ -n "$full" ]; then
        mapfile -t units < <(all_units "$arch")
    elif [ "$arch" = aarch64 ]; then
        units=("${SLICE_AARCH64[@]}")
    else
        units=("${SLICE[@]}")
    fi
    suite "$arch" "${units[@]}"
    [ -z "$full" ] || benchmark "$arch"
    stop
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
