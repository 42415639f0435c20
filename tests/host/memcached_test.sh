#!/bin/bash
# memcached_test.sh [ARCH...] - the memcached port (ports/memcached)
# booted at 2 and at 4 cores (with as many worker threads) on QEMU's
# user network, checked from the host by
# Debian's memccapable (libmemcached-tools; tools/build/deps.sh memcached
# installs it): every ASCII and binary protocol check must pass.  ARCH:
# x86_64 and/or aarch64; by default each whose image is built (make test
# builds it with the arch's test images: ports/memcached/port.mk).
# Prints `TEST memcached_<arch>_smp<n>_<check> PASS|FAIL` per check,
# `TEST memcached_<arch>_smp<n> PASS|FAIL <reason>` for the boot and run,
# then `N passed, M failed`; the console tail after a failure.  Run from
# the top of the tree.
set -u
. tests/host/memcached_boot.sh
passed=0 failed=0
tmp=$(mktemp -d)
trap 'mc_stop; rm -rf "$tmp"' EXIT

result() {
    if [ "$2" = PASS ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
    echo "TEST $1 $2${3:+ $3}"
}

arches=("$@")
if [ $# = 0 ]; then
    for a in x86_64 aarch64; do
        [ -f "build/$a/ports/memcached/memcached.elf" ] && arches+=("$a")
    done
    [ ${#arches[@]} != 0 ] || arches=(x86_64)
fi
deps=
tools/build/deps.sh memcached > "$tmp/deps" 2>&1 || deps=$(tail -n 1 "$tmp/deps")
for arch in "${arches[@]}"; do
for smp in 2 4; do
    why= log=$tmp/$arch.$smp name=memcached_${arch}_smp$smp
    if [ -n "$deps" ]; then
        why="no memccapable: $deps"
    elif [ ! -f "build/$arch/ports/memcached/memcached.elf" ]; then
        why="no build/$arch/ports/memcached/memcached.elf (make ports ARCH=$arch)"
    elif ! mc_boot "$arch" "$smp" "$log"; then
        why="memcached did not answer on 127.0.0.1:$mc_port within 90 s"
    else
        # memccapable prints "<protocol> <check>   [pass]" per check and
        # exits non-zero if one failed.
        timeout 120 memccapable -h 127.0.0.1 -p "$mc_port" -t 10 > "$tmp/cap" 2>&1
        rc=$?
        checks=0
        while read -r line; do
            case $line in
            *'[pass]') result "${name}_$(echo "${line%\[pass\]}" | xargs | tr ' ' _)" PASS ;;
            *'[fail]'*|*'[FAIL]'*) result "${name}_$(echo "${line%\[*}" | xargs | tr ' ' _)" FAIL ;;
            *) continue ;;
            esac
            checks=$((checks + 1))
        done < "$tmp/cap"
        [ "$rc" = 0 ] || why="memccapable exited with $rc"
        [ "$checks" -gt 0 ] || why="memccapable ran no check"
        mc_cmd "$mc_port" version 2>/dev/null | grep -q '^VERSION ' ||
            why="${why:+$why; }memcached stopped answering"
    fi
    mc_stop
    if [ -z "$why" ]; then
        result "$name" PASS
    else
        result "$name" FAIL "$why"
        tail -n 20 "$tmp/cap" "$log" 2>/dev/null | sed 's/^/    | /'
    fi
done
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
