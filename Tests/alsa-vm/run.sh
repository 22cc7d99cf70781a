#!/usr/bin/env bash
# ALSA integration tests in the real kernel: builds, then runs Tests/alsa-vm/in-vm.sh inside
# the throw-away VM of ../shared/alsa-vm (snd-aloop, snd-dummy). Needs the VM's packages
# (.ci/run installs them) plus alsa-utils, tmux and python3.
set -euo pipefail
cd "$(dirname "$0")/../.."
swift build --product pianola
out=$(mktemp -d /tmp/pianola-vm.XXXXXX)
ALSAVM_OUT=$out ../shared/alsa-vm/run-in-alsa-vm.sh --timeout 420 --share "$out" -- sh Tests/alsa-vm/in-vm.sh
