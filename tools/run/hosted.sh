#!/bin/bash
# hosted.sh ARCH IMAGE SMP [kernel command line...] - runs a hosted
# Spindle image (ARCH=hosted: the kernel as a Linux process) the way
# qemu.sh boots a bare-metal one: SMP cores, the console on stdout, the
# app's exit status as ours (a panic is 112, a deadlock 2, as under QEMU).
# ARCH is hosted, hosted-tsan or hosted-asan (the build folder's name).
# MEM (MiB, default 1024) is the machine's RAM; INITRD=FILE its initrd
# (the image's -initrd, as qemu.sh's INITRD); QUIET=1 drops the first
# line.  The process replaces this script, so its pid is the runner's.
#
# GLIBC_TUNABLES turns glibc's per-thread malloc cache off: a G often
# frees on another core (thread) than it allocated on, and the cache
# would keep such blocks counted as in use, which the smp test's exact
# malloc_stats() balance would take for a leak.
set -eu
arch=$1 image=$2 smp=$3
shift 3
[ "${QUIET:-0}" = 1 ] || echo "hosted: $arch, $smp cores, ${MEM:-1024} MiB, accelerator none (a Linux process)" >&2
export GLIBC_TUNABLES=${GLIBC_TUNABLES:-glibc.malloc.tcache_count=0}
exec "$image" -smp "$smp" -m "${MEM:-1024}" ${INITRD:+-initrd "$INITRD"} "$@"
