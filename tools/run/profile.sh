#!/bin/bash
# profile.sh ARCH IMAGE SMP OUT HZ [kernel command line...] - boots IMAGE
# with the CPU profiler on at HZ samples a second per core (profile=HZ
# before the given command line, so a profile= there wins), then turns
# its dump into OUT.pb.gz (pprof's format: go tool pprof OUT.pb.gz) and
# OUT.folded (folded stacks for flame graphs) with tools/run/pprof.py, and
# prints the first lines of `go tool pprof -top` when Go is installed.
# `make profile` runs it.
#
# The console goes to OUT.log and, without its PROF lines, to stdout.
# The dump is in OUT.log (bare metal: the serial console), or in
# OUT.prof (the hosted builds, through profile_file=).  Exits with the
# app's status, or 1 if there was no profile to convert.
set -u
arch=$1 image=$2 smp=$3 out=$4 hz=$5
shift 5
# The hosted builds write the dump to a file of their own.
src=$out.log pargs=()
if [[ $arch == hosted* ]]; then
    src=$out.prof
    pargs=("profile_file=$src")
    rm -f "$src"
fi
mkdir -p "$(dirname "$out")"
# The kernel's keys come before "--": put ours first.
tools/run/qemu.sh "$arch" "$image" "$smp" "profile=$hz" "${pargs[@]}" "$@" < /dev/null |
    tee "$out.log" | grep --line-buffered -v '^PROF '
rc=${PIPESTATUS[0]}
sed -i 's/\r$//' "$out.log"     # the UART sends CR LF
if ! python3 tools/run/pprof.py convert "$src" --elf "$image" -o "$out"; then
    echo "profile: no profile to convert in $src (exit status $rc)" >&2
    exit 1
fi
if command -v "${GO:-go}" > /dev/null; then
    "${GO:-go}" tool pprof -top "$out.pb.gz" 2> /dev/null | head -n 20
else
    echo "profile: no Go toolchain for go tool pprof (tools/build/deps.sh go installs it)"
fi
echo "profile: $out.pb.gz (go tool pprof -http=: $out.pb.gz), $out.folded" \
     "(flamegraph.pl, speedscope); dump in $src"
exit "$rc"
