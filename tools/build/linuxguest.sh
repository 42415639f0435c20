#!/bin/bash
# tools/build/linuxguest.sh OUTDIR ARCH - a Debian Linux kernel for ARCH (x86_64
# or aarch64) at OUTDIR/vmlinuz, for `make bench-go BENCH_GO_ARCH=ARCH`,
# which boots Go's benchmark as the init of a Linux guest under the same
# QEMU flags as Spindle's images, and for `make bench-apps`, whose guest
# also needs the virtio-net driver: Debian builds it as a module, so the
# modules it needs are kept in OUTDIR/modules/ with OUTDIR/modules/order,
# one file name a line, in an order that loads each after what it
# depends on (tools/build/linuxinit.c loads them).  The kernel is bookworm's current
# linux-image-*-amd64 (or -arm64), fetched with `apt-get download` and
# unpacked with dpkg-deb: nothing is installed.  arm64 packages are offered
# only while arm64 is a foreign architecture of dpkg's: as root, the script
# adds it for the download and removes it again (with_arch, tools/build/once.sh).
#
# Does nothing when OUTDIR/.stamp matches this script.
set -eu
out=${1:?usage: linuxguest.sh OUTDIR ARCH}
arch=${2:?usage: linuxguest.sh OUTDIR ARCH}
case $arch in
x86_64) darch=amd64 ;;
aarch64) darch=arm64 ;;
*) echo "linuxguest.sh: ARCH=$arch is not x86_64 or aarch64" >&2; exit 2 ;;
esac

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/once.sh"
stamp=$(cat "${BASH_SOURCE[0]}" "$here/once.sh" | sha256sum | cut -c1-16)-$arch
once "$out" "$stamp"

log=$out/fetch.log
: >"$log"

# The metapackage names the current ABI's image package; a machine whose
# apt lists were never fetched learns it after an update.
image_pkg() {
    apt-cache depends "linux-image-$darch:$darch" 2>>"$log" |
        sed -n "s/^ *Depends: \(linux-image-[0-9][^ :]*-$darch\).*/\1/p" | head -n 1
}

fetch() {
    pkg=$(image_pkg)
    if [ -z "$pkg" ] && [ "$(id -u)" = 0 ]; then
        apt-get update >>"$log" 2>&1 || true
        pkg=$(image_pkg)
    fi
    if [ -z "$pkg" ]; then
        echo "linuxguest.sh: apt knows no linux-image-$darch (log: $log); try 'apt-get update'" >&2
        return 1
    fi
    echo "linuxguest.sh: fetching $pkg from Debian" >&2
    rm -f "$out"/linux-image-*.deb
    if ! (cd "$out" && apt-get download "$pkg:$darch") >>"$log" 2>&1; then
        tail -n 20 "$log" >&2
        echo "linuxguest.sh: could not download $pkg (log: $log)" >&2
        return 1
    fi
}

with_arch "$darch" "$log" fetch || exit 1
deb=$(ls "$out"/linux-image-*.deb)
rm -rf "${out:?}/boot"
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$out" --wildcards './boot/vmlinuz-*'
mv "$out"/boot/vmlinuz-* "$out/vmlinuz"
rm -rf "${out:?}/boot"

# modules NAME...: NAME.ko and what it depends on (the depends= of its
# .modinfo), each after its dependencies, into $out/modules.  A module
# the package lacks is built into the kernel.
declare -A done_mod
listing=$(dpkg-deb -c "$deb" | awk '{ print $NF }' | grep '\.ko$')
modules() {
    local m path deps
    for m in "$@"; do
        [ -z "${done_mod[$m]:-}" ] || continue
        done_mod[$m]=1
        path=$(grep "/$m\.ko$" <<<"$listing" | head -n 1)
        [ -n "$path" ] || continue
        dpkg-deb --fsys-tarfile "$deb" | tar -x -O "$path" >"$out/modules/$m.ko"
        deps=$(tr '\0' '\n' <"$out/modules/$m.ko" | sed -n 's/^depends=//p' | head -n 1)
        modules ${deps//,/ }
        echo "$m.ko" >>"$out/modules/order"
    done
}
rm -rf "${out:?}/modules"
mkdir -p "$out/modules"
: >"$out/modules/order"
modules virtio_pci virtio_net
rm -f "$deb"
echo "$pkg" >"$out/version"
echo "$stamp" >"$out/.stamp"
