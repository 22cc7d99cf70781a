#!/usr/bin/env bash
# Builds the reference documentation into OUT (default .build-docs/site), from the sources:
#   OUT/swift/   DocC: Pianola and every module `import Pianola` re-exports, with the guides
#                of Sources/Pianola/Pianola.docc, merged into one archive (docc, the toolchain's);
#   OUT/c/       Doxygen: pianola.h (Debian's doxygen);
#   OUT/python/  pdoc: the pianola module (pdoc from PyPI, in a scratch venv, over libpianola
#                installed by Tools/with-libpianola.sh).
# Every guide's Swift code (the catalog's, the README's, docs/'s) is compiled first, in a
# package that depends on Pianola. Any
# warning from docc, Doxygen or pdoc fails the build.
#   Tools/build-docs.sh [OUT]
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${1:-.build-docs/site}")
catalog=Sources/Pianola/Pianola.docc
source Tools/with-libpianola.sh   # $prefix (libpianola), $work (scratch, removed on exit)
rm -rf "$out" && mkdir -p "$out"

# The guides' Swift code, each guide one program, compiled against the package.
mkdir -p "$work/samples/Sources"
targets=""
samples=0
for guide in "$catalog"/*.md; do
    name=$(basename "$guide" .md)
    code=$(awk '/^```swift$/ { on = 1; next } on && /^```$/ { on = 0; print ""; next } on' "$guide")
    [ -n "$code" ] || continue
    mkdir -p "$work/samples/Sources/$name"
    printf '%s\n' "$code" > "$work/samples/Sources/$name/main.swift"
    targets+=".executableTarget(name: \"$name\", dependencies: [.product(name: \"Pianola\", package: \"pianola\")]),"
    samples=$((samples + $(grep -c '^```swift$' "$guide")))
done
# The Swift code of the README and the Swift guides in docs/, each file one program (a
# package manifest is left to Tests/dependent-package.sh, which builds it).
for page in README.md docs/swift-library.md docs/game-api.md; do
    name=$(basename "$page" .md | tr -c 'A-Za-z0-9\n' '_')
    code=$(awk '/^```swift$/ { on = 1; block = ""; next } on && /^```$/ { on = 0; if (block !~ /swift-tools-version/) print "// sample\n" block; next } on { block = block $0 "\n" }' "$page")
    [ -n "$code" ] || { echo "build-docs: $page has no Swift code" >&2; exit 1; }
    mkdir -p "$work/samples/Sources/$name"
    printf '%s\n' "$code" > "$work/samples/Sources/$name/main.swift"
    targets+=".executableTarget(name: \"$name\", dependencies: [.product(name: \"Pianola\", package: \"pianola\")]),"
    samples=$((samples + $(grep -c '^// sample$' "$work/samples/Sources/$name/main.swift")))
done
ln -s "$PWD" "$work/pianola"   # a package's identity is its folder's name, whatever the checkout's is
cat > "$work/samples/Package.swift" <<SWIFT
// swift-tools-version:6.0
import PackageDescription
let package = Package(name: "GuideSamples", dependencies: [.package(path: "$work/pianola")], targets: [$targets])
SWIFT
swift build --package-path "$work/samples" --scratch-path .build-docs/samples > "$work/samples.log" 2>&1 \
    || { grep -E "error|warning" "$work/samples.log" >&2 || tail -20 "$work/samples.log" >&2; exit 1; }
if grep -E "^/.*(warning|error):" "$work/samples.log" | grep "$work/samples" >&2; then
    echo "build-docs: the guides' code warned (above)" >&2
    exit 1
fi

# Swift: one archive a module (the catalog's guides with Pianola's), then merged.
log=$(swift package dump-symbol-graph --minimum-access-level public 2>&1) || { echo "$log" >&2; exit 1; }
graphs=$(swift build --show-bin-path 2>/dev/null)/../symbolgraph
modules="Pianola $(sed -n 's/^@_exported import \([A-Za-z0-9]*\)$/\1/p' Sources/Pianola/Pianola.swift)"
archives=()
mkdir -p "$work/archives"
for module in $modules; do
    mkdir -p "$work/graphs/$module"
    cp "$graphs/$module.symbols.json" "$graphs/$module"@*.symbols.json "$work/graphs/$module/" 2>/dev/null || true
    source=()
    [ "$module" = Pianola ] && source=("$catalog")
    docc convert "${source[@]}" --additional-symbol-graph-dir "$work/graphs/$module" --warnings-as-errors \
        --fallback-display-name "$module" --fallback-bundle-identifier "org.pianola.$module" \
        --output-path "$work/archives/$module.doccarchive" > "$work/docc-$module.log" 2>&1 \
        || { cat "$work/docc-$module.log" >&2; exit 1; }
    archives+=("$work/archives/$module.doccarchive")
done
docc merge "${archives[@]}" --synthesized-landing-page-name Pianola --output-path "$out/swift.doccarchive" > "$work/merge.log" 2>&1 \
    || { cat "$work/merge.log" >&2; exit 1; }
mv "$out/swift.doccarchive" "$out/swift"
guides=$(ls "$catalog"/*.md | grep -vc "/Pianola.md$")

# C: pianola.h.
( cat docs/reference/Doxyfile; echo "OUTPUT_DIRECTORY = $work/doxygen" ) | doxygen - >&2
mv "$work/doxygen/html" "$out/c"

# Python: the module over the installed library.
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q --disable-pip-version-check pdoc "$(realpath python)" > "$work/pip.log" 2>&1 \
    || { cat "$work/pip.log" >&2; exit 1; }
env LD_LIBRARY_PATH="$prefix/lib" "$work/venv/bin/pdoc" pianola -o "$out/python" 2> "$work/pdoc.log" || { cat "$work/pdoc.log" >&2; exit 1; }
if grep -i "warn" "$work/pdoc.log" >&2; then echo "build-docs: pdoc warned (above)" >&2; exit 1; fi

echo "docs in $out: Swift ($(echo $modules | wc -w) modules, $guides guides, $samples code samples compiled), C (pianola.h), Python (pianola)"
