#!/bin/bash
# memcached_test.sh [ARCH...] - the memcached port (ports/memcached)
# booted at 2 cores on QEMU's user network, checked from the host by
# Debian's memccapable (libmemcached-tools; tools/build/deps.sh memcached
# installs it): every ASCII and binary protocol check must pass.  ARCH:
# x86_64 and/or aarch64; by default each whose image is built (make test
# builds it with the arch's test images: ports/memcached/port.mk).
# Prints `TEST memcached_<arch>_<check> PASS|FAIL` per check,
# `TEST memcached_<arch> PASS|FAIL <reason>` for the boot and the run,
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
    why= log=$tmp/$arch
    if [ -n "$deps" ]; then
        why="no memccapable: $deps"
    elif [ ! -f "build/$arch/ports/memcached/memcached.elf" ]; then
        why="no build/$arch/ports/memcached/memcached.elf (make ports ARCH=$arch)"
    elif ! mc_boot "$arch" 2 "$log"; then
        why="memcached did not answer on 127.0.0.1:$mc_port within 90 s"
    else
        # memccapable prints "<protocol> <check>   [pass]" per check and
        # exits non-zero if one failed.
        timeout 120 memccapable -h 127.0.0.1 -p "$mc_port" -t 10 > "$tmp/cap" 2>&1
        rc=$?
        checks=0
        while read -r line; do
            case $line in
            *'[pass]') result "memcached_${arch}_$(echo "${line%\[pass\]}" | xargs | tr ' ' _)" PASS ;;
            *'[fail]'*|*'[FAIL]'*) result "memcached_${arch}_$(echo "${line%\[*}" | xargs | tr ' ' _)" FAIL ;;
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
        result "memcached_$arch" PASS
    else
        result "memcached_$arch" FAIL "$why"
        tail -n 20 "$tmp/cap" "$log" 2>/dev/null | sed 's/^/    | /'
    fi
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
