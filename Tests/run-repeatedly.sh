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
    # The counts come from the xUnit report: swift test forwards the test process's output
    # through a pipe and, one run in two here, exits before forwarding its last lines (the
    # summary among them), though the process wrote them (seen with strace) and exited 0.
    swift test --skip-build --xunit-output "$log/run-$run.xml" > "$log/run-$run.log" 2>&1 || status=$?
    summary=$(sed -n 's/.*<testsuite name="TestResults" errors="\([0-9]*\)" tests="\([0-9]*\)" failures="\([0-9]*\)" skipped="\([0-9]*\)".*/\2 tests, \3 failed, \1 errors, \4 skipped/p' \
        "$log/run-$run-swift-testing.xml" 2>/dev/null || true)
    echo "run $run of $runs beside $hogs hogs: exit $status in $(($(date +%s) - start)) s: ${summary:-no report}"
    if [ "$status" -ne 0 ]; then
        grep -a -E '^✘|recorded an issue' "$log/run-$run.log" | head -40 >&2
        echo "the whole log: $log/run-$run.log" >&2
        exit 1
    fi
done
