#!/bin/bash
# boottime.sh ARCH IMAGE SMP [RUNS] - boots IMAGE RUNS times (default 5)
# through tools/run/qemu.sh with no NIC and prints, per boot, the host time
# from QEMU's launch (the firmware's start) to the kernel's first line in
# kernel_main ("Spindle: booting"), to "smp: N cores online" and to the
# app's main() (its first line: MAIN_LINE, a pattern, by default
# apps/hello's "hello from main"), each read as the console line arrives,
# and for an EFI boot to the loader's first line; then the medians.  ARCH is tools/run/qemu.sh's: x86_64 boots
# through PVH and qboot, aarch64 as a Linux Image (QEMU's -kernel),
# x86_64-efi through OVMF and the EFI loader, aarch64-efi through AAVMF
# with ACPI, aarch64-efi-dtb through AAVMF with a device tree,
# aarch64-uboot through U-Boot's bootefi (IMAGE a kernel ELF or, for the
# firmware boots, a disk image from make image).
set -eu
[ $# -ge 3 ] || { echo "usage: $0 ARCH IMAGE SMP [RUNS]" >&2; exit 2; }
arch=$1 image=$2 smp=$3 runs=${4:-5}
ms() { echo $(( (${EPOCHREALTIME/./} - t0) / 1000 )); }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
main=() online=() loader=() app=()
main_line=${MAIN_LINE:-hello from main}
for i in $(seq "$runs"); do
    t0=${EPOCHREALTIME/./}
    m= o= k= l= a=
    while IFS= read -r line; do
        case $line in
        "spindle-efi: loading"*) l=$(ms) ;;
        "Spindle: booting"*) m=$(ms) ;;
        *"cores online,"*) o=$(ms); k=${line#*online, } ;;
        *) [ -n "$a" ] || [[ ! $line =~ $main_line ]] || a=$(ms) ;;
        esac
    done < <(QUIET=1 NET= tools/run/qemu.sh "$arch" "$image" "$smp" 2>&1)
    if [ -z "$m" ] || [ -z "$o" ]; then
        echo "boottime: boot $i printed no kernel_main or cores-online line" >&2
        exit 1
    fi
    printf 'boot %d: %skernel_main at %5d ms, all %s cores online at %5d ms (%s)%s\n' \
        "$i" "${l:+loader at $l ms, }" "$m" "$smp" "$o" "${k%$'\r'}" "${a:+, main() at $a ms}"
    main+=("$m") online+=("$o")
    [ -z "$a" ] || app+=("$a")
    [ -z "$l" ] || loader+=("$l")
done
printf 'median of %d: %skernel_main at %d ms, all cores online at %d ms%s after QEMU started\n' \
    "$runs" "${loader[*]:+loader at $(printf '%s\n' "${loader[@]}" | median) ms, }" \
    "$(printf '%s\n' "${main[@]}" | median)" "$(printf '%s\n' "${online[@]}" | median)" \
    "${app[*]:+, main() at $(printf '%s\n' "${app[@]}" | median) ms}"
