import Foundation
@testable import FluidSynth
import SF2
import SoundFontBook
@testable import SoundFontModel
import Testing
import TestSupport

/// Pianola's own SoundFont reader against the project's SoundFont writer (what was written
/// is read back, zone by zone) and against libfluidsynth's reader (the same presets; a font
/// it refuses is refused, one it reads is read).
@Suite("The SoundFont model: presets, zones, generators and samples as the file gives them")
struct SoundFontModelTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The written font's generators of a zone, as (number, amount) pairs without the link.
    static func written(_ generators: [SF2Generator]) -> [Int: Int16] {
        Dictionary(generators.map(\.record).filter { $0.operation != 41 && $0.operation != 53 }.map { ($0.operation, Int16(bitPattern: $0.amount)) }) { $1 }
    }

    /// A name as the writer stores it: 19 bytes and a NUL.
    static func stored(_ name: String) -> String { String(decoding: name.utf8.prefix(19), as: UTF8.self) }

    /// The read zone's generators as (number, amount) pairs.
    static func read(_ zone: SoundFont.Zone) -> [Int: Int16] {
        Dictionary(uniqueKeysWithValues: zone.generators.set.map { (Int($0.rawValue), zone.generators[$0]!) })
    }

    @Test("the project's fonts read back as written: every preset, instrument, zone, generator, modulator and sample header, and each sample's data")
    func roundTrip() throws {
        for font in [SoundFontBook.testFont(), SoundFontBook.generalMIDIFont()] {
            let read = try SoundFont(bytes: font.serialized(), name: font.name)
            #expect(read.name == font.name && read.version.major == 2)
            #expect(read.presets.count == font.presets.count && read.instruments.count == font.instruments.count && read.samples.count == font.samples.count)
            for (written, preset) in zip(font.presets, read.presets) {
                #expect(preset.name == Self.stored(written.name) && preset.bank == written.bank && preset.program == written.program)
                #expect(preset.global == nil && preset.zones.map(\.link) == written.zones.map(\.instrument))
                for (zone, readZone) in zip(written.zones, preset.zones) { #expect(Self.read(readZone) == Self.written(zone.generators), "\(preset.name)") }
            }
            for (written, instrument) in zip(font.instruments, read.instruments) {
                #expect(instrument.name == Self.stored(written.name) && instrument.zones.map(\.link) == written.zones.map(\.sample))
                for (zone, readZone) in zip(written.zones, instrument.zones) {
                    #expect(Self.read(readZone) == Self.written(zone.generators), "\(instrument.name)")
                    #expect(readZone.modulators.map { [Int($0.source), Int($0.destination), Int($0.amount), Int($0.amountSource)] }
                            == zone.modulators.map { [Int($0.source), Int($0.destination), Int($0.amount), Int($0.amountSource)] })
                }
            }
            for (written, header) in zip(font.samples, read.samples) {
                #expect(header.name == Self.stored(written.name) && Int(header.sampleRate) == written.sampleRate && header.originalPitch == written.rootKey)
                #expect(Array(read.data(of: header)) == written.data, "\(written.name)")
                if let loop = written.loop { #expect(Int(header.loopStart - header.start) == loop.start && Int(header.loopEnd - header.start) == loop.end) }
            }
        }
    }

    @Test("regions combine as section 9.4 says: the instrument zone's value or its global zone's or the default, plus the preset zone's or its global zone's; ranges overlap")
    func regions() throws {
        var font = SF2File(name: "regions")
        let sample = font.add(SF2Sample(name: "tone", data: (0..<400).map { Int16($0 % 100 * 100) }, sampleRate: 48_000, rootKey: 60, loop: (100, 300)))
        let instrument = font.add(SF2Instrument(name: "layered", zones: [
            .init(sample: sample, generators: [.keyRange(0, 63), .attenuation(60), .pan(-200)]),
            .init(sample: sample, generators: [.keyRange(48, 127), .coarseTune(12), .sampleModes(1)]),
        ]))
        font.presets.append(SF2Preset(name: "layered", bank: 0, program: 0, zones: [.init(instrument: instrument, generators: [.keyRange(40, 100), .attenuation(30), .pan(100), .sampleModes(3)])]))
        let read = try SoundFont(bytes: font.serialized(), name: "regions")
        let preset = try #require(read.preset(bank: 0, program: 0))
        #expect(read.regions(of: preset, key: 30, velocity: 100).isEmpty, "below the preset zone's keys")
        let low = read.regions(of: preset, key: 45, velocity: 100)
        #expect(low.count == 1 && low[0].keyRange == 40...63 && low[0].velocityRange == 0...127)
        #expect(low[0][.initialAttenuation] == 90 && low[0][.pan] == -100 && low[0][.coarseTune] == 0)
        #expect(low[0][.initialFilterCutoff] == 13_500 && low[0][.volEnvAttack] == -12_000 && low[0][.scaleTuning] == 100, "defaults")
        let both = read.regions(of: preset, key: 55, velocity: 1)
        #expect(both.count == 2 && both.map(\.zones.instrument) == [0, 1])
        #expect(both[1][.coarseTune] == 12 && both[1][.initialAttenuation] == 30 && both[1][.pan] == 100 && both[1][.keyRange] == 127 << 8 | 48)
        #expect(both[1][.sampleModes] == 1, "sample modes are the instrument's alone: the preset's 3 is ignored")
    }

    @Test("a voice's modulators: the ten defaults; an instrument's identical one replaces a default, a preset's adds to it; a zone's own replaces its global zone's; one on a controller no modulator may follow is left out")
    func modulators() throws {
        var font = SF2File(name: "modulators")
        let sample = font.add(SF2Sample(name: "tone", data: [Int16](repeating: 1000, count: 200), sampleRate: 48_000, rootKey: 60))
        let instrument = font.add(SF2Instrument(name: "i", zones: [.init(sample: sample, modulators: [
            SF2Modulator(source: 0x0587, destination: 48, amount: 0),      // CC7 → attenuation: the default's amount replaced
            SF2Modulator(source: 0x0086, destination: 17, amount: 300),    // CC6 (data entry) → pan: no modulator may follow it
            SF2Modulator(source: 0x0084, destination: 8, amount: -1200),   // CC4 → filter: a new one
        ])]))
        font.presets.append(SF2Preset(name: "p", bank: 0, program: 0, zones: [.init(instrument: instrument)]))
        let read = try SoundFont(bytes: font.serialized(), name: "modulators")
        let region = try #require(read.regions(of: read.presets[0], key: 60, velocity: 100).first)
        #expect(region.modulators.count == 11)
        #expect(region.modulators.first { $0.source == 0x0587 }?.amount == 0)
        #expect(!region.modulators.contains { $0.source == 0x0086 })
        #expect(region.modulators.last.map { $0.source == 0x0084 && $0.amount == -1200 } == true)
        #expect(Array(region.modulators.prefix(10)).filter { $0.source != 0x0587 } == Modulator.defaults.filter { $0.source != 0x0587 })
        // The preset level adds; a zone's own modulator replaces its global zone's identical one.
        let reverb = Modulator(source: 0x00DB, destination: 16, amount: 100, amountSource: 0, transform: 0)
        let presetLevel = Modulator.merged([reverb], global: [Modulator(source: 0x00DB, destination: 16, amount: 700, amountSource: 0, transform: 0)])
        #expect(presetLevel == [reverb])
        let voice = Modulator.forVoice(instrument: [], preset: presetLevel)
        #expect(voice.count == 10 && voice.first { $0.source == 0x00DB }?.amount == 300)
    }

    @Test("the same presets as libfluidsynth reads, by bank, program and name, in the project's fonts and Debian's SF3 font")
    func presetsAsLibfluidsynthReadsThem() throws {
        let fonts = ["soundfonts/pianola-test.sf2", "soundfonts/pianola-gm.sf2"].map { Self.root.appendingPathComponent($0).path }
            + ["/usr/share/sounds/sf3/MuseScore_General_Lite.sf3"]
        var configuration = FluidSynthesizer.Configuration()
        configuration.reverb = false
        configuration.chorus = false
        for path in fonts {
            let synthesizer = try FluidSynthesizer(configuration: configuration)
            let theirs = synthesizer.presets(of: try synthesizer.loadSoundFont(path: path)).map { "\($0.bank):\($0.program) \($0.name)" }.sorted()
            let font = try SoundFont(path: path)
            let ours = font.presets.map { "\($0.bank):\($0.program) \($0.name)" }.sorted()
            #expect(ours == theirs, "\(path)")
            #expect(!ours.isEmpty)
            if path.hasSuffix(".sf3") {
                #expect(font.version.major == 3 && font.samples.allSatisfy { $0.isCompressed || $0.isROM || $0.start == $0.end })
                #expect(font.presets.allSatisfy { !$0.zones.isEmpty })
            }
        }
    }

    @Test("a broken font is refused in one line naming the byte, and never read past its end: truncated, its sizes and indices changed at random; whatever libfluidsynth reads, so does the model")
    func hostileFonts() throws {
        let good = SoundFontBook.testFont().serialized()
        #expect(throws: SoundFontError.self) { try SoundFont(bytes: [], name: "empty.sf2") }
        #expect(throws: SoundFontError.self) { try SoundFont(path: "/nonexistent/font.sf2") }
        do {
            _ = try SoundFont(path: "/tmp")
            Issue.record("a directory was read as a font")
        } catch {
            #expect(error.description == "/tmp: cannot load SoundFont: is a directory")
        }
        for length in stride(from: 0, to: good.count, by: max(1, good.count / 300)) {
            do {
                _ = try SoundFont(bytes: Array(good.prefix(length)), name: "cut.sf2")
                Issue.record("\(length) bytes of \(good.count) read")
            } catch {
                #expect(!error.description.contains("\n") && error.description.hasPrefix("cut.sf2: "), "\(error)")
            }
        }
        // Random changes to the preset data's bytes (sizes, counts, indices, generator
        // numbers), each font then read by the model and by libfluidsynth itself.
        var random = SplitMix(seed: 0x5F2)
        let pdta = try #require(good.indices.first { good[$0..<min($0 + 4, good.count)].elementsEqual("pdta".utf8) })
        var disagreements: [String] = []
        for trial in 0..<300 {
            var bytes = good
            for _ in 0..<(1 + Int(random.next() % 3)) {
                let at = pdta + Int(random.next() % UInt64(bytes.count - pdta))
                bytes[at] = UInt8(truncatingIfNeeded: random.next())
            }
            let ours: String?
            do {
                let font = try SoundFont(bytes: bytes, name: "changed.sf2")
                for preset in font.presets { for key in stride(from: 0, to: 128, by: 13) { _ = font.regions(of: preset, key: UInt8(key), velocity: 100) } }
                ours = nil
            } catch {
                #expect(!error.description.contains("\n"))
                ours = error.description
            }
            let theirs = FluidSynthesizer.libraryReads(bytes)
            if (ours == nil) != theirs { disagreements.append("trial \(trial): model \(ours ?? "reads it"), libfluidsynth \(theirs ? "reads it" : "refuses it")") }
        }
        #expect(disagreements.isEmpty, "\(disagreements.count) of 300: \(disagreements.prefix(5).joined(separator: "; "))")
    }

    @Test("the bag tables' closing indices moved by -2…+2 (more or fewer generators and modulators than the tables hold): the model reads exactly what libfluidsynth reads")
    func tableSizeRule() throws {
        let good = SoundFontBook.testFont().serialized()
        var disagreements: [String] = [], refused = 0
        for table in ["pbag", "ibag"] {
            let at = try #require(good.indices.first { good[$0..<min($0 + 4, good.count)].elementsEqual(table.utf8) })
            let size = Int(good[at + 4]) | Int(good[at + 5]) << 8
            let closing = at + 8 + size - 4
            for (column, what) in [(0, "generator"), (2, "modulator")] {
                for change in -2...2 where change != 0 {
                    var bytes = good
                    let index = Int(bytes[closing + column]) | Int(bytes[closing + column + 1]) << 8
                    guard index + change >= 0 else { continue }
                    bytes[closing + column] = UInt8((index + change) & 0xFF)
                    bytes[closing + column + 1] = UInt8((index + change) >> 8)
                    let ours = (try? SoundFont(bytes: bytes, name: "changed.sf2")) != nil
                    let theirs = FluidSynthesizer.libraryReads(bytes)
                    if !ours { refused += 1 }
                    if ours != theirs {
                        disagreements.append("\(table) \(what) index \(index)\(change > 0 ? "+" : "")\(change): model \(ours ? "reads it" : "refuses it"), libfluidsynth \(theirs ? "reads it" : "refuses it")")
                    }
                }
            }
        }
        #expect(refused > 0)
        #expect(disagreements.isEmpty, "\(disagreements.joined(separator: "; "))")
    }

    @Test("an INFO chunk libfluidsynth does not know, or one renamed to another it knows with a size it refuses, is refused as libfluidsynth refuses it")
    func infoChunkRules() throws {
        let good = SoundFontBook.testFont().serialized()
        var disagreements: [String] = [], tried = 0
        for id in ["isng", "INAM", "ICMT", "ISFT"] {
            guard let at = good.indices.first(where: { good[$0..<min($0 + 4, good.count)].elementsEqual(id.utf8) }) else { continue }
            for replacement in ["XXXX", "iver", "ifil", "INM\u{0}"] {
                var bytes = good
                bytes.replaceSubrange(at ..< at + 4, with: Array(replacement.utf8))
                let ours = (try? SoundFont(bytes: bytes, name: "info.sf2")) != nil
                let theirs = FluidSynthesizer.libraryReads(bytes)
                tried += 1
                if ours != theirs { disagreements.append("\(id) as \(replacement): model \(ours ? "reads it" : "refuses it"), libfluidsynth \(theirs ? "reads it" : "refuses it")") }
            }
        }
        #expect(tried >= 8)
        #expect(disagreements.isEmpty, "\(disagreements.joined(separator: "; "))")
    }
    @Test("lists and chunks whose lengths claim more or less than they hold (a 'pdta' past the file's end, bytes after 'shdr' or 'smpl', an empty 'sdta'): the model and the check read exactly what libfluidsynth reads")
    func listLengthRules() throws {
        let good = SoundFontBook.testFont().serialized()
        func offset(of id: String, in bytes: [UInt8]) -> Int? { bytes.indices.first { bytes[$0..<min($0 + 4, bytes.count)].elementsEqual(id.utf8) } }
        func u32(_ bytes: [UInt8], _ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
        func set(_ bytes: inout [UInt8], _ at: Int, _ value: Int) { for i in 0..<4 { bytes[at + i] = UInt8(truncatingIfNeeded: value >> (8 * i)) } }
        /// The font with `extra` inserted at `at` and the lengths of RIFF and of the lists that hold it grown by as much.
        func inserting(_ extra: [UInt8], at: Int, intoLists lists: [String], _ bytes: [UInt8] = good) -> [UInt8] {
            var changed = bytes
            changed.insert(contentsOf: extra, at: at)
            set(&changed, 4, u32(changed, 4) + extra.count)
            for list in lists { let type = offset(of: list, in: bytes)!; set(&changed, type - 4, u32(changed, type - 4) + extra.count) }
            return changed
        }
        let pdta = try #require(offset(of: "pdta", in: good)), sdta = try #require(offset(of: "sdta", in: good))
        let smpl = try #require(offset(of: "smpl", in: good))
        var variants: [(String, [UInt8])] = []
        for claim in [1, 2, 7, 1_000, 2_294_678, 0x7FFF_FFF0, 0x8000_0000, 0xFFFF_FFFF] {
            var bytes = good
            set(&bytes, pdta - 4, min(u32(good, pdta - 4) + claim, 0xFFFF_FFFF))
            variants.append(("pdta claiming \(claim) bytes more", bytes))
        }
        for junk in [[UInt8](repeating: 0, count: 3), Array("JUNK".utf8), Array("sm24\u{4}\u{0}\u{0}\u{0}abcd".utf8), Array("LIST\u{ff}\u{ff}\u{0}\u{0}".utf8)] {
            variants.append(("\(junk.count) bytes after shdr, in pdta", inserting(junk, at: good.count, intoLists: ["pdta"])))
            variants.append(("\(junk.count) bytes after shdr, past pdta", inserting(junk, at: good.count, intoLists: [])))
            variants.append(("\(junk.count) bytes after smpl", inserting(junk, at: pdta - 8, intoLists: ["sdta"])))
            variants.append(("\(junk.count) bytes before smpl", inserting(junk, at: smpl, intoLists: ["sdta"])))
        }
        var empty = good
        empty.removeSubrange(sdta + 4 ..< pdta - 8)
        set(&empty, sdta - 4, 4)
        set(&empty, 4, empty.count - 8)
        variants.append(("an empty sdta", empty))
        var unversioned = good
        let ifil = try #require(offset(of: "ifil", in: good))
        unversioned.replaceSubrange(ifil ..< ifil + 4, with: Array("isng".utf8))
        variants.append(("no ifil (renamed isng)", unversioned))
        var disagreements: [String] = []
        for (what, bytes) in variants {
            let ours: String?
            do { _ = try SoundFont(bytes: bytes, name: "lists.sf2"); ours = nil } catch { ours = error.description }
            let theirs = FluidSynthesizer.libraryReads(bytes)
            if (ours == nil) != theirs { disagreements.append("\(what): model \(ours ?? "reads it"), libfluidsynth \(theirs ? "reads it" : "refuses it")") }
            let check = bytes.withUnsafeBytes { SoundFontCheck.problem($0) }
            if (check == nil) != theirs { disagreements.append("\(what): the check \(check ?? "passes it"), libfluidsynth \(theirs ? "reads it" : "refuses it")") }
        }
        #expect(variants.count == 26)
        #expect(disagreements.isEmpty, "\(disagreements.count) of \(variants.count): \(disagreements.joined(separator: "; "))")
    }
}
