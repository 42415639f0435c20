#!/bin/bash
# qemu.sh ARCH IMAGE SMP [kernel command line...] - boots a Spindle image in
# QEMU with SMP cores, console on stdio, and exits with the app's status.
#
# Accelerator: KVM only when the host has hardware virtualization (kvm_intel
# or kvm_amd loaded, no kvm_pvm) or ACCEL=kvm asks for it; multi-threaded TCG
# otherwise.  /dev/kvm from kvm_pvm emulates ring-0 code thousands of times
# slower than TCG runs it.  MEM (MiB, default 1024) sets guest memory;
# QUIET=1 drops the accelerator line.
set -eu
# ARCH=hosted (and its sanitizer builds) runs as a process: tools/hosted.sh.
case $1 in hosted*) exec "$(dirname "$0")/hosted.sh" "$@" ;; esac
arch=$1 image=$2 smp=$3
shift 3
mem=${MEM:-1024}

accel=${ACCEL:-}
if [ -z "$accel" ]; then
    accel=tcg
    if [ -e /dev/kvm ] && grep -qE '^kvm_(intel|amd) ' /proc/modules 2>/dev/null &&
       ! grep -q '^kvm_pvm ' /proc/modules 2>/dev/null; then
        accel=kvm
    fi
fi
case $accel in
kvm) accel_opt="-accel kvm"; cpu=host ;;
tcg) accel_opt="-accel tcg,thread=multi"; cpu=qemu64 ;;
*) echo "qemu.sh: ACCEL=$accel is not tcg or kvm" >&2; exit 2 ;;
esac
[ "${QUIET:-0}" = 1 ] || echo "qemu: $arch, $smp cores, $mem MiB, accelerator $accel" >&2

case $arch in
x86_64)
    set +e
    qemu-system-x86_64 -M q35 -bios /usr/share/qemu/qboot.rom $accel_opt \
        -cpu "$cpu" -smp "$smp" -m "$mem" -kernel "$image" -append "$*" \
        -display none -serial stdio -monitor none -no-reboot \
        -device isa-debug-exit,iobase=0xf4,iosize=1
    rc=$?
    set -e
    # isa-debug-exit makes QEMU exit with (status << 1) | 1.
    if [ $((rc & 1)) = 1 ]; then exit $((rc >> 1)); fi
    echo "qemu: exited with $rc without an exit status from Spindle" >&2
    exit 125
    ;;
*)
    echo "qemu.sh: ARCH=$arch is not supported" >&2
    exit 2
    ;;
esac
