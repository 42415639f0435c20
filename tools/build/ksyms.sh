#!/bin/sh
# ksyms.sh NM ELF > ksyms.S - the text symbols of ELF, sorted by address,
# as the tables kernel/ksym.c searches for backtraces, with the link
# address of __kernel_start (0 if none) that those addresses assume.
set -eu
"$1" -n "$2" | awk 'BEGIN { n = 0 }
    NF == 3 && $3 == "__kernel_start" { base = $1 }
    NF == 3 && $2 ~ /^[tTwW]$/ && $3 !~ /^\.L/ { addr[n] = $1; name[n] = $3; n++ }
    END {
        print "\t.section .ksyms, \"a\""
        print "\t.balign 8"
        print "\t.globl ksym_count, ksym_link_base, ksym_addrs, ksym_name_offs, ksym_names"
        printf "ksym_count:\n\t.quad %d\n", n
        printf "ksym_link_base:\n\t.quad 0x%s\nksym_addrs:\n", base == "" ? "0" : base
        for (i = 0; i < n; i++) printf "\t.quad 0x%s\n", addr[i]
        print "ksym_name_offs:"
        off = 0
        for (i = 0; i < n; i++) { printf "\t.long %d\n", off; off += length(name[i]) + 1 }
        print "ksym_names:"
        for (i = 0; i < n; i++) printf "\t.asciz \"%s\"\n", name[i]
    }'
