#!/bin/sh
# Installs pianola's shell completions (bash, zsh, fish) and its man page under PREFIX
# (default /usr/local), all generated from the command definitions by swift-argument-parser,
# so they always match the built command:
#   Tools/install-shell-support.sh [PREFIX]
set -eu
prefix=${1:-/usr/local}
cd "$(dirname "$0")/.."
swift build -c release --product pianola >&2
swift build -c release --product generate-manual >&2
bin=$(swift build -c release --show-bin-path)

mkdir -p "$prefix/share/bash-completion/completions" "$prefix/share/zsh/site-functions" \
         "$prefix/share/fish/vendor_completions.d" "$prefix/share/man/man1"
"$bin/pianola" --generate-completion-script bash > "$prefix/share/bash-completion/completions/pianola"
"$bin/pianola" --generate-completion-script zsh > "$prefix/share/zsh/site-functions/_pianola"
"$bin/pianola" --generate-completion-script fish > "$prefix/share/fish/vendor_completions.d/pianola.fish"
"$bin/generate-manual" "$bin/pianola" --output-directory "$prefix/share/man/man1" >&2

# What was written must load: the bash script parses, the page formats.
bash -n "$prefix/share/bash-completion/completions/pianola"
if command -v groff > /dev/null; then
    groff -man -Tutf8 -ww -z "$prefix/share/man/man1/pianola.1"
fi
echo "installed: $prefix/share/bash-completion/completions/pianola, $prefix/share/zsh/site-functions/_pianola,"
echo "  $prefix/share/fish/vendor_completions.d/pianola.fish, $prefix/share/man/man1/pianola.1"
