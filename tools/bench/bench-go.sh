#!/bin/bash
# bench-go.sh ARCH SMP [reps=N] [only=a,b] - Spindle's benchmarks beside the
# same workloads in Go.  Runs tools/bench/bench.sh ARCH SMP with the args
# (Spindle's BENCH lines), then Go's benchmark (bench/go) on SMP cores
# with the same args, one after the other so that neither takes CPU from
# the other, and prints one table of both (tools/bench/bench-table.sh).  Both
# raw outputs stay in build/bench-go/.
#
# Where Go runs follows ARCH.  hosted (Spindle as a Linux process): Go
# natively, build/go/bench with GOMAXPROCS=SMP.  x86_64 or aarch64
# (Spindle under QEMU): Go as the init of a Debian Linux guest under the
# same QEMU, machine, CPU model, accelerator (ACCEL=tcg or icount) and
# memory (MEM=, 9216 MiB as tools/bench/bench.sh) as Spindle's image, booted
# with build/linux-ARCH/vmlinuz (tools/build/linuxguest.sh) and the initramfs
# build/go/initrd-ARCH.cpio (tools/build/mkcpio.py).  Go's figures then pay for
# Linux under emulation as Spindle's pay for themselves: the comparison
# the README's TCG columns make.
#
# With the execution tracer on for Spindle (trace= in $CMDLINE, which
# tools/bench/bench.sh gives the kernel), Go's runs with its own tracer on too
# (trace=build/bench-go/go.trace natively, a file in the guest's memory
# under QEMU), so that the two tracers' costs are measured side by side.
#
# It builds nothing: `make bench-go` builds the Spindle image, the Go
# binary and the guest first.  Exits non-zero when either side failed;
# the table then shows "-" for what that side did not measure.
set -u
if [ $# -lt 2 ]; then
    echo "usage: tools/bench/bench-go.sh ARCH SMP [reps=N] [only=a,b]" >&2
    exit 2
fi
arch=$1 smp=$2
shift 2
case $arch in
hosted*) need=(build/go/bench) ;;
x86_64 | aarch64) need=("build/linux-$arch/vmlinuz" "build/go/initrd-$arch.cpio") ;;
*) echo "bench-go.sh: ARCH=$arch is not hosted, x86_64 or aarch64" >&2; exit 2 ;;
esac
for f in "${need[@]}"; do
    if [ ! -s "$f" ]; then
        echo "bench-go.sh: no $f; run 'make bench-go BENCH_GO_ARCH=$arch'" >&2
        exit 2
    fi
done
out=build/bench-go
mkdir -p "$out"
export MEM=${MEM:-9216}

# go_guest ARGS...: Go's benchmark as the init of a Linux guest, its
# console on stdout.  The kernel hands the words after "--" to init; init
# ends with "# exit status N" and powers the machine off.
go_guest() {
    local accel_opt rc
    case ${ACCEL:-tcg} in
    tcg) accel_opt="-accel tcg,thread=multi" ;;
    icount) accel_opt="-accel tcg,thread=single -icount shift=0,sleep=off" ;;
    *) echo "bench-go.sh: ACCEL=$ACCEL: Go's guest runs under tcg or icount" >&2
       return 2 ;;
    esac
    local q=(-smp "$smp" -m "$MEM" -display none -serial stdio -monitor none -no-reboot
             -kernel "build/linux-$arch/vmlinuz" -initrd "build/go/initrd-$arch.cpio")
    if [ "$arch" = x86_64 ]; then
        # shellcheck disable=SC2086 # accel_opt is a list of words
        timeout -k 5 "${TIMEOUT:-1800}" qemu-system-x86_64 -M q35 $accel_opt -cpu qemu64 \
            "${q[@]}" -append "console=ttyS0 quiet panic=-1 -- $*" < /dev/null
    else
        # shellcheck disable=SC2086
        timeout -k 5 "${TIMEOUT:-1800}" qemu-system-aarch64 -M virt,gic-version=3 $accel_opt \
            -cpu "${CPU:-cortex-a72}" "${q[@]}" \
            -append "console=ttyAMA0 quiet panic=-1 -- $*" < /dev/null
    fi | tr -d '\r' > "$out/go.console"
    rc=${PIPESTATUS[0]}
    grep -v '^\[ *[0-9]' "$out/go.console"
    [ "$rc" = 0 ] || { echo "# ERROR QEMU exited with status $rc"; return 1; }
    # The status init printed before powering off.
    grep -qx '# exit status 0' "$out/go.console"
}

date=$(date -u '+%Y-%m-%d %H:%M UTC')
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)

echo "bench-go: Spindle ($arch, smp $smp): tools/bench/bench.sh $arch $smp $*" >&2
tools/bench/bench.sh "$arch" "$smp" "$@" > "$out/spindle.txt"
sp_rc=$?
# bench.sh prints nothing on stdout when a boot fails (why goes to stderr,
# above); say so where the table shows it.
[ $sp_rc = 0 ] || echo "# ERROR tools/bench/bench.sh failed (exit status $sp_rc)" \
    >> "$out/spindle.txt"
goargs=("$@")
case " ${CMDLINE:-} " in
*" trace=1 "* | *" trace=on "* | *" trace=wrap "*)
    case $arch in
    hosted*) goargs+=("trace=$out/go.trace") ;;
    *) goargs+=("trace=/go.trace") ;;    # the guest's initramfs, in memory
    esac ;;
esac
# As bench.sh does for Spindle: other QEMUs take CPU from Go's threads.
others=$(pgrep -c -f '^qemu-system-' || true)
case $arch in
hosted*)
    echo "bench-go: Go (GOMAXPROCS=$smp): build/go/bench ${goargs[*]}" >&2
    GOMAXPROCS=$smp build/go/bench "${goargs[@]}" > "$out/go.txt"
    go_rc=$? ;;
*)
    kernel=$(cat "build/linux-$arch/version" 2>/dev/null)
    echo "bench-go: Go in a Linux guest ($arch, smp $smp, $kernel): ${goargs[*]}" >&2
    go_guest "${goargs[@]}" > "$out/go.txt"
    go_rc=$?
    echo "# go: as the init of a Linux guest ($kernel), QEMU $arch," \
         "accelerator ${ACCEL:-tcg}, $MEM MiB" >> "$out/go.txt" ;;
esac
others_end=$(pgrep -c -f '^qemu-system-' || true)
if [ "$others" != 0 ] || [ "$others_end" != 0 ]; then
    echo "# warning: QEMU processes were running ($others at the start," \
         "$others_end at the end); the figures are unreliable" >> "$out/go.txt"
fi

echo "# bench-go: $date, host CPU ${cpu:-unknown} ($(nproc) threads)," \
     "load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
tools/bench/bench-table.sh "$out/spindle.txt" "$out/go.txt"
echo "Raw outputs: $out/spindle.txt, $out/go.txt"
[ $sp_rc = 0 ] || echo "bench-go: Spindle's run failed (exit status $sp_rc)" >&2
[ $go_rc = 0 ] || echo "bench-go: Go's run failed (exit status $go_rc)" >&2
[ $sp_rc = 0 ] && [ $go_rc = 0 ]
