#!/bin/bash
# ports/sqlite/build.sh TARGET - SQLite's speedtest1 from Debian's sqlite3
# source package (bookworm: 3.40.1 with Debian's patches), unmodified.
# ports/sqlite/port.mk calls it.
#
#   TARGET x86_64|aarch64   build/<arch>/ports/sqlite/speedtest1.elf, a Spindle
#                           image, built with build/<arch>/bin/spindle-cc
#                           (make toolchain)
#   TARGET host             build/ports/sqlite/host/speedtest1, the same
#                           program for this Linux host with its gcc, as the
#                           reference whose results the image must match
#   TARGET host-static      build/ports/sqlite/host-static/speedtest1, the
#                           host program linked static: what `make
#                           bench-apps` runs in its x86_64 Linux guest,
#                           which has no shared libraries
#
# The source is fetched once (ports/debsrc.sh) into build/ports/sqlite/src
# with Debian's patch series applied.  Each target is configured in a folder of its own
# with SQLite's configure (a Spindle target as --host=<arch>-spindle-elf,
# a cross build), the amalgamation and libsqlite3.a are made by SQLite's
# own Makefile, and speedtest1.c is compiled and linked against them.
# Logs: <folder>/build.log.
#
# The options, the same for every target so that results compare:
#   --disable-load-extension   no dlopen in a static image (for good)
#   --enable-tempstore=always  temporary tables in memory: no files needed
# and SQLite's default threading (SQLITE_THREADSAFE=1, serialized, on
# pthreads: posix/'s on Spindle).
set -eu
target=${1:?usage: build.sh x86_64|aarch64|host|host-static}
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$top"
upstream=3.40.1

OPTS=
CONF=(--disable-shared --enable-static --disable-tcl --disable-readline --disable-editline
      --disable-load-extension --enable-tempstore=always)

PORT=sqlite
. ports/port.sh

tools/build/deps.sh ports
ports/debsrc.sh sqlite sqlite3 "$upstream"
src=$top/build/ports/sqlite/src

if [ "$target" = host ] || [ "$target" = host-static ]; then
    dir=build/ports/sqlite/$target
    cc=gcc ar=ar ranlib=ranlib host=() out=speedtest1 libs=() cflags=(-O2)
    [ "$target" = host ] || libs=(-static)
else
    case $target in x86_64|aarch64) ;; *) fail "TARGET $target: x86_64, aarch64, host or host-static" ;; esac
    bin=$top/build/$target/bin
    [ -x "$bin/spindle-cc" ] || fail "no $bin/spindle-cc: make toolchain ARCH=$target"
    dir=build/$target/ports/sqlite
    cc=$bin/spindle-cc ar=$bin/spindle-ar ranlib=$bin/spindle-ranlib
    host=(--host="$target-spindle-elf" --build="$(gcc -dumpmachine)")
    out=speedtest1.elf libs=() cflags=(-O2)
fi

# One build of a target at a time: make test's makes of both arches
# each build the host program.
port_lock "$dir"

# Configured afresh when this script or the compiler changes (the
# compiler's script holds the ABI flags); SQLite's Makefile rebuilds the
# rest when its sources change.
configure_once "$dir" "$(cat "${BASH_SOURCE[0]}" "$(command -v "$cc")" | sha256sum | cut -c1-16)" \
    env CC="$cc" AR="$ar" RANLIB="$ranlib" CFLAGS="${cflags[*]}" \
    "$src/configure" "${host[@]}" "${CONF[@]}"
log=$top/$dir/build.log
cross=yes
case $target in host*) cross=no ;; esac
(cd "$dir" && step "$log" "the amalgamation and libsqlite3.a ($target)" \
    make CROSS_BUILDING=$cross OPTS="$OPTS" libsqlite3.la)

# The libraries SQLite's Makefile links its programs with, as configure found them.
tlibs() { printf 'include Makefile\nprint-tlibs:\n\t@echo $(TLIBS)\n' | make -s --no-print-directory -f - print-tlibs; }

# speedtest1, as SQLite's Makefile compiles it (its speedtest1 target
# compiles the amalgamation in again), against that library.
(cd "$dir" && step "$log" "speedtest1 ($target)" "$cc" "${cflags[@]}" -I. $OPTS -DSQLITE_OS_KV_OPTIONAL \
    -o "$out" "$src/test/speedtest1.c" .libs/libsqlite3.a "${libs[@]}" $(tlibs))
say "$dir/$out"
