#!/bin/bash
# tools/build/linuxapps.sh OUTDIR ARCH MODULES SPEEDTEST1 REDIS - the initramfs of
# the Linux guest of `make bench-apps` at OUTDIR/initrd.cpio: the
# programs that the benchmark runs on Spindle, here for Linux, to be
# booted with the Debian kernel of tools/build/linuxguest.sh under the same
# QEMU flags as Spindle's images.  It holds:
#   /init                    tools/build/linuxinit.c, static (host gcc):
#                            loads the modules, sets up eth0, runs a program
#   /modules/                MODULES (linuxguest.sh's OUTDIR/modules): the
#                            virtio-net driver and its order file
#   /usr/bin/memcached       Debian's own memcached binary (bookworm's
#                            current 1.6.18 package, as `apt-get download`
#                            gives it), with the shared libraries it needs
#                            from Debian's packages (libevent-2.1-7,
#                            libsasl2-2, libssl3, libc6) and the dynamic
#                            loader, at the paths Debian installs them
#   /usr/bin/speedtest1      SPEEDTEST1: SQLite's speedtest1 from the same
#                            source as the Spindle port, static
#                            (ports/sqlite/build.sh host-static)
#   /usr/bin/redis-server    REDIS: Redis 7.0.15's redis-server from the
#                            same Debian source as the Spindle port, static
#                            (ports/redis/build.sh host-static)
# OUTDIR/versions names the packages used.  The packages are fetched once
# (nothing is installed; OUTDIR/debs/.stamp matches this script); the
# initramfs is made again on every run, which takes a second.
#
# x86_64 only: an aarch64 guest would need arm64 packages and a static
# arm64 speedtest1 (libc6-dev-arm64-cross), which this does not fetch.
set -eu
out=${1:?usage: linuxapps.sh OUTDIR ARCH MODULES SPEEDTEST1 REDIS}
arch=${2:?} modules=${3:?} speedtest1=${4:?} redis=${5:?}
case $arch in
x86_64) darch=amd64 triplet=x86_64-linux-gnu ;;
*) echo "linuxapps.sh: ARCH=$arch: the Linux guest of bench-apps is x86_64 only" >&2; exit 2 ;;
esac
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
pkgs=(memcached libevent-2.1-7 libsasl2-2 libssl3 libc6)
for f in "$modules/order" "$speedtest1" "$redis"; do
    [ -f "$f" ] || { echo "linuxapps.sh: no $f" >&2; exit 2; }
done
mkdir -p "$out"
out=$(cd "$out" && pwd)
exec 9>"$out/.lock"
flock 9

# The packages, once.
debs=$out/debs
stamp=$(cat "${BASH_SOURCE[0]}" | sha256sum | cut -c1-16)-$darch
if [ "$(cat "$debs/.stamp" 2>/dev/null)" != "$stamp" ]; then
    rm -rf "$debs"
    mkdir -p "$debs"
    chmod 777 "$debs"     # apt downloads as user _apt
    echo "linuxapps.sh: fetching ${pkgs[*]} ($darch) from Debian" >&2
    if ! (cd "$debs" && apt-get download "${pkgs[@]/%/:$darch}") >"$out/fetch.log" 2>&1; then
        tail -n 20 "$out/fetch.log" >&2
        echo "linuxapps.sh: apt-get download failed (log: $out/fetch.log); try 'apt-get update'" >&2
        exit 1
    fi
    echo "$stamp" >"$debs/.stamp"
fi

stage=$out/stage root=$out/root
rm -rf "$stage" "$root"
mkdir -p "$stage" "$root/usr/bin" "$root/lib/$triplet"
: >"$out/versions.new"
for d in "$debs"/*.deb; do
    dpkg-deb -x "$d" "$stage"
    echo "$(dpkg-deb -f "$d" Package) $(dpkg-deb -f "$d" Version)" >>"$out/versions.new"
done

# real PATH: PATH inside the stage with its symbolic links followed
# there (an absolute link names a path of the stage, not of the host).
real() {
    local p=$1 t
    for _ in 1 2 3 4 5 6 7 8; do
        [ -L "$stage$p" ] || { echo "$p"; return; }
        t=$(readlink "$stage$p")
        case $t in /*) p=$t ;; *) p=$(dirname "$p")/$t ;; esac
    done
    echo "linuxapps.sh: $1: too many links" >&2
    exit 1
}

# need ELF: copies the loader and every library ELF needs (transitively)
# into the root, from the stage.
need() {
    local lib p interp
    interp=$(readelf -l "$1" | sed -n 's/.*Requesting program interpreter: \(.*\)\]/\1/p')
    if [ -n "$interp" ] && [ ! -e "$root$interp" ]; then
        mkdir -p "$root$(dirname "$interp")"
        cp "$stage$(real "$interp")" "$root$interp"
    fi
    for lib in $(readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
        [ ! -e "$root/lib/$triplet/$lib" ] || continue
        p=
        for dir in /lib/$triplet /usr/lib/$triplet; do
            if [ -e "$stage$dir/$lib" ] || [ -L "$stage$dir/$lib" ]; then p=$dir/$lib; break; fi
        done
        [ -n "$p" ] || { echo "linuxapps.sh: $1 needs $lib, which ${pkgs[*]} lack" >&2; exit 1; }
        cp "$stage$(real "$p")" "$root/lib/$triplet/$lib"
        need "$root/lib/$triplet/$lib"
    done
}

cp "$stage/usr/bin/memcached" "$root/usr/bin/memcached"
need "$root/usr/bin/memcached"
cp "$speedtest1" "$root/usr/bin/speedtest1"
cp "$redis" "$root/usr/bin/redis-server"
mkdir -p "$root/modules"
cp -r "$modules/." "$root/modules/"
rm -rf "$stage"

gcc -static -O2 -Wall -Wextra -Werror -o "$out/init" "$here/linuxinit.c"
python3 "$here/mkcpio.py" "$out/initrd.cpio" "$out/init" "$root"
mv "$out/versions.new" "$out/versions"
echo "linuxapps.sh: $out/initrd.cpio ($(du -k "$out/initrd.cpio" | cut -f1) KiB)" >&2
