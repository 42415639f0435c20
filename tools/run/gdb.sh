#!/bin/bash
# gdb.sh ARCH IMAGE SMP [kernel command line...] - a Spindle image under
# gdb, with tools/run/gdb/spindle.py loaded (info goroutines, goroutine N bt).
#
# x86_64, aarch64: QEMU (tools/run/qemu.sh) starts the machine stopped before
# its first instruction, its gdb stub on 127.0.0.1:GDBPORT (default 1234;
# when that port is taken and GDBPORT was not given, a free one), and gdb
# (gdb-multiarch for aarch64) loads IMAGE's symbols and connects: each
# vCPU is a gdb thread, thread n being core n - 1.  `continue` boots it;
# breakpoints are QEMU's own (TCG, the default accelerator here), so they
# may be set before the kernel is loaded.  The console stays on this
# terminal; QEMU reads no input.  QEMU is stopped when gdb exits.
#
# hosted, hosted-asan, hosted-tsan: IMAGE runs as a process under gdb,
# with SMP cores as threads (`run` starts it).  MEM and INITRD are
# qemu.sh's (the hosted image's -m and -initrd).
#
# GDB_X=FILE has gdb run FILE's commands after connecting, and GDB_BATCH=1
# makes gdb exit after them (tests, scripted sessions).
set -eu
arch=$1 image=$2 smp=$3
shift 3
tools=$(dirname "$0")/..
script=$tools/run/gdb/spindle.py
gdb_args=(-q -x "$script")
[ "${GDB_BATCH:-0}" = 1 ] && gdb_args=(-batch "${gdb_args[@]}")

case $arch in
hosted*)
    [ -z "${GDB_X:-}" ] || gdb_args+=(-x "$GDB_X")
    exec gdb "${gdb_args[@]}" --args "$image" -smp "$smp" -m "${MEM:-1024}" \
        ${INITRD:+-initrd "$INITRD"} "$@"
    ;;
x86_64) gdb=gdb ;;
aarch64) gdb=gdb-multiarch ;;
*) echo "gdb.sh: ARCH=$arch is not x86_64, aarch64 or hosted" >&2; exit 2 ;;
esac

# listening PORT: something listens on 127.0.0.1:PORT.
listening() {
    [ -n "$(ss -Hltn "sport = :$1" 2>/dev/null)" ]
}

port=${GDBPORT:-}
if [ -z "$port" ]; then
    port=1234
    if listening $port; then
        port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    fi
fi

# QEMU in a session of its own: the terminal's Ctrl-C is gdb's, to stop
# the guest, not QEMU's.
GDBPORT=$port ACCEL=${ACCEL:-tcg} setsid "$tools/run/qemu.sh" "$arch" "$image" "$smp" "$@" < /dev/null &
qemu=$!
stop_qemu() {
    kill -- -"$qemu" 2>/dev/null || true
    wait "$qemu" 2>/dev/null || true
}
trap stop_qemu EXIT
trap : INT

for _ in $(seq 200); do
    listening "$port" && break
    kill -0 "$qemu" 2>/dev/null || { echo "gdb.sh: QEMU exited" >&2; exit 1; }
    sleep 0.05
done
listening "$port" || { echo "gdb.sh: QEMU's gdb stub is not on port $port" >&2; exit 1; }

gdb_args+=(-ex "target remote 127.0.0.1:$port")
[ -z "${GDB_X:-}" ] || gdb_args+=(-x "$GDB_X")
"$gdb" "${gdb_args[@]}" "$image"
