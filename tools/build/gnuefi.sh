#!/bin/bash
# tools/build/gnuefi.sh OUTDIR — unpack Debian's gnu-efi for arm64 (the aarch64 EFI loader's
# crt0, linker script, libraries and headers) at OUTDIR: OUTDIR/usr/lib/crt0-efi-aarch64.o,
# OUTDIR/usr/include/efi/... .  The x86_64 loader uses the host's own gnu-efi package
# (tools/build/deps.sh efi); Debian has no cross package of gnu-efi, so this one is the arm64
# binary package itself, fetched with `apt-get download gnu-efi:arm64` and unpacked with
# `dpkg -x` (nothing is installed).  apt only offers arm64 packages while arm64 is a
# foreign architecture of dpkg's: as root, the script adds it for the download and removes
# it again (with_arch, tools/build/once.sh), leaving dpkg as it found it.
#
# Does nothing when OUTDIR/.stamp matches this script; make runs it when the stamp is
# older than the script.
set -eu
out=${1:?usage: gnuefi.sh OUTDIR}
version=3.0.15-1            # bookworm's; the x86_64 loader is built with the same

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/once.sh"
stamp=$(cat "${BASH_SOURCE[0]}" "$here/once.sh" | sha256sum | cut -c1-16)
once "$out" "$stamp"

deb=$out/gnu-efi_${version}_arm64.deb
if [ ! -s "$deb" ]; then
    if [ "$(id -u)" != 0 ]; then
        echo "gnuefi.sh: fetching gnu-efi:arm64 needs root (dpkg --add-architecture); run:" >&2
        echo "  sudo $0 $out" >&2
        exit 1
    fi
    echo "gnuefi.sh: fetching gnu-efi:arm64 $version from Debian" >&2
    log=$out/gnuefi.log
    : >"$log"
    download() {
        (cd "$out" && apt-get download "gnu-efi:arm64=$version") >>"$log" 2>&1
    }
    if ! with_arch arm64 "$log" download || [ ! -s "$deb" ]; then
        tail -n 20 "$log" >&2
        echo "gnuefi.sh: could not download gnu-efi:arm64 $version (log: $log)" >&2
        exit 1
    fi
fi
rm -rf "${out:?}/usr"
dpkg -x "$deb" "$out"
for f in usr/lib/crt0-efi-aarch64.o usr/lib/elf_aarch64_efi.lds usr/lib/libefi.a \
         usr/lib/libgnuefi.a usr/include/efi/efi.h usr/include/efi/aarch64/efibind.h; do
    [ -f "$out/$f" ] || { echo "gnuefi.sh: $deb holds no $f" >&2; exit 1; }
done
echo "$stamp" >"$out/.stamp"
