#!/usr/bin/env bash
# The LV2 host under AddressSanitizer, with every LV2 plugin package .ci/run installs: the
# `pianola` command built with --sanitize=address (in .build-asan) loads the world and
# describes every plugin (`pianola plugins`, which must list each one lv2ls lists), shows one
# plugin's ports, then renders through plugins that exercise each part of the host: a preset's
# state (mda Delay), the worker (x42's convolver with a preset), a side chain (ZamComp), a
# required event input (Dragonfly Room), a latency port (LSP's graphic EQ in FIR mode),
# Calf's reverb, and an instrument (mda Piano). Any ASan report, crash or failed render fails
# the run. Leaks are not checked: the plugins' own are not Pianola's to fix.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --sanitize=address --product pianola --scratch-path .build-asan
pianola=.build-asan/debug/pianola
# The sanitizer prints its own report; Swift's backtracer, caught up in its abort, must not
# run: the one CI run that passed its time limit ended in a TSan report, then nothing.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS=detect_leaks=0:halt_on_error=1:abort_on_error=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$pianola" plugins > "$work/plugins.txt"
listed=$(lv2ls | wc -l)
described=$(grep -c '  <' "$work/plugins.txt" || true)
echo "pianola plugins under ASan: $described plugins described, lv2ls lists $listed"
[ "$described" -eq "$listed" ]
"$pianola" plugins http://lsp-plug.in/plugins/lv2/graph_equalizer_x16_stereo | grep -q 'mode.*\[0 = IIR, 1 = FIR'

song=songs/twinkle.mid
render() { "$pianola" render "$song" -o "$work/out.wav" --force --to 4 --soundfont soundfonts/pianola-gm.sf2 "$@" > /dev/null; }
render --fx 'http://drobilla.net/plugins/mda/Detune,preset=Out Of Tune'
render --fx 'http://gareus.org/oss/lv2/zeroconvolv#Stereo,preset=http://gareus.org/oss/lv2/zeroconvolv/pset#noopStereo'
render --fx urn:zamaudio:ZamComp
render --fx urn:dragonfly:room
render --fx 'http://lsp-plug.in/plugins/lv2/graph_equalizer_x16_stereo,mode=1'
render --fx http://calf.sourceforge.net/plugins/Reverb
render --instrument '1=http://drobilla.net/plugins/mda/Piano'
echo "LV2 under ASan: world, descriptions, state, worker, side chain, event input, latency, instrument: no report"
