#!/usr/bin/env bash
# Runs the libFuzzer targets of Sources/PianolaFuzz, each for SECONDS (default 60):
#   Fuzz/run-fuzzers.sh [SECONDS] [TARGET…]      targets: smf sequence mus xmi hmp hmi tempo args audio soundfont dls differential
# Builds them once with SwiftPM's fuzzer and address sanitizers (in .build/fuzz). Each target's
# corpus is Fuzz/corpus-work/TARGET (kept between runs, ignored by git), seeded by the
# target's own seeds (`pianola-fuzz seeds TARGET DIR`), and for the MIDI targets by songs/ and
# ../shared/corpus/midi. A crash, sanitizer report, leak, hang (> FUZZ_TIMEOUT s on one input,
# default 10) or out-of-memory is a finding (but the library leaks Fuzz/lsan.supp explains) (more libFuzzer flags: FUZZ_FLAGS): its input goes to Fuzz/out/TARGET-*, the log to
# Fuzz/out/TARGET.log, and the script exits 1 after running the rest. Replay a finding
# without sanitizers, with a readable trace: swift run pianola-fuzz TARGET Fuzz/out/FILE
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(smf sequence mus xmi hmp hmi tempo args audio soundfont dls differential)

out=Fuzz/out
mkdir -p "$out"
echo "building the fuzz targets (release, -sanitize=fuzzer,address)…"
swift build -q --product pianola-fuzz > "$out/build.log" 2>&1 || { cat "$out/build.log" >&2; exit 1; }
plain=$(swift build --product pianola-fuzz --show-bin-path)/pianola-fuzz
fuzzer=.build/fuzz/release/pianola-fuzz
# The coverage libFuzzer steers by is asked for explicitly: through SwiftPM, -sanitize=fuzzer
# alone reaches swift-frontend without it, and the fuzzer then sees 18 counters in all.
swift build -q -c release --sanitize fuzzer --sanitize address -Xswiftc -DFUZZING \
    -Xswiftc -sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp \
    --build-path .build/fuzz --product pianola-fuzz >> "$out/build.log" 2>&1 || { cat "$out/build.log" >&2; exit 1; }
# Every module linked in must carry coverage counters, and the fuzzer must load them all.
Fuzz/check-coverage.sh .build/fuzz/release/pianola-fuzz.product/Objects.LinkFileList "$fuzzer" > "$out/coverage.log" ||
    { cat "$out/coverage.log"; exit 1; }
tail -1 "$out/coverage.log"

found=0
printf '%-10s %8s %12s %10s %8s  %s\n' target seconds executions "exec/s" corpus findings
for target in "${targets[@]}"; do
    work=Fuzz/corpus-work/$target
    mkdir -p "$work"
    "$plain" seeds "$target" "$work"
    seeds=("$work")
    case $target in
        smf|sequence) seeds+=(songs); [ -d ../shared/corpus/midi ] && seeds+=(../shared/corpus/midi) ;;
    esac
    status=0
    rm -f "$out/$target.failure"
    # The suppressions name a libinstpatch function, which only a full unwind finds (glib has
    # no frame pointers); it costs every allocation, so only the DLS target pays it.
    unwind=1
    [ "$target" = dls ] && unwind=0
    PIANOLA_FUZZ_FAILURE="$out/$target.failure" SWIFT_BACKTRACE=enable=no ASAN_OPTIONS="fast_unwind_on_malloc=$unwind" LSAN_OPTIONS="suppressions=$PWD/Fuzz/lsan.supp" PIANOLA_FUZZ_TARGET=$target "$fuzzer" "${seeds[@]}" -max_total_time="$seconds" \
        -timeout="${FUZZ_TIMEOUT:-10}" -rss_limit_mb=2048 -max_len="${FUZZ_MAX_LEN:-16384}" -close_fd_mask=3 \
        -artifact_prefix="$out/$target-" -print_final_stats=1 ${FUZZ_FLAGS:-} > "$out/$target.log" 2>&1 || status=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$target.log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$out/$target.log" | tail -1)
    corpus=$(find "$work" -type f | wc -l)
    if [ "$status" -ne 0 ]; then
        found=1
        finding=$(grep -m1 -E '^SUMMARY|ERROR: libFuzzer|Test unit written' "$out/$target.log" || echo "exit $status")
    else
        finding=none
    fi
    printf '%-10s %8s %12s %10s %8s  %s\n' "$target" "$seconds" "${runs:-?}" "${rate:-?}" "$corpus" "$finding"
done
if [ "$found" -ne 0 ]; then
    # A finding on a CI machine is gone with its clone: print each one's report and input
    # (base64) so it can be replayed from the log alone.
    for artifact in "$out"/*-crash-* "$out"/*-leak-* "$out"/*-timeout-* "$out"/*-oom-* "$out"/*-slow-unit-*; do
        [ -f "$artifact" ] || continue
        target=$(basename "$artifact"); target=${target%%-*}
        echo "--- $artifact ($(wc -c < "$artifact") bytes), from $out/$target.log:" >&2
        grep -m1 -A40 -E '^==[0-9]+==|ERROR: libFuzzer|^Fatal error|^💣' "$out/$target.log" | head -60 >&2 || true
        [ -s "$out/$target.failure" ] && { echo "--- the property that broke:" >&2; cat "$out/$target.failure" >&2; }
        echo "--- its input in base64 (base64 -d > FILE):" >&2
        head -c 65536 "$artifact" | base64 -w 120 >&2
    done
    echo "fuzzing found something: see Fuzz/out/*.log and replay with: swift run pianola-fuzz TARGET Fuzz/out/FILE" >&2
    exit 1
fi
