#!/bin/sh
# Prints Pianola's version, the project's one version number: PIANOLA_VERSION_STRING in
# Sources/CPianola/pianola.h. The command (through CPianola), the C library, the Python
# module's metadata and the Debian packages all take it from there; Tools/make-packages.sh
# refuses to build when debian/changelog or python/pyproject.toml says otherwise.
set -eu
cd "$(dirname "$0")/.."
sed -n 's/^#define PIANOLA_VERSION_STRING "\(.*\)"$/\1/p' Sources/CPianola/pianola.h
