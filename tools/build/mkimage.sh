#!/bin/bash
# mkimage.sh LOADER KERNEL OUT [kernel command line...] - makes OUT, a GPT
# disk image whose one partition, an EFI system partition (FAT32), holds
#   EFI/BOOT/BOOTX64.EFI     LOADER (boot/efi, the firmware's default path;
#                            BOOTAA64.EFI on aarch64, as LOADER is named)
#   EFI/spindle/kernel.elf   KERNEL without its debug sections
#   EFI/spindle/cmdline      the command line, one line (may be empty)
#   EFI/spindle/initrd       the file INITRD names, if set (a cpio
#                            archive: the initrd, kernel/initrd.h)
#   extlinux/extlinux.conf,  with BOOTI=1 (aarch64): KERNEL's Image booted
#   Image                    by U-Boot's booti, with the same command line
# ready to dd to a USB stick.  No loop device and no root: sgdisk writes
# the partition table (and the protective MBR) into the image file,
# mkfs.fat -C makes the partition as a file of its own, mtools fills it,
# and dd conv=notrunc puts it in place.
set -eu
[ $# -ge 3 ] || { echo "usage: $0 LOADER KERNEL OUT [cmdline...]" >&2; exit 2; }
loader=$1 kernel=$2 out=$3
shift 3
if [ -n "${INITRD:-}" ] && [ ! -f "$INITRD" ]; then
    echo "$0: INITRD=$INITRD is not a file" >&2
    exit 2
fi
first=2048                  # the ESP's first sector, 1 MiB aligned
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mkimage.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

case $(basename "$loader") in
BOOTX64.EFI) objcopy=objcopy ;;
BOOTAA64.EFI) objcopy=aarch64-linux-gnu-objcopy ;;
*) echo "$0: $loader is not named BOOTX64.EFI or BOOTAA64.EFI" >&2; exit 2 ;;
esac
$objcopy --strip-debug "$kernel" "$tmp/kernel.elf"
printf '%s\n' "$*" > "$tmp/cmdline"
# 40 MiB: above FAT32's 65525-cluster floor at 512 B clusters; more when
# the kernel and the initrd need it (a tenth more for the two FATs, and
# 8 MiB for the loader and the rest).
bytes=$(stat -c %s "$tmp/kernel.elf")
[ -z "${INITRD:-}" ] || bytes=$((bytes + $(stat -c %s "$INITRD")))
esp_mib=$((bytes * 11 / 10 / 1048576 + 8))
[ "$esp_mib" -ge 40 ] || esp_mib=40

mkfs.fat -C -F 32 -S 512 -s 1 -n SPINDLE "$tmp/esp" $((esp_mib * 1024)) >/dev/null
export MTOOLS_SKIP_CHECK=1
mmd -i "$tmp/esp" ::/EFI ::/EFI/BOOT ::/EFI/spindle
mcopy -i "$tmp/esp" "$loader" "::/EFI/BOOT/$(basename "$loader")"
mcopy -i "$tmp/esp" "$tmp/kernel.elf" "$tmp/cmdline" ::/EFI/spindle/
[ -z "${INITRD:-}" ] || mcopy -i "$tmp/esp" "$INITRD" ::/EFI/spindle/initrd
# BOOTI=1 (aarch64): the Image and an extlinux.conf for U-Boot's distro
# boot, which prefers it to the EFI loader and starts the Image with
# booti at its kernel_addr_r.
if [ -n "${BOOTI:-}" ]; then
    {
        printf 'default spindle\nlabel spindle\n    kernel /Image\n    append %s\n' "$*"
        [ -z "${INITRD:-}" ] || printf '    initrd /EFI/spindle/initrd\n'
    } > "$tmp/extlinux.conf"
    mmd -i "$tmp/esp" ::/extlinux
    mcopy -i "$tmp/esp" "$tmp/extlinux.conf" ::/extlinux/
    mcopy -i "$tmp/esp" "${kernel%.elf}.Image" ::/Image
fi

# 1 MiB before the ESP, 1 MiB after it for the backup GPT.  sgdisk
# spends a second waiting for a kernel to re-read the table even of a
# plain file, so GPT_CACHE (the test runner's) names a file that keeps
# an empty image with the table, made once and copied for every image
# (all of them then share the disk and partition GUIDs).
rm -f "$out.new"
size=$(((esp_mib + 2) * 1024 * 1024))
if [ -n "${GPT_CACHE:-}" ] && [ -f "$GPT_CACHE" ] && [ "$(stat -c %s "$GPT_CACHE")" = $size ]; then
    cp --sparse=always "$GPT_CACHE" "$out.new"
else
    truncate -s $size "$out.new"
    sgdisk -o -n "1:$first:+${esp_mib}M" -t 1:EF00 -c "1:EFI system partition" \
        "$out.new" >/dev/null
    if [ -n "${GPT_CACHE:-}" ]; then
        cp --sparse=always "$out.new" "$GPT_CACHE.$$" && mv "$GPT_CACHE.$$" "$GPT_CACHE"
    fi
fi
dd if="$tmp/esp" of="$out.new" bs=1M seek=1 conv=notrunc,sparse status=none
mv "$out.new" "$out"
