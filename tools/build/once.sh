# tools/build/once.sh - sourced by the scripts that fetch and unpack a Debian
# package under build/ once (lwip.sh, gnuefi.sh, linuxguest.sh).
#
# once OUTDIR STAMP: ends the calling script (status 0) when
# OUTDIR/.stamp holds STAMP already.  Otherwise makes OUTDIR, sets `out`
# to its absolute path and takes OUTDIR/.lock (fd 9, held until the
# script ends), so that two makes calling at once fetch once: the one
# that waited finds the stamp and ends.  The caller writes the stamp when
# it has finished.
once() {
    [ "$(cat "$1/.stamp" 2>/dev/null)" = "$2" ] && exit 0
    mkdir -p "$1"
    out=$(cd "$1" && pwd)
    exec 9>"$out/.lock"
    flock 9
    [ "$(cat "$out/.stamp" 2>/dev/null)" = "$2" ] && exit 0
    return 0
}

# with_arch DARCH LOG CMD...: runs CMD while apt offers DARCH's packages.
# A foreign DARCH that dpkg does not know yet is added for CMD alone (as
# root; apt's lists refreshed into LOG) and removed again after it, even
# when the script is interrupted, leaving dpkg as it found it.  Returns
# CMD's status, or 1 when adding DARCH needs root.
with_arch() {
    local darch=$1 log=$2 rc
    shift 2
    if [ "$darch" = "$(dpkg --print-architecture)" ] ||
        dpkg --print-foreign-architectures | grep -qx "$darch"; then
        "$@"
        return
    fi
    if [ "$(id -u)" != 0 ]; then
        echo "$(basename "$0"): $darch packages need root (dpkg --add-architecture $darch)" >&2
        return 1
    fi
    dpkg --add-architecture "$darch"
    # shellcheck disable=SC2064 # darch and log are fixed now
    trap "dpkg --remove-architecture $darch; apt-get update >>'$log' 2>&1" EXIT
    apt-get update >>"$log" 2>&1 || true
    "$@"
    rc=$?
    dpkg --remove-architecture "$darch"
    apt-get update >>"$log" 2>&1 || true
    trap - EXIT
    return $rc
}
