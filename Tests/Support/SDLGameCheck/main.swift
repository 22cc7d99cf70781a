// Checks Examples/sdl-game against the Swift API: renders the same script as game.c through
// `Soundtrack` (pulled in 1,024-frame interleaved cycles, each change asked for at the same
// audio frame) and compares it with the raw float audio SDL's disk driver wrote.
//
//   sdl-game-check SONGS_DIR SOUNDFONT SDL_OUTPUT.raw [SECONDS]
//
// Prints how many samples are identical and the SNR; exits 1 below 90 dB or if the file is short.
// SDL writes silence while the device is paused: whole silent callbacks at the start are skipped.
import Foundation
import Pianola

let arguments = CommandLine.arguments
guard arguments.count >= 4 else {
    FileHandle.standardError.write(Data("usage: sdl-game-check SONGS_DIR SOUNDFONT SDL_OUTPUT.raw [SECONDS]\n".utf8))
    exit(2)
}
let (songs, font, sdlOutput) = (arguments[1], arguments[2], arguments[3])
let seconds = arguments.count > 4 ? Int(arguments[4]) ?? 17 : 17
let rate = 48_000, cycle = 1_024

/// game.c's stinger: a 16-bit mono WAV, a rising square chirp dying away over a quarter second.
func stingerWAV() -> [UInt8] {
    let samples = rate / 4
    var wav = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WAVEfmt ".utf8) + [16, 0, 0, 0, 1, 0, 1, 0, 0x80, 0xBB, 0, 0, 0x00, 0x77, 0x01, 0, 2, 0, 16, 0]
    wav += Array("data".utf8) + [0, 0, 0, 0]
    let data = UInt32(2 * samples), riff = 36 + data
    for i in 0..<4 {
        wav[4 + i] = UInt8(truncatingIfNeeded: riff >> (8 * i))
        wav[40 + i] = UInt8(truncatingIfNeeded: data >> (8 * i))
    }
    var phase: UInt32 = 0
    for i in 0..<samples {
        phase &+= 600 + UInt32(i / 16)
        let level = 8000 * (samples - i) / samples
        let sample = (phase >> 15) & 1 == 1 ? level : -level
        wav += [UInt8(truncatingIfNeeded: sample), UInt8(truncatingIfNeeded: sample >> 8)]
    }
    return wav
}

do {
    let soundtrack = Soundtrack()
    func song(_ name: String) -> Soundtrack.Song {
        var description = Soundtrack.SongDescription(midiPath: "\(songs)/\(name)", soundFontPath: font)
        description.trackLayers = ["Strings"]
        return soundtrack.startLoading(description)
    }
    let (town, battle) = (song("town.mid"), song("battle.mid"))
    let stinger = soundtrack.startLoadingSoundEffect(.bytes(stingerWAV(), name: "stinger"))
    try town.wait()
    try battle.wait()
    try stinger.wait()
    try soundtrack.play(town)
    try soundtrack.setLayer("Strings", volume: 0)

    let script: [(frame: Int, action: () throws -> Void)] = [
        (rate * 32 / 10, { try soundtrack.setLayer("Strings", volume: 1, seconds: 2, at: .nextBar) }),
        (rate * 535 / 100, { try soundtrack.playSoundEffect(stinger, at: .nextBar, volume: 0.8) }),
        (rate * 12, { try soundtrack.play(battle, at: .nextBar, fadeOut: 0.5) }),
        (rate * 1526 / 100, { try soundtrack.setLayer("Strings", volume: 0.3, seconds: 0.2, at: .nextBar) }),
    ]
    let frames = seconds * rate
    var swift = [Float](repeating: 0, count: frames * 2)
    var pulled = 0, step = 0
    while pulled < frames {
        while step < script.count && pulled >= script[step].frame {
            try script[step].action()
            step += 1
        }
        let n = min(cycle, frames - pulled)
        swift.withUnsafeMutableBufferPointer { _ = soundtrack.render(interleaved: $0.baseAddress! + 2 * pulled, frameCount: n) }
        pulled += n
    }

    let bytes = try Data(contentsOf: URL(fileURLWithPath: sdlOutput))
    var sdl = bytes.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    // SDL writes silence while the device is paused, before the game unpauses it: whole silent
    // callbacks at the start are not the soundtrack's.
    let silent = stride(from: 0, to: sdl.count, by: 2 * cycle).prefix { start in sdl[start..<min(sdl.count, start + 2 * cycle)].allSatisfy { $0 == 0 } }.count
    sdl.removeFirst(min(sdl.count, silent * 2 * cycle))
    guard sdl.count >= swift.count else {
        print("sdl-game-check: \(sdlOutput) holds \(sdl.count / 2) frames; the script renders \(frames)")
        exit(1)
    }
    var identical = 0, signal = 0.0, noise = 0.0
    for i in swift.indices {
        if sdl[i] == swift[i] { identical += 1 }
        signal += Double(swift[i]) * Double(swift[i])
        noise += Double(sdl[i] - swift[i]) * Double(sdl[i] - swift[i])
    }
    let snr = noise == 0 ? Double.infinity : 10 * log10(signal / noise)
    let peak = swift.map(abs).max() ?? 0
    print("sdl-game-check: after \(silent) silent callbacks, \(identical) of \(swift.count) samples identical (\(seconds) s, peak \(String(format: "%.3f", peak))); SNR \(snr.isInfinite ? "∞" : String(format: "%.1f", snr)) dB")
    exit(snr >= 90 && peak > 0.05 ? 0 : 1)
} catch {
    FileHandle.standardError.write(Data("sdl-game-check: \(error)\n".utf8))
    exit(1)
}
