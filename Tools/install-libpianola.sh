#!/usr/bin/env bash
# Builds libpianola.so (release, with the Swift runtime linked in, so a C program needs no
# Swift on the machine) and installs it with pianola.h and pianola.pc under PREFIX:
#
#   Tools/install-libpianola.sh [PREFIX]        (default /usr/local)
#
# PREFIX/lib/libpianola.so.X.Y.Z (+ .so.X and .so links), PREFIX/include/pianola.h,
# PREFIX/lib/pkgconfig/pianola.pc. Then: cc game.c $(pkg-config --cflags --libs pianola)
# (with PKG_CONFIG_PATH=PREFIX/lib/pkgconfig for a prefix pkg-config does not search).
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=$(realpath -m "${1:-/usr/local}")
version=$(sed -n 's/^#define PIANOLA_VERSION_STRING "\(.*\)"$/\1/p' Sources/CPianola/pianola.h)
major=${version%%.*}
scratch=.build-libpianola

swift build -c release --product pianola-c --scratch-path "$scratch" -Xswiftc -static-stdlib \
    -Xlinker --version-script="$PWD/Sources/CPianola/exports.map" -Xlinker -soname="libpianola.so.$major"

install -d "$prefix/lib/pkgconfig" "$prefix/include"
install -m 755 "$scratch/release/libpianola-c.so" "$prefix/lib/libpianola.so.$version"
ln -sfn "libpianola.so.$version" "$prefix/lib/libpianola.so.$major"
ln -sfn "libpianola.so.$major" "$prefix/lib/libpianola.so"
install -m 644 Sources/CPianola/pianola.h "$prefix/include/pianola.h"
sed -e "s|@PREFIX@|$prefix|" -e "s|@VERSION@|$version|" Sources/CPianola/pianola.pc.in > "$prefix/lib/pkgconfig/pianola.pc"
echo "installed libpianola $version under $prefix"
