# tests/host/memcached_boot.sh - sourced by memcached_test.sh and
# memcached_suite.sh: boots the memcached port and stops it again.
#
# mc_boot ARCH SMP LOG: boots build/<arch>/ports/memcached/memcached.elf
# at SMP cores with `-U 0 -t SMP -m 64 -c 1024`, QEMU's user network
# forwarding a free port of 127.0.0.1 (set in mc_port) to the guest's
# 11211, console in LOG; returns 0 once memcached answers `version`
# there, 1 if it does not within 90 s or the boot ends.  QEMU runs in a
# process group of its own (mc_pgid), which mc_stop ends.

mc_pgid= mc_port=

# A TCP port of 127.0.0.1 that nothing listens on now.
mc_free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# mc_cmd PORT LINE...: sends the lines to memcached and prints its answer
# to the last one (one read after a short wait); status 1 if no answer.
mc_cmd() {
    python3 - "$@" <<'PY'
import socket, sys, time
try:
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
    s.sendall("".join(l + "\r\n" for l in sys.argv[2:]).encode())
    time.sleep(0.3)
    data = s.recv(65536)
except OSError:
    sys.exit(1)
sys.stdout.write(data.decode(errors="replace"))
sys.exit(0 if data else 1)
PY
}

mc_boot() {
    local arch=$1 smp=$2 log=$3 i
    mc_port=$(mc_free_port)
    setsid env NET=user HOSTPORT="$mc_port" GUESTPORT=11211 QUIET=1 \
        timeout -k 5 600 tools/run/qemu.sh "$arch" "build/$arch/ports/memcached/memcached.elf" "$smp" \
        -- -U 0 -t "$smp" -m 64 -c 1024 > "$log" 2>&1 < /dev/null &
    mc_pgid=$!
    for i in $(seq 90); do
        sleep 1
        kill -0 "$mc_pgid" 2>/dev/null || return 1
        mc_cmd "$mc_port" version 2>/dev/null | grep -q '^VERSION ' && return 0
    done
    return 1
}

mc_stop() {
    [ -n "$mc_pgid" ] || return 0
    kill -- "-$mc_pgid" 2>/dev/null
    wait "$mc_pgid" 2>/dev/null
    mc_pgid=
}
