#!/usr/bin/env bash
# What a game ships beside its executable to use libpianola, measured on this machine: the
# library itself, then the shared libraries it needs at start (ldd), then those it opens only
# when a song is synthesized (libfluidsynth), or when it plays through JACK or PipeWire, each
# counted beyond the ones before it. glibc's own libraries are left out: every Linux system has them.
#   Tools/what-a-game-ships.sh [--list] [LIBPIANOLA]     (default: the installed libpianola.so.0)
# --list prints the files instead, one path per line, libpianola's first, each named by its
# soname: what to copy (cp -L) into the game's lib/ folder.
set -euo pipefail
list=false
if [ "${1:-}" = --list ]; then list=true; shift; fi
library=${1:-$(ldconfig -p | awk '/libpianola\.so\.0 / && !found++ { print $NF }')}
[ -f "$library" ] || { echo "what-a-game-ships: no libpianola.so.0 (give its path)" >&2; exit 1; }
glibc='^(libc|libm|libpthread|libdl|librt|libresolv|ld-linux[^.]*)\.so'
# The libraries `object` needs, one path per line, glibc's left out.
needs() { ldd "$1" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' | while read -r path; do
    basename "$path" | grep -Eq "$glibc" || echo "$(realpath "$(dirname "$path")")/$(basename "$path")"; done | sort -u; }
megabytes() { if [ -s "$1" ]; then xargs du -cbL < "$1" | tail -1 | awk '{ printf "%.1f MB", $1 / 1e6 }'; else echo "0 MB"; fi; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
needs "$library" > "$work/seen"
say() { "$list" || printf "$@"; }
say '%-34s %s\n' "libpianola.so.0" "$(du -bL "$library" | awk '{ printf "%.1f MB", $1 / 1e6 }')"
say '%-34s %3d files, %s\n' "needed at start" "$(wc -l < "$work/seen")" "$(megabytes "$work/seen")"
for when in "synthesizing a song:libfluidsynth.so.3" "playing through JACK:libjack.so.0" "playing through PipeWire:libpipewire-0.3.so.0"; do
    soname=${when#*:}
    path=$(ldconfig -p | awk -v name="$soname" '$1 == name && !found++ { print $NF }')
    if [ -z "$path" ]; then say '%-34s not installed here\n' "+ ${when%%:*}"; continue; fi
    { echo "$(realpath "$(dirname "$path")")/$soname"; needs "$path"; } | sort -u | comm -23 - "$work/seen" > "$work/more"
    say '%-34s %3d files, %s (%s and what it needs)\n' "+ ${when%%:*}" "$(wc -l < "$work/more")" "$(megabytes "$work/more")" "$soname"
    sort -u "$work/seen" "$work/more" -o "$work/seen"
done
say '%-34s %3d files, %s\n' "all of them" "$(wc -l < "$work/seen")" "$(megabytes "$work/seen")"
if "$list"; then echo "$library"; cat "$work/seen"; fi
