#!/usr/bin/env bash
# The packages as a user meets them, in a clean Debian 12 root (mmdebstrap, then chroot) with
# no Swift and none of the project's build dependencies. Run after Tools/make-packages.sh:
#  - a fresh venv: pip installs the wheel and numpy; pianola.render gives what the development
#    build's `pianola render` writes (SNR >= 90 dB), and __version__ is the packages' version;
#    with the wheel's library taken away, the import fails in one line;
#  - a game's libpianola0 without libfluidsynth (a Recommends, opened when first used): what
#    the game ships beside it (Tools/what-a-game-ships.sh), and a C program plays an audio file
#    and a song (on Pianola's own synthesizer) through it while a song asked of libfluidsynth
#    fails in one line naming it; the README's C quick start,
#    shipped as a game with every file the measure lists in its lib/ folder, renders a song;
#  - apt installs the pianola and libpianola0 .debs, pulling only Debian's runtime packages
#    (listed); the installed `pianola render`, with the font the package installed, writes what
#    the development build writes (SNR >= 90 dB); `man pianola` shows the page; `pianola --version`
#    is the version;
#  - with libpianola-dev, the README's C quick start builds with pkg-config and runs, also
#    under valgrind with the library's debug symbols installed (no "unhandled dwarf2").
# The root is cached as a tarball in $PIANOLA_ROOT_CACHE (default
# /var/cache/pianola/bookworm-root.tar) and made again when missing.
set -euo pipefail
cd "$(dirname "$0")/../.."
version=$(Tools/version.sh)
dist=$PWD/dist
cache=${PIANOLA_ROOT_CACHE:-/var/cache/pianola/bookworm-root.tar}
work=$(mktemp -d)
root=$work/root
cleanup() {
    for mount in proc dev/pts dev; do umount "$root/$mount" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
step() { echo "packages: $*"; }

if [ ! -f "$cache" ]; then
    start=$(date +%s)
    mkdir -p "$(dirname "$cache")"
    mmdebstrap --quiet --format=tar --variant=apt --include=ca-certificates bookworm "$cache.part"
    mv "$cache.part" "$cache"
    step "made the clean root in $(($(date +%s) - start)) s ($(du -h "$cache" | cut -f1))"
fi
mkdir "$root"
tar -xf "$cache" -C "$root"
# The machine's way out, carried in: its resolver, and the certificates its pip trusts (a
# proxy's own among them, where one stands between this machine and PyPI).
cp /etc/resolv.conf "$root/etc/resolv.conf"
cp "${PIP_CERT:-/etc/ssl/certs/ca-certificates.crt}" "$root/etc/ssl/host-ca.crt"
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive \
                   PIP_CERT=/etc/ssl/host-ca.crt "$@"; }
mkdir "$root/dist" "$root/work"
cp "$dist"/*.deb "$dist"/*.whl "$root/dist/"
# Each package's path inside the root (the globs are the host's).
inside() { local found=("$dist"/$1); [ -f "${found[0]}" ] || { echo "packages: no $1 in dist/ (run Tools/make-packages.sh)" >&2; exit 1; }; echo "/dist/$(basename "${found[0]}")"; }
if in_root sh -c 'command -v swift || ls /usr/include/fluidsynth.h' 2>/dev/null; then
    echo "packages: the root is not clean (above)" >&2
    exit 1
fi

# What the development build writes, to compare with.
swift build --product pianola > /dev/null
.build/debug/pianola render songs/ode-to-joy.mid --soundfont soundfonts/pianola-gm.sf2 --format raw --bits 32f -o "$work/development.raw" > /dev/null
snr() { python3 Tests/packages/snr.py "$@"; }

step "the wheel, in a fresh venv"
in_root apt-get update -q > /dev/null
# GLib is one of the libraries the manylinux policy counts on a Linux system to provide
# (auditwheel bundles the rest): a desktop has it, a bare root does not.
in_root apt-get install -y -q --no-install-recommends python3-venv libglib2.0-0 > /dev/null
in_root python3 -m venv /work/venv
in_root /work/venv/bin/pip install -q --disable-pip-version-check numpy "$(inside "pianola-$version-*.whl")"
cp songs/ode-to-joy.mid soundfonts/pianola-gm.sf2 "$root/work/"
in_root /work/venv/bin/python -c "
import pianola
assert pianola.__version__ == '$version', pianola.__version__
pianola.render('/work/ode-to-joy.mid', '/work/pianola-gm.sf2', sample_rate=48000).tofile('/work/python.raw')
import numpy as np   # the wheel carries the project's own font: no font given plays it
assert np.array_equal(pianola.render('/work/ode-to-joy.mid', end='2:1'), pianola.render('/work/ode-to-joy.mid', '/work/pianola-gm.sf2', end='2:1'))
assert pianola.default_soundfont().startswith('/work/venv/'), pianola.default_soundfont()"
snr "$work/development.raw" "$root/work/python.raw" "the wheel's pianola.render"
bundled=$(in_root /work/venv/bin/python -c "import os, pianola._library as l; print(l.BUNDLED)")
mv "$root$bundled" "$root$bundled.away"
if in_root /work/venv/bin/python -c "import pianola" 2> "$work/import.txt"; then
    echo "packages: pianola imported with its library taken away" >&2
    exit 1
fi
last=$(tail -1 "$work/import.txt")
case $last in
    "ImportError: pianola: libpianola.so.0 not found: "*) step "without its library, the import says: $last" ;;
    *) echo "packages: without its library the import ended: $(cat "$work/import.txt")" >&2; exit 1 ;;
esac

step "libpianola0 without libfluidsynth, as a game that plays audio files and songs on Pianola's synthesizer uses it"
in_root apt-get install -y -q --no-install-recommends gcc libc6-dev pkg-config "$(inside "libpianola0_${version}_*.deb")" \
    "$(inside "libpianola-dev_${version}_*.deb")" > /dev/null
if in_root ldconfig -p | grep -E 'libfluidsynth|libjack|libpipewire'; then
    echo "packages: libpianola0 pulled a library it should open only when used (above)" >&2
    exit 1
fi
cp Tools/what-a-game-ships.sh Tests/packages/without-libfluidsynth.c "$root/work/"
in_root /work/what-a-game-ships.sh | sed 's/^/packages:   /'
.build/debug/pianola render songs/ode-to-joy.mid --soundfont soundfonts/pianola-gm.sf2 --to 2:1 -o "$root/work/effect.wav" > /dev/null
in_root sh -c 'cd /work && cc without-libfluidsynth.c $(pkg-config --cflags --libs pianola) -lm -o without-libfluidsynth'
in_root /work/without-libfluidsynth /work/effect.wav /work/ode-to-joy.mid /work/pianola-gm.sf2 > "$work/without.txt"
sed 's/^/packages:   /' "$work/without.txt"
grep -q "libfluidsynth.so.3 is not installed (install Debian's libfluidsynth3)" "$work/without.txt" || {
    echo "packages: the song's error does not name libfluidsynth" >&2; exit 1; }
# The README's C quick start as a game that carries its libraries, as the README says: every
# file the measure lists (from this machine's Debian 12) in lib/ beside the executable, each
# library's runpath set to its own folder.
awk '/<!-- c quick start -->/ { grab = 1; next } grab && /^```c/ { next } grab && /^```/ { exit } grab' README.md > "$root/work/render.c"
mkdir -p "$root/work/c/songs" "$root/work/c/soundfonts" "$root/work/game/lib" "$work/libpianola0"
cp songs/ode-to-joy.mid "$root/work/c/songs/"
cp soundfonts/pianola-gm.sf2 "$root/work/c/soundfonts/"
dpkg -x "$root$(inside "libpianola0_${version}_*.deb")" "$work/libpianola0"
Tools/what-a-game-ships.sh --list "$(echo "$work"/libpianola0/usr/lib/*/libpianola.so.0)" | xargs -I{} cp -L {} "$root/work/game/lib/"
for library in "$root"/work/game/lib/*; do patchelf --set-rpath '$ORIGIN' "$library"; done
in_root sh -c 'cd /work/c && cc ../render.c $(pkg-config --cflags pianola) -L/work/game/lib -l:libpianola.so.0 \
    -Wl,-rpath,\$ORIGIN/lib -o /work/game/render && /work/game/render && test -s ode.wav && rm ode.wav'
step "a game folder of $(ls "$root/work/game/lib" | wc -l) libraries ($(du -sh "$root/work/game/lib" | cut -f1)) rendered a song where libfluidsynth is not installed"

step "the Debian packages"
in_root dpkg-query -W -f '${Package}\n' | sort > "$work/before.txt"
in_root apt-get install -y -q --no-install-recommends "$(inside "pianola_${version}_*.deb")" "$(inside "libpianola0_${version}_*.deb")" > /dev/null
in_root dpkg-query -W -f '${Package}\n' | sort > "$work/after.txt"
pulled=$(comm -13 "$work/before.txt" "$work/after.txt")
step "apt pulled $(echo "$pulled" | wc -l) packages: $(echo $pulled)"
if echo "$pulled" | grep -E -e '-dev$|swift' ; then
    echo "packages: installing the .debs pulled a development package (above)" >&2
    exit 1
fi
[ "$(in_root pianola --version)" = "$version" ] || { echo "packages: pianola --version says $(in_root pianola --version)" >&2; exit 1; }
# libfluidsynth3 depends on a General MIDI font (TimGM6mb), which pianola then prefers; its own
# is where the package put it.
in_root pianola render /usr/share/doc/pianola/examples/ode-to-joy.mid --soundfont /usr/share/pianola/soundfonts/pianola-gm.sf2 \
    --format raw --bits 32f -o /work/installed.raw > /dev/null
snr "$work/development.raw" "$root/work/installed.raw" "the installed pianola render"
# cairo is opened only when roll draws, so the package depends on it by name.
in_root pianola roll /usr/share/doc/pianola/examples/ode-to-joy.mid -o /work/roll.png > /dev/null
[ -s "$root/work/roll.png" ] || { echo "packages: the installed pianola roll drew nothing" >&2; exit 1; }
step "the installed pianola roll drew a $(stat -c %s "$root/work/roll.png")-byte PNG"
in_root apt-get install -y -q --no-install-recommends man-db > /dev/null
in_root sh -c 'MANPAGER=cat MANWIDTH=80 man pianola' > "$work/man.txt"
grep -q "pianola" "$work/man.txt" && step "man pianola: $(grep -m1 -A1 NAME "$work/man.txt" | tail -1 | sed 's/^ *//')"

step "a C program against libpianola-dev"
in_root apt-get install -y -q --no-install-recommends valgrind "$(inside "libpianola0-dbgsym_${version}_*.deb")" > /dev/null
in_root sh -c 'cd /work/c && cc ../render.c $(pkg-config --cflags --libs pianola) -o render && ./render && test -s ode.wav'
step "the README's C quick start built with pkg-config and rendered ode.wav"
in_root sh -c 'cd /work/c && valgrind ./render' > "$work/valgrind.txt" 2>&1 || {
    cat "$work/valgrind.txt"; echo "packages: valgrind failed on the C program" >&2; exit 1; }
if grep -i "dwarf" "$work/valgrind.txt"; then
    echo "packages: valgrind could not read the library's debug information (above)" >&2
    exit 1
fi
step "valgrind ran it with the debug symbols installed: $(grep -m1 'ERROR SUMMARY' "$work/valgrind.txt" | sed 's/^==[0-9]*== //')"
