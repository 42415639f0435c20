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
# failure fails its unit.  Then the data across a reboot (four boots of
# a second or so): an RDB saved, exported at SHUTDOWN (export=,
# qemu.sh's EXPORT=) and booted again as the initrd; the same for the
# AOF of ports/redis/redis.conf, with no SAVE.
#
# The server runs with the suite's settings (tests/assets/default.conf)
# that matter to it, no save rules and no AOF (both need fork) and no
# protected mode (clients come from QEMU's user network).  If it stops
# answering, it is booted again for the next unit.
#
# Prints `TEST redis_<arch>_cli_<check> PASS|FAIL`, `TEST
# redis_<arch>_<unit> PASS|FAIL` per suite unit (the failed tests below
# it), `TEST redis_<arch>_benchmark PASS|FAIL`, `TEST
# redis_<arch>_reboot_rdb|reboot_aof[_<check>] PASS|FAIL`, then `N passed, M
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

# boot ARCH LOG [COMMAND LINE...]: boots the image with the command
# line (by default `-- ARGS`) and qemu.sh's variables in boot_env (such as
# INITRD= and EXPORT=); 0 once it answers PING (within 90 s).
boot_env=()
boot() {
    local i arch=$1 log=$2
    shift 2
    [ $# != 0 ] || set -- -- "${ARGS[@]}"
    port=$(free_port)
    setsid env NET=user HOSTPORT="$port" GUESTPORT=6379 QUIET=1 "${boot_env[@]}" \
        timeout -k 5 3600 tools/run/qemu.sh "$arch" "build/$arch/ports/redis/redis-server.elf" "$SMP" \
        "$@" > "$log" 2>&1 < /dev/null &
    pgid=$!
    for i in $(seq 360); do
        sleep 0.25
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

# halt: SHUTDOWN NOSAVE; 0 once the machine has ended with status 0
# (within 60 s).
halt() {
    local rc
    cli shutdown nosave > /dev/null
    for _ in $(seq 240); do
        kill -0 "$pgid" 2>/dev/null || break
        sleep 0.25
    done
    kill -0 "$pgid" 2>/dev/null && { stop; return 1; }
    wait "$pgid"
    rc=$?
    pgid=
    return $rc
}

# reboot_rdb ARCH: keys SET, SAVE, one more SET, SHUTDOWN NOSAVE with
# export=/dump.rdb (qemu.sh's EXPORT= makes it a cpio archive); booted
# again with that archive as its initrd, the saved keys are back and the
# later one is not.
reboot_rdb() {
    local n=redis_$1_reboot_rdb log=$tmp/reboot.$1 cpio=$tmp/rdb.$1.cpio
    boot_env=(EXPORT="$cpio")
    if ! boot "$1" "$log" export=/dump.rdb -- "${ARGS[@]}"; then
        result "$n" FAIL "Redis did not answer"
        tail -n 20 "$log" | sed 's/^/    | /'
        stop
        boot_env=()
        return
    fi
    cli set spindle:saved "v $1" > /dev/null
    cli rpush spindle:list a "b c" d > /dev/null
    cli save > /dev/null
    cli set spindle:late x > /dev/null
    if ! halt || [ ! -s "$cpio" ]; then
        result "$n" FAIL "no dump.rdb exported at shutdown"
        tail -n 20 "$log" | sed 's/^/    | /'
        boot_env=()
        return
    fi
    boot_env=(INITRD="$cpio")
    if ! boot "$1" "$log"; then
        result "$n" FAIL "Redis did not answer when booted with the exported RDB"
        tail -n 20 "$log" | sed 's/^/    | /'
    else
        check "$n" test "$(cli get spindle:saved; cli lrange spindle:list 0 -1; cli exists spindle:late)" = "v $1
a
b c
d
0"
    fi
    stop
    boot_env=()
}

# reboot_aof ARCH: ports/redis/redis.conf (appendonly yes, no automatic
# rewrite) from a packed tree; writes with no SAVE, BGREWRITEAOF refused,
# SHUTDOWN NOSAVE exporting /appendonlydir back into the tree; booted
# again with the tree, the writes are back from the AOF alone.
reboot_aof() {
    local n=redis_$1_reboot_aof log=$tmp/reboot.$1 tree=$tmp/aof.$1 a
    rm -rf "$tree"
    mkdir -p "$tree/etc/redis"
    cp ports/redis/redis.conf "$tree/etc/redis/"
    tools/build/mkcpio.py --tree "$tmp/aof.$1.cpio" "$tree"
    boot_env=(INITRD="$tmp/aof.$1.cpio" EXPORT="$tree")
    if ! boot "$1" "$log" export=/appendonlydir export=/dump.rdb -- /etc/redis/redis.conf; then
        result "$n" FAIL "Redis did not answer with ports/redis/redis.conf"
        tail -n 20 "$log" | sed 's/^/    | /'
        stop
        boot_env=()
        return
    fi
    check "${n}_on" test "$(cli config get appendonly | tail -n 1)" = yes
    cli set spindle:aof "v $1" > /dev/null
    for a in 1 2 3; do cli incr spindle:count > /dev/null; done
    cli hset spindle:h f1 a f2 b > /dev/null
    check "${n}_rewrite_refused" bash -c "timeout 5 redis-cli -h 127.0.0.1 -p $port bgrewriteaof | grep -q \"Can't execute an AOF background rewriting\""
    if ! halt || [ ! -f "$tree/appendonlydir/appendonly.aof.manifest" ]; then
        result "$n" FAIL "no appendonlydir exported at shutdown"
        tail -n 20 "$log" | sed 's/^/    | /'
        boot_env=()
        return
    fi
    check "${n}_no_rdb" test ! -e "$tree/dump.rdb"
    tools/build/mkcpio.py --tree "$tmp/aof.$1.cpio" "$tree"
    boot_env=(INITRD="$tmp/aof.$1.cpio")
    if ! boot "$1" "$log" -- /etc/redis/redis.conf; then
        result "$n" FAIL "Redis did not answer when booted with the exported AOF"
        tail -n 20 "$log" | sed 's/^/    | /'
    else
        check "$n" test "$(cli get spindle:aof; cli get spindle:count; cli hget spindle:h f2)" = "v $1
3
b"
    fi
    stop
    boot_env=()
}

# suite ARCH UNIT...: runs the units, one result per unit.
suite() {
    local arch=$1 unit u log out why
    shift
    local src=build/$arch/ports/redis/src
    local extra booted= down
    grep -v '^[#@%]' tests/host/redis_exceptions | grep -v '^[[:space:]]*$' > "$tmp/skip"
    for unit; do
        u=redis_${arch}_${unit//\//_} log=$tmp/suite.$arch.${unit//\//_}
        why=
        # The server's own arguments for the unit (`%UNIT ARGS...` in the
        # exceptions): a server booted afresh with them (the unit may
        # change what they set), and again without after it.
        extra=$(awk -v u="%$unit" '$1 == u { $1 = ""; print }' tests/host/redis_exceptions)
        down=
        [ "$(cli ping)" = PONG ] || down=1
        if [ -n "$down$extra$booted" ]; then
            stop
            [ -z "$down" ] || tail -n 30 "$tmp/console.$arch" | sed 's/^/    | /'
            # shellcheck disable=SC2086 # extra is a list of words
            boot "$arch" "$tmp/console.$arch" -- "${ARGS[@]}" $extra ||
                { result "$u" FAIL "Redis did not answer after a reboot"; booted=; continue; }
            booted=$extra
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
    reboot_rdb "$arch"
    reboot_aof "$arch"
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
