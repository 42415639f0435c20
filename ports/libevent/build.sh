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
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
cd "$top"
case $arch in x86_64|aarch64) ;; *) echo "libevent/build.sh: ARCH $arch: x86_64 or aarch64" >&2; exit 1 ;; esac

CONF=(--disable-shared --enable-static --disable-openssl --disable-samples
      --disable-libevent-regress --disable-doxygen-doc --disable-dependency-tracking)

say() { echo "libevent: $*" >&2; }
fail() { echo "libevent/build.sh: $*" >&2; exit 1; }
step() {
    local log=$1; say "$2"; shift 2
    if ! "$@" >>"$log" 2>&1; then
        echo "libevent/build.sh: failed: $*" >&2
        tail -n 20 "$log" >&2
        echo "libevent/build.sh: full log: $log" >&2
        exit 1
    fi
}

tools/build/deps.sh ports
ports/debsrc.sh libevent libevent 2.1.12-stable
src=$top/build/ports/libevent/src

bin=$top/build/$arch/bin
sysroot=$top/build/$arch/sysroot
[ -x "$bin/spindle-cc" ] || fail "no $bin/spindle-cc: make toolchain ARCH=$arch"
dir=build/$arch/ports/libevent
mkdir -p "$dir"
exec 8>"$top/$dir.lock"
flock 8

# Configured afresh when this script, the compiler or the set of the
# sysroot's headers changes (a header that appears, such as <netdb.h>,
# changes what configure finds).
log=$top/$dir/build.log
key=$( { cat "${BASH_SOURCE[0]}" "$bin/spindle-cc"; (cd "$sysroot/include" && find . -name '*.h' | sort); } |
      sha256sum | cut -c1-16)
if [ "$(cat "$dir/.configured" 2>/dev/null)" != "$key" ]; then
    rm -rf "$dir"
    mkdir -p "$dir"
    : >"$log"
    (cd "$dir" && step "$log" "configure ($arch)" env CC="$bin/spindle-cc" AR="$bin/spindle-ar" \
        RANLIB="$bin/spindle-ranlib" PKG_CONFIG="$bin/spindle-pkg-config" CFLAGS="-O2 -g" \
        "$src/configure" --host="$arch-spindle-elf" --build="$(gcc -dumpmachine)" \
        --prefix="$sysroot" "${CONF[@]}")
    echo "$key" >"$dir/.configured"
fi
: >>"$log"
grep -q "^#define HAVE_EPOLL 1" "$dir/config.h" ||
    fail "configure did not find epoll (see $dir/config.log)"
(cd "$dir" && step "$log" "libevent ($arch)" make)
(cd "$dir" && step "$log" "installing into $sysroot" make install-libLTLIBRARIES install-data)
rm -f "$sysroot"/lib/libevent*.la      # libtool's, for shared builds
say "$sysroot/lib/libevent.a"
