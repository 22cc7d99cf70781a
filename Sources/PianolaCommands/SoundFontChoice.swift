import FoundationEssentials
import Glibc

/// Which SoundFont to play with, and why: `--soundfont PATH`, else `$PIANOLA_SOUNDFONT`, else
/// the system's General MIDI font if installed, else the project's own `pianola-gm.sf2`. Any thread.
public struct SoundFontChoice: Hashable, Sendable {
    /// The font's path. Any thread.
    public var path: String
    /// Where the choice came from, for telling the user. Any thread.
    public var source: String

    /// The system fonts looked for, in order. Any thread.
    public static let systemFonts = ["/usr/share/sounds/sf2/default-GM.sf2", "/usr/share/sounds/sf2/FluidR3_GM.sf2"]

    /// Chooses a font. `executable` locates the project's own font: the first
    /// `soundfonts/pianola-gm.sf2` (a checkout) or `share/pianola/soundfonts/pianola-gm.sf2` (an
    /// installed package: /usr/bin/pianola finds /usr/share/pianola/…) in the executable's folder
    /// or a folder above it. Returns `nil` only when no font exists anywhere. Any thread.
    public static func choose(explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment,
                              executable: String = CommandLine.arguments[0]) -> SoundFontChoice? {
        if let explicit { return SoundFontChoice(path: explicit, source: "--soundfont") }
        if let fromEnvironment = environment["PIANOLA_SOUNDFONT"], !fromEnvironment.isEmpty {
            return SoundFontChoice(path: fromEnvironment, source: "PIANOLA_SOUNDFONT")
        }
        if let system = systemFonts.first(where: { FileManager.default.isReadableFile(atPath: $0) }) {
            return SoundFontChoice(path: system, source: "system General MIDI font")
        }
        var folder = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent()
        while folder.path != "/" {
            for place in ["soundfonts/pianola-gm.sf2", "share/pianola/soundfonts/pianola-gm.sf2"] {
                let candidate = folder.appendingPathComponent(place)
                if FileManager.default.isReadableFile(atPath: candidate.path) {
                    return SoundFontChoice(path: candidate.path, source: "Pianola's own General MIDI font")
                }
            }
            folder.deleteLastPathComponent()
        }
        return nil
    }
}
