#!/bin/bash
# tools/build/lwip.sh OUTDIR — fetch lwIP 2.1.3 from Debian's `lwip` source package (bookworm,
# 2.1.3+dfsg1-*) and leave the upstream tree at OUTDIR/lwip (src/core/tcp.c, ...).
# make calls it as: tools/build/lwip.sh build/lwip; net/net.mk compiles the tree.
# Does nothing when OUTDIR/.stamp matches this script and our patches (below); the
# log of the last fetch is OUTDIR/lwip.log. apt-get source needs a deb-src entry: as
# root this adds one (a copy of the system's Debian entry) and installs what is
# missing; otherwise it prints the commands to run and fails.
#
# The upstream tarball is used without Debian's patches (ours are below): they serve
# Debian's build and its GNU/Hurd port (CMake and a shared library, a port/ directory,
# the socket, netconn and tcpip APIs, PPP). The one file of ours they touch, core/init.c,
# only gains a socket-only #error. So dpkg-source (dpkg-dev) is not needed either:
# apt-get source --download-only fetches the files and checks them against the signed
# index, and tar unpacks the one we use.
#
# Our own patches, tools/lwip-*.patch listed in $patches below, are applied to that
# pristine tree with patch(1) (Debian's `patch`, installed like xz-utils); each one's
# header says what it fixes and why.  The stamp covers their content, so editing one
# fetches and patches a pristine tree again; one that does not apply is an error.
# (make only runs this script when it is newer than the stamp: net/net.mk's
# stamp rule should list the patches too.)
set -eu
out=${1:?usage: lwip.sh OUTDIR}
upstream=2.1.3+dfsg1

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
patches=(lwip-tcp-in.patch)
for p in "${patches[@]}"; do
    [ -f "$here/$p" ] || { echo "lwip.sh: no $here/$p" >&2; exit 1; }
done
. "$here/once.sh"
stamp=$(cat "${BASH_SOURCE[0]}" "$here/once.sh" "${patches[@]/#/$here/}" | sha256sum | cut -c1-16)
once "$out" "$stamp"
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
# tar -x of the .tar.xz runs xz; our patches need patch.
if ! command -v xz >/dev/null; then
    root || fail "xz is missing; run: sudo apt-get install -y --no-install-recommends xz-utils"
    step "installing xz-utils" apt_install xz-utils
fi
if ! command -v patch >/dev/null; then
    root || fail "patch is missing; run: sudo apt-get install -y --no-install-recommends patch"
    step "installing patch" apt_install patch
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
tree=${tree%/src/core/tcp.c}
# --forward: a patch that looks applied already is a failure too (the tree is pristine).
for p in "${patches[@]}"; do
    step "patch $p" patch -d "$tree" -p1 --forward --batch --no-backup-if-mismatch \
        -i "$here/$p"
done
# tar gives every file the tarball's mtime (2021), older than any object built since:
# a file that differs from the tree it replaces (a patch added, changed or dropped)
# gets the current time, so that make rebuilds what it goes into; one that does not
# keeps the old file's mtime, so that nothing is rebuilt for it.
if [ -d "$out/lwip" ]; then
    (cd "$tree" && find . -type f) | while IFS= read -r f; do
        if cmp -s "$tree/$f" "$out/lwip/$f"; then
            touch -r "$out/lwip/$f" "$tree/$f"
        else
            touch "$tree/$f"
        fi
    done
fi
# Renames, not a copy: a make of another ARCH may be compiling from the old tree.
[ ! -e "$out/lwip" ] || mv "$out/lwip" "$tmp/old"
mv "$tree" "$out/lwip"
rm -rf "$tmp"
echo "$stamp" >"$out/.stamp"
echo "lwip: done in $(( $(date +%s) - t0 ))s -> $out/lwip" >&2
