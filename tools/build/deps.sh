#!/bin/bash
# tools/build/deps.sh [x86_64|aarch64|hosted|go|net|fuzz|ports|memcached|redis|efi [x86_64|aarch64]|gdb [ARCH]] — make sure the host has what building and running
# Spindle for ARCH (default x86_64) needs. As root it apt-get installs the missing Debian
# packages; otherwise it prints the sudo apt-get line and fails. make runs it on every build,
# so it is silent when nothing is missing and checks only commands and files (no dpkg).
# `go` is not an arch: it checks only the Go toolchain that `make bench-go` builds
# bench/go with and whose `go tool pprof` reads the CPU profiler's output (`make test`'s
# profile check, `make profile`). Spindle itself never needs Go, so no arch asks for it.
# `net` is not an arch either: it checks what tools/bench/bench-net.sh drives the guest with (wrk,
# curl, iproute2's ip and util-linux's unshare for the tap backend's network namespace).
# `fuzz`: clang and its libFuzzer runtime, for tests/fuzz/ (`make fuzz`, and the corpus
# replay that `make test` runs).
# `efi [ARCH]`: the firmware boot (`make image`, `run-efi`, `test-efi`): sgdisk, mkfs.fat and
# mtools to make the disk image unmounted, and per arch the firmware and what builds the loader:
# x86_64 GNU-EFI and OVMF; aarch64 the cross toolchain, AAVMF and U-Boot (the arm64 GNU-EFI
# comes from tools/build/gnuefi.sh, not from an installed package).
# `ports`: what ports/ builds with besides the toolchain: tclsh (SQLite makes its amalgamation
# with it), pkg-config (spindle-pkg-config), patch and xz (Debian's source packages).
# `memcached`: what tests the memcached port from the host (tests/host/memcached_test.sh,
# memcached_suite.sh): libmemcached-tools' memccapable and memcslap, Perl's prove for
# memcached's own suite, and libevent-dev and gcc to build the host memcached that suite
# asks for its options (`memcached-debug -h`).
# `redis`: what tests the Redis port from the host (tests/host/redis_test.sh): redis-tools'
# redis-cli and redis-benchmark, and tclsh8.6 for Redis's own Tcl suite.
# `gdb [ARCH]`: the debugger of `make gdb` (tools/run/gdb.sh) and of the host test of its script
# (tests/host/gdb_test.sh): gdb, which debugs x86_64 and hosted images, and for aarch64
# gdb-multiarch.
set -eu
arch=${1:-x86_64}
sub_arch=${2:-x86_64}      # the arch of `efi` or `gdb`
missing=

# need PACKAGE CHECK...: PACKAGE is missing unless every CHECK (a command, or a path or
# glob starting with /) is present.
need() {
    local pkg=$1 c; shift
    for c; do
        case $c in
        /*) compgen -G "$c" >/dev/null || { missing="$missing $pkg"; return 0; } ;;
        *)  command -v "$c" >/dev/null || { missing="$missing $pkg"; return 0; } ;;
        esac
    done
}

check() {
    missing=
    if [ "$arch" = go ]; then
        need golang-go go
        return 0
    fi
    if [ "$arch" = net ]; then
        need wrk wrk
        need curl curl
        need iproute2 ip
        need util-linux unshare
        need procps pgrep
        return 0
    fi
    if [ "$arch" = fuzz ]; then
        need clang clang
        need libclang-rt-14-dev '/usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a'
        return 0
    fi
    if [ "$arch" = ports ]; then
        need tcl8.6 tclsh8.6
        need pkgconf pkg-config
        need patch patch
        need xz-utils xz
        return 0
    fi
    if [ "$arch" = memcached ]; then
        need libmemcached-tools memccapable memcslap
        need perl prove
        need gcc gcc
        need make make
        need libevent-dev /usr/include/event2/event.h
        return 0
    fi
    if [ "$arch" = redis ]; then
        need redis-tools redis-cli redis-benchmark
        need tcl8.6 tclsh8.6
        return 0
    fi
    if [ "$arch" = gdb ]; then
        need gdb gdb
        need iproute2 ss           # tools/run/gdb.sh waits for QEMU's gdb stub
        [ "$sub_arch" != aarch64 ] || need gdb-multiarch gdb-multiarch
        return 0
    fi
    if [ "$arch" = efi ]; then
        need gdisk sgdisk
        need dosfstools mkfs.fat
        need mtools mcopy mmd mdir
        need binutils objcopy
        if [ "$sub_arch" = aarch64 ]; then
            need gcc-aarch64-linux-gnu aarch64-linux-gnu-gcc
            need binutils-aarch64-linux-gnu aarch64-linux-gnu-objcopy aarch64-linux-gnu-ld
            need qemu-efi-aarch64 /usr/share/AAVMF/AAVMF_CODE.fd /usr/share/AAVMF/AAVMF_VARS.fd
            need u-boot-qemu /usr/lib/u-boot/qemu_arm64/u-boot.bin
            need qemu-system-arm qemu-system-aarch64
            return 0
        fi
        need gnu-efi /usr/include/efi/efi.h /usr/lib/crt0-efi-x86_64.o /usr/lib/elf_x86_64_efi.lds
        need ovmf /usr/share/OVMF/OVMF_CODE.fd /usr/share/OVMF/OVMF_VARS.fd
        need qemu-system-x86 qemu-system-x86_64
        return 0
    fi
    need gcc gcc
    need make make
    need procps pgrep          # the test runner finds QEMU to measure it
    need binutils objcopy nm objdump
    need xz-utils xz           # unpacks lwIP (and newlib) from Debian's sources
    need iproute2 ip           # the runner's TAP tests (tools/run/tapns.sh)
    # The framebuffer console's font, made a C header by tools/build/psf.py.
    need console-setup-linux /usr/share/consolefonts/Lat15-VGA16.psf.gz
    # tools/build/psf.py, screen.py and trace.py use json and gzip, which
    # python3-minimal lacks: the full standard library.
    need python3 /usr/bin/python3 '/usr/lib/python3*/json/__init__.py' '/usr/lib/python3*/gzip.py'
    if [ "$arch" = hosted ]; then
        # make test builds the hosted kernel under TSan and ASan+UBSan.
        need libgcc-12-dev '/usr/lib/gcc/*/*/libtsan.so' '/usr/lib/gcc/*/*/libasan.so' \
            '/usr/lib/gcc/*/*/libubsan.so'
        return 0
    fi
    need qemu-system-x86 qemu-system-x86_64
    # qboot.rom is in qemu-system-data; qemu-system-x86 depends on it, but name it so a
    # --no-install-recommends install is checked for the firmware we boot with.
    need qemu-system-data /usr/share/qemu/qboot.rom
    need newlib-source '/usr/src/newlib/newlib-*.tar.xz'
    need mtools mcopy
    [ "$arch" = aarch64 ] || return 0
    need gcc-aarch64-linux-gnu aarch64-linux-gnu-gcc
    need binutils-aarch64-linux-gnu aarch64-linux-gnu-objcopy aarch64-linux-gnu-nm \
        aarch64-linux-gnu-objdump
    need qemu-system-arm qemu-system-aarch64
}

case $arch in
x86_64|aarch64|hosted|go|net|fuzz|ports|memcached|redis|efi|gdb) ;;
*) echo "usage: $0 [x86_64|aarch64|hosted|go|net|fuzz|ports|memcached|redis|efi [x86_64|aarch64]|gdb [ARCH]]" >&2; exit 2 ;;
esac
case $arch:$sub_arch in
gdb:*|*:x86_64|*:aarch64) ;;
*) echo "usage: $0 efi [x86_64|aarch64]" >&2; exit 2 ;;
esac

check
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
    echo "deps.sh: missing packages for $arch; run:" >&2
    echo "sudo apt-get install -y --no-install-recommends$missing" >&2
    exit 1
fi

echo "deps.sh: installing$missing" >&2
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! { apt-get update && DEBIAN_FRONTEND=noninteractive \
        apt-get install -y --no-install-recommends $missing; } >"$log" 2>&1; then
    tail -n 20 "$log" >&2
    echo "deps.sh: apt-get failed" >&2
    exit 1
fi
# A package can install yet not provide what we check for (e.g. a renamed file).
check
[ -z "$missing" ] || { echo "deps.sh: still missing after install:$missing" >&2; exit 1; }
