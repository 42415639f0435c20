#!/bin/bash
# hostile_test.sh [ARCH...] - a hostile peer on apps/httpd's link, one case
# per attack, each beside honest curl clients (tools/hostile/hostile.py
# says what each case asserts; tools/hostile/hostile.c what each attack
# sends): a SYN flood from spoofed addresses, blind RSTs, SYNs and data
# near a live connection's sequence numbers (RFC 5961), overlapping and
# shuffled segments, fragments in every wrong shape, zero-window and
# tiny-MSS peers, an ARP flood with unasked replies, a ping flood with
# oversized pings, and a UDP flood to closed ports.  httpd boots at 2
# cores with read=4 write=3 linger=1; the network is a TAP device in a
# namespace of its own (root, else the test says so and counts neither
# way: tests/host/httpd_tap.sh), and the peer sends only there.
#
# ARCH: x86_64 and/or aarch64; by default each whose httpd image is built.
# make test runs a slice: every attack on x86_64, those of AARCH64_CASES
# on aarch64, with hostile.py's counts, in two rounds of attacks side by
# side; HOSTILE_CASES=a,b
# runs those cases so, and HOSTILE_CASES=all (make test-hostile) every
# attack at the peer's own, larger counts and rates.  Prints the cases' TEST lines, their
# figures (`#` lines) and `N passed, M failed`.  Run from the top of the
# tree, with build/host/hostile built (make build/host/hostile).
set -u
. tests/host/httpd_tap.sh
httpd_tap_enter hostile "$@"
tmp=$2
shift 2
passed=0 failed=0
# make test's slices: `+` joins attacks run side by side (hostile.py).
X86_64_CASES=blind+segments+zerowin+tinymss+frags+udp,synflood+arp+ping
AARCH64_CASES=blind+segments+tinymss+udp

arches=("$@")
if [ $# = 0 ]; then
    for a in x86_64 aarch64; do
        [ -f "build/$a/apps/httpd.elf" ] && arches+=("$a")
    done
    [ ${#arches[@]} != 0 ] || arches=(x86_64)
fi

for arch in "${arches[@]}"; do
    d=$tmp/$arch
    mkdir -p "$d"
    if [ ! -f "build/$arch/apps/httpd.elf" ] || [ ! -x build/host/hostile ]; then
        echo "TEST hostile_$arch FAIL no build/$arch/apps/httpd.elf or build/host/hostile"
        failed=$((failed + 1))
        continue
    fi
    if ! httpd_tap_boot "$arch" "$d" read=4 write=3 linger=1; then
        echo "TEST hostile_$arch FAIL httpd did not answer within a minute"
        failed=$((failed + 1))
        continue
    fi
    case ${HOSTILE_CASES:-} in
    all) only=(--full) ;;
    "") [ "$arch" = aarch64 ] && only=(--only "$AARCH64_CASES") || only=(--only "$X86_64_CASES") ;;
    *) only=(--only "$HOSTILE_CASES") ;;
    esac
    python3 tools/hostile/hostile.py http://192.0.2.2 "$arch" "${only[@]}" > "$d/out" 2>&1
    cat "$d/out"
    p=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$d/out")
    f=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$d/out")
    if [ -z "$p" ]; then
        echo "TEST hostile_$arch FAIL the driver stopped short: $(tail -n 1 "$d/out")"
        p=0 f=1
    fi
    passed=$((passed + p)) failed=$((failed + f))
    httpd_tap_stop
    if [ "$f" != 0 ]; then
        grep -a '^net:\|panic\|assert' "$d/console" | tail -n 12 | sed 's/^/    | /'
        tail -n 8 "$d/console" | sed 's/^/    | /'
    fi
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
