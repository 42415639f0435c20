# tools/once.sh - sourced by the scripts that fetch and unpack a Debian
# package under build/ once (lwip.sh, gnuefi.sh).
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
