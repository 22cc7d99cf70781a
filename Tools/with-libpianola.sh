# Sourced by the scripts that build against libpianola: installs it under $prefix
# (PIANOLA_PREFIX, default .build-libpianola/prefix) and points pkg-config there, and makes a
# scratch folder $work that is removed on exit. Run from the repository's top folder.
prefix=${PIANOLA_PREFIX:-$PWD/.build-libpianola/prefix}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
Tools/install-libpianola.sh "$prefix" >/dev/null
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
