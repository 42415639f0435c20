# ports/port.sh - what the ports' scripts share.  Sourced, after the
# script sets PORT (its name, for messages), from the top of the tree:
#
#   say MSG...               a progress line, "PORT: MSG"
#   fail MSG...              an error line, and exit 1
#   step LOG WHAT CMD...     says WHAT, runs CMD with its output appended
#                            to LOG; on failure, LOG's tail and exit 1
#   port_lock DIR            makes DIR and holds DIR.lock for the rest of
#                            the script: one build of DIR at a time (make
#                            test's makes of both arches may both want
#                            the same host program)
#   configure_once DIR KEY CMD...
#                            runs CMD (a configure) in DIR, emptied first,
#                            with its output in DIR/build.log, when KEY is
#                            not the key of DIR's last configure; records
#                            KEY.  The key names what the configuration
#                            depends on (the script, the compiler, ...).

say() { echo "$PORT: $*" >&2; }
fail() { echo "$PORT: $*" >&2; exit 1; }

step() {
    local log=$1
    say "$2"
    shift 2
    if ! "$@" >>"$log" 2>&1; then
        echo "$PORT: failed: $*" >&2
        tail -n 20 "$log" >&2
        echo "$PORT: full log: $log" >&2
        exit 1
    fi
}

port_lock() {
    mkdir -p "$1"
    exec 8>"$1.lock"
    flock 8
}

configure_once() {
    local dir=$1 key=$2
    shift 2
    [ "$(cat "$dir/.configured" 2>/dev/null)" = "$key" ] && return 0
    rm -rf "$dir"
    mkdir -p "$dir"
    : >"$dir/build.log"
    (cd "$dir" && step "$PWD/build.log" "configure (${dir#build/})" "$@")
    echo "$key" >"$dir/.configured"
}

# cross_key ARCH SCRIPT: a configure key for a cross build: SCRIPT, the
# compiler's wrapper (which holds the ABI flags) and the set of the
# sysroot's headers (a header that appears, such as <netdb.h>, changes
# what configure finds).
cross_key() {
    { cat "$2" "build/$1/bin/spindle-cc"
      (cd "build/$1/sysroot/include" && find . -name '*.h' | sort); } |
        sha256sum | cut -c1-16
}

# cross_configure DIR KEY ARCH SRC ARGS...: configure_once of SRC's
# configure with ARGS, a cross build for ARCH (--host=ARCH-spindle-elf)
# with the toolchain of build/ARCH/bin.
cross_configure() {
    local dir=$1 key=$2 arch=$3 src=$4 bin=$PWD/build/$3/bin
    shift 4
    configure_once "$dir" "$key" env CC="$bin/spindle-cc" AR="$bin/spindle-ar" \
        RANLIB="$bin/spindle-ranlib" PKG_CONFIG="$bin/spindle-pkg-config" CFLAGS="-O2 -g" \
        "$src/configure" --host="$arch-spindle-elf" --build="$(gcc -dumpmachine)" "$@"
}
