#!/usr/bin/env bash
# ALSA integration tests in the real kernel: builds, then runs Tests/alsa-vm/in-vm.sh (PCM
# playback) and in-vm-midi.sh (the sequencer, MIDI in and out, sync with audio) inside the
# throw-away VM of ../shared/alsa-vm (snd-aloop, snd-dummy, snd-virmidi, Midi Through).
# Needs the VM's packages (.ci/run installs them) plus alsa-utils, tmux and python3.
set -euo pipefail
cd "$(dirname "$0")/../.."
# The player in release (as users run it; .ci/run has built it by now): a debug build's Swift
# is several times slower, which the emulated CPU turned into late events in timing checks.
swift build -c release --product pianola
PIANOLA_CHECKS=1 swift build --product sequencer-checks   # declared only with PIANOLA_CHECKS
out=$(mktemp -d /tmp/pianola-vm.XXXXXX)
# For C and Python reaching MIDI ports (in-vm-midi.sh, 9): the library under a prefix, the C
# program built against it, a venv with numpy (the VM has no network).
Tools/install-libpianola.sh "$out/prefix" > /dev/null
cc -std=c99 -Wall -Wextra -Werror Tests/c-api/midi_through.c -I"$out/prefix/include" -L"$out/prefix/lib" -lpianola -o "$out/midi-through"
python3 -m venv "$out/venv"
"$out/venv/bin/pip" install -q --disable-pip-version-check numpy
ALSAVM_OUT=$out ../shared/alsa-vm/run-in-alsa-vm.sh --timeout 900 --share "$out" --modprobe 'snd-seq-dummy ports=2' -- \
    sh -c 'sh Tests/alsa-vm/in-vm.sh; pcm=$?; sh Tests/alsa-vm/in-vm-midi.sh; midi=$?; [ $pcm = 0 ] && [ $midi = 0 ]'
