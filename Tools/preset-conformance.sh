#!/bin/bash
# The preset conformance table of one or more SoundFonts: every preset played by Pianola's own
# synthesizer and by libfluidsynth (the whole font loaded, reverb and chorus off), three keys at
# two velocities each, compared note by note (pitch within 1 cent, level within 0.5 dB) and by
# log-mel distance (≤ 1 dB). Prints the presets that differ and a summary line a font; exits 1
# when one differs that docs/preset-conformance.tsv does not list with its cause.
#
# usage: Tools/preset-conformance.sh FONT… (PIANOLA_BENCH: the pianola-bench binary,
#        .build/release/pianola-bench by default)
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: Tools/preset-conformance.sh FONT…" >&2; exit 2; }
bench=${PIANOLA_BENCH:-.build/release/pianola-bench}
[ -x "$bench" ] || { echo "preset-conformance: $bench: not built (swift build -c release --product pianola-bench)" >&2; exit 2; }
work=$(mktemp -d /tmp/preset-conformance.XXXXXX)
trap 'rm -rf "$work"' EXIT
status=0
for font in "$@"; do
    [ -f "$font" ] || { echo "preset-conformance: $font: no such SoundFont" >&2; exit 2; }
    rm -rf "$work/renders"
    "$bench" preset-renders "$font" "$work/renders" > /dev/null
    python3 Tools/preset_conformance.py "$work/renders" "$(basename "$font")" docs/preset-conformance.tsv || status=1
done
exit $status
