#!/bin/bash
# sqlite_test.sh [ARCH...] - SQLite's speedtest1 (ports/sqlite) booted as a
# Spindle image at 2 cores with --memdb --size 2 --verify, its
# verification hash (a digest of every result row of every query) compared
# with that of the same program built for the host from the same source
# with the same options.  ARCH: x86_64 and/or aarch64; by default each
# whose image is built (make test builds it, and the host program, with
# the arch's test images: ports/sqlite/port.mk).  Prints `TEST sqlite_<arch> PASS|FAIL <reason>`
# and `N passed, M failed`; the console tail after a failure.  Run from the
# top of the tree.
set -u
args=(--memdb --size 2 --verify)
passed=0 failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

hash_of() { grep -o 'Verification Hash: [0-9]* [0-9a-f]*' "$1" | tail -n 1; }

want=
if build/ports/sqlite/host/speedtest1 "${args[@]}" > "$tmp/host" 2>&1; then
    want=$(hash_of "$tmp/host")
fi
arches=("$@")
if [ $# = 0 ]; then
    for a in x86_64 aarch64; do
        [ -f "build/$a/ports/sqlite/speedtest1.elf" ] && arches+=("$a")
    done
    [ ${#arches[@]} != 0 ] || arches=(x86_64)
fi
for arch in "${arches[@]}"; do
    why=
    image=build/$arch/ports/sqlite/speedtest1.elf
    if [ -z "$want" ]; then
        why="the host's speedtest1 gave no verification hash"
    elif ! timeout 150 tools/run/qemu.sh "$arch" "$image" 2 -- "${args[@]}" \
            > "$tmp/$arch" 2>&1; then
        why="the boot failed (status $?)"
    else
        got=$(hash_of "$tmp/$arch")
        [ "$got" = "$want" ] || why="hash '${got:-none}', the host's '$want'"
    fi
    if [ -z "$why" ]; then
        echo "TEST sqlite_$arch PASS"
        passed=$((passed + 1))
    else
        echo "TEST sqlite_$arch FAIL $why"
        failed=$((failed + 1))
        tail -n 30 "$tmp/$arch" "$tmp/host" 2>/dev/null | sed 's/^/    | /'
    fi
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
