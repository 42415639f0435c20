#!/bin/bash
# fuzz.sh - runs the libFuzzer targets of tests/fuzz/ (built by the
# Makefile as build/fuzz/<target>).
#
#   fuzz.sh replay BIN...            each target once over its corpus
#   fuzz.sh explore SECONDS BIN...   SECONDS of coverage-guided fuzzing each
#
# A target's corpus is tests/fuzz/<target>/ (the device tree target also
# reads the blobs of tests/host/fdt/).  Replay runs every input of it
# once: what `make test` does.  Explore starts from the corpus and keeps
# the new inputs it finds in build/fuzz/<target>.new/ (to fold them in:
# build/fuzz/<target> -merge=1 tests/fuzz/<target> build/fuzz/<target>.new).
# Each target is one line "TEST fuzz_<target> PASS|FAIL <why>"; a target
# fails if an input crashed it, hung it (10 s) or leaked.  A failing
# input is kept in build/fuzz/ and the line says how to replay it.  The
# last line is "N passed, M failed".
set -u
mode=$1
shift
secs=0
if [ "$mode" = explore ]; then secs=$1; shift; fi
passed=0 failed=0

# seeds NAME: the directories of NAME's corpus.
seeds() {
    echo "tests/fuzz/$1"
    if [ "$1" = fdt ]; then echo tests/host/fdt; fi
}

for bin in "$@"; do
    name=$(basename "$bin")
    out=build/fuzz/$name.log
    mkdir -p build/fuzz "build/fuzz/$name.new"
    mapfile -t dirs < <(seeds "$name")
    if [ "$mode" = replay ]; then
        mapfile -t files < <(find "${dirs[@]}" -type f | sort)
        "$bin" -timeout=10 -artifact_prefix="build/fuzz/$name-" \
            "${files[@]}" > "$out" 2>&1
        rc=$?
        what="${#files[@]} inputs"
    else
        "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
            -print_final_stats=1 -artifact_prefix="build/fuzz/$name-" \
            "build/fuzz/$name.new" "${dirs[@]}" > "$out" 2>&1
        rc=$?
        what="$(sed -n 's/^stat::number_of_executed_units: *//p' "$out") runs in ${secs}s"
    fi
    if [ $rc = 0 ]; then
        echo "TEST fuzz_$name PASS"
        echo "# fuzz_$name: $what"
        passed=$((passed + 1))
    else
        art=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$out" | tail -n 1)
        why=$(grep -m 1 -E 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:' "$out" | sed 's/^==[0-9]*==//')
        echo "TEST fuzz_$name FAIL ${why:-exit status $rc}${art:+; replay: $bin $art}"
        tail -n 20 "$out" | sed 's/^/    | /'
        failed=$((failed + 1))
    fi
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
