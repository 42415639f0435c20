#!/bin/bash
# qemu.sh ARCH IMAGE SMP [kernel command line...] - boots a Spindle image in
# QEMU with SMP cores, console on stdio, and exits with the app's status.
# On a terminal Ctrl-\ reaches the guest, whose scheduler then prints its
# goroutines, instead of ending QEMU; Ctrl-C still ends it.
#
# Accelerator: KVM only when the host has hardware virtualization (kvm_intel
# or kvm_amd loaded, no kvm_pvm) or ACCEL=kvm asks for it; multi-threaded TCG
# otherwise.  /dev/kvm from kvm_pvm emulates ring-0 code thousands of times
# slower than TCG runs it.  ACCEL=icount is deterministic single-threaded
# TCG where each guest instruction takes 1 ns of virtual time: figures do
# not depend on host load, so two builds can be compared on a busy host
# (but the vCPUs take turns, so it says nothing about parallel speedup).
# MEM (MiB, default 1024) sets guest memory;
# QUIET=1 drops the accelerator line.  MONITOR=PATH puts QEMU's human
# monitor on a Unix socket at PATH (the test runner's screendump).
# GDBPORT=N starts the machine stopped, before its first instruction,
# with QEMU's gdb stub on 127.0.0.1:N (tools/run/gdb.sh connects gdb to it).
# TRACE_FILE=PATH gives the machine its host channel (kernel/hostchan.h):
# a virtio console whose port QEMU writes to PATH, where the execution
# tracer then dumps instead of on the serial console (tools/run/trace.sh).
# EXPORT=DIR or EXPORT=FILE.cpio collects what the guest exports at exit
# (`export=PATH` on its command line, posix/fsexport.h): the host channel
# goes to a file (TRACE_FILE's, or a temporary one), which
# tools/run/fsexport.py unpacks into DIR or packs as FILE.cpio once QEMU
# has exited; a stream that is missing or damaged is said, and the exit
# status is QEMU's still.
# INITRD=FILE (a cpio archive, tools/build/mkcpio.py) is the initrd
# (kernel/initrd.h): QEMU's -initrd on the direct boots (PVH's module
# list on x86_64, the device tree's /chosen on aarch64), the disk
# image's EFI/spindle/initrd on the firmware boots, the hosted build's
# -initrd.
#
# NET=user gives the guest a virtio-net NIC on QEMU's user-mode network,
# with host port HOSTPORT (default 8080) on 127.0.0.1 forwarded to the
# guest's port 80 (GUESTPORT), so traffic stays on loopback; HOSTFWD may
# add more forwards ("tcp:127.0.0.1:7001-:7,udp:127.0.0.1:7002-:7").
# NET=tap TAP=spt0 attaches the guest's virtio-net NIC to an existing TAP
# device (no vhost, no up/down scripts): the caller creates the device,
# addresses it and brings it up, in its own network namespace, e.g.
#   unshare -n sh -c 'ip tuntap add dev spt0 mode tap &&
#     ip addr add 192.0.2.1/24 dev spt0 && ip link set spt0 up &&
#     NET=tap TAP=spt0 tools/run/qemu.sh x86_64 IMAGE 2 ip=192.0.2.2/24 gw=192.0.2.1'
# (tools/bench/bench-net.sh does this).  The guest has no DHCP server there.
# QUEUES=N (tap only, default 1) makes the NIC multiqueue: N RX/TX queue
# pairs with receive-side scaling (QEMU's, in software: no vhost), a
# vector per queue; the TAP must then be a multi_queue one (`ip tuntap
# add ... multi_queue`, as tools/run/tapns.sh makes it).
# Without NET the guest has no NIC at all (QEMU would add a default one).
# VIRTIO=mmio (aarch64; x86_64-microvm's only transport) puts the NIC and the host channel on the
# virt machine's virtio-mmio slots (virtio-net-device,
# virtio-serial-device) instead of PCI (VIRTIO=pci, the default); every
# aarch64 boot passes -global virtio-mmio.force-legacy=false, so that
# they are version 2 (modern) devices, which alone Spindle drives.
#
# x86_64-efi: the same q35 machine with OVMF (Debian's ovmf) as its
# firmware instead of qboot: OVMF_CODE as read-only pflash, a writable
# copy of OVMF_VARS beside it, and a GPT disk image on the AHCI
# controller, from which OVMF starts EFI/BOOT/BOOTX64.EFI.  IMAGE is
# either such a disk image (make image; its command line is baked in,
# so none may be given here, and its OVMF_VARS copy is <image>.vars,
# kept across boots like a machine's NVRAM) or a kernel ELF, for which
# a disk image with the given command line and a fresh OVMF_VARS are
# made under build/x86_64-efi/ for this boot alone (the test runner).
# OVMF takes some 4 s under TCG before the loader runs.  ACPI=off is
# QEMU's q35,acpi=off: OVMF then hands over ACPI tables without a MADT.
#
# x86_64-microvm: QEMU's microvm machine instead of q35, as Firecracker
# builds its VMs: no PCI, virtio devices on virtio-mmio (NET's NIC
# becomes a virtio-net-device there), its own qboot, the kernel booted
# through PVH.  microvm hands over ACPI tables (a MADT for the cores, a
# DSDT for the virtio-mmio devices); ACPI=off is microvm's acpi=off,
# which leaves one core and puts the devices on the command line
# (virtio_mmio.device=).
#
# aarch64-efi: the virt machine below with AAVMF (Debian's
# qemu-efi-aarch64) as its firmware, as pflash (both images 64 MiB), and
# the disk image (EFI/BOOT/BOOTAA64.EFI) on virtio-blk; IMAGE as for
# x86_64-efi.  AAVMF hands over ACPI tables and no device tree, as SBSA
# servers do; ACPI=off (QEMU's `-M virt,acpi=off`) makes it hand over a
# device tree instead, and so does aarch64-efi-dtb.  A ramfb display
# (800x600) gives AAVMF a GOP framebuffer, the kernel's screen console.
# aarch64-uboot: the same disk booted by Debian's U-Boot for QEMU
# (u-boot-qemu) as -bios, whose distro boot runs the loader through
# bootefi with a device tree, as many boards do.  LOAD=booti (a kernel
# ELF only) puts extlinux/extlinux.conf and the Image on the disk
# (mkimage.sh's BOOTI), which the distro boot takes first: U-Boot's
# booti then starts the Image at its kernel_addr_r, 0x40400000, 2 MiB
# above the link address.
#
# LOAD=ADDRESS (x86_64): the kernel ELF moved to that physical address
# (tools/run/moveelf.py) before QEMU's PVH loader places it; the kernel
# relocates itself there (boot/reloc.h).
#
# aarch64: QEMU's virt machine with a Cortex-A72, booting IMAGE's raw
# Linux Image beside it (<name>.Image; only that gets the DTB in x0).
# GIC=2 picks a GICv2 (GIC-400, as on a Raspberry Pi 4) instead of the
# default GICv3.  CPU=max picks QEMU's most capable core (ARMv8.5 and
# more, which the kernel must boot on as well).  The exit status comes
# back through semihosting.
set -eu
# ARCH=hosted (and its sanitizer builds) runs as a process: tools/run/hosted.sh.
case $1 in hosted*) exec "$(dirname "$0")/hosted.sh" "$@" ;; esac
arch=$1 image=$2 smp=$3
shift 3
mem=${MEM:-1024}
# QEMU's own failure to read the kernel would exit 1, which reads as
# Spindle's status 0 below: say it here.
kernel_files=("$image")
[ "$arch" = aarch64 ] && kernel_files+=("${image%.elf}.Image")
for f in "${kernel_files[@]}"; do
    if [ ! -f "$f" ]; then
        echo "qemu.sh: no kernel image $f (make ARCH=${arch%%-*} builds it)" >&2
        exit 2
    fi
done
initrd_opt=()
if [ -n "${INITRD:-}" ]; then
    if [ ! -f "$INITRD" ]; then
        echo "qemu.sh: INITRD=$INITRD is not a file (a folder is packed by make INITRD= or tools/build/mkcpio.py --tree)" >&2
        exit 2
    fi
    initrd_opt=(-initrd "$INITRD")
fi

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
icount) accel_opt="-accel tcg,thread=single -icount shift=0,sleep=off"; cpu=qemu64 ;;
*) echo "qemu.sh: ACCEL=$accel is not tcg, icount or kvm" >&2; exit 2 ;;
esac
[ "${QUIET:-0}" = 1 ] || echo "qemu: $arch, $smp cores, $mem MiB, accelerator $accel" >&2

transport=${VIRTIO:-pci}
[ "$arch" != x86_64-microvm ] || transport=${VIRTIO:-mmio}
case $transport/$arch in
pci/x86_64-microvm) echo "qemu.sh: microvm has no PCI: VIRTIO=mmio (its default) only" >&2; exit 2 ;;
pci/*) nicdev=virtio-net-pci serialdev=virtio-serial-pci ;;
mmio/aarch64* | mmio/x86_64-microvm) nicdev=virtio-net-device serialdev=virtio-serial-device ;;
mmio/*) echo "qemu.sh: VIRTIO=mmio needs ARCH=aarch64 (the virt machine's virtio-mmio slots) or x86_64-microvm" >&2; exit 2 ;;
*) echo "qemu.sh: VIRTIO=$transport is not pci or mmio" >&2; exit 2 ;;
esac

net_opt=(-nic none)
case ${NET:-} in
"") ;;
user)
    fwd="hostfwd=tcp:127.0.0.1:${HOSTPORT:-8080}-:${GUESTPORT:-80}"
    IFS=, read -ra extra <<<"${HOSTFWD:-}"
    for f in "${extra[@]}"; do fwd="$fwd,hostfwd=$f"; done
    net_opt=(-netdev "user,id=n0,$fwd" -device $nicdev,netdev=n0)
    [ "${QUIET:-0}" = 1 ] ||
        echo "qemu: virtio-net ($transport) on the user network; http://127.0.0.1:${HOSTPORT:-8080}/ reaches the guest's port ${GUESTPORT:-80}" >&2
    ;;
tap)
    tap=${TAP:-}
    if [ -z "$tap" ] || ! ip link show dev "$tap" >/dev/null 2>&1; then
        echo "qemu.sh: NET=tap needs TAP=<an existing tap device>${tap:+ (no device $tap here)}" >&2
        exit 2
    fi
    queues=${QUEUES:-1}
    case $queues in
    [1-9] | [1-5][0-9] | 6[0-4]) ;;
    *) echo "qemu.sh: QUEUES=$queues is not a number of queue pairs from 1 to 64" >&2; exit 2 ;;
    esac
    if [ "$queues" = 1 ]; then
        net_opt=(-netdev "tap,id=n0,ifname=$tap,script=no,downscript=no,vhost=off"
                 -device $nicdev,netdev=n0)
    elif [ "$transport" = mmio ]; then
        # One interrupt line for every queue: no vectors to ask for.
        net_opt=(-netdev "tap,id=n0,ifname=$tap,script=no,downscript=no,vhost=off,queues=$queues"
                 -device "$nicdev,netdev=n0,mq=on,rss=on")
    else
        net_opt=(-netdev "tap,id=n0,ifname=$tap,script=no,downscript=no,vhost=off,queues=$queues"
                 -device "$nicdev,netdev=n0,mq=on,rss=on,vectors=$((2 * queues + 2))")
    fi
    [ "${QUIET:-0}" = 1 ] || echo "qemu: virtio-net ($transport) on tap device $tap, $queues queue pair(s); a client reaches it from this network namespace: nsenter -t $$ -n curl http://<the guest's ip=>/" >&2
    ;;
*) echo "qemu.sh: NET=$NET is not user or tap (or empty for no NIC)" >&2; exit 2 ;;
esac
# PCAP=FILE: QEMU's filter-dump writes every frame the guest's NIC sends
# or receives to FILE as a pcap capture (tcpdump -r FILE), the guest's
# side of the wire; tcpdump on the host shows the other side.
if [ -n "${PCAP:-}" ]; then
    if [ -z "${NET:-}" ]; then
        echo "qemu.sh: PCAP=$PCAP needs a NIC (NET=user or NET=tap)" >&2
        exit 2
    fi
    net_opt+=(-object "filter-dump,id=pcap0,netdev=n0,file=$PCAP")
fi

monitor=none
[ -z "${MONITOR:-}" ] || monitor=unix:$MONITOR,server=on,wait=off
gdb_opt=()
[ -z "${GDBPORT:-}" ] || gdb_opt=(-gdb "tcp:127.0.0.1:$GDBPORT" -S)
chan_file=${TRACE_FILE:-} chan_tmp=
if [ -n "${EXPORT:-}" ] && [ -z "$chan_file" ]; then
    chan_tmp=$(mktemp "${TMPDIR:-/tmp}/spindle-export.XXXXXX")
    chan_file=$chan_tmp
    trap 'rm -f "$chan_tmp"' EXIT
fi
chan_opt=()
[ -z "$chan_file" ] ||
    chan_opt=(-device $serialdev,max_ports=1
              -chardev "file,id=hostchan,path=$chan_file"
              -device virtconsole,chardev=hostchan)

# unexport: EXPORT's tree from the channel's file, after QEMU has exited.
unexport() {
    [ -n "${EXPORT:-}" ] || return 0
    "$(dirname "$0")/fsexport.py" "$chan_file" "$EXPORT" >&2 ||
        echo "qemu.sh: EXPORT=$EXPORT: nothing exported (export=PATH on the command line?)" >&2
}

# efi_disk LOADER FIRMWARE_VARS: sets disk and vars for a firmware boot of
# $image (a disk image, or a kernel ELF made into one for this boot).
efi_disk() {
    local loader=$1 fwvars=$2
    case $image in
    *.img)
        if [ $# -gt 2 ]; then
            echo "qemu.sh: $image has its command line baked in (make image CMDLINE=...)" >&2
            exit 2
        fi
        if [ -n "${INITRD:-}" ]; then
            echo "qemu.sh: $image has its initrd baked in, if any (make image INITRD=...)" >&2
            exit 2
        fi
        disk=$image vars=${image%.img}.vars
        [ -z "$fwvars" ] || [ -f "$vars" ] || cp "$fwvars" "$vars"
        ;;
    *)
        shift 2
        mkdir -p "build/$arch"
        tmp=$(mktemp -d "build/$arch/boot.XXXXXX")
        trap 'rm -rf "$tmp" ${chan_tmp:+"$chan_tmp"}; restore_tty' EXIT
        disk=$tmp/disk.img vars=$tmp/vars.fd
        [ -z "$fwvars" ] || cp "$fwvars" "$vars"
        GPT_CACHE=build/$arch/gpt.img INITRD=${INITRD:-} \
            "$(dirname "$0")/../build/mkimage.sh" "$loader" "$image" "$disk" "$@"
        ;;
    esac
}

# uefi_boot CODE DEVICE-OPTION...: boot_opt for the firmware CODE
# (read-only pflash) with $vars, booting $disk on the device the options
# name; ACPI=off adds QEMU's acpi=off to $machine.
uefi_boot() {
    local code=$1
    shift
    case ${ACPI:-on} in
    on) ;;
    off) machine=$machine,acpi=off ;;
    *) echo "qemu.sh: ACPI=$ACPI is not on or off" >&2; exit 2 ;;
    esac
    boot_opt=(-drive "if=pflash,format=raw,unit=0,readonly=on,file=$code"
              -drive "if=pflash,format=raw,unit=1,file=$vars"
              -drive "if=none,id=esp,format=raw,file=$disk" "$@")
}

# On a terminal, Ctrl-\ is the guest's (the goroutine dump,
# kernel/console_in.h), not a SIGQUIT that would end QEMU: the terminal's
# quit character is off while QEMU runs.  Ctrl-C still ends it.
stty_saved=
restore_tty() { [ -z "$stty_saved" ] || stty "$stty_saved"; }
if [ -t 0 ] && stty_saved=$(stty -g 2>/dev/null); then
    stty quit undef
    trap 'restore_tty; rm -f ${chan_tmp:+"$chan_tmp"}' EXIT
fi

ovmf=/usr/share/OVMF aavmf=/usr/share/AAVMF
case $arch in
x86_64|x86_64-efi|x86_64-microvm)
    machine=q35
    case $arch in
    x86_64)
        kernel=$image
        if [ -n "${LOAD:-}" ]; then
            mkdir -p build/x86_64
            tmp=$(mktemp -d build/x86_64/moved.XXXXXX)
            trap 'rm -rf "$tmp"; restore_tty' EXIT
            kernel=$tmp/kernel.elf
            python3 "$(dirname "$0")/moveelf.py" "$image" "$kernel" "$LOAD" || exit 2
        fi
        boot_opt=(-bios /usr/share/qemu/qboot.rom -kernel "$kernel" -append "$*" "${initrd_opt[@]}") ;;
    x86_64-microvm)
        machine=microvm
        case ${ACPI:-on} in
        on) ;;
        off) machine=microvm,acpi=off ;;
        *) echo "qemu.sh: ACPI=$ACPI is not on or off" >&2; exit 2 ;;
        esac
        # Its devices on virtio-mmio (VIRTIO=mmio above), version 2.
        boot_opt=(-kernel "$image" -append "$*" "${initrd_opt[@]}"
                  -global virtio-mmio.force-legacy=false) ;;
    x86_64-efi)
        efi_disk build/x86_64/efi/BOOTX64.EFI "$ovmf/OVMF_VARS.fd" "$@"
        uefi_boot "$ovmf/OVMF_CODE.fd" -device ide-hd,drive=esp,bus=ide.0 ;;
    esac
    set +e
    qemu-system-x86_64 -M "$machine" "${boot_opt[@]}" $accel_opt \
        -cpu "$cpu" -smp "$smp" -m "$mem" \
        -display none -serial stdio -monitor "$monitor" -no-reboot "${net_opt[@]}" \
        -device isa-debug-exit,iobase=0xf4,iosize=1 "${chan_opt[@]}" "${gdb_opt[@]}"
    rc=$?
    set -e
    unexport
    # isa-debug-exit makes QEMU exit with (status << 1) | 1.
    if [ $((rc & 1)) = 1 ]; then exit $((rc >> 1)); fi
    echo "qemu: exited with $rc without an exit status from Spindle" >&2
    exit 125
    ;;
aarch64|aarch64-efi|aarch64-efi-dtb|aarch64-uboot)
    gic=${GIC:-3}
    case $gic in 2|3) ;; *) echo "qemu.sh: GIC=$gic is not 2 or 3" >&2; exit 2 ;; esac
    [ "$accel" != kvm ] && cpu=${CPU:-cortex-a72}
    machine=virt,gic-version=$gic
    case $arch in
    aarch64)
        [ -z "${LOAD:-}" ] || { echo "qemu.sh: LOAD= on aarch64 is aarch64-uboot's LOAD=booti" >&2; exit 2; }
        boot_opt=(-kernel "${image%.elf}.Image" -append "$*" "${initrd_opt[@]}") ;;
    aarch64-efi|aarch64-efi-dtb)
        efi_disk build/aarch64/efi/BOOTAA64.EFI "$aavmf/AAVMF_VARS.fd" "$@"
        [ "$arch" = aarch64-efi-dtb ] && ACPI=off
        uefi_boot "$aavmf/AAVMF_CODE.fd" -device virtio-blk-pci,drive=esp -device ramfb ;;
    aarch64-uboot)
        case ${LOAD:-} in
        '') ;;
        booti) export BOOTI=1 ;;
        *) echo "qemu.sh: LOAD=$LOAD: aarch64-uboot takes LOAD=booti only" >&2; exit 2 ;;
        esac
        efi_disk build/aarch64/efi/BOOTAA64.EFI "" "$@"
        boot_opt=(-bios /usr/lib/u-boot/qemu_arm64/u-boot.bin
                  -drive "if=none,id=esp,format=raw,file=$disk"
                  -device virtio-blk-pci,drive=esp) ;;
    esac
    set +e
    qemu-system-aarch64 -M "$machine" "${boot_opt[@]}" $accel_opt \
        -cpu "$cpu" -smp "$smp" -m "$mem" \
        -display none -serial stdio -monitor "$monitor" -no-reboot \
        -global virtio-mmio.force-legacy=false \
        "${net_opt[@]}" -semihosting-config enable=on,target=native "${chan_opt[@]}" \
        "${gdb_opt[@]}"
    rc=$?
    set -e
    unexport
    # Spindle exits through semihosting with (status << 1) | 1, as on x86.
    if [ $((rc & 1)) = 1 ]; then exit $((rc >> 1)); fi
    echo "qemu: exited with $rc without an exit status from Spindle" >&2
    exit 125
    ;;
*)
    echo "qemu.sh: ARCH=$arch is not supported" >&2
    exit 2
    ;;
esac
