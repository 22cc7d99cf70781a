#!/usr/bin/env bash
# ALSA integration tests in the real kernel: builds, then runs Tests/alsa-vm/in-vm.sh (PCM
# playback) and in-vm-midi.sh (the sequencer, MIDI in and out, sync with audio) inside the
# throw-away VM of ../shared/alsa-vm (snd-aloop, snd-dummy, snd-virmidi, Midi Through).
# Needs the VM's packages (.ci/run installs them) plus alsa-utils, tmux and python3.
set -euo pipefail
cd "$(dirname "$0")/../.."
swift build --product pianola
swift build --product sequencer-checks
out=$(mktemp -d /tmp/pianola-vm.XXXXXX)
ALSAVM_OUT=$out ../shared/alsa-vm/run-in-alsa-vm.sh --timeout 900 --share "$out" --modprobe 'snd-seq-dummy ports=2' -- \
    sh -c 'sh Tests/alsa-vm/in-vm.sh; pcm=$?; sh Tests/alsa-vm/in-vm-midi.sh; midi=$?; [ $pcm = 0 ] && [ $midi = 0 ]'
