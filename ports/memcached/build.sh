#!/bin/bash
# ports/memcached/build.sh ARCH - memcached 1.6.18 from Debian's memcached
# source package (bookworm, with Debian's patches), unmodified, linked
# against ports/libevent's static libevent in the sysroot:
# build/<arch>/ports/memcached/memcached.elf (and memcached.Image on
# aarch64).  ports/memcached/port.mk calls it, after ports/libevent.
#
# Configured in build/<arch>/ports/memcached as a cross build
# (--host=<arch>-spindle-elf) with build/<arch>/bin/spindle-cc; memcached's
# own Makefile builds the program.  Log: build.log there.
#
# The options:
#   --disable-extstore     no external storage: Spindle has no files yet
#   --disable-unix-socket  no AF_UNIX addresses (<sys/un.h>) to listen on
#   --disable-sasl, --disable-docs, --disable-coverage
#                          neither libsasl2 nor documentation tools
set -eu
arch=${1:?usage: build.sh x86_64|aarch64}
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$top"
PORT=memcached
. ports/port.sh
case $arch in x86_64|aarch64) ;; *) fail "ARCH $arch: x86_64 or aarch64" ;; esac

CONF=(--disable-extstore --disable-unix-socket --disable-sasl --disable-docs
      --disable-coverage --disable-dependency-tracking)

tools/build/deps.sh ports
ports/debsrc.sh memcached memcached 1.6.18
src=$top/build/ports/memcached/src

bin=$top/build/$arch/bin
sysroot=$top/build/$arch/sysroot
[ -x "$bin/spindle-cc" ] || fail "no $bin/spindle-cc: make toolchain ARCH=$arch"
[ -f "$sysroot/lib/libevent.a" ] || fail "no libevent in $sysroot: ports/libevent/build.sh $arch"
dir=build/$arch/ports/memcached
port_lock "$dir"

# Configured afresh when this script, the compiler or the set of the
# sysroot's headers changes (ports/port.sh: cross_key).
cross_configure "$dir" "$(cross_key "$arch" "${BASH_SOURCE[0]}")" "$arch" "$src" \
    --with-libevent="$sysroot" "${CONF[@]}"
log=$top/$dir/build.log
# The image is relinked whenever the sysroot (libspindle.a, libevent.a)
# is newer than it: memcached's Makefile knows only its own sources.
[ ! -f "$dir/memcached" ] || [ -z "$(find "$sysroot/lib" -newer "$dir/memcached" -name '*.a')" ] ||
    rm -f "$dir/memcached"
(cd "$dir" && step "$log" "memcached ($arch)" make memcached)
cp "$dir/memcached" "$dir/memcached.elf"
say "$dir/memcached.elf"
