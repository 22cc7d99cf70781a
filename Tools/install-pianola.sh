#!/usr/bin/env bash
# Installs all of Pianola under PREFIX (default /usr/local), as its Debian packages hold it:
#
#   Tools/install-pianola.sh [PREFIX [LIBDIR]]
#
# PREFIX/bin/pianola (release, the Swift runtime linked in: no Swift needed to run it), its
# man page and shell completions (Tools/install-shell-support.sh), the project's SoundFonts in
# PREFIX/share/pianola/soundfonts (where the command finds its own font), the songs in
# PREFIX/share/doc/pianola/examples, and libpianola with its header and pianola.pc in LIBDIR
# (Tools/install-libpianola.sh). With DESTDIR set, everything goes under DESTDIR as if it were /.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=$(realpath -m "${1:-/usr/local}")
root=${DESTDIR:-}$prefix
scratch=.build-cli

for product in pianola generate-manual; do
    # DWARF 4 for the C parts too: valgrind 3.19 (Debian 12's) cannot read clang's DWARF 5.
    swift build -c release --product "$product" --scratch-path "$scratch" --static-swift-stdlib -Xcc -gdwarf-4
done
install -d "$root/bin" "$root/share/pianola/soundfonts" "$root/share/doc/pianola/examples"
install -m 755 "$scratch/release/pianola" "$root/bin/pianola"
install -m 644 soundfonts/*.sf2 "$root/share/pianola/soundfonts/"
install -m 644 songs/*.mid "$root/share/doc/pianola/examples/"
Tools/install-shell-support.sh "$prefix" "$scratch/release"
Tools/install-libpianola.sh "$prefix" "${2:-$prefix/lib}"
echo "installed pianola $(Tools/version.sh) under $root"
