#!/bin/bash
# bench-table.sh SPINDLE_OUT GO_OUT - one table of two benchmark outputs:
# Spindle's (tools/bench/bench.sh) and Go's (build/go/bench), each a file of
# "BENCH <name> <value> <unit>" and "# " lines.  tools/bench/bench-go.sh calls
# it on the runs it just made; it works as well on two saved outputs.
#
# The table is Markdown (readable as is, pasteable into README.md): one
# row per BENCH name, in Spindle's order, then any name only Go printed.
# ratio > 1 always means Spindle did better: Go/Spindle for times (ns, us,
# ms), Spindle/Go for figures where more is better (x, ratio).  A figure
# one side lacks shows as "-".  Below the table come the lines that say
# how the figures were made or why one is missing: each side's "# bench:"
# / "# go:" header, warnings, errors, and the preempt and 1-core fib notes.
set -eu
if [ $# != 2 ]; then
    echo "usage: tools/bench/bench-table.sh SPINDLE_OUT GO_OUT" >&2
    exit 2
fi
for f; do
    [ -r "$f" ] || { echo "bench-table.sh: cannot read $f" >&2; exit 2; }
done

awk '
$1 == "BENCH" && NF == 4 {
    name = $2
    if (!(name in unit)) { order[++n] = name; unit[name] = $4 }
    val[side, name] = $3
    next
}
/^# (bench:|go:|warning|ERROR|preempt:|fib at 1 core)/ {
    line = substr($0, 3)
    sub(/^(bench|go): /, "", line)      # the side names it already
    note[++nnotes] = (side == 1 ? "Spindle" : "Go") ": " line
}
function fmtval(s, name) { return ((s, name) in val) ? val[s, name] : "-" }
function ratio(name,   sp, go) {
    if (!((1, name) in val) || !((2, name) in val)) return "-"
    sp = val[1, name] + 0; go = val[2, name] + 0
    if (unit[name] == "x" || unit[name] == "ratio") {
        if (go == 0) return "-"
        return sprintf("%.2f", sp / go)
    }
    if (sp == 0) return "-"
    return sprintf("%.2f", go / sp)
}
END {
    fmt = "| %-18s | %-5s | %10s | %10s | %6s |\n"
    printf fmt, "BENCH", "unit", "Spindle", "Go", "ratio"
    printf "|%s|%s|%s|%s|%s|\n", "--------------------", "-------",
        "-----------:", "-----------:", "-------:"
    for (i = 1; i <= n; i++) {
        name = order[i]
        printf fmt, name, unit[name], fmtval(1, name), fmtval(2, name),
            ratio(name)
    }
    print ""
    print "ratio > 1: Spindle did better (Go/Spindle for times, Spindle/Go for x and ratio)."
    for (i = 1; i <= nnotes; i++) print note[i]
}
' side=1 "$1" side=2 "$2"      # side: 1 Spindle, 2 Go (set even if a file is empty)
