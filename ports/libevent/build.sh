#!/bin/bash
# ports/libevent/build.sh ARCH - libevent 2.1.12 from Debian's libevent
# source package (bookworm, with Debian's patches), unmodified, as static
# libraries in build/<arch>/sysroot: lib/libevent*.a, include/event2/,
# lib/pkgconfig/libevent*.pc.  ports/libevent/port.mk calls it.
#
# Configured in build/<arch>/ports/libevent as a cross build
# (--host=<arch>-spindle-elf) with build/<arch>/bin/spindle-cc, and
# installed into the sysroot; tools/build/toolchain.sh makes the sysroot
# afresh, so port.mk installs again after it.  Log: build.log there.
#
# The options:
#   --disable-shared         an image is one static executable
#   --disable-openssl        no TLS library in the sysroot
#   --disable-samples, --disable-libevent-regress
#                            only the libraries are wanted
# configure finds epoll (<sys/epoll.h>, epoll_create1), eventfd, pipe2,
# poll, select and pthreads in posix/; what it finds missing is listed in
# docs/porting.md and checked here: the build fails if epoll is not the
# chosen back end.
set -eu
arch=${1:?usage: build.sh x86_64|aarch64}
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$top"
PORT=libevent
. ports/port.sh
case $arch in x86_64|aarch64) ;; *) fail "ARCH $arch: x86_64 or aarch64" ;; esac

CONF=(--disable-shared --enable-static --disable-openssl --disable-samples
      --disable-libevent-regress --disable-doxygen-doc --disable-dependency-tracking)

tools/build/deps.sh ports
ports/debsrc.sh libevent libevent 2.1.12-stable
src=$top/build/ports/libevent/src

bin=$top/build/$arch/bin
sysroot=$top/build/$arch/sysroot
[ -x "$bin/spindle-cc" ] || fail "no $bin/spindle-cc: make toolchain ARCH=$arch"
dir=build/$arch/ports/libevent
port_lock "$dir"

# Configured afresh when this script, the compiler or the set of the
# sysroot's headers changes (ports/port.sh: cross_key).
cross_configure "$dir" "$(cross_key "$arch" "${BASH_SOURCE[0]}")" "$arch" "$src" \
    --prefix="$sysroot" "${CONF[@]}"
log=$top/$dir/build.log
grep -q "^#define HAVE_EPOLL 1" "$dir/config.h" ||
    fail "configure did not find epoll (see $dir/config.log)"
(cd "$dir" && step "$log" "libevent ($arch)" make)
(cd "$dir" && step "$log" "installing into $sysroot" make install-libLTLIBRARIES install-data)
rm -f "$sysroot"/lib/libevent*.la      # libtool's, for shared builds
say "$sysroot/lib/libevent.a"
