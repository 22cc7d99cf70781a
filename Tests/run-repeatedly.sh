#!/usr/bin/env bash
# Runs the README's test command RUNS times in a row (default 5), with HOGS busy loops
# (`yes > /dev/null`, default 0) running beside it the whole time, as a contributor's machine
# doing other work would; stops at the first run that fails. Prints one line a run.
#   Tests/run-repeatedly.sh 5        # five runs on an idle machine
#   Tests/run-repeatedly.sh 3 2      # three runs beside two CPU hogs
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
hogs=${2:-0}
swift build --build-tests > /dev/null || { swift build --build-tests 2>&1 | grep -E 'error|warning: ' >&2; exit 1; }
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
for _ in $(seq 1 "$hogs"); do
    yes > /dev/null &
    pids+=($!)
done
log=$(mktemp -d)
for run in $(seq 1 "$runs"); do
    start=$(date +%s)
    status=0
    swift test --skip-build > "$log/run-$run.log" 2>&1 || status=$?
    summary=$(grep -a -o '✘\? \?Test run with [0-9]* tests.*' "$log/run-$run.log" | tail -1)
    echo "run $run of $runs beside $hogs hogs: exit $status in $(($(date +%s) - start)) s: ${summary:-no summary}"
    if [ "$status" -ne 0 ]; then
        grep -a -E '^✘|recorded an issue' "$log/run-$run.log" | head -40 >&2
        echo "the whole log: $log/run-$run.log" >&2
        exit 1
    fi
done
