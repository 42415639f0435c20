#!/bin/sh
# link.sh OUT LD NM CC RELOCS LD-ARGS... - links a kernel image: the
# Makefile's image rule and spindle-cc both link through it.
#
# Two links of LD-ARGS (linker flags, objects and libraries, all but -o).
# The first (OUT.1, with --emit-relocs, removed after) gives the tables
# the second adds, in OUT.tables.S: the text symbols for backtraces
# (ksyms.sh) and the relocation table that lets the kernel run at
# another address (RELOCS, tools/build/relocs.c; it stops the link on a
# relocation it does not know).  The linker script puts both after every
# section with code or a relocation site, so the second link moves none,
# and gives the first link stand-ins for the symbol table's symbols.
set -eu
[ $# -ge 6 ] || { echo "usage: link.sh OUT LD NM CC RELOCS LD-ARGS..." >&2; exit 2; }
out=$1 ld=$2 nm=$3 cc=$4 relocs=$5
shift 5
here=$(dirname "$0")
"$ld" -q -o "$out.1" "$@"
{ "$here/ksyms.sh" "$nm" "$out.1" && "$relocs" "$out.1"; } > "$out.tables.S" ||
    { rm -f "$out.1" "$out.tables.S"; exit 1; }
"$cc" -c -o "$out.tables.o" "$out.tables.S"
"$ld" -o "$out" "$@" "$out.tables.o" || { rm -f "$out" "$out.1"; exit 1; }
rm -f "$out.1"
