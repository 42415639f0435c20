#!/bin/bash
# bench-go.sh ARCH SMP [reps=N] [only=a,b] - Spindle's benchmarks beside the
# same workloads in Go.  Runs tools/bench.sh ARCH SMP with the args
# (Spindle's BENCH lines), then build/go/bench (apps/bench/go) with
# GOMAXPROCS=SMP and the same args, one after the other so that neither
# takes CPU from the other, and prints one table of both
# (tools/bench-table.sh).  Both raw outputs stay in build/bench-go/.
#
# With the execution tracer on for Spindle (trace= in $CMDLINE, which
# tools/bench.sh gives the kernel), Go's runs with its own tracer on too
# (trace=build/bench-go/go.trace), so that the two tracers' costs are
# measured side by side.
#
# It builds nothing: `make bench-go` builds the Spindle image and the Go
# binary first.  Exits non-zero when either side failed; the table then
# shows "-" for what that side did not measure.
set -u
if [ $# -lt 2 ]; then
    echo "usage: tools/bench-go.sh ARCH SMP [reps=N] [only=a,b]" >&2
    exit 2
fi
arch=$1 smp=$2
shift 2
gobench=build/go/bench
if [ ! -x "$gobench" ]; then
    echo "bench-go.sh: no $gobench; run 'make bench-go'" >&2
    exit 2
fi
out=build/bench-go
mkdir -p "$out"

date=$(date -u '+%Y-%m-%d %H:%M UTC')
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)

echo "bench-go: Spindle ($arch, smp $smp): tools/bench.sh $arch $smp $*" >&2
tools/bench.sh "$arch" "$smp" "$@" > "$out/spindle.txt"
sp_rc=$?
# bench.sh prints nothing on stdout when a boot fails (why goes to stderr,
# above); say so where the table shows it.
[ $sp_rc = 0 ] || echo "# ERROR tools/bench.sh failed (exit status $sp_rc)" \
    >> "$out/spindle.txt"
goargs=("$@")
case " ${CMDLINE:-} " in
*" trace=1 "* | *" trace=on "* | *" trace=wrap "*)
    goargs+=("trace=$out/go.trace") ;;
esac
echo "bench-go: Go (GOMAXPROCS=$smp): $gobench ${goargs[*]}" >&2
# As bench.sh does for Spindle: other QEMUs take CPU from Go's threads.
others=$(pgrep -c -f '^qemu-system-' || true)
GOMAXPROCS=$smp "$gobench" "${goargs[@]}" > "$out/go.txt"
go_rc=$?
others_end=$(pgrep -c -f '^qemu-system-' || true)
if [ "$others" != 0 ] || [ "$others_end" != 0 ]; then
    echo "# warning: QEMU processes were running ($others at the start," \
         "$others_end at the end); the figures are unreliable" >> "$out/go.txt"
fi

echo "# bench-go: $date, host CPU ${cpu:-unknown} ($(nproc) threads)," \
     "load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
tools/bench-table.sh "$out/spindle.txt" "$out/go.txt"
echo "Raw outputs: $out/spindle.txt, $out/go.txt"
[ $sp_rc = 0 ] || echo "bench-go: Spindle's run failed (exit status $sp_rc)" >&2
[ $go_rc = 0 ] || echo "bench-go: Go's run failed (exit status $go_rc)" >&2
[ $sp_rc = 0 ] && [ $go_rc = 0 ]
