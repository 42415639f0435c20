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
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
cd "$top"
case $arch in x86_64|aarch64) ;; *) echo "memcached/build.sh: ARCH $arch: x86_64 or aarch64" >&2; exit 1 ;; esac

CONF=(--disable-extstore --disable-unix-socket --disable-sasl --disable-docs
      --disable-coverage --disable-dependency-tracking)

say() { echo "memcached: $*" >&2; }
fail() { echo "memcached/build.sh: $*" >&2; exit 1; }
step() {
    local log=$1; say "$2"; shift 2
    if ! "$@" >>"$log" 2>&1; then
        echo "memcached/build.sh: failed: $*" >&2
        tail -n 20 "$log" >&2
        echo "memcached/build.sh: full log: $log" >&2
        exit 1
    fi
}

tools/build/deps.sh ports
ports/debsrc.sh memcached memcached 1.6.18
src=$top/build/ports/memcached/src

bin=$top/build/$arch/bin
sysroot=$top/build/$arch/sysroot
[ -x "$bin/spindle-cc" ] || fail "no $bin/spindle-cc: make toolchain ARCH=$arch"
[ -f "$sysroot/lib/libevent.a" ] || fail "no libevent in $sysroot: ports/libevent/build.sh $arch"
dir=build/$arch/ports/memcached
mkdir -p "$dir"
exec 8>"$top/$dir.lock"
flock 8

# Configured afresh when this script, the compiler or the set of the
# sysroot's headers changes.
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
        --with-libevent="$sysroot" "${CONF[@]}")
    echo "$key" >"$dir/.configured"
fi
: >>"$log"
# The image is relinked whenever the sysroot (libspindle.a, libevent.a)
# is newer than it: memcached's Makefile knows only its own sources.
[ ! -f "$dir/memcached" ] || [ -z "$(find "$sysroot/lib" -newer "$dir/memcached" -name '*.a')" ] ||
    rm -f "$dir/memcached"
(cd "$dir" && step "$log" "memcached ($arch)" make memcached)
cp "$dir/memcached" "$dir/memcached.elf"
say "$dir/memcached.elf"
