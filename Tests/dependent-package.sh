#!/usr/bin/env bash
# A package that depends on Pianola, as a user's would: it must build without any warning
# from Pianola (such as "prohibited flag(s): -pthread" from a pkg-config file), and in it
# `Sequence` must still be Swift's own protocol.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ln -s "$PWD" "$work/pianola"
mkdir -p "$work/user/Sources/pianola-user"
cat > "$work/user/Package.swift" <<'SWIFT'
// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "PianolaUser",
    dependencies: [.package(path: "../pianola")],
    targets: [.executableTarget(name: "pianola-user", dependencies: [.product(name: "Pianola", package: "pianola")])]
)
SWIFT
cat > "$work/user/Sources/pianola-user/main.swift" <<'SWIFT'
import Pianola

/// Swift's Sequence, untouched by `import Pianola`.
func total<S: Sequence>(_ values: S) -> Int where S.Element == Int { values.reduce(0, +) }

let song = MusicSequence(file: try MIDIFile(contentsOf: CommandLine.arguments[1]))
print("\(song.tracks.count) tracks, \(total([1, 2, 3])) = 6")
SWIFT
swift build --package-path "$work/user" --scratch-path "$work/build" 2>&1 | tee "$work/log" | tail -1
if grep -E "warning:" "$work/log"; then
    echo "building a package that depends on Pianola warned (above)" >&2
    exit 1
fi
"$work/build/debug/pianola-user" songs/town.mid
echo "a dependent package builds without warnings"
