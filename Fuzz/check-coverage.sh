#!/usr/bin/env bash
# Fuzz/check-coverage.sh LINKFILELIST FUZZER: refuses a fuzz build in which some module was
# compiled without coverage counters. libFuzzer steers by the inline 8-bit counters the
# compiler puts in each object's __sancov_cntrs section; a module built without them is code
# the fuzzer is blind in, and a total alone (the count the fuzzer prints) hides it: a debug
# build of the same sources has 2.6 times the counters of a release one. So every module among
# the objects SwiftPM linked into FUZZER (LINKFILELIST, its Objects.LinkFileList) must hold
# counters, and the fuzzer must load (nearly) as many as the objects hold. Prints a line a module.
set -euo pipefail
list=$1
fuzzer=$2
declare -A counters
for object in $(cat "$list"); do
    module=$(basename "$(dirname "$object")" .build)
    # One __sancov_cntrs section a function (each in its function's group); their sizes, in hex.
    for size in $(readelf -S --wide "$object" | sed -n 's/.*__sancov_cntrs *[A-Z_]* *[0-9a-f]* *[0-9a-f]* *\([0-9a-f]*\) .*/\1/p'); do
        counters[$module]=$(( ${counters[$module]:-0} + 16#$size ))
    done
    counters[$module]=${counters[$module]:-0}
done
total=0
bad=()
for module in $(printf '%s\n' "${!counters[@]}" | sort); do
    printf '  %-24s %8d counters\n' "$module" "${counters[$module]}"
    total=$((total + counters[$module]))
    [ "${counters[$module]}" -gt 0 ] || bad+=("$module")
done
loaded=$(PIANOLA_FUZZ_TARGET=tempo "$fuzzer" -runs=0 2>&1 | sed -n 's/.*(\([0-9]*\) inline 8-bit counters).*/\1/p' | head -1)
if [ ${#bad[@]} -gt 0 ]; then
    echo "the fuzz build is blind in ${bad[*]}: compiled without coverage counters" >&2
    exit 1
fi
# The linker may drop a few unreferenced functions with their counters (156 of 116,733 in one
# build here); a fuzzer that loads far fewer is not the one these objects make.
if [ "${loaded:-0}" -lt $((total * 98 / 100)) ]; then
    echo "the fuzzer loads ${loaded:-no} coverage counters; its objects hold $total" >&2
    exit 1
fi
echo "${loaded} coverage counters loaded, of $total in ${#counters[@]} modules, every module instrumented"
