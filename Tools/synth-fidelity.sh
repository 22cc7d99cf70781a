#!/bin/bash
# How close Pianola's own synthesizer sounds to libfluidsynth: every MIDI file in a folder
# rendered through both (`--synth pianola` and `--synth fluidsynth`, reverb and chorus off,
# the first 40 s) with one SoundFont, and the log-mel distance between the two renders
# (../shared/tools/mel_distance.py, dB). Prints each file's distance, then the median and the
# largest. libfluidsynth loads the whole font (`--whole-font`): loading samples as presets
# are selected, it plays up to 46 points past a sample's end (into the guard points and the
# next sample: a burst after TimGM6mb's bird tweet), which loading the font whole does not.
#
# usage: Tools/synth-fidelity.sh FONT.sf2 [MIDI-FOLDER] [PIANOLA]
#   MIDI-FOLDER defaults to ../shared/corpus/midi, PIANOLA to .build/release/pianola.
#   EFFECTS=on renders both with their reverb and chorus on (each engine's own, at its defaults).
set -euo pipefail
font=${1:?usage: Tools/synth-fidelity.sh FONT.sf2 [MIDI-FOLDER] [PIANOLA]}
folder=${2:-../shared/corpus/midi}
pianola=${3:-.build/release/pianola}
distance=${MEL_DISTANCE:-../shared/tools/mel_distance.py}
[ -f "$font" ] || { echo "synth-fidelity: $font: no such SoundFont" >&2; exit 2; }
[ -x "$pianola" ] || { echo "synth-fidelity: $pianola: not built (swift build -c release --product pianola)" >&2; exit 2; }
[ -f "$distance" ] || { echo "synth-fidelity: $distance: the log-mel distance tool is not there (set MEL_DISTANCE)" >&2; exit 2; }
work=$(mktemp -d /tmp/synth-fidelity.XXXXXX)
trap 'rm -rf "$work"' EXIT

one() {   # one song: its distance, or the reason it has none
    local song=$1 name out
    name=$(basename "$song")
    out="$work/$name"
    if ! "$pianola" render "$song" -o "$out.fluidsynth.wav" --soundfont "$font" --synth fluidsynth --whole-font --reverb "$effects" --chorus "$effects" \
            --to 40 --tail 2 --force > /dev/null 2> "$out.err" \
       || ! "$pianola" render "$song" -o "$out.pianola.wav" --soundfont "$font" --synth pianola --reverb "$effects" --chorus "$effects" \
            --to 40 --tail 2 --force > /dev/null 2>> "$out.err"; then
        echo "$name skipped: $(head -c 200 "$out.err" | tr '\n' ' ')"
        return
    fi
    local result
    if result=$(python3 "$distance" "$out.fluidsynth.wav" "$out.pianola.wav" 2>&1); then
        echo "$name $result"
    else
        echo "$name no distance: $(echo "$result" | tail -1)"
    fi
    rm -f "$out.fluidsynth.wav" "$out.pianola.wav"
}
export -f one
effects=${EFFECTS:-off}
export work font pianola distance effects
find "$folder" -maxdepth 1 -iname '*.mid' -print0 | sort -z | xargs -0 -n1 -P2 bash -c 'one "$0"' | sort > "$work/results"
cat "$work/results"
awk '$2 ~ /^[0-9.]+$/ { print $2 }' "$work/results" | sort -g | awk -v font="$(basename "$font")" '
    { d[NR] = $1 } END {
        if (NR == 0) { print "no file rendered"; exit 1 }
        median = NR % 2 ? d[(NR + 1) / 2] : (d[NR / 2] + d[NR / 2 + 1]) / 2
        printf "%s: %d files, log-mel distance median %.2f dB, largest %.2f dB\n", font, NR, median, d[NR]
    }'
