#!/usr/bin/env bash
# A package that depends on Pianola as a user's does: by version. The committed tree is cloned
# and tagged with Pianola's version (Tools/version.sh), and a new package asks for it with
# `.package(url:from:)`, which SwiftPM refuses if any target of the product has unsafe flags
# (`.package(path:)` is exempt, so this must be a version). It must build without any warning
# from Pianola (such as "prohibited flag(s): -pthread" from a pkg-config file), and in it
# `Sequence` must still be Swift's own protocol. Its manifest is the one docs/swift-library.md
# shows, which leaves out the command line's trait: SwiftPM must fetch Pianola and nothing else. The program is a small game: it plays a song
# through the game API, checks that the soundtrack sounds, prints its events, and names the
# kind of fault a missing song is.
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(Tools/version.sh)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone --quiet --no-hardlinks "$PWD" "$work/pianola"
git -C "$work/pianola" tag "$version"
# The manifest is docs/swift-library.md's, with this clone's URL and version.
mkdir -p "$work/user/Sources/my-game"
awk '/^## Depending on it/ { part = 1 } part && /^```swift$/ { on = 1; next } on && /^```$/ { exit } on' docs/swift-library.md \
    | sed -e "s|\"<Pianola's git URL>\"|\"file://$work/pianola\"|" -e "s|from: \"[0-9.]*\"|from: \"$version\"|" > "$work/user/Package.swift"
grep -q "file://$work/pianola" "$work/user/Package.swift" || { echo "docs/swift-library.md has no manifest to depend on Pianola by" >&2; exit 1; }
cat > "$work/user/Sources/my-game/main.swift" <<'SWIFT'
import Pianola

/// Swift's Sequence, untouched by `import Pianola`.
func total<S: Sequence>(_ values: S) -> Int where S.Element == Int { values.reduce(0, +) }

// The game: a song loaded and played, its first second rendered as an audio callback would.
let soundtrack = Soundtrack()
let song = try await soundtrack.load(.init(midiPath: CommandLine.arguments[1], soundFontPath: CommandLine.arguments[2]))
try soundtrack.play(song)
var block = [Float](repeating: 0, count: 2 * 480)
var peak: Float = 0
for _ in 0..<100 {
    soundtrack.render(interleaved: &block, frameCount: 480)
    peak = max(peak, block.map(abs).max()!)
}
print("a second of the song, peak \(peak); \(total([1, 2, 3])) = 6")
guard peak > 0.01 else { fatalError("the soundtrack is silent") }
for event in soundtrack.pollEvents().prefix(3) { print(event) }   // "beat 1 of bar 1 (4/4, 100 bpm) of songs/town.mid at frame 0"
// The kind of an error is a type the game can name.
do {
    _ = try await soundtrack.load(.init(midiPath: "no-such-song.mid", soundFontPath: CommandLine.arguments[2]))
    fatalError("a missing song loaded")
} catch {
    let fault: any Fault = error   // the game API's errors are Faults, with a kind to switch on
    guard fault.kind == FaultKind.file else { fatalError("a missing song is a \(fault.kind) fault") }
    print("a missing song: \(fault)")
}
SWIFT
swift build --package-path "$work/user" --scratch-path "$work/build" > "$work/log" 2>&1 || { grep -E "error|warning" "$work/log" >&2 || tail -20 "$work/log" >&2; exit 1; }
tail -1 "$work/log"
# With `traits: []`, the command line's argument parser is not even fetched.
fetched=$(ls "$work/build/checkouts")
[ "$fetched" = pianola ] || { echo "a package that depends on Pianola's library fetched: $fetched" >&2; exit 1; }
if grep -E "warning:|error:" "$work/log"; then
    echo "building a package that depends on Pianola $version warned or failed (above)" >&2
    exit 1
fi
"$work/build/debug/my-game" songs/town.mid soundfonts/pianola-gm.sf2
echo "a package that depends on Pianola from: \"$version\" builds without warnings and plays"
