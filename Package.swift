// swift-tools-version:6.1
import PackageDescription

/// The synthesizer's and the effects' inner loops, optimized in debug builds too (unoptimized,
/// Pianola's synthesizer renders 40 times slower, and every test that plays a song waits for
/// it), but only where Pianola itself is developed: a git checkout at no tag. SwiftPM refuses
/// unsafe flags in a package depended on by version, and such a checkout sits at its version's
/// tag (a registry download has no git at all), so a dependent's build of the product has none.
let developing = Context.gitInformation.map { $0.currentTag == nil } ?? false
let optimizedEvenInDebug: [SwiftSetting] = developing ? [.unsafeFlags(["-O"], .when(configuration: .debug))] : []

/// The checks CI's scripts build (the SDL example's, the ALSA VM's), declared only when
/// PIANOLA_CHECKS is set, so that `swift build` does not build them.
let checks: [Target] = Context.environment["PIANOLA_CHECKS"] == nil ? [] : [
    // Renders Examples/sdl-game's script through the Swift API and compares SDL's output with it.
    .executableTarget(name: "sdl-game-check", dependencies: ["Pianola"], path: "Tests/Support/SDLGameCheck"),
    // Measures what the ALSA VM checks captured from the kernel sequencer (Tests/alsa-vm).
    .executableTarget(name: "sequencer-checks", dependencies: ["Playback", "MIDI", "Sequencing"], path: "Tests/Support/SequencerChecks"),
]

let package = Package(
    name: "Pianola",
    products: [
        .library(name: "Pianola", targets: ["Pianola"]),
        // libpianola.so for C, C++ and Python: Tools/install-libpianola.sh builds it with the
        // Swift runtime linked in, and installs it with pianola.h and pianola.pc.
        .library(name: "pianola-c", type: .dynamic, targets: ["PianolaC"]),
        .executable(name: "pianola", targets: ["pianola"]),
    ],
    // The command line's parser is the package's one dependency, and only the command line uses
    // it: a package that asks for Pianola with `traits: []` does not fetch it.
    traits: [
        .trait(name: "CommandLine", description: "The `pianola` command line, which needs swift-argument-parser."),
        .default(enabledTraits: ["CommandLine"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // C libraries: each is imported by exactly one wrapper module (later issues add them).
        // libfluidsynth, libjack, libpipewire, lilv, cairo and libsoxr are opened when first used
        // (CLazyLibrary), not linked: a game that plays through ALSA needs none of them installed.
        .target(name: "CLazyLibrary"),
        // libfluidsynth's header (no pkgConfig: its flags carry glib's -pthread, which SwiftPM
        // strips with a warning in every package that depends on Pianola; fluidsynth.h needs none).
        .target(name: "CFluidSynth", dependencies: ["CLazyLibrary"]),
        .systemLibrary(name: "CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        .systemLibrary(name: "CSndFile", pkgConfig: "sndfile", providers: [.apt(["libsndfile1-dev"])]),
        // A header only: an optimization barrier for SIMD values, which Swift cannot write.
        .systemLibrary(name: "CBarrier"),
        // libsoxr (Debian's libsoxr-dev), opened on first use: a render that resamples nothing
        // does not load it and the OpenMP runtime it links.
        .target(name: "CSoxr", dependencies: ["CLazyLibrary"]),
        // cairo (Debian's libcairo2-dev): include/cairo links to its header folder, and it is
        // opened on first use, as libfluidsynth is.
        .target(name: "CCairo", dependencies: ["CLazyLibrary"]),
        .target(name: "CJack", dependencies: ["CLazyLibrary"]),
        // libpipewire-0.3 (Debian's libpipewire-0.3-dev): not a system library with pkg-config,
        // whose -D_REENTRANT SwiftPM refuses with a warning in every package that depends on
        // Pianola; include/ links to the headers' folders instead, and shim.c holds what
        // Swift cannot call (SPA's macros and variadic builders).
        .target(name: "CPipeWire", dependencies: ["CLazyLibrary"]),
        // lilv (Debian's liblilv-dev and lv2-dev): include/lilv links to its header folder,
        // and it is opened on first use, as libfluidsynth is.
        .target(name: "CLilv", dependencies: ["CLazyLibrary"]),
        // What Swift cannot do with alsa-lib and libfluidsynth (catch their error messages, which
        // one calls a variadic handler with; read a font from memory): a shim target per library,
        // both keeping each thread's last message in CLibraryErrors.
        .target(name: "CLibraryErrors"),
        .target(name: "CALSAShims", dependencies: ["CALSA", "CLibraryErrors"]),
        .target(name: "CFluidSynthShims", dependencies: ["CFluidSynth", "CLibraryErrors"]),

        // What kind of fault an error is (argument, state, file, device, busy): every public
        // error type says, so the C API's status codes come from it without guessing.
        .target(name: "Faults"),
        // A value behind a pthread mutex, which ThreadSanitizer sees.
        .target(name: "Locks"),
        // A SoundFont 2.04 or SF3 file read for synthesis: presets, instruments, zones with their
        // generators and modulators, sample headers; the sample data mapped, not copied.
        .target(name: "SoundFontModel", dependencies: ["Faults"]),
        // Pure Swift: messages, the Standard MIDI File reader/writer, tempo map, time conversions.
        .target(name: "MIDI", dependencies: ["Faults"]),
        // The song model: MusicSequence, tracks, loop marks, sections, summaries. No engine.
        .target(name: "Sequencing", dependencies: ["Faults", "MIDI"]),
        // Real-time playback of a sequence on the engine's clock: the player (Core Audio's
        // MusicPlayer), its score, the clock and transport followers, MIDI sync outputs.
        .target(name: "Playback", dependencies: ["Sequencing", "Engine", "MIDI"]),
        // pianola.h, the C API's hand-written header, as a module for the target that implements it.
        .systemLibrary(name: "CPianola"),
        // The C API: opaque handles, status codes and each thread's last error over `Pianola`; it only translates.
        .target(name: "PianolaC", dependencies: ["CPianola", "Faults", "Pianola", "ALSA", "MIDI"]),
        // The public library product: a façade over the modules above.
        .target(name: "Pianola", dependencies: ["Faults", "Locks", "Playback", "DSP", "LV2", "MIDI", "Sequencing", "Engine", "FluidSynth", "Synthesis", "SoundFontModel", "SoundFontSynth", "AudioFile", "Streaming", "ALSA", "JACK", "PipeWire"]),
        // libsndfile, wrapped: the only module that imports CSndFile.
        .target(name: "AudioFile", dependencies: ["CSndFile", "Faults"]),
        // libsoxr, wrapped: the only module that imports CSoxr.
        .target(name: "Resampling", dependencies: ["CSoxr", "Faults"]),
        // Audio files streamed into the graph: the file player node.
        .target(name: "Streaming", dependencies: ["DSP", "Engine", "AudioFile", "Resampling"]),
        // libfluidsynth, wrapped: the only module that imports CFluidSynth.
        .target(name: "FluidSynth", dependencies: ["CFluidSynth", "CFluidSynthShims", "AudioFile", "Faults", "SoundFontModel"]),
        // Signal processing on plain buffers, no graph: the peak limiter; the effects' filters,
        // delays and reverbs go here.
        .target(name: "DSP", dependencies: ["CBarrier"], swiftSettings: optimizedEvenInDebug),
        // The audio graph: nodes, mixer, the render loop, the lock-free queues.
        .target(name: "Engine", dependencies: ["MIDI", "DSP"]),
        // Synthesis in the graph: the sampler node over a synthesizer, the split sampler that
        // spreads a song over cores, preset preloading. Pianola's own synthesizer goes here too.
        .target(name: "Synthesis", dependencies: ["DSP", "Engine", "FluidSynth", "LV2", "MIDI"]),
        // Pianola's own SoundFont synthesizer, in Swift for this engine's rules: voices that play
        // a SoundFontModel's regions as libfluidsynth does, every event on its exact frame.
        .target(name: "SoundFontSynth", dependencies: ["CBarrier", "Locks", "DSP", "Engine", "SoundFontModel"], swiftSettings: optimizedEvenInDebug),
        // lilv, wrapped: the only module that imports CLilv. LV2 plugins found, described and run as effect units.
        .target(name: "LV2", dependencies: ["CLilv", "Locks", "DSP", "Faults"]),
        // ALSA, wrapped: the only module that imports CALSA. PCM output, the sequencer's ports.
        .target(name: "ALSA", dependencies: ["DSP", "CALSA", "CALSAShims", "Engine", "Faults", "MIDI"]),
        // JACK, wrapped: the only module that imports CJack. The JACK audio output.
        .target(name: "JACK", dependencies: ["DSP", "CJack", "Engine", "Faults"]),
        // PipeWire, wrapped: the only module that imports CPipeWire. The PipeWire audio output.
        .target(name: "PipeWire", dependencies: ["DSP", "CPipeWire", "Engine", "Faults"]),
        // A SoundFont 2 writer, and the project's own fonts made with it.
        .target(name: "SF2"),
        // A DLS Level 1 writer: the banks the tests and fuzzers give libinstpatch to read.
        .target(name: "DLS"),
        .target(name: "SoundFontBook", dependencies: ["SF2", "DLS"]),
        // Songs the project wrote, entered in code and written out by the SMF writer.
        .target(name: "SongBook", dependencies: ["MIDI"]),

        // The `pianola` command line: its commands and options, parsed by ArgumentParser.
        // Pictures of songs (the piano roll), drawn with cairo: the only module that imports CCairo.
        .target(name: "PianoRoll", dependencies: ["CCairo", "MIDI", "Sequencing"]),
        .target(name: "PianolaCommands", dependencies: [
            "MIDI", "Sequencing", "Engine", "Pianola", "AudioFile", "ALSA", "PianoRoll", "CPianola",
            .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["CommandLine"])),
        ]),
        .executableTarget(name: "pianola", dependencies: ["PianolaCommands"]),
        // The game-like example of the README: `swift run game-demo`.
        .executableTarget(name: "game-demo", dependencies: ["Pianola"], path: "Examples/GameDemo"),
        // Regenerates songs/*.mid from SongBook: `swift run make-songs`.
        .executableTarget(name: "make-songs", dependencies: ["SongBook"], path: "Sources/MakeSongs"),
        // Regenerates soundfonts/*.sf2 from SoundFontBook: `swift run make-soundfonts`.
        .executableTarget(name: "make-soundfonts", dependencies: ["SoundFontBook"], path: "Sources/MakeSoundFonts"),
        // Measuring, for the benchmarks and the tests: the heap allocations a thread makes (the
        // render-thread rule); real JACK and PipeWire servers of their own, and the capture clients' driver.
        .target(name: "AllocationCounter"),
        .target(name: "SoundServers"),
        // Benchmarks that print figures (never pass/fail): `swift run -c release pianola-bench`.
        .executableTarget(name: "pianola-bench", dependencies: ["MIDI", "Pianola", "PianolaC", "CPianola", "AudioFile", "AllocationCounter", "SF2", "SongBook", "SoundFontModel", "SoundServers"], path: "Sources/PianolaBench"),

        // The fuzz targets (Fuzz/run-fuzzers.sh builds them with libFuzzer); built plainly, it
        // replays inputs through a target and writes a target's seeds.
        .executableTarget(name: "pianola-fuzz", dependencies: [
            "DSP", "MIDI", "Playback", "Sequencing", "PianolaCommands", "AudioFile", "FluidSynth", "Engine", "Synthesis", "SF2", "SoundFontBook", "SoundFontModel",
            "SoundFontSynth",
        ], path: "Sources/PianolaFuzz"),


        // Test support in Swift: the seeded random generator the tests share.
        .target(name: "TestSupport", dependencies: ["Engine"], path: "Tests/Support/TestSupport"),
        .testTarget(name: "DSPTests", dependencies: ["DSP"]),
        .testTarget(name: "LV2Tests", dependencies: ["LV2", "DSP", "Engine", "Synthesis", "AudioFile", "AllocationCounter"]),
        .testTarget(name: "MIDITests", dependencies: ["MIDI", "Sequencing", "TestSupport"]),
        .testTarget(name: "SequencingTests", dependencies: ["Sequencing", "MIDI", "SongBook", "TestSupport"]),
        // Test support: a sequence rendered through a player, the test font's sampler and a mixer.
        .target(name: "RenderHarness", dependencies: ["DSP", "Synthesis", "Engine", "FluidSynth", "MIDI", "Playback", "Sequencing"], path: "Tests/Support/RenderHarness"),
        .testTarget(name: "PlaybackTests", dependencies: ["Playback", "Sequencing", "Engine", "Synthesis", "FluidSynth", "DSP", "MIDI", "RenderHarness", "TestSupport"]),
        .testTarget(name: "PianolaTests", dependencies: ["Pianola", "Locks", "Engine", "MIDI", "AllocationCounter", "TestSupport", "SongBook", "SoundServers",
                                                          "SF2", "SoundFontModel", "SoundFontSynth", "FluidSynth"]),
        .testTarget(name: "PianolaCLITests", dependencies: ["Engine", "MIDI", "Pianola", "pianola", "CCairo", "SoundServers", "SoundFontBook", "TestSupport"]),
        .testTarget(name: "EngineTests", dependencies: ["Playback", "DSP", "Engine", "Synthesis", "Sequencing", "MIDI", "FluidSynth", "SF2", "SoundFontBook", "AllocationCounter", "RenderHarness", "TestSupport"]),
        .testTarget(name: "StreamingTests", dependencies: ["Playback", "DSP", "Streaming", "Engine", "AudioFile", "CSndFile", "MIDI", "Sequencing", "AllocationCounter"]),
        .testTarget(name: "PianolaCTests", dependencies: ["PianolaC", "CPianola", "AllocationCounter"]),
        .testTarget(name: "SoundFontSynthTests", dependencies: ["SoundFontSynth", "SoundFontModel", "SF2", "FluidSynth", "DSP", "Engine", "AllocationCounter"]),
        .testTarget(name: "SoundFontModelTests", dependencies: ["SoundFontModel", "SF2", "SoundFontBook", "FluidSynth", "TestSupport"]),
        .testTarget(name: "SoundFontTests", dependencies: ["SF2", "SoundFontBook", "FluidSynth", "CFluidSynth", "CSndFile"]),
        // Libraries opened on first use that cannot be: what lazy_library.h says then.
        .target(name: "LazyLibraryProbe", dependencies: ["CLazyLibrary"], path: "Tests/Support/LazyLibraryProbe"),
        .testTarget(name: "SystemLibrariesTests",
                    dependencies: ["CFluidSynth", "CALSA", "CSndFile", "CALSAShims", "CFluidSynthShims", "SoundFontBook", "LazyLibraryProbe"]),
    ]  + checks
)
