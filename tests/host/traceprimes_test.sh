#!/bin/bash
# traceprimes_test.sh [ARCH...] - `make trace APP=primes SMP=4` loses
# nothing: apps/primes booted at 4 cores through tools/run/trace.sh with
# the default buffers (JSON=0: the summary alone), whose dump must come
# through the host channel, and tools/run/trace.py's summary must name
# all 1,001 Gs of the sieve's chain (created by main, G 1) beside main,
# with no event lost on any core.  ARCH: x86_64 and/or aarch64; by
# default each whose image is built (make test builds it with the arch's
# test images: tests/host/traceprimes_test.mk).  Prints
# `TEST traceprimes_<arch> PASS|FAIL <reason>` and `N passed, M failed`;
# the console and summary tails after a failure.  Run from the top of
# the tree.
set -u
passed=0 failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

arches=("$@")
if [ $# = 0 ]; then
    for a in x86_64 aarch64; do
        [ -f "build/$a/apps/primes.elf" ] && arches+=("$a")
    done
    [ ${#arches[@]} != 0 ] || arches=(x86_64)
fi
for arch in "${arches[@]}"; do
    why= out=$tmp/$arch sum=$tmp/$arch.summary
    if [ ! -f "build/$arch/apps/primes.elf" ]; then
        why="no build/$arch/apps/primes.elf (make ARCH=$arch)"
    elif ! JSON=0 QUIET=1 timeout 150 tools/run/trace.sh "$arch" \
            "build/$arch/apps/primes.elf" 4 "$out" > "$sum" 2>&1; then
        why="the boot or the conversion failed (status $?)"
    elif ! grep -q '^1000 primes through a chain of 1001 goroutines' "$out.log"; then
        why="primes did not finish"
    elif ! grep -qs '^TRACE BEGIN' "$out.dump"; then
        why="the dump did not come through the host channel"
    elif ! grep -Eq '^trace: 1 segment\(s\), [0-9]+ events, 0 lost, 4 cores, .*, 1002 Gs$' "$sum"; then
        why="summary: $(grep -m 1 '^trace: [0-9]* segment' "$sum")"
    elif ! grep -Eq '^events kept/lost per core: core 0 [1-9][0-9]*/0, core 1 [1-9][0-9]*/0, core 2 [1-9][0-9]*/0, core 3 [1-9][0-9]*/0$' "$sum"; then
        why="summary: $(grep -m 1 '^events kept' "$sum")"
    elif ! grep -q '^Gs created, by creator: G 1 1001, the scheduler 1$' "$sum"; then
        why="summary: $(grep -m 1 '^Gs created' "$sum")"
    fi
    if [ -z "$why" ]; then
        echo "TEST traceprimes_$arch PASS"
        passed=$((passed + 1))
    else
        echo "TEST traceprimes_$arch FAIL $why"
        failed=$((failed + 1))
        tail -n 15 "$out.log" "$sum" 2>/dev/null | grep -v '^TRACE ' | sed 's/^/    | /'
    fi
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
