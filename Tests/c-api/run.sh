#!/usr/bin/env bash
# The C library as a C programmer meets it: installed under a scratch prefix with
# Tools/install-libpianola.sh, found through pkg-config, then
#  - pianola.h compiles warning-free as strict C99 and as C++17;
#  - libpianola.so needs no Swift library (ldd);
#  - api_test.c, built with AddressSanitizer and UndefinedBehaviorSanitizer, calls every
#    function with good and bad arguments and runs 1,000 create/load/render/destroy cycles
#    under `env -i` with only the prefix on LD_LIBRARY_PATH: no crash, no leak;
#  - a game's event loop (events_game.c) runs clean under valgrind's memcheck;
#  - the README's C quick start compiles as written and renders.
set -euo pipefail
cd "$(dirname "$0")/../.."
source Tools/with-libpianola.sh
cflags=$(pkg-config --cflags pianola)
libs=$(pkg-config --libs pianola)

printf '#include <pianola.h>\nint main(void) { pianola_event e; e.type = PIANOLA_EVENT_BAR; return pianola_version()[0] == 0 && e.type; }\n' > "$work/header.c"
cp "$work/header.c" "$work/header.cpp"
gcc -std=c99 -Wall -Wextra -pedantic -Werror $cflags "$work/header.c" $libs -o "$work/header-c"
g++ -std=c++17 -Wall -Wextra -Werror $cflags "$work/header.cpp" $libs -o "$work/header-cpp"
echo "pianola.h: compiles with gcc -std=c99 -pedantic -Werror and g++ -std=c++17 -Werror"

if ldd "$prefix/lib/libpianola.so" | grep -Ei 'swift|dispatch|BlocksRuntime|Foundation'; then
    echo "libpianola.so needs a Swift library (above)" >&2
    exit 1
fi
echo "ldd libpianola.so: no Swift library"

# The MIDI-port program the ALSA VM runs (Tests/alsa-vm/in-vm-midi.sh) compiles as strict C99 here too.
cc -std=c99 -Wall -Wextra -pedantic -Werror $cflags Tests/c-api/midi_through.c $libs -o "$work/midi-through"
cc -std=c99 -Wall -Wextra -Werror -g -fsanitize=address,undefined -fno-sanitize-recover=undefined \
    Tests/c-api/api_test.c Tests/c-api/soundtrack_test.c Tests/c-api/offline_test.c $cflags $libs -lm -o "$work/api_test"
swift build --product pianola >/dev/null
.build/debug/pianola render songs/twinkle.mid -o "$work/sting.wav" --to 2:1 --tail 0 --soundfont soundfonts/pianola-gm.sf2 >/dev/null
env -i PATH=/usr/bin:/bin LD_LIBRARY_PATH="$prefix/lib" ASAN_OPTIONS=detect_leaks=1 \
    "$work/api_test" soundfonts/pianola-gm.sf2 songs/ode-to-joy.mid "$work/sting.wav" "$work"

# A game's loop (pull render, a crossfade on the bar, every event polled and read) under
# valgrind's memcheck, built without sanitizers: no read of memory the library never wrote.
cc -std=c99 -Wall -Wextra -Werror -g Tests/c-api/events_game.c $cflags $libs -o "$work/events_game"
env -i PATH=/usr/bin:/bin LD_LIBRARY_PATH="$prefix/lib" valgrind --error-exitcode=9 -q \
    "$work/events_game" soundfonts/pianola-gm.sf2 songs/town.mid songs/battle.mid
echo "valgrind: the C game loop reads nothing uninitialised"

# The README's C quick start, compiled as the README says and run from the top folder; the C
# guide's (docs/c-library.md) must be the same program.
quick_start() { awk '/<!-- c quick start -->/ { grab = 1; next } grab && /^```c/ { next } grab && /^```/ { exit } grab' "$1"; }
quick_start README.md > "$work/render.c"
quick_start docs/c-library.md | cmp -s - "$work/render.c" || { echo "docs/c-library.md's C quick start is not the README's" >&2; exit 1; }
(cd "$work" && cc render.c $(pkg-config --cflags --libs pianola) -o render)
rm -f ode.wav
env -i LD_LIBRARY_PATH="$prefix/lib" "$work/render"
test -s ode.wav && rm ode.wav
echo "README C quick start: compiled and rendered ode.wav"
