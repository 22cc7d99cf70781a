#!/usr/bin/env bash
# Builds the SMF reader's libFuzzer target and runs it: Fuzz/run-smf-fuzzer.sh [SECONDS] [libFuzzer flags…]
# (default 60 s; inputs up to FUZZ_MAX_LEN bytes, default 8192). Seeds: ../shared/corpus/midi (if present), songs/*.mid and the work corpus
# Fuzz/corpus-work, which keeps growing between runs. Any crash, leak, timeout (> 1 s for one
# input) or out-of-memory is a finding: its input is saved under Fuzz/out/ and the script exits 1.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true

out=Fuzz/out
work=Fuzz/corpus-work
mkdir -p "$out" "$work" .build/fuzz
swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name MIDI \
    Sources/MIDI/*.swift Fuzz/SMFReaderFuzzer.swift -o .build/fuzz/smf-reader > "$out/build.log" 2>&1 || { cat "$out/build.log" >&2; exit 1; }

seeds=("$work" songs)
[ -d ../shared/corpus/midi ] && seeds+=(../shared/corpus/midi)

.build/fuzz/smf-reader "${seeds[@]}" \
    -max_total_time="$seconds" -timeout=1 -rss_limit_mb=2048 -max_len="${FUZZ_MAX_LEN:-8192}" \
    -artifact_prefix="$out/" -print_final_stats=1 "$@" 2>&1 | tee "$out/last-run.log" | grep -E '^(#[0-9]+ +(INITED|DONE)|Done|stat::number_of_executed_units|stat::peak_rss|==[0-9]+==ERROR|SUMMARY|artifact_prefix|Test unit written)' || true
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
    echo "smf-reader fuzzer: FINDING (exit $status), see $out/last-run.log" >&2
    exit 1
fi
echo "smf-reader fuzzer: no finding in ${seconds} s"
