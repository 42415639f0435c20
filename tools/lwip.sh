#!/bin/bash
# tools/lwip.sh OUTDIR — fetch lwIP 2.1.3 from Debian's `lwip` source package (bookworm,
# 2.1.3+dfsg1-*) and leave the upstream tree at OUTDIR/lwip (src/core/tcp.c, ...).
# make calls it as: tools/lwip.sh build/lwip; kernel/net/lwip.mk compiles the tree.
# Does nothing when OUTDIR/.stamp matches this script; the log of the last fetch is
# OUTDIR/lwip.log. apt-get source needs a deb-src entry: as root this adds one (a copy
# of the system's Debian entry) and installs what is missing; otherwise it prints the
# commands to run and fails.
#
# The upstream tarball is used as it is, without Debian's patches: they serve Debian's
# build and its GNU/Hurd port (CMake and a shared library, a port/ directory, the socket,
# netconn and tcpip APIs, PPP). The one file of ours they touch, core/init.c, only gains
# a socket-only #error. So dpkg-source (dpkg-dev) is not needed either: apt-get source
# --download-only fetches the files and checks them against the signed index, and tar
# unpacks the one we use.
set -eu
out=${1:?usage: lwip.sh OUTDIR}
upstream=2.1.3+dfsg1

stamp=$(sha256sum <"${BASH_SOURCE[0]}" | cut -c1-16)
[ "$(cat "$out/.stamp" 2>/dev/null)" = "$stamp" ] && exit 0

mkdir -p "$out"
out=$(cd "$out" && pwd)
# Two makes may call this at once: fetch once, and let the waiting one find the stamp.
exec 9>"$out/.lock"
flock 9
[ "$(cat "$out/.stamp" 2>/dev/null)" = "$stamp" ] && exit 0
log=$out/lwip.log
: >"$log"
t0=$(date +%s)

fail() { echo "lwip.sh: $*" >&2; exit 1; }
step() {
    echo "lwip: $1" >&2; shift
    if ! "$@" >>"$log" 2>&1; then
        echo "lwip.sh: failed: $*" >&2
        tail -n 20 "$log" >&2
        echo "lwip.sh: full log: $log" >&2
        exit 1
    fi
}
root() { [ "$(id -u)" = 0 ]; }
have_src() { apt-cache showsrc --only-source lwip 2>/dev/null | grep -q "^Version: $upstream-"; }
apt_install() {
    apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$@"
}

# Debian's source index: a deb-src entry, and the lists apt-get update fetches for it.
src=/etc/apt/sources.list.d/spindle-src.sources
if ! have_src; then
    has_src=$(apt-get indextargets --format '$(IDENTIFIER)' | grep -c '^Sources$' || true)
    if ! root; then
        {
            echo "lwip.sh: apt knows no lwip $upstream source package; run:"
            [ "$has_src" != 0 ] || echo "sudo sh -c \"sed 's/^Types:.*/Types: deb-src/'" \
                "/etc/apt/sources.list.d/debian.sources > $src\""
            echo "sudo apt-get update"
        } >&2
        exit 1
    fi
    if [ "$has_src" = 0 ]; then
        [ -f /etc/apt/sources.list.d/debian.sources ] ||
            fail "no /etc/apt/sources.list.d/debian.sources to copy; add a deb-src entry for bookworm main"
        echo "lwip: adding $src (deb-src)" >&2
        sed 's/^Types:.*/Types: deb-src/' /etc/apt/sources.list.d/debian.sources >"$src"
    fi
    step "apt-get update" apt-get update
    have_src || fail "apt's deb-src entries offer no lwip $upstream (Debian 12 bookworm's); see $log"
fi
# tar -x of the .tar.xz runs xz.
if ! command -v xz >/dev/null; then
    root || fail "xz is missing; run: sudo apt-get install -y --no-install-recommends xz-utils"
    step "installing xz-utils" apt_install xz-utils
fi

# A fresh download each time the stamp is stale; apt drops to user _apt to download,
# which must be able to write there.
tmp=$out/fetch
rm -rf "$tmp" "$out/.stamp"
mkdir -p "$tmp"
chmod 777 "$tmp"
(cd "$tmp" && step "apt-get source lwip" apt-get source --download-only lwip)
orig=$(compgen -G "$tmp/lwip_$upstream.orig.tar.*" || true)
[ -n "$orig" ] || fail "apt-get source lwip gave no lwip_$upstream.orig.tar.* (got: $(ls "$tmp"))"
step "unpack ${orig##*/}" tar -xf "$orig" -C "$tmp"
tree=$(compgen -G "$tmp/lwip*/src/core/tcp.c" || true)
[ -n "$tree" ] || fail "no */src/core/tcp.c in ${orig##*/}; see $log"
# Renames, not a copy: a make of another ARCH may be compiling from the old tree.
[ ! -e "$out/lwip" ] || mv "$out/lwip" "$tmp/old"
mv "${tree%/src/core/tcp.c}" "$out/lwip"
rm -rf "$tmp"
echo "$stamp" >"$out/.stamp"
echo "lwip: done in $(( $(date +%s) - t0 ))s -> $out/lwip" >&2
