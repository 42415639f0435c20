#!/bin/bash
# tools/build/newlib.sh ARCH OUTDIR — build newlib for bare-metal ARCH (x86_64 or aarch64) from
# Debian's newlib-source tarball into OUTDIR/include and OUTDIR/lib/{libc.a,libm.a}.
# make calls it as: tools/build/newlib.sh x86_64 build/newlib/x86_64
# Does nothing when OUTDIR/.stamp matches this script and the tarball; the log of the last
# build is OUTDIR/../newlib-ARCH.log.
set -eu
arch=${1:?usage: newlib.sh ARCH OUTDIR}
out=${2:?usage: newlib.sh ARCH OUTDIR}

tarball=$(compgen -G '/usr/src/newlib/newlib-*.tar.xz' | sort -V | tail -n 1)
[ -n "$tarball" ] || { echo "newlib.sh: no /usr/src/newlib/newlib-*.tar.xz (run tools/build/deps.sh)" >&2; exit 1; }
stamp=$( { cat "${BASH_SOURCE[0]}"; echo "${tarball##*/}"; } | sha256sum | cut -c1-16)
[ "$(cat "$out/.stamp" 2>/dev/null)" = "$stamp" ] && exit 0

# Common flags: the library is linked into a ring-0/EL1 image, so no PIC, no stack
# protector (there is no guard setup), frame pointers for the panic backtrace.
# __DYNAMIC_REENT__ makes _REENT (errno, stdio state) come from our __getreent(), per G;
# GETREENT_PROVIDED stops newlib from defining its own (strong) __getreent.
# --noexecstack: newlib's .S files lack .note.GNU-stack, and ld warns about that.
flags="-O2 -g -ffreestanding -fno-omit-frame-pointer -fno-stack-protector -fno-pic -fno-pie"
flags="$flags -D__DYNAMIC_REENT__ -DGETREENT_PROVIDED -Wa,--noexecstack"
case $arch in
x86_64)
    target=x86_64-elf; tp=
    # No red zone: interrupts land on the running stack in ring 0.
    flags="$flags -mno-red-zone -mcmodel=small" ;;
aarch64)
    target=aarch64-elf; tp=aarch64-linux-gnu-
    # The Linux-targeted compiler would call libgcc's __aarch64_* atomics helpers, which
    # need getauxval() to pick LSE; inline the atomics instead.
    flags="$flags -mno-outline-atomics" ;;
*) echo "newlib.sh: unknown ARCH '$arch' (x86_64 or aarch64)" >&2; exit 2 ;;
esac

mkdir -p "$out"
out=$(cd "$out" && pwd)
# Two makes may call this for the same ARCH at once: build one at a time, and let the
# waiting one find the stamp the first wrote.
exec 9>"$(dirname "$out")/.newlib-$arch.lock"
flock 9
[ "$(cat "$out/.stamp" 2>/dev/null)" = "$stamp" ] && exit 0
work=$(dirname "$out")/src-$arch
log=$(dirname "$out")/newlib-$arch.log
rm -rf "$work" "$out/include" "$out/lib" "$out/.stamp"
mkdir -p "$work/build"
: >"$log"
t0=$(date +%s)

step() {
    echo "newlib $arch: $1" >&2; shift
    if ! "$@" >>"$log" 2>&1; then
        echo "newlib.sh: failed: $*" >&2
        tail -n 30 "$log" >&2
        echo "newlib.sh: full log: $log" >&2
        exit 1
    fi
}

step "unpack ${tarball##*/}" tar -xJf "$tarball" -C "$work"
[ -d "$work/newlib-salsa/newlib" ] || { echo "newlib.sh: no newlib-salsa/ in tarball" >&2; exit 1; }
# newlib knows no x86_64-elf, so it would expect the platform's stubs under POSIX names
# (write, sbrk, ...; MISSING_SYSCALL_NAMES). Give it the layout aarch64-elf has, so both
# arches need the same _write, _sbrk, ... and libc supplies write() etc. on top of them.
sed -i 's/^  z8k-\*-\*)$/  x86_64-*-elf)\n\tsyscall_dir=syscalls\n\t;;\n&/' \
    "$work/newlib-salsa/newlib/configure.host"
grep -q '^  x86_64-\*-elf)' "$work/newlib-salsa/newlib/configure.host" ||
    { echo "newlib.sh: could not patch newlib/configure.host" >&2; exit 1; }

# --enable-newlib-io-long-double: printf's %Lf, %Le, %Lg format a long double (x86_64's
# 80-bit, aarch64's 128-bit) at its own precision, not converted to a double first.
#
# There is no $target-gcc: hand the host (cross) toolchain to configure as the target's.
# The Linux compiler would fall back to glibc's /usr/include for headers newlib lacks;
# -nostdinc keeps only the compiler's own freestanding headers (stddef.h, stdarg.h, ...).
cc="${tp}gcc -nostdinc -isystem $("${tp}gcc" -print-file-name=include)"
cd "$work/build"
step configure env \
    CC_FOR_TARGET="$cc" GCC_FOR_TARGET="$cc" \
    AR_FOR_TARGET=${tp}ar AS_FOR_TARGET=${tp}as LD_FOR_TARGET=${tp}ld \
    NM_FOR_TARGET=${tp}nm RANLIB_FOR_TARGET=${tp}ranlib STRIP_FOR_TARGET=${tp}strip \
    OBJCOPY_FOR_TARGET=${tp}objcopy OBJDUMP_FOR_TARGET=${tp}objdump \
    READELF_FOR_TARGET=${tp}readelf CFLAGS_FOR_TARGET="$flags" \
    ../newlib-salsa/configure --target=$target --prefix="$work/inst" \
    --disable-libgloss --disable-multilib --disable-nls \
    --disable-newlib-supplied-syscalls --enable-newlib-retargetable-locking \
    --enable-newlib-io-long-long --enable-newlib-io-c99-formats \
    --enable-newlib-io-long-double
step build make -j"$(nproc)" all-target-newlib
step install make install-target-newlib

mkdir -p "$out/lib"
cp -r "$work/inst/$target/include" "$out/include"
cp "$work/inst/$target/lib/"*.a "$out/lib/"
# Bake __DYNAMIC_REENT__ into the headers, so code compiled against them reaches stdout,
# errno, ... through __getreent() like the library does, whatever its own flags.
printf '\n/* Spindle: per-G reentrancy (tools/build/newlib.sh) */\n#ifndef __DYNAMIC_REENT__\n#define __DYNAMIC_REENT__\n#endif\n' \
    >>"$out/include/newlib.h"
for f in include/stdio.h lib/libc.a lib/libm.a; do
    [ -f "$out/$f" ] || { echo "newlib.sh: $out/$f was not produced; see $log" >&2; exit 1; }
done
rm -rf "$work"
echo "$stamp" >"$out/.stamp"
echo "newlib $arch: done in $(( $(date +%s) - t0 ))s -> $out" >&2
