#!/bin/bash
# runtests.sh - runs the host unit tests, then boots every in-image test app
# over the core-count matrix, and ends with one line "N passed, M failed".
#
#   runtests.sh [--host "BIN..."] [--fuzz "BIN..."] [--only NAME] [--smp N]
#               [--smp-for ARCH "N..."]... [--font PSF] [--junit FILE]
#               --arch ARCH IMAGE... [--arch ARCH2 IMAGE...]...
#
# Each --arch starts a group of images booted with that arch's launcher
# and core-count matrix (x86_64: 1 2 3 4 8; aarch64: 1 2 4; the firmware
# boots: 2; x86_64-microvm: 1 4; the hosted builds: 1 2 4 8; --smp-for
# replaces one arch's, --smp every arch's).  The firmware boots take an
# arch's images (build/<arch>/...) through its EFI loader
# (tools/run/qemu.sh): x86_64-efi under OVMF, aarch64-efi under AAVMF
# with ACPI, aarch64-efi-dtb under AAVMF with a device tree,
# aarch64-uboot through U-Boot; x86_64-microvm boots x86_64's images on
# QEMU's microvm machine; a test.conf's `.x86_64` or `.aarch64` keys
# serve them too.
# the total line covers every group.  Host test programs (--host) run
# first, then the corpus replay of each libFuzzer target (--fuzz, through
# tools/test/fuzz.sh), each reporting TEST lines of its own: the compiled ones
# a job per host core, scripts one at a time (host_start).
#
# A case counts once per boot: each "TEST <name> PASS|FAIL" line of a boot
# is one result.  A boot that times out, ends without its closing
# "N passed, M failed" line, disagrees with it, or exits non-zero without
# a failing case counts as one failure, and its console tail is shown.
# Any sanitizer report in the console (hosted builds) is one more failure.
#
# Besides the console, the results go to a JUnit XML report (--junit
# FILE; build/test-results.xml by default), written whole at the end
# (junit_write), failures or not: one <testcase> per result counted in
# the total line, so its tests and failures are the line's N + M and M.
# Its <testsuite>s are "host" (the --host programs), "fuzz" (the corpus
# replays) and one per build and test folder ("x86_64 tests/sched/chan");
# a case's classname is its console label ("host fmt_test", "host
# fuzz_fdt (corpus)", "x86_64 tests/sched/chan smp=4", with " [CMDLINE]"
# for a `cmdline` boot), its name the TEST line's name, or for a result
# of the runner's own: "exit" (a host program's status), "boot" (a
# timeout, a missing or disagreeing closing line, a boot's status),
# "expect", "hostcpu", "screen", "trace", "profile", "sanitizer".  A
# failure's message is its FAIL line or the runner's reason, its text the
# last 200 lines of that program's or boot's console (and the screen,
# trace and profile checks and netpeer messages).  A suite of boots has the time they took; no
# case has one (a boot times the whole console, not its cases).
#
# A test folder's `test.conf` says how its image is booted: which builds
# and core counts, kernel command lines, memory, CPU model, a NIC (on
# PCI, or on virtio-mmio: `virtio mmio`, aarch64) and a
# host peer, a host-CPU bound, the output of a fatal-path test, text
# that must be on the screen (found with the font --font names), or the
# check of an execution trace or a CPU profile the boot dumps
# (tools/run/trace.py check, tools/run/pprof.py check).
# docs/testing.md describes its keys; conf() below reads them.
#
# A folder may hold no sources, only a test.conf whose `image` names
# another test folder (from the repository root: `image tests/net/tcp`;
# not a variant itself): a variant of that test.  Its image path
# (build/x86_64/tests/net/mq.elf, passed like any other) stands for that
# folder's image in the same build folder (build/x86_64/tests/net/tcp.elf),
# booted as the variant's own test.conf says (the other folder's keys do
# not apply); its results, logs and report entries go by the variant's
# name (image_of).  A variant with a `files` line boots its own image,
# the other folder's objects linked with that tree (kernel/initrd.mk).
#
# A test with `files` or `initrd` is told which archive its boot must
# find (kernel/initrd.h): its app arguments end with cpio=BYTES:CRC32:FROM,
# the length and zlib CRC-32 of the archive (the
# initrd's, which wins, else the one linked in: <image>.cpio beside the
# image) and where it comes from ("image", or the boot path: "pvh" on
# x86_64 and microvm, "dtb" on aarch64, "efi" through the firmware,
# "hosted").  An `initrd` folder is packed for the boot
# (tools/build/mkcpio.py --tree, into the logs folder) and handed over
# as qemu.sh's INITRD; a file is handed over as it is.
#
# A `net` test gets a NIC on QEMU's user network: for each boot the runner
# picks seven free ports B..B+6 on 127.0.0.1 (build/host/netpeer --probe;
# NETPEER names another netpeer) and forwards B+4 to the guest's TCP port
# 80.  With `peer`, B, B+1 and B+3 are forwarded to the guest's TCP ports
# 7, 9 and 9000 and B+2 to its UDP port 7, `netpeer --base B --serve B+5
# --closed B+6` runs beside the boot (an echo server on B+5, nothing
# listening on B+6), and the app's arguments get B+5 and B+6 after
# cores=N.  The peer ends with the boot; what it printed on stderr is
# shown with the console tail when the boot fails.  A hosted build has no
# QEMU, and a `tap` test needs a network the peer can reach directly
# (ping): there the boot runs as root in a network namespace of its own
# with a TAP device (tools/run/tapns.sh; 192.0.2.1 the peer's end, the guest
# 192.0.2.2/24 on it through QEMU's NET=tap or the hosted build's
# tap=spt0), the peer reaches the guest's ports directly, and the app gets
# host= and guest= after the ports.  Every other boot has no NIC (NET and
# HOSTFWD from the environment are not used).
# TIMEOUT (seconds per boot; default 120, and 600 for the sanitizer
# builds) and MEM pass through.
set -u
arch=x86_64 host= fuzz= only= smp= font= junit=build/test-results.xml
items=()            # "ARCH IMAGE" pairs, in the order given
declare -A smp_for  # ARCH -> its core counts (--smp-for)
while [ $# -gt 0 ]; do
    case $1 in
    --arch) arch=$2; shift 2 ;;
    --smp-for) smp_for[$2]=$3; shift 3 ;;
    --host) host=$2; shift 2 ;;
    --fuzz) fuzz=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --smp) smp=$2; shift 2 ;;
    --font) font=$2; shift 2 ;;
    --junit) junit=$2; shift 2 ;;
    *) items+=("$arch $1"); shift ;;
    esac
done
panic_status=112

# timeout_of ARCH: seconds a boot may take; TIMEOUT, if given, for all.
# A sanitizer build runs several times slower than the others.
timeout_of() {
    case $1 in
    *-tsan|*-asan) echo "${TIMEOUT:-600}" ;;
    *) echo "${TIMEOUT:-120}" ;;
    esac
}

# matrix_of ARCH: the core counts ARCH boots at.
matrix_of() {
    if [ -n "$smp" ]; then echo "$smp"; return; fi
    if [ -n "${smp_for[$1]:-}" ]; then echo "${smp_for[$1]}"; return; fi
    case $1 in
    x86_64) echo "1 2 3 4 8" ;;
    *-efi|*-efi-dtb|*-uboot) echo "2" ;;    # the firmware takes 2-6 s a boot
    *-microvm) echo "1 4" ;;
    aarch64) echo "1 2 4" ;;
    *) echo "1 2 4 8" ;;
    esac
}

# conf VAR DIR KEY ARCH: sets VAR to the values of KEY in DIR/test.conf
# for ARCH, one a line: those of its `KEY.ARCH` lines if it has any
# (`KEY.hosted` serves every hosted build), else those of its `KEY` lines.
# A value is the rest of its line after the key and the blanks that
# follow it.  The file is read once per DIR and ARCH (conf_load), into
# conf_val.
declare -A conf_val=() conf_read=()
conf() {
    local _cv
    conf_load "$2" "$4"
    _cv=${conf_val[$2|$4|$3]:-}
    _cv=${_cv%$'\n'}         # the last value's end: an empty value stays
    printf -v "$1" '%s' "$_cv"
}

# conf_load DIR ARCH: every key of DIR/test.conf for ARCH into conf_val.
# The loops' own conf calls load it before boots_at's $(...) subshells
# look in it (a subshell's load would be lost with it).
conf_load() {
    local k v
    [ -n "${conf_read[$1|$2]:-}" ] && return 0
    conf_read[$1|$2]=1
    [ -f "$1/test.conf" ] || return 0
    while IFS=$'\t' read -r k v; do
        conf_val[$1|$2|$k]+=$v$'\n'
    done < <(awk -v a="$2" -v b="${2%%-*}" '
        /^[ \t]*(#|$)/ { next }
        {
            v = $0; sub(/^[ \t]*[^ \t]+[ \t]*/, "", v); sub(/[ \t]+$/, "", v)
            k = $1; s = ""
            if ((i = index(k, ".")) > 0) { s = substr(k, i + 1); k = substr(k, 1, i - 1) }
            keys[k] = 1
        }
        s == a  { xa[k, na[k]++] = v; next }
        s == b  { xb[k, nb[k]++] = v; next }
        s == "" { x[k, n[k]++] = v }
        END {
            for (k in keys)
                if (na[k]) for (i = 0; i < na[k]; i++) print k "\t" xa[k, i]
                else if (nb[k]) for (i = 0; i < nb[k]; i++) print k "\t" xb[k, i]
                else for (i = 0; i < n[k]; i++) print k "\t" x[k, i]
        }' "$1/test.conf")
}

# conf_check DIR: fails, naming the line, if DIR/test.conf has a key the
# runner does not know (a misspelt key would silently change nothing).
conf_check() {
    [ -f "$1/test.conf" ] || return 0
    awk -v f="$1/test.conf" '
        /^[ \t]*(#|$)/ { next }
        { k = $1; sub(/\..*/, "", k) }
        k !~ /^(arches|smp|moresmp|cmdline|mem|cpu|acpi|load|hostcpu|net|queues|virtio|status|expect|screen|trace|profile|image|files|initrd)$/ {
            printf "%s:%d: unknown key %s\n", f, NR, $1; bad = 1
        }
        $1 ~ /^files\./ {
            printf "%s:%d: %s: `files` is one tree for every build (make links it)\n", f, NR, $1; bad = 1
        }
        END { exit bad }' "$1/test.conf"
}

# in_arches DIR ARCH: DIR's `arches` (none: every build) name ARCH, or
# `hosted` for a hosted sanitizer build, and no `!ARCH` leaves it out.
in_arches() {
    local a w
    conf a "$1" arches "$2"
    [ -n "$a" ] || return 0
    for w in $a; do
        if [ "$w" = "!$2" ]; then return 1; fi
    done
    for w in $a; do
        if [ "$w" = "$2" ] || [ "$w" = "${2%%-*}" ]; then return 0; fi
    done
    return 1
}

# boots_at DIR ARCH: the core counts DIR boots at on ARCH: the matrix, cut
# to the counts of DIR's `smp`, plus those of its `moresmp` that the
# matrix lacks (unless --smp asked for one count); nothing if its
# `arches` leave ARCH out.
boots_at() {
    local m n s x more
    in_arches "$1" "$2" || return 0
    m=$(matrix_of "$2")
    conf s "$1" smp "$2"
    for n in $m; do
        if [ -z "$s" ] || grep -qw -- "$n" <<< "$s"; then printf '%s ' "$n"; fi
    done
    if [ -z "$smp" ]; then
        conf more "$1" moresmp "$2"
        for x in $more; do
            grep -qw -- "$x" <<< "$m" || printf '%s ' "$x"
        done
    fi
    echo
}

# image_of VAR IMG DIR ARCH: sets VAR to the image a boot of DIR (IMG's
# test folder) starts on ARCH: IMG, or if DIR is a variant (its `image`
# names another test folder) that folder's image in IMG's build folder,
# unless the variant links a tree of its own (`files`): IMG again.
# Fails, saying why, if the folder named is missing or a variant itself.
image_of() {
    local _b _bb _f
    conf _b "$3" image "$4"
    conf _f "$3" files "$4"
    _b=${_b%/}
    if [ -z "$_b" ] && [ -n "$_f" ]; then
        echo "$3/test.conf: files without image: a tree is linked into a variant's own image"; return 1
    fi
    if [ -z "$_b" ]; then printf -v "$1" '%s' "$2"; return 0; fi
    if [[ $_b == *$'\n'* ]]; then
        echo "$3/test.conf: more than one image for $4"; return 1
    elif [ ! -d "$_b" ]; then
        echo "$3/test.conf: image $_b: no such test folder"; return 1
    fi
    conf _bb "$_b" image "$4"
    if [ -n "$_bb" ]; then
        echo "$3/test.conf: image $_b: a variant itself (of $_bb)"; return 1
    fi
    if [ -n "$_f" ]; then printf -v "$1" '%s' "$2"; return 0; fi
    printf -v "$1" '%s' "${2%"$3.elf"}$_b.elf"
}

# cpio_arg VAR LOGS NAME DIR ARCH IMG: for a test with `files` or
# `initrd`, sets VAR to its cpio=BYTES:CRC32:FROM argument and initrd to
# the INITRD its boots get (packing an `initrd` folder into LOGS once);
# both empty for any other test.  Fails, saying why, if an archive is
# missing.
cpio_arg() {
    local _f _i _a _from
    conf _f "$4" files "$5"
    conf _i "$4" initrd "$5"
    printf -v "$1" '%s' ""
    initrd=
    if [ -n "$_i" ]; then
        _i=${_i%/}
        if [ -d "$_i" ]; then
            initrd=$2/$3.initrd.cpio
            python3 tools/build/mkcpio.py --tree "$initrd" "$_i" || return 1
        elif [ -f "$_i" ]; then
            initrd=$_i
        else
            echo "$4/test.conf: initrd $_i: no such folder or file"; return 1
        fi
        _a=$initrd
        case $5 in
        x86_64|x86_64-microvm) _from=pvh ;;
        aarch64) _from=dtb ;;
        hosted*) _from=hosted ;;
        *) _from=efi ;;
        esac
    elif [ -n "$_f" ]; then
        _a=${6%.elf}.cpio _from=image
        [ -f "$_a" ] || { echo "$4/test.conf: files: no $_a (make builds it with the image)"; return 1; }
    else
        return 0
    fi
    printf -v "$1" 'cpio=%s:%s' "$(python3 -c 'import sys, zlib
d = open(sys.argv[1], "rb").read()
print("%d:%08x" % (len(d), zlib.crc32(d)))' "$_a")" "$_from"
}

# is_fw ARCH: whether ARCH boots through the firmware and the EFI loader.
is_fw() {
    case $1 in *-efi|*-efi-dtb|*-uboot) return 0 ;; esac
    return 1
}

# placement_of LOG ARCH LOAD: checks where the boot's kernel ran, by its
# "boot: kernel at A-B (linked at L)" line: under the firmware at the
# address of the loader's "efi: kernel at A"; with LOAD (a `load` test)
# not at L, and at LOAD itself when that is an address.  Prints "A ..."
# and succeeds, or prints why not.
placement_of() {
    local efi run link
    run=$(sed -n 's/^boot: kernel at \(0x[0-9a-f]*\)-.*linked at \(0x[0-9a-f]*\).*/\1 \2/p' "$1" | head -n 1)
    link=${run#* } run=${run%% *}
    [ -n "$run" ] || { echo "no 'boot: kernel at' line"; return 1; }
    if is_fw "$2" && [ "$3" != booti ]; then
        efi=$(sed -n 's/^efi: kernel at \(0x[0-9a-f]*\).*/\1/p' "$1" | head -n 1)
        [ -n "$efi" ] || { echo "no 'efi: kernel at' line from the loader"; return 1; }
        [ "$efi" = "$run" ] || { echo "the loader placed the kernel at $efi, the kernel runs at $run"; return 1; }
        echo "$run (linked at $link): efi_place=random"
    elif [ -n "$3" ]; then
        [ "$run" != "$link" ] || { echo "the kernel runs at its link address $link, not moved"; return 1; }
        [ "$3" = booti ] || [ $(($3)) = $((run)) ] || { echo "the kernel runs at $run, not at $3"; return 1; }
        echo "$run (linked at $link): moved${3:+ ($3)}"
    fi
}

passed=0 failed=0
declare -A placed=()    # firmware config -> the kernel's addresses, a boot each
failures=()    # the label of every boot or host test that failed, for the recap

# cpu_ticks PID: user + system clock ticks a process (and its threads) used.
cpu_ticks() {
    [ -n "$1" ] && awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null
}

# boot_measured LOG ARGS...: boots like the plain path, and prints the
# percent of one host core QEMU used between IDLE START and IDLE END.
boot_measured() {
    local log=$1 pid qpid t0 t1 c0 c1 c hz p
    shift
    QUIET=1 timeout -k 5 "$timeout_s" tools/run/qemu.sh "$@" > "$log" 2>&1 < /dev/null &
    pid=$!
    hz=$(getconf CLK_TCK)
    while kill -0 $pid 2>/dev/null && ! grep -q '^IDLE START' "$log"; do sleep 0.02; done
    # Our QEMU is the child of qemu.sh, the child of timeout ($pid): other
    # worktrees may run a QEMU on the same relative image path right now.
    # A hosted image is the child itself (qemu.sh execs it).
    qpid=
    for p in $(pgrep -P "$pid"); do
        qpid=$(pgrep -P "$p" -f qemu-system | head -n 1)
        [ -n "$qpid" ] || qpid=$p
        break
    done
    c0=$(cpu_ticks "$qpid"); t0=$(date +%s%N)
    # Sample as we wait: QEMU may be gone (the app exits right after
    # IDLE END) by the time the line is seen, so the last sample ends the
    # window.
    c1= t1=$t0
    while kill -0 $pid 2>/dev/null && ! grep -q '^IDLE END' "$log"; do
        c=$(cpu_ticks "$qpid")
        [ -n "$c" ] && { c1=$c; t1=$(date +%s%N); }
        sleep 0.02
    done
    c=$(cpu_ticks "$qpid")
    [ -n "$c" ] && { c1=$c; t1=$(date +%s%N); }
    wait $pid
    rc=$?
    if [ -n "$c0" ] && [ -n "$c1" ] && [ "$t1" != "$t0" ]; then
        echo $(( (c1 - c0) * 100 * 1000000000 / hz / (t1 - t0 + 1) )) > "$log.cpu"
    else
        echo "unmeasured" > "$log.cpu"
    fi
    return $rc
}

# boot_screen LOG ARGS...: boots like the plain path with QEMU's monitor
# on a socket, and once the app prints SCREEN DUMP saves what the screen
# shows in LOG.ppm (tools/test/screen.py's messages in LOG.screen).
boot_screen() {
    local log=$1 pid
    shift
    rm -f "$log.ppm" "$log.mon"
    : > "$log.screen"
    MONITOR=$log.mon QUIET=1 timeout -k 5 "$timeout_s" tools/run/qemu.sh "$@" > "$log" 2>&1 < /dev/null &
    pid=$!
    while kill -0 $pid 2>/dev/null && ! grep -q '^SCREEN DUMP' "$log"; do sleep 0.02; done
    kill -0 $pid 2>/dev/null &&
        python3 tools/test/screen.py dump "$log.mon" "$log.ppm" >> "$log.screen" 2>&1
    wait $pid
    rc=$?
    rm -f "$log.mon"
    return $rc
}

tail_of() {
    echo "    --- last lines of $1 ---"
    tail -n 25 "$1" | sed 's/^/    | /'
    if [ -s "$1.screen" ]; then
        echo "    --- the screen ($1.screen) ---"
        sed 's/^/    | /' "$1.screen"
    fi
    if [ -s "$1.trace-check" ]; then
        echo "    --- the trace check ($1.trace-check) ---"
        sed 's/^/    | /' "$1.trace-check"
    fi
    if [ -s "$1.profile-check" ]; then
        echo "    --- the profile check ($1.profile-check) ---"
        sed 's/^/    | /' "$1.profile-check"
    fi
    if [ -s "$1.peer" ]; then
        echo "    --- what netpeer printed ($1.peer) ---"
        tail -n 25 "$1.peer" | sed 's/^/    | /'
    fi
}

# The JUnit report's records, one a line in $jrec, tab-separated (a tab
# in a name or message becomes a blank): "S SUITE CLASS SECONDS TEXT"
# opens a group (a host program, a boot; SECONDS may be empty), whose
# results follow it as "P NAME" (passed) or "F NAME MESSAGE" (failed); a
# failure's text is the file TEXT, written once the group's count shows
# one (j_text).  junit_write makes the XML of them at the end.
jdir=$(mktemp -d "${TMPDIR:-/tmp}/runtests.XXXXXX") || exit 2
jrec=$jdir/records jn=0 jtxt=
: > "$jrec"
rm -f "$junit"     # no stale report for a run that stops early

# j_open SUITE CLASS [SECONDS]: opens a group; jtxt is its TEXT file.
j_open() {
    jn=$((jn + 1)) jtxt=$jdir/$jn.txt
    printf 'S\t%s\t%s\t%s\t%s\n' "$1" "$2" "${3:-}" "$jtxt" >> "$jrec"
}

# j_case P|F NAME [MESSAGE]: one result of the open group.
j_case() {
    local n=$2 m=${3:-}
    printf '%s\t%s\t%s\n' "$1" "${n//$'\t'/ }" "${m//$'\t'/ }" >> "$jrec"
}

# The awk rules that count a console's TEST lines, as the total line
# does, into p (PASS) and f (FAIL), and append each to the records as a
# case of the open group unless rec is empty; the name is what stands
# between "TEST " and " PASS" or the first " FAIL", the message of a
# failure its whole line.
# shellcheck disable=SC2016 # awk's $0, not the shell's
tests_awk='
    function tcase(st, n, m) { gsub(/\t/, " ", n); gsub(/\t/, " ", m); print st "\t" n "\t" m >> rec }
    /^TEST .* PASS$/ { p++; if (rec != "") tcase("P", substr($0, 6, length($0) - 10), "") }
    /^TEST .* FAIL/ { f++; if (rec != "") tcase("F", substr($0, 6, index(substr($0, 6), " FAIL") - 1), $0) }'

# j_text LOG: a failure's text for LOG: its last 200 lines, then the
# screen, trace and profile checks and netpeer messages that tail_of
# shows too.
j_text() {
    local x
    tail -n 200 "$1"
    for x in screen trace-check profile-check peer; do
        [ -s "$1.$x" ] || continue
        echo "--- $1.$x ---"
        tail -n 50 "$1.$x"
    done
}

# junit_write: the report of the records, into $junit through a file
# beside it (a reader sees the whole report or none); fails if its
# totals are not the console's ($passed, $failed).  The records' text is
# made XML 1.0 (xml_awk): invalid UTF-8 becomes "?", control characters
# but tab, newline and CR go, & < > " are escaped, and a line longer
# than 2,000 bytes is cut.
junit_write() {
    local tmp=$junit.tmp.$$ t f
    mkdir -p "$(dirname "$junit")" || return 1
    if ! LC_ALL=C awk -v counts="$jdir/counts" "$xml_awk" "$jrec" > "$tmp" ||
       ! mv -f "$tmp" "$junit"; then
        rm -f "$tmp"
        return 1
    fi
    read -r t f < "$jdir/counts"
    [ "$t" = $((passed + failed)) ] && [ "$f" = "$failed" ] && return 0
    echo "runtests: $junit counts $t results, $f failed: not the total line's"
    return 1
}
# shellcheck disable=SC2016 # awk's $1, not the shell's
xml_awk='
    BEGIN { FS = "\t"; for (i = 1; i < 256; i++) ord[sprintf("%c", i)] = i }
    # xml(s): s as XML character data (or a double-quoted attribute), cut
    # to 2,000 bytes (a byte at a time is slow, but only for lines that
    # are not plain ASCII).
    function xml(s,   o, i, j, k, n, b, lo, hi, ok) {
        if (length(s) > 2000) s = substr(s, 1, 2000) "[...]"
        if (s ~ /[^\t -~]/) {
            o = ""; n = length(s)
            for (i = 1; i <= n; i++) {
                b = ord[substr(s, i, 1)]
                if (b < 128) {
                    if (b >= 32 || b == 9 || b == 10 || b == 13) o = o substr(s, i, 1)
                    continue
                }
                # A UTF-8 sequence: k bytes after its lead, the first
                # in [lo, hi] (no overlong form, surrogate or > U+10FFFF).
                k = 0; lo = 128; hi = 191
                if (b >= 194 && b <= 223) k = 1
                else if (b >= 224 && b <= 239) { k = 2; if (b == 224) lo = 160; if (b == 237) hi = 159 }
                else if (b >= 240 && b <= 244) { k = 3; if (b == 240) lo = 144; if (b == 244) hi = 143 }
                ok = k > 0 && i + k <= n
                for (j = 1; ok && j <= k; j++) {
                    b = ord[substr(s, i + j, 1)]
                    if (b < (j == 1 ? lo : 128) || b > (j == 1 ? hi : 191)) ok = 0
                }
                # U+FFFE and U+FFFF are no XML characters either.
                if (ok && k == 2 && substr(s, i, 2) == "\357\277" && b >= 190) ok = 0
                if (ok) { o = o substr(s, i, k + 1); i += k } else o = o "?"
            }
            s = o
        }
        gsub(/&/, "\\&amp;", s); gsub(/</, "\\&lt;", s); gsub(/>/, "\\&gt;", s); gsub(/"/, "\\&quot;", s)
        return s
    }
    # text(f): the escaped content of file f, read once.
    function text(f,   l, t) {
        if (f in texts) return texts[f]
        t = ""
        while ((getline l < f) > 0) t = t xml(l) "\n"
        close(f)
        return texts[f] = t
    }
    function tcase(close_) {
        out[suite] = out[suite] "    <testcase classname=\"" xml(cls) "\" name=\"" xml($2) "\"" close_
        nt[suite]++
    }
    $1 == "S" {
        suite = $2; cls = $3; txt = $5
        if (!(suite in nt)) { order[++ns] = suite; nt[suite] = nf[suite] = 0 }
        if ($4 != "") { secs[suite] += $4; timed[suite] = 1 }
    }
    $1 == "P" { tcase("/>\n") }
    $1 == "F" {
        tcase(">\n      <failure message=\"" xml($3) "\">" text(txt) "</failure>\n    </testcase>\n")
        nf[suite]++
    }
    END {
        for (k = 1; k <= ns; k++) { t += nt[order[k]]; f += nf[order[k]] }
        print "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
        printf "<testsuites name=\"runtests\" tests=\"%d\" failures=\"%d\" errors=\"0\">\n", t, f
        for (k = 1; k <= ns; k++) {
            s = order[k]
            printf "  <testsuite name=\"%s\" tests=\"%d\" failures=\"%d\" errors=\"0\"", xml(s), nt[s], nf[s]
            if (timed[s]) printf " time=\"%.3f\"", secs[s]
            printf ">\n%s  </testsuite>\n", out[s]
        }
        print "</testsuites>"
        print t + 0, f + 0 > counts
    }'

# The network of the `net` tests.  Hosted builds: tools/run/tapns.sh's TAP
# device (the peer's end) and the guest's address beside it.
netpeer=${NETPEER:-build/host/netpeer}
TAP_HOST=192.0.2.1 TAP_GUEST=192.0.2.2
peer_pid=

# net_start LOG: picks the ports, and starts netpeer on them (logging to
# LOG.peer) if the test's `net` ($netw) asks for it; sets net, hostport and
# hostfwd (qemu.sh's NET, HOSTPORT and HOSTFWD) and net_args (the app's).
# Fails if netpeer is missing or could not get its ports.
net_start() {
    local b i
    net= hostport= hostfwd= net_args=() peer_pid=
    : > "$1.peer"
    if [ ! -x "$netpeer" ]; then
        echo "runtests: no $netpeer (make $netpeer)" > "$1.peer"
        return 1
    fi
    b=$("$netpeer" --probe 2>> "$1.peer") || return 1
    net=user hostport=$((b + 4))
    grep -qw peer <<< "$netw" || return 0
    hostfwd=tcp:127.0.0.1:$b-:7,tcp:127.0.0.1:$((b + 1))-:9,udp:127.0.0.1:$((b + 2))-:7,tcp:127.0.0.1:$((b + 3))-:9000
    net_args=($((b + 5)) $((b + 6)))
    "$netpeer" --base "$b" --serve $((b + 5)) --closed $((b + 6)) \
        > "$1.peer.out" 2>> "$1.peer" < /dev/null &
    peer_pid=$!
    # Bound and ready in a few ms; a peer that lost its ports exits.
    for i in $(seq 100); do
        grep -q '^netpeer: ready' "$1.peer.out" 2>/dev/null && return 0
        kill -0 "$peer_pid" 2>/dev/null || break
        sleep 0.05
    done
    peer_stop
    return 1
}

peer_stop() {
    [ -n "$peer_pid" ] || return 0
    kill "$peer_pid" 2>/dev/null
    wait "$peer_pid" 2>/dev/null
    peer_pid=
}
trap 'peer_stop; rm -rf "$jdir"' EXIT

# host_start SUITE LABEL LOG CMD...: starts a host program whose TEST
# lines are its results (in the report's SUITE), in the background, once
# fewer than host_jobs run; its exit status goes to LOG.rc.  A script
# (#!) runs alone, after everything started before it: it may read what
# a program wrote (tracepy_test.py, tracebuf_test's dump) or boot an
# image whose timing it checks (gdb_test).  host_report reports them all, in start order.
host_jobs=$(nproc 2>/dev/null || echo 2)
host_suites=() host_labels=() host_logs=()
host_start() {
    local suite=$1 label=$2 log=$3 script=
    shift 3
    [ "$(head -c 2 "$1" 2>/dev/null)" = '#!' ] && script=1
    if [ -n "$script" ]; then
        wait
    else
        while [ "$(jobs -pr | wc -l)" -ge "$host_jobs" ]; do wait -n; done
    fi
    rm -f "$log.rc"
    { "$@" > "$log" 2>&1; echo $? > "$log.rc"; } &
    host_suites+=("$suite") host_labels+=("$label") host_logs+=("$log")
    [ -z "$script" ] || wait
}

# host_report: waits for the host programs, then counts each one's PASS
# and FAIL lines (a non-zero exit without a FAIL line is one failure,
# the case "exit").
host_report() {
    local k label log rc p f
    wait
    for k in "${!host_labels[@]}"; do
        label=${host_labels[$k]} log=${host_logs[$k]}
        rc=$(cat "$log.rc" 2>/dev/null || echo "?")
        j_open "${host_suites[$k]}" "$label"
        read -r p f < <(awk -v rec="$jrec" "$tests_awk"'
            END { print p + 0, f + 0 }' "$log")
        if [ "$rc" != 0 ] && [ "$f" = 0 ]; then f=1; j_case F exit "exit status $rc"; fi
        [ "$f" = 0 ] || j_text "$log" > "$jtxt"
        passed=$((passed + p)) failed=$((failed + f))
        printf '%-62s %3d passed, %d failed\n' "$label" "$p" "$f"
        if [ "$f" != 0 ]; then
            failures+=("$label: $(grep -m 1 '^TEST .* FAIL' "$log" || echo "exit status $rc")")
            grep '^TEST .* FAIL' "$log" | sed 's/^/    /'; tail_of "$log"
        fi
    done
}

# Host unit tests, then the fuzz targets' corpus replays: a job per host
# core (they measure no time), reported in order once all have ended.
mkdir -p build/host/test-logs
for bin in $host; do
    name=$(basename "$bin")
    [ -n "$only" ] && [ "$only" != "$name" ] && [ "$only" != host ] && continue
    host_start host "host $name" "build/host/test-logs/$name.log" "$bin"
done
for bin in $fuzz; do
    name=fuzz_$(basename "$bin")
    [ -n "$only" ] && [ "$only" != "$name" ] && [ "$only" != fuzz ] && continue
    host_start fuzz "host $name (corpus)" "build/host/test-logs/$name.log" \
        tools/test/fuzz.sh replay "$bin"
done
host_report

nboots=0
declare -A checked=()
for item in "${items[@]}"; do
    arch=${item%% *} img=${item#* }
    dir=${img#build/*/}; dir=${dir%.elf}
    [ -n "$only" ] && [ "$only" != "${dir##*/}" ] && [ "$only" != "$dir" ] && continue
    if [ -z "${checked[$dir]:-}" ]; then
        conf_check "$dir" || exit 2
        checked[$dir]=1
    fi
    image_of bimg "$img" "$dir" "$arch" || exit 2
    conf cmdlines "$dir" cmdline "$arch"
    nvar=1      # as the boots below count them: a line a boot, empty or not
    if [ -n "$cmdlines" ]; then mapfile -t variants <<< "$cmdlines"; nvar=${#variants[@]}; fi
    for n in $(boots_at "$dir" "$arch"); do nboots=$((nboots + nvar)); done
done

# A line of a sanitizer's report (hosted builds; an ERE given to awk -v,
# which would take a backslash for an escape of its own).  UBSan's lines
# name a source position ("file:line:col: runtime error: ..."), which the
# kernel's Go-worded nil-pointer panic line does not.
san_re='^(==[0-9]+==ERROR: |WARNING: ThreadSanitizer|SUMMARY: [A-Za-z]+Sanitizer)|:[0-9]+:[0-9]+: runtime error: '

i=0
for item in "${items[@]}"; do
    arch=${item%% *} img=${item#* }
    logs=build/$arch/test-logs
    [ -d "$logs" ] || mkdir -p "$logs"
    dir=${img#build/*/}; dir=${dir%.elf}
    name=${dir##*/}
    [ -n "$only" ] && [ "$only" != "$name" ] && [ "$only" != "$dir" ] && continue
    image_of bimg "$img" "$dir" "$arch"     # what boots: img, or a variant's
    variants=("")
    conf cmdlines "$dir" cmdline "$arch"
    [ -n "$cmdlines" ] && mapfile -t variants <<< "$cmdlines"
    conf mem "$dir" mem "$arch"
    mem=${mem:-${MEM:-}}
    conf qcpu "$dir" cpu "$arch"
    qcpu=${qcpu:-${CPU:-}}
    conf qacpi "$dir" acpi "$arch"
    conf qload "$dir" load "$arch"
    # The firmware boots place the kernel at random (efi_place=random),
    # another address each boot (placement_check).
    fwargs=
    is_fw "$arch" && [ "$qload" != booti ] && fwargs=efi_place=random
    conf netw "$dir" net "$arch"
    conf queues "$dir" queues "$arch"
    conf qvirtio "$dir" virtio "$arch"
    # Empty: the machine's own transport (tools/run/qemu.sh: PCI, or
    # virtio-mmio on microvm).
    conf hostcpu "$dir" hostcpu "$arch"
    conf expect "$dir" expect "$arch"
    conf screen "$dir" screen "$arch"
    conf tracechk "$dir" trace "$arch"
    conf profchk "$dir" profile "$arch"
    timeout_s=$(timeout_of "$arch")
    matrix=$(boots_at "$dir" "$arch")
    if [ -z "${matrix// /}" ]; then
        if ! in_arches "$dir" "$arch"; then
            conf arches "$dir" arches "$arch"
            printf '%-62s not run on %s (its arches: %s)\n' "$arch $dir" \
                "$arch" "$arches"
        else
            conf smps "$dir" smp "$arch"
            printf '%-62s not run at smp %s (its smp: %s)\n' "$arch $dir" \
                "$(matrix_of "$arch")" "$smps"
        fi
        continue
    fi
    cpio_arg cpioarg "$logs" "$name" "$dir" "$arch" "$bimg" || exit 2
    # A `net` test of a hosted build runs on a TAP device in a network
    # namespace of its own (tools/run/tapns.sh), which takes root.
    tapns=
    if [ -n "$netw" ] && { [ "${arch%%-*}" = hosted ] || grep -qw tap <<< "$netw"; }; then
        if [ "$(id -u)" != 0 ] || ! command -v unshare ip > /dev/null; then
            printf '%-62s SKIP: not run on %s (its network namespace needs root, unshare and ip; counted neither way)\n' \
                "$arch $dir" "$arch"
            continue
        fi
        tapns=1
    fi
    for n in $matrix; do
    for v in "${!variants[@]}"; do
        kargs=${variants[$v]}
        i=$((i + 1))
        log=$logs/$name-smp$n${kargs:+-v$v}.log
        rm -f "$log.peer" "$log.peer.out" "$log.trace" "$log.trace-check" \
            "$log.prof" "$log.profile-check"
        # A `trace` test's dump: in the console log, or (hosted builds,
        # which write it to a file) in LOG.trace.
        tracesrc=$log tkargs=
        if [ -n "$tracechk" ] && [ "${arch%%-*}" = hosted ]; then
            tracesrc=$log.trace tkargs="trace_file=$log.trace"
        fi
        # A `profile` test's dump likewise: LOG, or LOG.prof.
        profsrc=$log
        if [ -n "$profchk" ] && [ "${arch%%-*}" = hosted ]; then
            profsrc=$log.prof tkargs="$tkargs profile_file=$log.prof"
        fi
        start=${EPOCHREALTIME//[!0-9]/}      # us; the separator follows the locale
        # A `net` test: the forwards to the guest, and maybe a host peer.
        # QEMU exits at once if another process took a port between the
        # probe and its start: then again on other ports, up to 3 times.
        for try in 1 2 3; do
            net= hostport= hostfwd= net_args=()
            if [ -n "$tapns" ]; then
                peer_args=
                grep -qw peer <<< "$netw" &&
                    peer_args="--guest $TAP_GUEST --bind $TAP_HOST --serve 7001 --closed 7002"
                : > "$log.peer"
                # shellcheck disable=SC2086 # kargs is a list of words
                nq=1 qarg=
                [ "$queues" = smp ] && nq=$n
                [ -n "$queues" ] && qarg=queues=$nq
                NET=tap TAP=spt0 QUEUES=$nq VIRTIO=$qvirtio NETPEER=$netpeer NETPEER_ARGS=$peer_args \
                    CPU=$qcpu ACPI=$qacpi LOAD=$qload MEM=$mem INITRD=$initrd QUIET=1 timeout -k 5 "$timeout_s" \
                    tools/run/tapns.sh "$log.peer" tools/run/qemu.sh "$arch" "$bimg" \
                    "$n" $kargs $fwargs tap=spt0 ip=$TAP_GUEST/24 gw=$TAP_HOST -- \
                    "cores=$n" 7001 7002 host=$TAP_HOST guest=$TAP_GUEST $qarg ${cpioarg:+"$cpioarg"} \
                    > "$log" 2>&1 < /dev/null
                rc=$?
                break
            fi
            if [ -n "$netw" ] && ! net_start "$log"; then
                echo "runtests: could not start $netpeer (see $log.peer)" > "$log"
                rc=1
                [ -x "$netpeer" ] && continue
                break
            fi
            # shellcheck disable=SC2086 # kargs is a list of words
            if [ -n "$screen" ]; then
                NET=$net HOSTPORT=$hostport GUESTPORT=80 HOSTFWD=$hostfwd VIRTIO=$qvirtio CPU=$qcpu ACPI=$qacpi LOAD=$qload MEM=$mem \
                    INITRD=$initrd boot_screen "$log" "$arch" "$bimg" "$n" $kargs $fwargs -- "cores=$n" \
                    "${net_args[@]}" ${cpioarg:+"$cpioarg"}
                rc=$?
            elif [ -n "$hostcpu" ]; then
                NET=$net HOSTPORT=$hostport GUESTPORT=80 HOSTFWD=$hostfwd VIRTIO=$qvirtio CPU=$qcpu ACPI=$qacpi LOAD=$qload MEM=$mem \
                    INITRD=$initrd boot_measured "$log" "$arch" "$bimg" "$n" $kargs $fwargs -- "cores=$n" \
                    "${net_args[@]}" ${cpioarg:+"$cpioarg"}
                rc=$?
            else
                NET=$net HOSTPORT=$hostport GUESTPORT=80 HOSTFWD=$hostfwd VIRTIO=$qvirtio CPU=$qcpu ACPI=$qacpi LOAD=$qload MEM=$mem \
                    INITRD=$initrd QUIET=1 timeout -k 5 "$timeout_s" tools/run/qemu.sh "$arch" "$bimg" "$n" \
                    $kargs $tkargs $fwargs -- "cores=$n" "${net_args[@]}" ${cpioarg:+"$cpioarg"} > "$log" 2>&1 < /dev/null
                rc=$?
            fi
            peer_stop
            [ -n "$netw" ] && grep -qi 'could not set up host forwarding' "$log" && continue
            break
        done
        sed -i 's/\r$//' "$log"        # the UART sends CR LF
        ms=$(((${EPOCHREALTIME//[!0-9]/} - start) / 1000))
        printf -v class '%s %s smp=%d%s' "$arch" "$dir" "$n" "${kargs:+ [$kargs]}"
        printf -v label '[%3d/%d] %s' "$i" "$nboots" "$class"
        printf -v secs '%d.%03d' $((ms / 1000)) $((ms % 1000))
        j_open "$arch $dir" "$class" "$secs"
        # In one pass over the console: its PASS and FAIL lines (the
        # report's cases, unless a fatal-path test's one result stands for
        # them), its last closing line ("- -" if none), and whether a
        # sanitizer reported.
        trec=$jrec
        [ -n "$expect" ] && trec=
        read -r np nf tp tf san < <(awk -v rec="$trec" -v san_re="$san_re" "$tests_awk"'
            /^[0-9]+ passed, [0-9]+ failed$/ { tp = $1; tf = $3 }
            $0 ~ san_re { san = 1 }
            END { print p + 0, f + 0, (tp == "" ? "-" : tp), (tf == "" ? "-" : tf), san + 0 }' "$log")
        why= chk=boot    # chk: the report's name of the check that failed
        if [ -n "$expect" ]; then
            p=1 f=0
            conf want "$dir" status "$arch"
            want=${want:-$panic_status}
            if [ $rc = 124 ] || [ $rc = 137 ]; then why="timed out after ${timeout_s}s"
            elif [ $rc != "$want" ]; then why="exit status $rc, expected $want"
            else
                while IFS= read -r re; do
                    grep -qE -- "$re" "$log" || { why="missing expected output: $re"; break; }
                done <<< "$expect"
            fi
            if [ -n "$why" ]; then p=0 f=1; j_case F expect "$why"; else j_case P expect; fi
        else
            p=$np f=$nf total="$tp passed, $tf failed"
            if [ $rc = 124 ] || [ $rc = 137 ]; then why="timed out after ${timeout_s}s"
            elif [ "$tp" = - ]; then why="no closing 'N passed, M failed' line (exit status $rc)"
            elif [ "$total" != "$p passed, $f failed" ]; then why="closing line '$total' does not match the $p PASS / $f FAIL lines"
            elif [ $rc != 0 ] && [ "$f" = 0 ]; then why="exit status $rc"
            fi
            if [ -z "$why" ] && [ -n "$hostcpu" ]; then
                chk=hostcpu cpu=$(cat "$log.cpu")
                if ! grep -q '^IDLE END' "$log"; then why="no IDLE START/IDLE END window"
                elif [ "$cpu" = unmeasured ]; then why="could not read QEMU's CPU time"
                elif [ "$cpu" -ge "$hostcpu" ]; then why="idle guest used $cpu% of a host core (limit $hostcpu%)"
                else p=$((p + 1)); j_case P hostcpu; echo "    idle guest: $cpu% of a host core"
                fi
            fi
            if [ -z "$why" ] && [ -n "$screen" ]; then
                chk=screen
                if [ ! -s "$log.ppm" ]; then why="no screendump (see $log.screen)"
                elif [ -z "$font" ]; then why="no --font to read the screen with"
                elif mapfile -t lines <<< "$screen" &&
                     python3 tools/test/screen.py find "$font" "$log.ppm" "${lines[@]}" >> "$log.screen" 2>&1
                then p=$((p + 1)); j_case P screen
                else why="text missing from the screen: $(grep -m 1 'not on the screen' "$log.screen")"
                fi
            fi
            if [ -z "$why" ] && { [ -n "$fwargs" ] || [ -n "$qload" ]; }; then
                chk=placement
                if why=$(placement_of "$log" "$arch" "$qload"); then
                    p=$((p + 1)); j_case P placement; echo "    $why"
                    [ -n "$fwargs" ] && placed[$arch]+="${why%% *} "
                    why=
                fi
            fi
            if [ -z "$why" ] && [ -n "$tracechk" ]; then
                chk=trace
                # shellcheck disable=SC2086 # tracechk is a list of words
                if python3 tools/run/trace.py check "$tracesrc" --cores "$n" $tracechk > "$log.trace-check" 2>&1
                then p=$((p + 1)); j_case P trace
                else why="trace check: $(grep -m 1 . "$log.trace-check")"
                fi
            fi
            if [ -z "$why" ] && [ -n "$profchk" ]; then
                chk=profile
                # shellcheck disable=SC2086 # profchk is a list of words
                if python3 tools/run/pprof.py check "$profsrc" --elf "$bimg" --cores "$n" --log "$log" $profchk > "$log.profile-check" 2>&1
                then p=$((p + 1)); j_case P profile; sed -n 2p "$log.profile-check" | sed 's/^/    /'
                else why="profile check: $(grep -v '^go tool pprof -top:\|^-tagfocus' "$log.profile-check" | grep -m 1 .)"
                fi
            fi
            [ -n "$why" ] && { f=$((f + 1)); j_case F "$chk" "$why"; }
        fi
        # A sanitizer report (hosted builds) fails the run, whatever else.
        if [ "$san" = 1 ]; then
            why="sanitizer report"; f=$((f + 1))
            j_case F sanitizer "$why: $(grep -m 1 -E "$san_re" "$log")"
        fi
        passed=$((passed + p)) failed=$((failed + f))
        printf '%-62s %3d passed, %d failed  (%d.%02d s)\n' "$label" "$p" "$f" $((ms / 1000)) $((ms % 1000 / 10))
        if [ "$f" != 0 ]; then
            j_text "$log" > "$jtxt"
            # A kernel panic's first line goes into the recap too: a CI
            # log's tail may be all there is to read.
            pline=$(grep -m 1 -E '^(panic|fatal error): ' "$log")
            failures+=("$label:$(grep '^TEST .* FAIL' "$log" | sed "s/^TEST / /" | paste -sd ";" -)${why:+ $why}${pline:+ [$pline]}")
            grep '^TEST .* FAIL' "$log" | sed 's/^/    /'
            [ -n "$why" ] && echo "    $why"
            tail_of "$log"
        fi
    done
    done
done

# The firmware configurations' placements: with three boots or more,
# efi_place=random must have put the kernel at two addresses at least.
for a in "${!placed[@]}"; do
    read -ra at <<< "${placed[$a]}"
    d=$(printf '%s\n' "${at[@]}" | sort -u | wc -l)
    label="$a placements"
    if [ ${#at[@]} -lt 3 ]; then
        printf '%-62s not checked: %d boots (%s)\n' "$label" ${#at[@]} "${at[*]}"
        continue
    fi
    j_open "$a placement" "$label" 0
    if [ "$d" -ge 2 ]; then
        passed=$((passed + 1)); j_case P random
        printf '%-62s %d addresses in %d boots: %s\n' "$label" "$d" ${#at[@]} "${at[*]}"
    else
        failed=$((failed + 1)); j_case F random "the same address in all ${#at[@]} boots: ${at[0]}"
        failures+=("$label: efi_place=random put the kernel at ${at[0]} in all ${#at[@]} boots")
        printf '%-62s FAIL: %s in all %d boots\n' "$label" "${at[0]}" ${#at[@]}
    fi
done

# The failures again at the end, where a CI log's tail shows them.
if [ ${#failures[@]} != 0 ]; then
    echo "failed:"
    printf '    %s\n' "${failures[@]}"
fi
jok=1
junit_write || { echo "runtests: could not write $junit"; jok=; }
echo "$passed passed, $failed failed"
[ "$failed" = 0 ] && [ -n "$jok" ]
