#!/bin/bash
# ports/redis/build.sh ARCH|host-static - Redis 7.0.15's redis-server
# from Debian's redis source package (bookworm's 5:7.0.15-1~deb12u*, with
# Debian's patches), unmodified, with its bundled Lua, hiredis and
# hdr_histogram: build/<arch>/ports/redis/redis-server.elf (and
# redis-server.Image on aarch64).  ports/redis/port.mk calls it.
#
# host-static: build/ports/redis/host-static/redis-server, the same
# source for this Linux host with its gcc, linked static, with the same
# MALLOC=libc (glibc's malloc), no TLS and no systemd: what `make
# bench-apps` runs in its x86_64 Linux guest (tools/build/linuxapps.sh),
# which has no shared libraries.  Redis's Makefile picks everything else
# for Linux itself.
#
# Redis builds in its own tree, so each arch builds in a copy of the
# fetched source, build/<arch>/ports/redis/src, made afresh when this
# script, the compiler or the set of the sysroot's headers changes
# (ports/port.sh: cross_key); Redis's own Makefile rebuilds the rest when
# a source or header changes, and rebuilds everything when its flags do.
# Log: build/<arch>/ports/redis/build.log.
#
# Redis's Makefile picks the platform from `uname -s` and `uname -m`, and
# its config.h from the compiler's system macros (__linux__, which
# spindle-cc does not define).  The variables given to make:
#   uname_S=Spindle, uname_M=ARCH
#                      no system it knows: its generic flags (-rdynamic,
#                      which spindle-cc drops; -ldl -pthread -lrt, empty
#                      libraries in the sysroot), no jemalloc
#   CC, AR, RANLIB     the toolchain's, for Redis and its deps (Lua's
#                      Makefile runs RANLIB itself)
#   MALLOC=libc        newlib's malloc, with malloc_usable_size for
#                      Redis's accounting (-DUSE_MALLOC_USABLE_SIZE)
#   BUILD_TLS=no, USE_SYSTEMD=no
#                      no OpenSSL, no libsystemd
#   DEPENDENCY_TARGETS=hiredis lua hdr_histogram
#                      the server's; linenoise is redis-cli's
#   REDIS_CFLAGS       what config.h and fmacros.h would find on Linux
#                      and Spindle has: _GNU_SOURCE, epoll (HAVE_EPOLL:
#                      the ae loop on epoll, not select), accept4
#                      (HAVE_ACCEPT4)
#   GIT_DIR            none: Redis's mkreleasehdr.sh would take the
#                      enclosing Spindle repository's commit for its own
set -eu
arch=${1:?usage: build.sh x86_64|aarch64|host-static}
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$top"
PORT=redis
. ports/port.sh
case $arch in x86_64|aarch64|host-static) ;; *) fail "ARCH $arch: x86_64, aarch64 or host-static" ;; esac

tools/build/deps.sh ports
ports/debsrc.sh redis redis 7.0.15
fetched=$top/build/ports/redis/src

if [ "$arch" = host-static ]; then
    dir=build/ports/redis/host-static
    port_lock "$dir"
    key=$(cat "${BASH_SOURCE[0]}" "$fetched/../.stamp" | sha256sum | cut -c1-16)
    if [ "$(cat "$dir/.copied" 2>/dev/null)" != "$key" ]; then
        rm -rf "$dir/src" "$dir/.copied"
        cp -a "$fetched" "$dir/src"
        : >"$dir/build.log"
        echo "$key" >"$dir/.copied"
    fi
    (cd "$dir/src" && step "$top/$dir/build.log" "redis-server (host, static)" \
        env GIT_DIR=/nonexistent make -C src redis-server MALLOC=libc BUILD_TLS=no \
        USE_SYSTEMD=no LDFLAGS=-static)
    cp "$dir/src/src/redis-server" "$dir/redis-server"
    say "$dir/redis-server"
    exit 0
fi

bin=$top/build/$arch/bin
[ -x "$bin/spindle-cc" ] || fail "no $bin/spindle-cc: make toolchain ARCH=$arch"
dir=build/$arch/ports/redis
port_lock "$dir"

# The arch's copy of the tree, made afresh when the key changes.
key=$(cross_key "$arch" "${BASH_SOURCE[0]}")
if [ "$(cat "$dir/.copied" 2>/dev/null)" != "$key" ]; then
    rm -rf "$dir/src" "$dir/.copied"
    cp -a "$fetched" "$dir/src"
    : >"$dir/build.log"
    echo "$key" >"$dir/.copied"
fi
log=$top/$dir/build.log

# The image is relinked whenever the sysroot (libspindle.a) is newer
# than it: Redis's Makefile knows only its own sources.
out=$dir/src/src/redis-server
[ ! -f "$out" ] || [ -z "$(find "$top/build/$arch/sysroot/lib" -newer "$out" -name '*.a' 2>/dev/null)" ] ||
    rm -f "$out"
(cd "$dir/src" && step "$log" "redis-server ($arch)" env GIT_DIR=/nonexistent \
    make -C src redis-server uname_S=Spindle uname_M="$arch" \
    CC="$bin/spindle-cc" AR="$bin/spindle-ar" RANLIB="$bin/spindle-ranlib" \
    MALLOC=libc BUILD_TLS=no USE_SYSTEMD=no DEPENDENCY_TARGETS="hiredis lua hdr_histogram" \
    REDIS_CFLAGS="-D_GNU_SOURCE -DHAVE_EPOLL -DHAVE_ACCEPT4 -DUSE_MALLOC_USABLE_SIZE")
cp "$out" "$dir/redis-server.elf"
[ "$arch" != aarch64 ] || cp "$out.Image" "$dir/redis-server.Image"
say "$dir/redis-server.elf"
