#!/bin/bash
# memcached_suite.sh [ARCH] - `make test-ports`: memcached's own Perl
# suite (t/*.t of Debian's source, build/ports/memcached/src) against the
# memcached port booted at 2 cores (default ARCH x86_64), then a 30 s
# memcslap load.  Not part of make test (several minutes).
#
# The suite runs in daemon mode (T_MEMD_USE_DAEMON=127.0.0.1:<port>):
# every new_memcached() of a test connects to the one booted server
# instead of starting one.  So a test that starts memcached with
# arguments of its own (new_memcached("-m 3"), -o options, extstore,
# TLS, SASL, Unix sockets, daemonizing) or runs the program itself is
# excluded, and listed, and so is one that moves the server's clock
# (mem_move_time: the debugtime command of the memcached-debug build;
# the image is the release build); the others each start from an empty cache and
# zeroed counters (flush_all, stats reset, stats detail off), as from a
# fresh server.  MemcachedTest.pm asks `memcached-debug -h` of its
# folder which features the server has, so the same source is built for
# the host with the image's configure options
# (build/ports/memcached/host) and the suite runs from there.
#
# memcslap: set, get and mget rounds from 4 client threads for 30 s; any
# round that fails or reports an error fails the run.
# Prints `TEST memcached_suite_<test> PASS|FAIL`, `TEST memcslap PASS|FAIL`,
# then `N passed, M failed`.  Run from the top of the tree.
set -u
arch=${1:-x86_64}
. tests/host/memcached_boot.sh
passed=0 failed=0
tmp=$(mktemp -d)
trap 'mc_stop; rm -rf "$tmp"' EXIT

result() {
    if [ "$2" = PASS ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
    echo "TEST $1 $2${3:+ $3}"
}
die() { echo "memcached_suite.sh: $*" >&2; exit 1; }

tools/build/deps.sh memcached || exit 1
src=build/ports/memcached/src
[ -d "$src/t" ] || die "no $src (make ports ARCH=$arch)"
[ -f "build/$arch/ports/memcached/memcached.elf" ] || die "no build/$arch/ports/memcached/memcached.elf"

# The host's memcached-debug, for its -h; the image's options.
host=build/ports/memcached/host
if [ ! -x "$host/memcached-debug" ]; then
    mkdir -p "$host"
    echo "memcached: the host's memcached-debug (for the suite's feature checks)" >&2
    (cd "$host" && "$OLDPWD/$src/configure" --disable-extstore --disable-unix-socket --disable-sasl \
        --disable-docs --disable-coverage --disable-dependency-tracking && make memcached-debug) \
        > "$tmp/host.log" 2>&1 || { tail -n 20 "$tmp/host.log"; die "the host build failed"; }
fi
ln -sfn "$(cd "$src" && pwd)/t" "$host/t"

# The tests the one server can run: no arguments of their own, no
# debugtime.
tests=() excluded=() debug=()
for t in "$src"/t/*.t; do
    if grep -o 'new_memcached([^)]*)' "$t" | grep -qv "new_memcached()\|new_memcached('')" ||
       grep -q 'start_memcached\|run_help\|fork()\|get_memcached_exe\|\$exe' "$t"; then
        excluded+=("${t##*/}")
    elif grep -q 'mem_move_time' "$t"; then
        debug+=("${t##*/}")
    else
        tests+=("${t##*/}")
    fi
done
echo "memcached suite: ${#tests[@]} tests; ${#excluded[@]} start a server of their own and are excluded:"
echo "${excluded[*]}" | fold -s -w 76 | sed 's/^/    /'
echo "and ${#debug[@]} need memcached-debug's debugtime: ${debug[*]}"

mc_boot "$arch" 2 "$tmp/console" || { tail -n 30 "$tmp/console"; die "memcached did not answer"; }
for t in "${tests[@]}"; do
    mc_cmd "$mc_port" flush_all "stats reset" "stats detail off" > /dev/null
    if (cd "$host" && T_MEMD_USE_DAEMON=127.0.0.1:$mc_port timeout 120 prove "t/$t") > "$tmp/$t.log" 2>&1; then
        result "memcached_suite_${t%.t}" PASS
    else
        result "memcached_suite_${t%.t}" FAIL
        grep -A4 '^#   Failed' "$tmp/$t.log" | head -n 20 | sed 's/^/    | /'
    fi
done

why=
end=$((SECONDS + 30)) rounds=0
while [ $SECONDS -lt $end ]; do
    for test in set get mget; do
        if ! timeout 60 memcslap --servers="127.0.0.1:$mc_port" --test=$test --concurrency=4 \
                --execute-number=2000 > "$tmp/slap" 2>&1 || grep -qi 'error\|fail' "$tmp/slap"; then
            why="memcslap --test=$test: $(grep -i 'error\|fail' "$tmp/slap" | head -n 1)"
            break 2
        fi
        rounds=$((rounds + 1))
    done
done
mc_cmd "$mc_port" version | grep -q '^VERSION ' || why="${why:+$why; }memcached stopped answering"
if [ -z "$why" ]; then
    result memcslap PASS "($rounds rounds in 30 s)"
else
    result memcslap FAIL "$why"
    tail -n 20 "$tmp/slap" "$tmp/console" | sed 's/^/    | /'
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
