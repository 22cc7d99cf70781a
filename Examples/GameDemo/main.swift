// A small game-like program on Pianola's game API (`Soundtrack`): songs/town.mid, which loops
// on its loopStart/loopEnd markers; a game parameter, "intensity", that brings in the strings
// layer and pushes the tempo up as it rises; a stinger that lands on the next bar line; a jump
// back to the town's "verse" section on the next bar; and transition rules between the town
// and songs/battle.mid (into battle on the next bar, fading the town out; home into the town's
// verse on the next beat, fading in).
//
//   swift run game-demo                  keys on a terminal: i intensity, s stinger, v verse, n next tune, q quit
//   swift run game-demo --render out.wav the scripted version, rendered through the pull API
//
// Both need the project's songs and SoundFont only (soundfonts/pianola-gm.sf2).
import Foundation
import Pianola

/// A bright rising chirp of 0.3 s, the stinger.
func stinger(sampleRate: Int) -> Soundtrack.SoundEffect {
    let samples = (0..<sampleRate * 3 / 10).map { i -> Float in
        let t = Double(i) / Double(sampleRate)
        return Float(0.3 * sin(2 * .pi * (660 + 900 * t) * t) * exp(-6 * t))
    }
    return Soundtrack.SoundEffect(sound: SoundBuffer(left: samples, right: samples), name: "stinger")
}

@main
struct GameDemo {
    static func main() async {
        do { try await run() } catch {
            FileHandle.standardError.write(Data("game-demo: \(error)\n".utf8))
            exit(1)
        }
    }

    static func run() async throws {
        let arguments = CommandLine.arguments.dropFirst()
        let renderPath = arguments.first == "--render" ? arguments.dropFirst().first : nil
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let font = root.appendingPathComponent("soundfonts/pianola-gm.sf2").path
        let descriptions = ["town", "battle"].map { name in
            var description = Soundtrack.SongDescription(midiPath: root.appendingPathComponent("songs/\(name).mid").path, soundFontPath: font)
            description.trackLayers = ["Strings"]
            return description
        }

        let soundtrack = Soundtrack()
        let (townSong, battleSong) = (descriptions[0], descriptions[1])
        async let town = soundtrack.load(townSong)      // both load at once, off this thread
        async let battle = soundtrack.load(battleSong)
        let songs = try await [town, battle]
        let sting = stinger(sampleRate: soundtrack.configuration.sampleRate)
        try soundtrack.defineParameter("intensity")
        try soundtrack.mapParameter("intensity", to: .layerVolume("Strings"), curve: .linear(from: 0, to: 1))
        try soundtrack.mapParameter("intensity", to: .tempo, curve: .init([(0, 100), (0.5, 100), (1, 115)]))
        try soundtrack.setTransition(.init(name: "into battle", leave: .nextBar, fadeOut: 0.5), from: .song(songs[0]), to: .song(songs[1]))
        try soundtrack.setTransition(.init(name: "home", leave: .nextBeat, fadeOut: 0.3, fadeIn: 1), from: .song(songs[1]), to: .song(songs[0]))
        try soundtrack.play(songs[0])

        if let renderPath {
            try renderScript(soundtrack, songs: songs, sting: sting, to: renderPath)
        } else {
            try play(soundtrack, songs: songs, sting: sting)
        }
    }

    /// The scripted demo, pulled in 512-frame slices as a game's audio callback would.
    static func renderScript(_ soundtrack: Soundtrack, songs: [Soundtrack.Song], sting: Soundtrack.SoundEffect, to path: String) throws {
        let rate = soundtrack.configuration.sampleRate
        let writer = try AudioFileWriter(path: path, container: AudioFileWriter.Container(path: path) ?? .wav, encoding: .int16, sampleRate: rate, overwrite: true)
        let buffer = AudioBuffer(capacity: 512)
        let script: [(second: Int, String, () throws -> Void)] = [
            (3, "intensity up over 2 s: strings in, tempo up", { try soundtrack.setParameter("intensity", to: 1, seconds: 2) }),
            (7, "stinger on the next bar", { try soundtrack.playSoundEffect(sting, at: .nextBar) }),
            (9, "back to the verse on the next bar", { try soundtrack.jump(to: "verse") }),
            (10, "intensity down over 1 s", { try soundtrack.setParameter("intensity", to: 0, seconds: 1) }),
            (13, "to battle, by its rule", { try soundtrack.transition(to: songs[1]) }),
            (18, "home to the town's verse, by its rule", { try soundtrack.transition(to: songs[0], section: "verse") }),
            (22, "stop with a 2 s fade", { try soundtrack.stop(fadeOut: 2) }),
        ]
        var frames = 0, next = 0
        while frames < 25 * rate {
            if next < script.count && frames >= script[next].second * rate {
                print("\(script[next].second) s: \(script[next].1)")
                try script[next].2()
                next += 1
            }
            let slice = buffer.slice(frames: 512)
            soundtrack.render(into: slice)
            try writer.write(left: slice.left, right: slice.right, frames: slice.frames)
            frames += slice.frames
            for event in soundtrack.pollEvents() { report(event) }
        }
        try writer.close()
        print("wrote \(path)")
    }

    /// Live through Pianola's own ALSA output, with keys.
    static func play(_ soundtrack: Soundtrack, songs: [Soundtrack.Song], sting: Soundtrack.SoundEffect) throws {
        if let note = try soundtrack.startOutput() { print(note) }
        print("i: intensity up/down   s: stinger on the next bar   v: town's verse on the next bar   n: other tune, by its rule   q: quit")
        var saved = termios()
        let terminal = isatty(STDIN_FILENO) == 1 && tcgetattr(STDIN_FILENO, &saved) == 0
        if terminal {
            var raw = saved
            raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
            tcsetattr(STDIN_FILENO, TCSANOW, &raw)
        }
        defer { if terminal { tcsetattr(STDIN_FILENO, TCSANOW, &saved) } }
        soundtrack.deliverEvents(on: .main) { report($0) }
        var intense = false, current = 0
        keys: while true {
            var key: UInt8 = 0
            guard read(STDIN_FILENO, &key, 1) == 1 else { break }
            switch key {
            case UInt8(ascii: "i"):
                intense.toggle()
                try soundtrack.setParameter("intensity", to: intense ? 1 : 0, seconds: 1.5)
            case UInt8(ascii: "s"): try soundtrack.playSoundEffect(sting, at: .nextBar)
            case UInt8(ascii: "v"): try? soundtrack.jump(to: "verse")   // the battle theme has no sections
            case UInt8(ascii: "n"):
                current = 1 - current
                try soundtrack.transition(to: songs[current])
            case UInt8(ascii: "q"): break keys
            default: continue
            }
        }
        try soundtrack.stop(fadeOut: 0.5)
        usleep(600_000)
        soundtrack.stopOutput()
    }

    static func report(_ event: Soundtrack.Event) {
        switch event {
        case .beat(let song, let beat) where beat.beat == 1: print("  \(URL(fileURLWithPath: song.name).lastPathComponent) bar \(beat.bar)")
        case .loopWrapped(let song, _): print("  \(URL(fileURLWithPath: song.name).lastPathComponent) loops")
        case .jumped(let song, let section, _): print("  \(URL(fileURLWithPath: song.name).lastPathComponent) jumps to \(section)")
        case .transitioned(_, let song, _, let rule, _): print("  to \(URL(fileURLWithPath: song.name).lastPathComponent) by the rule '\(rule)'")
        case .songEnded(let song, _): print("  \(URL(fileURLWithPath: song.name).lastPathComponent) ended")
        default: break
        }
    }
}
