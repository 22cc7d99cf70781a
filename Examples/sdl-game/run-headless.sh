#!/usr/bin/env bash
# Builds the SDL example against libpianola installed under a prefix, runs it headless with
# SDL's disk audio driver for 17 s of audio under `env -i` (only the prefix on
# LD_LIBRARY_PATH), then compares what SDL wrote with the Swift API's render of the same
# script (sdl-game-check).
set -euo pipefail
cd "$(dirname "$0")/../.."
source Tools/with-libpianola.sh
cc -std=c99 -Wall -Wextra -Werror Examples/sdl-game/game.c $(pkg-config --cflags --libs pianola sdl2) -o "$work/game"
env -i LD_LIBRARY_PATH="$prefix/lib" SDL_AUDIODRIVER=disk SDL_DISKAUDIOFILE="$work/game.raw" \
    "$work/game" "$PWD/songs" "$PWD/soundfonts/pianola-gm.sf2" 17
PIANOLA_CHECKS=1 swift build --product sdl-game-check >/dev/null   # declared only with PIANOLA_CHECKS
.build/debug/sdl-game-check songs soundfonts/pianola-gm.sf2 "$work/game.raw" 17
