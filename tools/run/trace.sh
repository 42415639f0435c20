#!/bin/bash
# trace.sh ARCH IMAGE SMP OUT [kernel command line...] - boots IMAGE with
# the execution tracer on (trace=1 before the given command line, so a
# trace= or trace_buf= there wins), then converts its dump with
# tools/run/trace.py: OUT.json for Perfetto (ui.perfetto.dev) or
# chrome://tracing, and the summary on stdout.  `make trace` runs it.
#
# The console goes to OUT.log and, without its TRACE lines, to stdout.
# The dump is in OUT.log (bare metal: the serial console), or in
# OUT.dump (the hosted builds, through trace_file=).  Exits with the
# app's status, or 1 if there was no dump to convert.
set -u
arch=$1 image=$2 smp=$3 out=$4
shift 4
src=$out.log targs=()
case $arch in
hosted*) src=$out.dump targs=("trace_file=$out.dump"); rm -f "$src" ;;
esac
mkdir -p "$(dirname "$out")"
# The kernel's keys come before "--": put ours first.
tools/run/qemu.sh "$arch" "$image" "$smp" trace=1 "${targs[@]}" "$@" < /dev/null |
    tee "$out.log" | grep --line-buffered -v '^TRACE '
rc=${PIPESTATUS[0]}
sed -i 's/\r$//' "$out.log"     # the UART sends CR LF
if ! python3 tools/run/trace.py json "$src" -o "$out.json"; then
    echo "trace: no trace to convert in $src (exit status $rc)" >&2
    exit 1
fi
echo "trace: $out.json (open it in https://ui.perfetto.dev or chrome://tracing);" \
     "dump in $src; make trace-png draws $out.png"
exit "$rc"
