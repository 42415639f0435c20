#!/bin/sh
# link.sh OUT LD NM CC RELOCS LD-ARGS... - links a kernel image: the
# Makefile's image rule and spindle-cc both link through it.
#
# Two links of LD-ARGS (linker flags, objects and libraries, all but -o).
# The first (OUT.1, with --emit-relocs, removed after) gives the tables
# the second adds: the text symbols for backtraces (ksyms.sh: OUT.ksyms.S)
# and the relocation table that lets the kernel run at another address
# (RELOCS, tools/build/relocs.c: OUT.relocs.S; it stops the link on a
# relocation it does not know).  The linker script puts both after every
# section with code or a relocation site, so the second link moves none.
# The first link has the symbol tables too, empty: with every symbol
# defined in both links, a relocation or GOT slot against one (aarch64
# reaches the weak ksym_* through the GOT) is a site in both.
set -eu
[ $# -ge 6 ] || { echo "usage: link.sh OUT LD NM CC RELOCS LD-ARGS..." >&2; exit 2; }
out=$1 ld=$2 nm=$3 cc=$4 relocs=$5
shift 5
here=$(dirname "$0")
"$here/ksyms.sh" "$nm" --empty > "$out.ksyms.S"
"$cc" -c -o "$out.ksyms.o" "$out.ksyms.S"
"$ld" -q -o "$out.1" "$@" "$out.ksyms.o"
"$here/ksyms.sh" "$nm" "$out.1" > "$out.ksyms.S"
"$relocs" "$out.1" > "$out.relocs.S" || { rm -f "$out.1" "$out.relocs.S"; exit 1; }
"$cc" -c -o "$out.ksyms.o" "$out.ksyms.S"
"$cc" -c -o "$out.relocs.o" "$out.relocs.S"
"$ld" -o "$out" "$@" "$out.ksyms.o" "$out.relocs.o" || { rm -f "$out" "$out.1"; exit 1; }
rm -f "$out.1"
