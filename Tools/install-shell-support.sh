#!/bin/sh
# Installs pianola's shell completions (bash, zsh, fish) and its man page under PREFIX
# (default /usr/local), all generated from the command definitions by swift-argument-parser,
# so they always match the built command:
#   Tools/install-shell-support.sh [PREFIX [BIN]]
# BIN: a folder where pianola and generate-manual are built already (else they are built
# here, release). zsh's go to PREFIX/share/zsh/site-functions, or for /usr to
# vendor-completions, where Debian's zsh looks. With DESTDIR set, everything goes under
# DESTDIR as if it were /.
set -eu
prefix=${1:-/usr/local}
root=${DESTDIR:-}$prefix
cd "$(dirname "$0")/.."
if [ $# -ge 2 ]; then
    bin=$2
else
    swift build -c release --product pianola >&2
    swift build -c release --product generate-manual >&2
    bin=$(swift build -c release --show-bin-path)
fi
zsh=site-functions
[ "$prefix" = /usr ] && zsh=vendor-completions

mkdir -p "$root/share/bash-completion/completions" "$root/share/zsh/$zsh" \
         "$root/share/fish/vendor_completions.d" "$root/share/man/man1"
"$bin/pianola" --generate-completion-script bash > "$root/share/bash-completion/completions/pianola"
"$bin/pianola" --generate-completion-script zsh > "$root/share/zsh/$zsh/_pianola"
"$bin/pianola" --generate-completion-script fish > "$root/share/fish/vendor_completions.d/pianola.fish"
"$bin/generate-manual" "$bin/pianola" --output-directory "$root/share/man/man1" >&2

# What was written must load: the bash script parses, the page formats.
bash -n "$root/share/bash-completion/completions/pianola"
if command -v groff > /dev/null; then
    groff -man -Tutf8 -ww -z "$root/share/man/man1/pianola.1"
fi
echo "installed: $root/share/bash-completion/completions/pianola, $root/share/zsh/$zsh/_pianola,"
echo "  $root/share/fish/vendor_completions.d/pianola.fish, $root/share/man/man1/pianola.1"
