// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Pianola",
    products: [
        .library(name: "Pianola", targets: ["Pianola"]),
        .executable(name: "pianola", targets: ["pianola"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // C libraries: each is imported by exactly one wrapper module (later issues add them).
        .systemLibrary(name: "CFluidSynth", pkgConfig: "fluidsynth",
                       providers: [.apt(["libfluidsynth-dev"])]),
        .systemLibrary(name: "CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        .systemLibrary(name: "CSndFile", pkgConfig: "sndfile", providers: [.apt(["libsndfile1-dev"])]),
        // What Swift cannot call: ALSA's variadic error handler.
        .target(name: "CALSAShim", dependencies: ["CALSA"]),

        // Pure Swift: messages, the Standard MIDI File reader/writer, tempo map, time conversions.
        .target(name: "MIDI"),
        // The sequence model: Sequence, Track, load options, editing.
        .target(name: "Sequencing", dependencies: ["MIDI"]),
        // The public library product: a façade over the modules above.
        .target(name: "Pianola", dependencies: ["MIDI", "Sequencing"]),
        // Songs the project wrote, entered in code and written out by the SMF writer.
        .target(name: "SongBook", dependencies: ["MIDI"]),

        .executableTarget(name: "pianola", dependencies: [
            "MIDI", "Sequencing",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // Regenerates songs/*.mid from SongBook: `swift run make-songs`.
        .executableTarget(name: "make-songs", dependencies: ["SongBook"], path: "Sources/MakeSongs"),
        // Benchmarks that print figures (never pass/fail): `swift run -c release pianola-bench`.
        .executableTarget(name: "pianola-bench", dependencies: ["MIDI"], path: "Sources/PianolaBench"),

        .testTarget(name: "MIDITests", dependencies: ["MIDI"]),
        .testTarget(name: "SequencingTests", dependencies: ["Sequencing", "MIDI", "SongBook"]),
        .testTarget(name: "PianolaCLITests", dependencies: ["MIDI", "pianola"]),
        .testTarget(name: "SystemLibrariesTests",
                    dependencies: ["CFluidSynth", "CALSA", "CSndFile", "CALSAShim"]),
    ]
)
