import FoundationEssentials

/// What a batch render does, worked out before anything renders: every song named on the
/// command line or found in a folder named there, where its audio (and labels) go, this
/// machine's shard of them, and which are already done. Main thread.
struct BatchPlan {
    /// A song to render and where its files go. Any thread.
    struct Job: Sendable {
        /// The MIDI file. Any thread.
        let song: String
        /// The audio file to write. Any thread.
        let output: String
        /// The labels file to write, if asked for. Any thread.
        let labels: String?
        /// The MIDI file's size in bytes: a render's share of the batch's work. Any thread.
        let bytes: Int
    }

    /// The songs to render, in order.
    let jobs: [Job]
    /// Songs whose files were there already (`--skip-existing`), not rendered.
    let skipped: Int
    /// Songs named that do not exist, each reported: they count as failed.
    let missing: Int

    /// Song files' extensions, as a folder's songs are found (a file named otherwise is still
    /// read by its content when named on its own). Any thread.
    static let songExtensions: Set<String> = ["mid", "midi", "kar", "smf", "rmi", "mus", "xmi", "hmp", "hmi"]

    /// A MIDI file to render and the name its outputs take (a folder's songs keep their place
    /// under it: `folder/a/b.mid` is named `a/b`).
    struct Song {
        let path: String
        let name: String
    }

    /// Lists the songs, picks `shard`, names every output along `output` (and `labels`), and
    /// checks them: two songs writing one file, or a file that is there (unless `force`, or
    /// `skipExisting`, which leaves the song out). Throws one line.
    init(arguments: [String], output: OutputNaming, extension ext: String, labels: OutputNaming?,
         shard: Shard?, force: Bool, skipExisting: Bool) throws {
        var songs: [Song] = []
        var missing = 0
        for argument in arguments {
            var isFolder = false
            guard FileManager.default.fileExists(atPath: argument, isDirectory: &isFolder) else {
                printError("\(argument): no such file or folder; skipped")
                missing += 1
                continue
            }
            guard isFolder else {
                songs.append(Song(path: argument, name: Self.stem(of: argument.split(separator: "/").last.map(String.init) ?? argument)))
                continue
            }
            let found = try Self.songs(in: argument)
            guard !found.isEmpty else { throw fail("\(argument): no MIDI files (.mid, .midi, .kar, .smf) in this folder") }
            songs += found
        }
        if let shard { songs = shard.pick(songs) }
        var writers: [String: String] = [:]        // output path → the song writing it
        var jobs: [Job] = []
        var skipped = 0
        var existing: [String] = []
        for song in songs {
            let path = output.path(for: song.name, extension: ext)
            let labelPath = labels?.path(for: song.name, extension: "csv")
            for file in [path] + (labelPath.map { [$0] } ?? []) {
                if let other = writers[file] {
                    throw fail("\(other) and \(song.path) would both write \(file); name outputs with a pattern or give folders, whose layout is kept")
                }
                writers[file] = song.path
            }
            let there = ([path] + (labelPath.map { [$0] } ?? [])).filter { FileManager.default.fileExists(atPath: $0) }
            if skipExisting && there.count == 1 + (labelPath == nil ? 0 : 1) {
                skipped += 1
                continue
            }
            if !force && !skipExisting { existing += there }
            let size = (try? FileManager.default.attributesOfItem(atPath: song.path)[.size] as? Int) ?? nil
            jobs.append(Job(song: song.path, output: path, labels: labelPath, bytes: max(1, size ?? 1)))
        }
        if let first = existing.first {
            let more = existing.count > 1 ? " (and \(existing.count - 1) more)" : ""
            throw fail("\(first) already exists\(more); use --force to replace, or --skip-existing to keep what is there")
        }
        self.jobs = jobs
        self.skipped = skipped
        self.missing = missing
    }

    /// The MIDI files under `folder`, at any depth, in byte order of their paths.
    static func songs(in folder: String) throws -> [Song] {
        let paths: [String]
        do { paths = try FileManager.default.subpathsOfDirectory(atPath: folder) } catch {
            throw fail("\(folder): cannot list this folder (\(error))")
        }
        let base = folder.hasSuffix("/") ? folder : folder + "/"
        return paths.filter { path in
            guard let ext = path.split(separator: ".").last, path.contains(".") else { return false }
            var isFolder = false
            return songExtensions.contains(ext.lowercased()) && FileManager.default.fileExists(atPath: base + path, isDirectory: &isFolder) && !isFolder
        }
        .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        .map { Song(path: base + $0, name: stem(of: $0)) }
    }

    /// `name` without its extension: `a/b.mid` → `a/b`.
    static func stem(of name: String) -> String {
        guard let dot = name.lastIndex(of: "."), !name[name.index(after: dot)...].contains("/"), dot != name.startIndex else { return name }
        return String(name[..<dot])
    }
}

/// Where a batch's files go: into a folder, each named after its song, or along a pattern in
/// which `{name}` stands for the song's name. Any thread.
enum OutputNaming: Sendable {
    /// `folder/NAME.EXT`.
    case folder(String)
    /// The pattern with `{name}` replaced.
    case pattern(String)

    /// The naming `text` asks for, `nil` if it names one file: a pattern holds `{name}`; a
    /// folder ends in `/` or is one already.
    init?(_ text: String) {
        if text.contains("{name}") {
            self = .pattern(text)
            return
        }
        var isFolder = false
        guard text.hasSuffix("/") || (FileManager.default.fileExists(atPath: text, isDirectory: &isFolder) && isFolder) else { return nil }
        self = .folder(text.hasSuffix("/") ? String(text.dropLast()) : text)
    }

    /// The file for the song named `name`, with `ext` in a folder.
    func path(for name: String, extension ext: String) -> String {
        switch self {
        case .folder(let folder): return "\(folder.isEmpty ? "" : folder + "/")\(name).\(ext)"
        case .pattern(let pattern): return pattern.split(separator: "{name}", omittingEmptySubsequences: false).joined(separator: name)
        }
    }
}

/// `--shard K/N`: the K-th of N equal parts of a song list, every N-th song from the K-th, so
/// N machines given the same list render it all, each song once. Any thread.
struct Shard: Sendable {
    /// Which part, from 1. Any thread.
    let index: Int
    /// How many parts. Any thread.
    let count: Int

    /// `K/N` with 1 ≤ K ≤ N; throws one line for anything else.
    init(_ text: String) throws {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]), n >= 1, (1...n).contains(k) else {
            throw fail("--shard \(text): give K/N, the K-th of N parts, with 1 ≤ K ≤ N (e.g. 2/8)")
        }
        index = k
        count = n
    }

    /// This shard's share of `items`.
    func pick<T>(_ items: [T]) -> [T] {
        items.enumerated().filter { $0.offset % count == index - 1 }.map(\.element)
    }
}
