#!/bin/bash
# synflood_linux.sh [SECS] [RATE] - honest connections a second to a
# server under a SYN flood, Spindle beside Linux, x86_64 at 2 cores under
# the same QEMU (TCG) on the same TAP device in a network namespace of
# its own (tests/host/httpd_tap.sh; root).  Spindle serves apps/httpd;
# Linux (Debian's kernel, tools/build/linuxguest.sh, with its default
# tcp_syncookies=1) serves tools/hostile/tinyhttpd.c under
# tools/build/linuxinit.c.  For each: SECS (10) seconds of
# tools/hostile/conns.py alone, then SECS more beside build/host/hostile's
# synflood at RATE (1850) SYNs a second.  Prints
#   BENCH synflood_<os>_clean_conns <n> conns/s
#   BENCH synflood_<os>_flood_conns <n> conns/s
# with `#` lines giving each run's failures and p99.  Needs
# build/x86_64/apps/httpd.elf, build/host/hostile and build/linux-x86_64.
set -u
. tests/host/httpd_tap.sh
httpd_tap_enter synflood_linux "$@"
tmp=$2
shift 2
secs=${1:-10} rate=${2:-1850}
linux=build/linux-x86_64 out=build/hostile-linux
for f in build/x86_64/apps/httpd.elf build/host/hostile "$linux/vmlinuz" "$linux/modules/order"; do
    [ -e "$f" ] || { echo "synflood_linux: no $f" >&2; exit 2; }
done
mkdir -p "$out/root/usr/bin" "$out/root/modules"
gcc -static -O2 -Wall -Wextra -Werror -o "$out/init" tools/build/linuxinit.c &&
    gcc -static -O2 -Wall -Wextra -Werror -o "$out/root/usr/bin/tinyhttpd" tools/hostile/tinyhttpd.c &&
    cp -r "$linux/modules/." "$out/root/modules/" &&
    python3 tools/build/mkcpio.py "$out/initrd.cpio" "$out/init" "$out/root" || exit 2

boot_linux() {
    # shellcheck disable=SC2054 # QEMU's option values hold commas
    timeout 900 qemu-system-x86_64 -M q35 -accel tcg,thread=multi -cpu qemu64 -smp 2 -m 512 \
        -display none -serial stdio -monitor none -no-reboot \
        -netdev tap,id=n0,ifname=spt0,script=no,downscript=no,vhost=off -device virtio-net-pci,netdev=n0 \
        -kernel "$linux/vmlinuz" -initrd "$out/initrd.cpio" \
        -append "console=ttyS0 quiet panic=-1 -- net=192.0.2.2/24 /usr/bin/tinyhttpd" \
        > "$tmp/linux.console" 2>&1 < /dev/null &
    httpd_tap_qpid=$!
    for _ in $(seq 240); do
        curl -s -m 2 -o /dev/null http://192.0.2.2/ && return 0
        sleep 0.5
    done
    tail -n 20 "$tmp/linux.console" >&2
    return 1
}

for os in spindle linux; do
    mkdir -p "$tmp/$os"
    if [ $os = spindle ]; then
        httpd_tap_boot x86_64 "$tmp/$os" || { echo "synflood_linux: Spindle did not answer" >&2; exit 1; }
    else
        boot_linux || { echo "synflood_linux: Linux did not answer" >&2; exit 1; }
    fi
    read -r _ c cbad cp99 cwhy < <(python3 tools/hostile/conns.py http://192.0.2.2 "$secs")
    build/host/hostile --count "$(awk "BEGIN { print int($rate * ($secs + 1)) }")" --rate "$rate" \
        synflood > "$tmp/$os/flood" 2>&1 &
    fpid=$!
    sleep 0.5
    read -r _ f fbad fp99 fwhy < <(python3 tools/hostile/conns.py http://192.0.2.2 "$secs")
    wait $fpid
    echo "# $os: clean ${c}/s (${cbad} failed: $cwhy; p99 ${cp99} ms); under $rate SYNs/s ${f}/s (${fbad} failed: $fwhy; p99 ${fp99} ms); $(grep -m 1 'synflood [0-9]' "$tmp/$os/flood" | sed 's/^hostile: //')"
    echo "BENCH synflood_${os}_clean_conns $c conns/s"
    echo "BENCH synflood_${os}_flood_conns $f conns/s"
    httpd_tap_stop
done
