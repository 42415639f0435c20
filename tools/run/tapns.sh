#!/bin/bash
# tapns.sh PEERLOG CMD... - runs CMD in a network namespace of its own that
# holds one TAP device, spt0, at 192.0.2.1/24 (a documentation range;
# nothing leaves the namespace): the network of a hosted Spindle run with
# tap=spt0 ip=192.0.2.2/24.  With NETPEER_ARGS set, the test peer
# (NETPEER, default build/host/netpeer) runs in the namespace beside CMD,
# its stdout in PEERLOG.out and its stderr in PEERLOG, and CMD starts once
# the peer says it is ready.  With QUEUES above 1 the TAP is a
# multi_queue one, for a multiqueue NIC (tools/run/qemu.sh QUEUES=).  Needs
# root (unshare -n).  Exits with CMD's status.
set -u
if [ "${1:-}" != --inside ]; then
    exec unshare -n "$0" --inside "$@"
fi
shift
peerlog=$1
shift
ip link set lo up &&
    ip tuntap add dev spt0 mode tap $([ "${QUEUES:-1}" -gt 1 ] && echo multi_queue) &&
    ip addr add 192.0.2.1/24 dev spt0 &&
    ip link set spt0 up || { echo "tapns: cannot make the TAP device" >&2; exit 125; }
peer=
if [ -n "${NETPEER_ARGS:-}" ]; then
    # shellcheck disable=SC2086 # a list of words
    "${NETPEER:-build/host/netpeer}" $NETPEER_ARGS > "$peerlog.out" 2>> "$peerlog" < /dev/null &
    peer=$!
    for _ in $(seq 100); do
        grep -q '^netpeer: ready' "$peerlog.out" 2>/dev/null && break
        kill -0 "$peer" 2>/dev/null || { echo "tapns: the peer exited" >&2; exit 125; }
        sleep 0.05
    done
fi
# In the background, so that a timeout's signal reaches both.
"$@" &
child=$!
trap 'kill "$child" $peer 2>/dev/null' TERM INT
wait "$child"
rc=$?
[ -n "$peer" ] && { kill "$peer" 2>/dev/null; wait "$peer" 2>/dev/null; }
exit $rc
