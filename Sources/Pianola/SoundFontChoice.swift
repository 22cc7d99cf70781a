#if canImport(Glibc)
import Glibc
#endif

/// Which SoundFont plays when none is given, the one rule of the CLI, the C library, Python and
/// Swift: `$PIANOLA_SOUNDFONT`, else the system's General MIDI font if installed, else the
/// project's own `pianola-gm.sf2` beside the code. Any thread.
public struct SoundFontChoice: Hashable, Sendable {
    /// The font's path. Any thread.
    public var path: String
    /// Where the choice came from, for telling the user. Any thread.
    public var source: String

    /// The rule, one line for help texts. Any thread.
    public static let rule = "$PIANOLA_SOUNDFONT, else the system GM font (/usr/share/sounds/sf2/default-GM.sf2), else Pianola's own pianola-gm.sf2"

    /// The system fonts looked for, in order. Any thread.
    public static let systemFonts = ["/usr/share/sounds/sf2/default-GM.sf2", "/usr/share/sounds/sf2/FluidR3_GM.sf2"]

    /// The project's own font's name. Any thread.
    public static let ownFont = "pianola-gm.sf2"

    /// Chooses a font: `explicit` if given, else the rule. The project's own font is looked for
    /// from each of `anchors` (files): beside it (a Python wheel's package folder holds the
    /// library and the font), then in `soundfonts/` (a checkout) or `share/pianola/soundfonts/`
    /// (an installed package: /usr/lib/…/libpianola.so and /usr/bin/pianola both find
    /// /usr/share/pianola/…) in its folder or any folder above. Returns `nil` only when no
    /// font exists anywhere. Any thread.
    public static func choose(explicit: String?, environment: [String: String]? = nil, anchors: [String]? = nil) -> SoundFontChoice? {
        if let explicit { return SoundFontChoice(path: explicit, source: "--soundfont") }
        let fromEnvironment = environment.map { $0["PIANOLA_SOUNDFONT"] } ?? getenv("PIANOLA_SOUNDFONT").map { String(cString: $0) }
        if let fromEnvironment, !fromEnvironment.isEmpty {
            return SoundFontChoice(path: fromEnvironment, source: "PIANOLA_SOUNDFONT")
        }
        if let system = systemFonts.first(where: readable) {
            return SoundFontChoice(path: system, source: "system General MIDI font")
        }
        return ownFont(anchors: anchors ?? codeFiles).map { SoundFontChoice(path: $0, source: "Pianola's own General MIDI font") }
    }

    /// The project's own font as `choose` finds it from `anchors`, or `nil`. Any thread.
    public static func ownFont(anchors: [String]) -> String? {
        for anchor in anchors {
            var folder = parent(of: anchor)
            if readable(folder + "/" + ownFont) { return folder + "/" + ownFont }
            while true {
                for place in ["/soundfonts/", "/share/pianola/soundfonts/"] where readable(folder + place + ownFont) {
                    return folder + place + ownFont
                }
                guard !folder.isEmpty else { break }
                folder = parent(of: folder)
            }
        }
        return nil
    }

    /// One line for when `choose` found nothing. Any thread.
    public static func notFound(anchors: [String]? = nil) -> String {
        let places = (anchors ?? codeFiles).map { parent(of: $0) }
        return "no SoundFont given and none found: PIANOLA_SOUNDFONT is unset, \(systemFonts.joined(separator: " and ")) are not there, "
            + "and \(ownFont) is not beside or above \(places.joined(separator: " or ")); give one, or install fluid-soundfont-gm"
    }

    /// The files holding this code, real paths: the shared library it was linked into (for
    /// C and Python: libpianola), then the program. Any thread.
    public static var codeFiles: [String] {
        var files: [String] = []
        if let library = mappedFile(holding: UInt(bitPattern: #dsohandle)), let real = realPath(library) { files.append(real) }
        if let program = realPath("/proc/self/exe"), !files.contains(program) { files.append(program) }
        return files
    }

    /// The file mapped at `address`, from /proc/self/maps ("start-end perms offset dev inode path").
    private static func mappedFile(holding address: UInt) -> String? {
        guard let maps = fopen("/proc/self/maps", "r") else { return nil }
        defer { fclose(maps) }
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        while getline(&line, &capacity, maps) > 0, let line {
            let fields = String(cString: line).split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            let range = fields.first?.split(separator: "-") ?? []
            guard fields.count == 6, range.count == 2, let start = UInt(range[0], radix: 16), let end = UInt(range[1], radix: 16),
                  (start..<end).contains(address) else { continue }
            let path = fields[5].trimmingPrefix(while: { $0 == " " }).dropLast(fields[5].hasSuffix("\n") ? 1 : 0)
            return path.hasPrefix("/") ? String(path) : nil
        }
        return nil
    }

    private static func readable(_ path: String) -> Bool { access(path, R_OK) == 0 }

    /// `path` with its last component dropped ("" for the root).
    private static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return String(path[..<slash])
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
