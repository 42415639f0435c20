#!/bin/bash
# tools/build/toolchain.sh ARCH B NEWLIB CROSS "ABI_FLAGS" LWIP_LIB KOBJ...
# - Spindle's cross toolchain for ARCH in B (build/<arch>): make calls it
# for `make toolchain` and before building a port (ports/ports.mk).
#
#   B/bin/spindle-cc          the compiler and image linker (tools/build/spindle-cc.sh)
#   B/bin/spindle-ar, -ranlib, -nm, -objcopy, -strip
#                             the arch's binutils
#   B/bin/spindle-pkg-config  pkg-config that sees only the sysroot's .pc files
#   B/sysroot/include/        newlib's headers and <spindle/*.h>
#   B/sysroot/include/posix/, include/bsd/
#                             the repository's include/posix and include/bsd,
#                             searched before newlib's (posix/sys/features.h
#                             includes newlib's with #include_next)
#   B/sysroot/lib/            libc.a, libm.a (newlib), libgcc.a, libspindle.a
#                             (the kernel objects KOBJ..., linked whole),
#                             liblwip.a, spindle.ld (linker/ARCH.ld), link.sh, ksyms.sh and
#                             relocs (the image's two links: link.sh),
#                             files.S and mkcpio.py (spindle-cc --files),
#                             empty libpthread.a, libdl.a, librt.a, pkgconfig/
#
# ABI_FLAGS are the flags every object of an image must be compiled with
# beyond -fno-pic -fno-pie -fno-stack-protector (the Makefile's
# ARCH_CFLAGS and STACK_CLASH).  The sysroot is rebuilt whole each time,
# so a header removed from include/ leaves it too; the bin/ scripts find
# the sysroot beside them, so B may be moved.
set -eu
[ $# -ge 7 ] || { echo "usage: toolchain.sh ARCH B NEWLIB CROSS ABI_FLAGS LWIP_LIB KOBJ..." >&2; exit 2; }
arch=$1 b=$2 newlib=$3 cross=$4 abi=$5 lwip=$6
shift 6
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)

gcc_inc=$("${cross}gcc" -print-file-name=include)
libgcc=$("${cross}gcc" -print-libgcc-file-name)
[ -d "$gcc_inc" ] && [ -f "$libgcc" ] || { echo "toolchain.sh: ${cross}gcc gives no include dir or libgcc" >&2; exit 1; }

new=$b/sysroot.new
rm -rf "$new"
mkdir -p "$new/include" "$new/lib/pkgconfig" "$b/bin"
cp -R "$newlib/include/." "$new/include/"
cp -R "$top/include/spindle" "$new/include/"
cp -R "$top/include/posix" "$top/include/bsd" "$new/include/"
cp "$newlib/lib/libc.a" "$newlib/lib/libm.a" "$new/lib/"
cp "$libgcc" "$new/lib/libgcc.a"
cp "$lwip" "$new/lib/liblwip.a"
"${cross}ar" rcs "$new/lib/libspindle.a" "$@"
for l in pthread dl rt; do
    "${cross}ar" rc "$new/lib/lib$l.a"
done
cp "$top/linker/$arch.ld" "$new/lib/spindle.ld"
cp "$top/tools/build/ksyms.sh" "$top/tools/build/link.sh" "$top/tools/build/files.S" \
    "$top/tools/build/mkcpio.py" "$new/lib/"
gcc -O2 -I"$top" -o "$new/lib/relocs" "$top/tools/build/relocs.c"
rm -rf "$b/sysroot"
mv "$new" "$b/sysroot"

# The scripts: written beside their final names, then renamed into place.
sed -e "s|@ARCH@|$arch|" -e "s|@CROSS@|$cross|" -e "s|@ABI_FLAGS@|$abi|" \
    -e "s|@GCC_INC@|$gcc_inc|" "$here/spindle-cc.sh" > "$b/bin/.spindle-cc"
for t in ar ranlib nm objcopy strip; do
    printf '#!/bin/sh\n# spindle-%s - the %s binutils (tools/build/toolchain.sh)\nexec %s%s "$@"\n' \
        "$t" "$arch" "$cross" "$t" > "$b/bin/.spindle-$t"
done
cat > "$b/bin/.spindle-pkg-config" <<'PC'
#!/bin/sh
# spindle-pkg-config - pkg-config over the sysroot's lib/pkgconfig alone
# (tools/build/toolchain.sh): a library a port builds for Spindle installs
# its .pc there; the host's are never seen.
sysroot=$(cd "$(dirname "$0")/../sysroot" && pwd)
PKG_CONFIG_LIBDIR=$sysroot/lib/pkgconfig PKG_CONFIG_PATH= PKG_CONFIG_SYSROOT_DIR= \
    exec pkg-config "$@"
PC
for t in cc ar ranlib nm objcopy strip pkg-config; do
    chmod +x "$b/bin/.spindle-$t"
    mv "$b/bin/.spindle-$t" "$b/bin/spindle-$t"
done
echo "toolchain: $b/bin/spindle-cc, sysroot $b/sysroot" >&2
