#!/bin/bash
# spindle-cc - the C compiler of Spindle's cross toolchain: the host's gcc
# (x86_64) or aarch64-linux-gnu-gcc, aimed at the sysroot beside this
# script (../sysroot), with the flags code in a ring-0 image must have.
# tools/build/toolchain.sh writes build/<arch>/bin/spindle-cc from this
# file, filling in the settings block below.
#
#   spindle-cc -c [-o x.o] x.c ...      compile (also -S, -E, -M, -MM)
#   spindle-cc [-o prog.elf] x.o y.c -lfoo ...
#                                       link a bootable image: the app's
#                                       objects, the kernel (libspindle.a,
#                                       whole), lwIP, newlib and libgcc,
#                                       linked as the Makefile links an app
#   spindle-cc ... --files DIR | --files-archive X.cpio
#                                       the same with a file tree linked in
#                                       (kernel/initrd.h): DIR packed as
#                                       tools/build/mkcpio.py --tree packs
#                                       it, or an archive packed already
#   spindle-cc -dumpmachine             <arch>-spindle-elf
#
# Compiling: the user's flags sit between two sets.  Before them (the app
# may override): the sysroot's headers only (include/posix and
# include/bsd ahead of newlib's, then gcc's own), -fno-omit-frame-pointer
# for the kernel's backtraces, and the platform macros: __spindle__ is
# defined and __linux__, __linux, __gnu_linux__ and linux are not, since
# Spindle is not Linux (a port probes for what it uses); __unix__ stays.
# After them (they win over the app's): -fno-pic -fno-pie, as the image
# is one static executable at a fixed address; -fno-stack-protector, as
# there is no canary in a thread pointer; and ABI_FLAGS, the Makefile's
# stack-clash probing and per-arch flags (x86_64: -mno-red-zone, since
# interrupts land on the running stack in ring 0; aarch64: ARMv8.0 and
# inline atomics).  -fsanitize=* is dropped (no runtime), with a warning.
#
# Linking: first a partial link (ld -r) of what the program brings, its
# objects and sources and the archives and -l libraries it names, with
# the linker options it gives (-Wl, -Xlinker), kept beside the output as
# <out less .elf>.prog.o (unless the output is a device, as a configure
# test's -o /dev/null); then two links of that with the kernel and the
# libraries through link.sh, as the Makefile's IMAGE rule does, the
# second adding the symbol and relocation tables made from the first.  The .prog.o is
# the program whole: `spindle-cc -o q.elf p.prog.o --files DIR` links
# the same program again with a file tree (make FILES= does this for a
# port's program).  With --files or --files-archive the archive goes in
# through files.S (the sysroot's copy of tools/build/files.S).  Only
# the sysroot's lib/ is searched for -l (never the host's libraries), and
# libpthread, libdl and librt there are empty: their calls are in libc
# or the kernel.  Dropped with a warning, as they cannot work in one
# static image at a fixed address: -pie, -static-pie, -rdynamic, -T
# (the image has its own linker script) and -e.  -shared and -r fail.
# On aarch64 the Linux Image that QEMU boots is written beside the ELF
# (<out without .elf>.Image).
set -u

# --- settings (tools/build/toolchain.sh) ---
ARCH=@ARCH@
CROSS=@CROSS@
ABI_FLAGS="@ABI_FLAGS@"
GCC_INC=@GCC_INC@
# --- end of settings ---

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
sysroot=$(cd "$here/../sysroot" && pwd)
cc=${CROSS}gcc
ld=${CROSS}ld

pre=(-nostdinc -isystem "$sysroot/include/posix" -isystem "$sysroot/include/bsd"
     -isystem "$sysroot/include" -isystem "$GCC_INC"
     -U__linux__ -U__linux -U__gnu_linux__ -Ulinux -D__spindle__=1
     -fno-omit-frame-pointer)
# shellcheck disable=SC2206 # ABI_FLAGS is a list of words
post=(-fno-pic -fno-pie -fno-stack-protector $ABI_FLAGS)

warn() { echo "spindle-cc: $*" >&2; }

# --files and --files-archive are spindle-cc's own, for a link only.
files= files_archive= rest=()
while [ $# -gt 0 ]; do
    case $1 in
    --files|--files-archive)
        [ $# -ge 2 ] || { warn "$1 needs an argument"; exit 1; }
        if [ "$1" = --files ]; then files=$2; else files_archive=$2; fi
        shift 2 ;;
    --files=*) files=${1#--files=}; shift ;;
    --files-archive=*) files_archive=${1#--files-archive=}; shift ;;
    *) rest+=("$1"); shift ;;
    esac
done
set -- "${rest[@]}"
if [ -n "$files" ] && [ -n "$files_archive" ]; then
    warn "--files and --files-archive: one file tree only"; exit 1
fi

# What the invocation is: compile only, a query of the compiler, or a link.
mode=link
inputs=0
for a in "$@"; do
    case $a in
    -c|-S|-E|-M|-MM) mode=compile ;;
    -dumpmachine) echo "$ARCH-spindle-elf"; exit 0 ;;
    --version|-dumpversion|-dumpfullversion|-print-*|--help|-qversion|-V) [ $mode = link ] && mode=query ;;
    -*) ;;
    *) inputs=$((inputs + 1)) ;;
    esac
done
[ $mode = link ] && [ $inputs = 0 ] && mode=query

# The user's flags less those that cannot work.
args=()
for a in "$@"; do
    case $a in
    -fsanitize=*) warn "dropped $a: no sanitizer runtime in an image" ;;
    -m32|-mx32|-mabi=ilp32) warn "$a: Spindle is 64-bit only"; exit 1 ;;
    *) args+=("$a") ;;
    esac
done

case $mode in
query) exec "$cc" "${args[@]}" ;;
compile) exec "$cc" "${pre[@]}" "${args[@]}" "${post[@]}" ;;
esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/spindle-cc.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Link: sort the words into compiler flags (for the sources among the
# inputs) and what ld gets, in order (objects, archives, -l, -L, -Wl).
out=a.out cflags=() lnk=() srcs=() xlang=
set -- "${args[@]}"
while [ $# -gt 0 ]; do
    a=$1; shift
    case $a in
    -o) out=$1; shift ;;
    -o*) out=${a#-o} ;;
    -l|-L|-u) lnk+=("$a" "$1"); shift ;;
    -l*|-L*) lnk+=("$a") ;;
    -Wl,*) IFS=, read -r -a w <<< "${a#-Wl,}"; lnk+=("${w[@]}") ;;
    -Xlinker) lnk+=("$1"); shift ;;
    -T) warn "dropped -T $1: the image has its own linker script"; shift ;;
    -T*) warn "dropped $a: the image has its own linker script" ;;
    -e) warn "dropped -e $1: the image's entry is the kernel's"; shift ;;
    -pie|-static-pie|-rdynamic) warn "dropped $a: an image is one static executable" ;;
    -shared|-r) warn "$a: an image is one static executable; make a static library (spindle-ar)"; exit 1 ;;
    -static|-no-pie|-nostdlib|-nostartfiles|-nodefaultlibs|-pthread|-s) ;;
    -x) xlang=$1; cflags+=("$a" "$1"); shift ;;
    -I|-D|-U|-include|-imacros|-isystem|-iquote|-idirafter|-MF|-MT|-MQ|-Xpreprocessor|-Xassembler)
        cflags+=("$a" "$1"); shift ;;
    -*) cflags+=("$a") ;;
    *.o|*.a|*.lo|*.obj) lnk+=("$a") ;;
    *)  if [ -n "$xlang" ] || [[ $a == *.[csSi] ]]; then
            srcs+=("$a")
            lnk+=("$tmp/${#srcs[@]}.o")
        else
            lnk+=("$a")
        fi ;;
    esac
done

for i in "${!srcs[@]}"; do
    "$cc" "${pre[@]}" "${cflags[@]}" "${post[@]}" -c -o "$tmp/$((i + 1)).o" "${srcs[$i]}" || exit 1
done

lib=$sysroot/lib
"$ld" -r -L "$lib" -o "$tmp/prog.o" "${lnk[@]}" || exit 1

# The file tree, as an object of files.S's.  The archive is copied into
# the temporary folder so that no quote or backslash of its path reaches
# the assembler's string.
objs=("$tmp/prog.o")
if [ -n "$files" ]; then
    [ -d "$files" ] || { warn "--files $files: no such folder"; exit 1; }
    python3 "$lib/mkcpio.py" --tree "$tmp/files.cpio" "$files" || exit 1
elif [ -n "$files_archive" ]; then
    [ -f "$files_archive" ] || { warn "--files-archive $files_archive: no such file"; exit 1; }
    cp "$files_archive" "$tmp/files.cpio" || exit 1
fi
if [ -f "$tmp/files.cpio" ]; then
    "$cc" -c -DFILES_CPIO="\"$tmp/files.cpio\"" -o "$tmp/files.o" "$lib/files.S" || exit 1
    objs+=("$tmp/files.o")
fi

ldflags=(-nostdlib -static -no-pie -z max-page-size=4096 -z noexecstack -T "$lib/spindle.ld" -L "$lib")
libs=(--whole-archive "$lib/libspindle.a" --no-whole-archive "$lib/liblwip.a"
      --start-group "$lib/libc.a" "$lib/libm.a" "$lib/libgcc.a" --end-group)
"$lib/link.sh" "$tmp/image" "$ld" "${CROSS}nm" "$cc" "$lib/relocs" "${ldflags[@]}" "${objs[@]}" \
    "${libs[@]}" || exit 1
# Copied onto a device (a configure test's -o /dev/null), not moved over it.
if [ -c "$out" ]; then cat "$tmp/image" > "$out"; else mv "$tmp/image" "$out"; fi || exit 1
# The partial link beside the image, unless the output is a device (a
# configure test's -o /dev/null).
[ -c "$out" ] || mv "$tmp/prog.o" "${out%.elf}.prog.o" || exit 1
if [ "$ARCH" = aarch64 ]; then
    "${CROSS}objcopy" -O binary "$out" "${out%.elf}.Image" || exit 1
fi
exit 0
