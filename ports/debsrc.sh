#!/bin/bash
# ports/debsrc.sh NAME PACKAGE UPSTREAM - Debian's source package PACKAGE
# (upstream version UPSTREAM, bookworm's, after any epoch) unpacked once into
# build/ports/NAME/src with Debian's patch series applied; silent when it
# is there already.  Run from the top of the tree (a port's build.sh
# calls it).  Log: build/ports/NAME/fetch.log.
#
# apt-get source needs a deb-src entry: as root one is added beside
# debian.sources (as tools/build/lwip.sh does) and apt's lists are
# refreshed; otherwise the script says what to run.  A patched file keeps
# the time stamp it had in the tarball, so that a patch to Makefile.am or
# configure.ac does not make the build run automake or autoconf.
set -eu
name=${1:?usage: debsrc.sh NAME PACKAGE UPSTREAM} pkg=${2:?} upstream=${3:?}
stamp=$upstream-debian-2

PORT=$name
. ports/port.sh

. tools/build/once.sh
once "build/ports/$name" "$stamp"
log=$out/fetch.log tmp=$out/fetch
: >"$log"
if ! apt-cache showsrc --only-source "$pkg" 2>/dev/null | grep -q "^Version: \([0-9]*:\)\?$upstream-"; then
    [ "$(id -u)" = 0 ] || fail "apt knows no $pkg $upstream source package; add a deb-src entry (see tools/build/lwip.sh) and run apt-get update"
    src=/etc/apt/sources.list.d/spindle-src.sources
    if ! apt-get indextargets --format '$(IDENTIFIER)' | grep -q '^Sources$'; then
        [ -f /etc/apt/sources.list.d/debian.sources ] || fail "no debian.sources to copy into a deb-src entry"
        sed 's/^Types:.*/Types: deb-src/' /etc/apt/sources.list.d/debian.sources >"$src"
    fi
    step "$log" "apt-get update (deb-src)" apt-get update
fi
rm -rf "$tmp" "$out/src" "$out/.stamp"
mkdir -p "$tmp"
chmod 777 "$tmp"      # apt downloads as user _apt
(cd "$tmp" && step "$log" "fetching Debian's $pkg source" apt-get source --download-only "$pkg")
orig=$(compgen -G "$tmp/${pkg}_$upstream.orig.tar.*" | head -n 1 || true)
deb=$(compgen -G "$tmp/${pkg}_$upstream-*.debian.tar.*" | head -n 1 || true)
[ -n "$orig" ] && [ -n "$deb" ] || fail "apt-get source $pkg gave no $upstream orig and debian tarballs"
mkdir "$tmp/tree"
step "$log" "unpacking ${orig##*/}" tar -xf "$orig" -C "$tmp/tree"
top=$(compgen -G "$tmp/tree/*" | head -n 1)
[ -d "$top" ] || fail "${orig##*/} holds no folder"
step "$log" "unpacking ${deb##*/}" tar -xf "$deb" -C "$top"
while read -r p; do
    case $p in ''|'#'*) continue ;; esac
    # The files the patch changes, and their time stamps before it.
    files=$(sed -n 's|^+++ [^/]*/\([^[:space:]]*\).*|\1|p' "$top/debian/patches/$p")
    for f in $files; do [ ! -e "$top/$f" ] || touch -r "$top/$f" "$top/$f.debsrc-time"; done
    step "$log" "Debian patch $p" patch -d "$top" -p1 --forward --batch -i "debian/patches/$p"
    for f in $files; do
        [ ! -e "$top/$f.debsrc-time" ] || { touch -r "$top/$f.debsrc-time" "$top/$f"; rm "$top/$f.debsrc-time"; }
    done
done < "$top/debian/patches/series"
mv "$top" "$out/src"
rm -rf "$tmp"
echo "$stamp" >"$out/.stamp"
