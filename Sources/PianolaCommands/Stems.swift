import AudioFile
import FoundationEssentials
import Glibc
import Pianola

/// `render --stems`: what to write besides the mix, one file per track with notes and one
/// per `--with` audio file, each rendered alone through the same graph. A track renders
/// soloed, so the controllers and programs other tracks send still reach its channels, as in
/// the mix: the stems add up to the mix.
enum Stems {
    /// One stem: its file, what it holds, and the settings that render it.
    struct Stem {
        let path: String
        let what: String
        let settings: SongGraph.Settings
    }

    /// The stems of a render with `settings` into `folder` (made if missing), named
    /// `track-NN-NAME.EXT` and `with-N-NAME.EXT`. Tracks muted, or not soloed when some are,
    /// are left out as they are from the mix. Refuses, before anything is rendered, a folder
    /// that cannot be made and a stem that exists (unless `force`).
    static func plan(folder: String, sequence: MusicSequence, settings: SongGraph.Settings,
                     container: AudioFileWriter.Container, force: Bool) throws -> [Stem] {
        var isFolder = false
        if FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) {
            guard isFolder else { throw fail("--stems \(folder): exists and is not a folder") }
        } else {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw fail("--stems \(folder): cannot make the folder (\(String(cString: strerror(errno))))")
            }
        }
        var stems: [Stem] = []
        let ext = container.rawValue
        for (index, track) in sequence.tracks.enumerated() where track.noteCount > 0 && !settings.mutedTracks.contains(index)
            && (settings.soloTracks.isEmpty || settings.soloTracks.contains(index)) {
            var alone = settings
            alone.soloTracks = [index]
            alone.mutedTracks = []
            alone.audioFiles = []
            let number = index + 1 < 10 ? "0\(index + 1)" : "\(index + 1)"
            stems.append(Stem(path: "\(folder)/track-\(number)\(label(track.name)).\(ext)",
                              what: "track \(index + 1)\(track.name.map { " \"\($0)\"" } ?? "") alone", settings: alone))
        }
        for (index, file) in settings.audioFiles.enumerated() {
            var alone = settings
            alone.mutedTracks = Set(sequence.tracks.indices)
            alone.soloTracks = []
            alone.reverb = false   // FluidSynth's reverb leaves a DC offset of about −90 dB even with no notes
            alone.chorus = false
            alone.audioFiles = [file]
            let name = URL(fileURLWithPath: file.path).deletingPathExtension().lastPathComponent
            stems.append(Stem(path: "\(folder)/with-\(index + 1)\(label(name)).\(ext)", what: "\(file.path) alone", settings: alone))
        }
        if !force, let taken = stems.first(where: { FileManager.default.fileExists(atPath: $0.path) }) {
            throw fail("\(taken.path): already exists (use --force to replace it)")
        }
        return stems
    }

    /// `-name` made safe for a file name (letters, digits, `-`, `_`; spaces become `-`),
    /// empty for no name.
    private static func label(_ name: String?) -> String {
        let safe = String((name ?? "").unicodeScalars.map { scalar -> Character in
            ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "-" || scalar == "_" ? Character(scalar) : "-"
        }).split(separator: "-").joined(separator: "-")
        return safe.isEmpty ? "" : "-" + safe.prefix(40)
    }
}
