#!/usr/bin/env bash
# Builds libpianola.so (release, with the Swift runtime linked in, so a C program needs no
# Swift on the machine) and installs it with pianola.h and pianola.pc under PREFIX:
#
#   Tools/install-libpianola.sh [PREFIX [LIBDIR]]     (default /usr/local, PREFIX/lib)
#
# LIBDIR/libpianola.so.X.Y.Z (+ .so.X and .so links), PREFIX/include/pianola.h,
# LIBDIR/pkgconfig/pianola.pc, PREFIX/share/pianola/soundfonts/pianola-gm.sf2. Then: cc game.c $(pkg-config --cflags --libs pianola)
# (with PKG_CONFIG_PATH=LIBDIR/pkgconfig for a prefix pkg-config does not search, and an
# rpath or LD_LIBRARY_PATH for a LIBDIR the loader does not search: pianola.pc says how).
# With DESTDIR set, everything goes under DESTDIR as if it were /, as packagers expect.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=$(realpath -m "${1:-/usr/local}")
libdir=$(realpath -m "${2:-$prefix/lib}")
destdir=${DESTDIR:-}
version=$(Tools/version.sh)
major=${version%%.*}
scratch=.build-libpianola

# DWARF 4 for the C parts too: valgrind 3.19 (Debian 12's) cannot read clang's DWARF 5.
swift build -c release --product pianola-c --scratch-path "$scratch" -Xswiftc -static-stdlib -Xcc -gdwarf-4 \
    -Xlinker --version-script="$PWD/Sources/CPianola/exports.map" -Xlinker -soname="libpianola.so.$major"

install -d "$destdir$libdir/pkgconfig" "$destdir$prefix/include"
install -m 644 "$scratch/release/libpianola-c.so" "$destdir$libdir/libpianola.so.$version"
ln -sfn "libpianola.so.$version" "$destdir$libdir/libpianola.so.$major"
ln -sfn "libpianola.so.$major" "$destdir$libdir/libpianola.so"
install -m 644 Sources/CPianola/pianola.h "$destdir$prefix/include/pianola.h"
# The project's own SoundFont, which the Python module plays when given none.
install -d "$destdir$prefix/share/pianola/soundfonts"
install -m 644 soundfonts/pianola-gm.sf2 "$destdir$prefix/share/pianola/soundfonts/pianola-gm.sf2"
sed -e "s|@PREFIX@|$prefix|" -e "s|@LIBDIR@|$libdir|" -e "s|@VERSION@|$version|" Sources/CPianola/pianola.pc.in > "$destdir$libdir/pkgconfig/pianola.pc"
echo "installed libpianola $version in $destdir$libdir"
