#!/bin/bash
# trace.sh ARCH IMAGE SMP OUT [kernel command line...] - boots IMAGE with
# the execution tracer on (trace=1 before the given command line, so a
# trace= or trace_buf= there wins), then converts its dump with
# tools/run/trace.py: OUT.json for Perfetto (ui.perfetto.dev) or
# chrome://tracing, and the summary on stdout.  `make trace` runs it.
# JSON=0 prints the summary alone (the JSON of a few million events
# takes half a minute to make).
#
# The console goes to OUT.log and, without its TRACE lines, to stdout.
# The dump goes to OUT.dump: on bare metal through the host channel (a
# virtio console QEMU writes to the file: qemu.sh's TRACE_FILE), on the
# hosted builds through trace_file=.  A dump that came on the serial
# console instead (no channel) is read from OUT.log.  Exits with the
# app's status, or 1 if there was no dump to convert.
set -u
arch=$1 image=$2 smp=$3 out=$4
shift 4
src=$out.dump targs=()
rm -f "$src"
case $arch in
hosted*) targs=("trace_file=$src") ;;
esac
mkdir -p "$(dirname "$out")"
# The kernel's keys come before "--": put ours first.
TRACE_FILE=$src tools/run/qemu.sh "$arch" "$image" "$smp" trace=1 "${targs[@]}" "$@" < /dev/null |
    tee "$out.log" | grep --line-buffered -v '^TRACE '
rc=${PIPESTATUS[0]}
sed -i 's/\r$//' "$out.log"     # the UART sends CR LF
grep -q '^TRACE BEGIN' "$src" 2>/dev/null || src=$out.log
if [ "${JSON:-1}" = 0 ]; then
    conv=(summary "$src")
else
    conv=(json "$src" -o "$out.json")
fi
if ! python3 tools/run/trace.py "${conv[@]}"; then
    echo "trace: no trace to convert in $src (exit status $rc)" >&2
    exit 1
fi
[ "${JSON:-1}" = 0 ] ||
    echo "trace: $out.json (open it in https://ui.perfetto.dev or chrome://tracing);" \
         "dump in $src; make trace-png draws $out.png"
exit "$rc"
