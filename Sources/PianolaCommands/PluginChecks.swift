import CPianola
import Glibc
import Pianola
import Synchronization

/// LV2 plugins tried in child processes before Pianola loads them into its own, as Carla and
/// Ardour scan theirs: a plugin that crashes or hangs ends a child, not the render. Each child
/// is `pianola plugins --probe URI` (LV2Probe) with LV2_PATH set to the plugin's bundle; its
/// verdict is kept in a cache (`$XDG_CACHE_HOME/pianola/lv2-checks.tsv`, else
/// `~/.cache/pianola/…`), keyed by Pianola's version and binary and the bundle's files (their
/// newest change and total size), so a plugin is tried again only when it or Pianola changes.
/// Main thread.
enum PluginChecks {
    /// A plugin's verdict: `ok`, `refused`, `bad-output` (from the child), `crashed` or `hung`. Any thread.
    struct Result: Hashable {
        let uri: String
        let verdict: String
        let detail: String
        /// Whether a render may load it: the child ran it to the end (a refusal is told when it is made).
        var isLoadable: Bool { verdict == "ok" || verdict == "refused" }
    }

    /// Seconds a child may take before it is called hung and killed: 30, or what
    /// PIANOLA_PLUGIN_CHECK_TIMEOUT says.
    static let timeout = getenv("PIANOLA_PLUGIN_CHECK_TIMEOUT").flatMap { Double(String(cString: $0)) }.map { max($0, 0.1) } ?? 30

    /// Where verdicts are kept; nil with neither XDG_CACHE_HOME nor HOME.
    static var cachePath: String? {
        if let xdg = getenv("XDG_CACHE_HOME").map({ String(cString: $0) }), !xdg.isEmpty { return xdg + "/pianola/lv2-checks.tsv" }
        guard let home = getenv("HOME").map({ String(cString: $0) }), !home.isEmpty else { return nil }
        return home + "/.cache/pianola/lv2-checks.tsv"
    }

    /// What identifies this build of Pianola (its version, and its binary's size and time)
    /// with this version of `plugin`'s bundle.
    static func stamp(_ plugin: LV2PluginInfo) -> String {
        var newest = 0, total = 0
        var binary = stat()
        _ = stat("/proc/self/exe", &binary)
        if let folder = opendir(plugin.bundle) {
            defer { closedir(folder) }
            while let entry = readdir(folder) {
                var info = stat()
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                guard name != ".", name != "..", stat(plugin.bundle + "/" + name, &info) == 0 else { continue }
                newest = max(newest, info.st_mtim.tv_sec)
                total += Int(info.st_size)
            }
        }
        return "\(PIANOLA_VERSION_STRING) \(binary.st_size) \(binary.st_mtim.tv_sec) \(newest) \(total)"
    }

    /// The cached verdicts, by URI, with their stamps.
    static func cached() -> [String: (stamp: String, result: Result)] {
        guard let path = cachePath, let text = contents(of: path) else { return [:] }
        var entries: [String: (String, Result)] = [:]
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: "\t", maxSplits: 3, omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 4 else { continue }
            entries[fields[0]] = (fields[1], Result(uri: fields[0], verdict: fields[2], detail: fields[3]))
        }
        return entries
    }

    /// Writes `entries` to the cache (a new file moved over the old); a cache that cannot be
    /// written is left as it is.
    static func save(_ entries: [String: (stamp: String, result: Result)]) {
        guard let path = cachePath else { return }
        let folder = String(path[..<path.lastIndex(of: "/")!])
        _ = mkdir(String(folder[..<folder.lastIndex(of: "/")!]), 0o755)
        _ = mkdir(folder, 0o755)
        let text = entries.keys.sorted().map { uri in
            let (stamp, result) = entries[uri]!
            return [uri, stamp, result.verdict, result.detail.replacing("\t", with: " ").replacing("\n", with: " ")].joined(separator: "\t")
        }.joined(separator: "\n") + "\n"
        let temporary = path + ".\(getpid())"
        guard let file = fopen(temporary, "w") else { return }
        fputs(text, file)
        guard fclose(file) == 0 else { unlink(temporary); return }
        rename(temporary, path)
    }

    /// The verdicts of `plugins`: cached ones whose stamp still holds unless `again`, the rest
    /// tried in up to `jobs` children at once; `told` hears each as it is known, in order of
    /// `plugins`. Updates the cache.
    static func check(_ plugins: [LV2PluginInfo], jobs: Int = 2, again: Bool = false, told: (Result) -> Void = { _ in }) -> [Result] {
        var cache = cached()
        var results = [Result?](repeating: nil, count: plugins.count)
        var waiting: [Int] = []
        for (i, plugin) in plugins.enumerated() {
            if !again, let entry = cache[plugin.uri], entry.stamp == stamp(plugin) { results[i] = entry.result } else { waiting.append(i) }
        }
        var running: [(index: Int, child: Child)] = []
        var next = 0, toldUpTo = 0
        func tell() {
            while toldUpTo < results.count, let result = results[toldUpTo] {
                told(result)
                toldUpTo += 1
            }
        }
        tell()
        while next < waiting.count || !running.isEmpty {
            while running.count < max(1, jobs), next < waiting.count {
                let index = waiting[next]
                running.append((index, Child(probing: plugins[index])))
                next += 1
            }
            usleep(5_000)
            running.removeAll { entry in
                guard let result = entry.child.result() else { return false }
                results[entry.index] = result
                cache[plugins[entry.index].uri] = (stamp(plugins[entry.index]), result)
                return true
            }
            tell()
        }
        save(cache)
        return results.map { $0! }
    }

    /// The verdict of `plugin` for a render: the cached one, else tried now (a second or two).
    /// A plugin that crashed, hung or gave non-finite samples is told on standard error, once.
    static func loadable(_ plugin: LV2PluginInfo, as option: String) -> Bool {
        let result = check([plugin])[0]
        if !result.isLoadable && told.withLock({ $0.insert(plugin.uri).inserted }) {
            printError("warning: \(option) '\(plugin.name)' left out: it \(result.verdict == "bad-output" ? "gave bad output" : result.verdict) when tried in a child process (\(result.detail)); 'pianola plugins --check' lists every plugin's verdict")
        }
        return result.isLoadable
    }

    /// The text of the file at `path`, nil when it cannot be read.
    private static func contents(of path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            if count <= 0 { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The plugins already warned of.
    private static let told = Mutex<Set<String>>([])

    /// One child trying one plugin: `pianola plugins --probe URI` with LV2_PATH on its bundle,
    /// standard output read back, killed when it outlives the timeout.
    final class Child {
        let plugin: LV2PluginInfo
        private var pid: pid_t = -1
        private var output: Int32 = -1
        private var said: [UInt8] = []
        private var started = ContinuousClock.now
        private var retried = false
        /// Whether it crashed once already: a crash is tried again before it is believed (a
        /// plugin's crash can depend on what else runs, as Qt's plugins' does).
        private var crashedOnce = false
        /// A folder holding a link to the plugin's bundle alone: the child's LV2_PATH.
        private var folder: String?

        init(probing plugin: LV2PluginInfo, wholeWorld: Bool = false) {
            self.plugin = plugin
            spawn(wholeWorld: wholeWorld)
        }

        private func spawn(wholeWorld: Bool) {
            started = .now
            var pipe: [Int32] = [0, 0]
            guard Glibc.pipe(&pipe) == 0 else { return }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_adddup2(&actions, pipe[1], 1)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addclose(&actions, pipe[0])
            var environment: [String] = []
            var at = environ
            while let entry = at.pointee {
                let text = String(cString: entry)
                if !text.hasPrefix("LV2_PATH=") { environment.append(text) }
                at += 1
            }
            if !wholeWorld, let folder = Self.folder(linking: plugin.bundle) {
                self.folder = folder
                environment.append("LV2_PATH=" + folder)
            }
            let arguments = ["pianola", "plugins", "--probe", plugin.uri]
            let argv = arguments.map { strdup($0) } + [nil], envp = environment.map { strdup($0) } + [nil]
            defer { for pointer in argv + envp { free(pointer) } }
            let status = posix_spawn(&pid, "/proc/self/exe", &actions, nil, argv, envp)
            close(pipe[1])
            if status != 0 { pid = -1; close(pipe[0]); return }
            output = pipe[0]
            _ = fcntl(output, F_SETFL, fcntl(output, F_GETFL) | O_NONBLOCK)
        }

        deinit { removeFolder() }

        /// A new folder in /tmp with a link to `bundle` in it, nil when one cannot be made.
        private static func folder(linking bundle: String) -> String? {
            var template = Array("/tmp/pianola-lv2-check.XXXXXX".utf8CString)
            guard mkdtemp(&template) != nil else { return nil }
            let folder = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard symlink(bundle, folder + "/" + bundle.split(separator: "/").last!) == 0 else {
                rmdir(folder)
                return nil
            }
            return folder
        }

        private func removeFolder() {
            guard let folder else { return }
            unlink(folder + "/" + plugin.bundle.split(separator: "/").last!)
            rmdir(folder)
            self.folder = nil
        }

        /// Its verdict once the child has ended (or been killed), else nil.
        func result() -> Result? {
            guard pid > 0 else { return Result(uri: plugin.uri, verdict: "crashed", detail: "no child process could be started") }
            drain()
            var status: Int32 = 0
            let ended = waitpid(pid, &status, WNOHANG)
            if ended == 0 {
                guard ContinuousClock.now - started > .seconds(PluginChecks.timeout) else { return nil }
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                close(output)
                return Result(uri: plugin.uri, verdict: "hung", detail: "still running after \(PluginChecks.timeout.formatted2) s, killed")
            }
            drain()
            close(output)
            let line = String(decoding: said, as: UTF8.self).split(separator: "\n").last.map(String.init) ?? ""
            let signal = status & 0x7f
            if signal != 0 {
                if !crashedOnce {
                    crashedOnce = true
                    removeFolder()
                    (said, output) = ([], -1)
                    spawn(wholeWorld: retried)
                    if pid > 0 { return nil }
                }
                let name = strsignal(signal).map { String(cString: $0) } ?? "signal \(signal)"
                return Result(uri: plugin.uri, verdict: "crashed", detail: "\(name) (signal \(signal))")
            }
            if line.hasPrefix("not found") && !retried {   // its Turtle spans other bundles: try with all of them
                retried = true
                removeFolder()
                (said, output) = ([], -1)
                spawn(wholeWorld: true)
                return pid > 0 ? nil : Result(uri: plugin.uri, verdict: "crashed", detail: "no child process could be started")
            }
            guard let colon = line.firstIndex(of: ":"), ["ok", "refused", "bad-output"].contains(String(line[..<colon])) else {
                return Result(uri: plugin.uri, verdict: "crashed", detail: "the child ended with status \((status >> 8) & 0xff) and no verdict")
            }
            return Result(uri: plugin.uri, verdict: String(line[..<colon]), detail: String(line[line.index(after: colon)...]).trimmed)
        }

        private func drain() {
            var chunk = [UInt8](repeating: 0, count: 4_096)
            while true {
                let count = read(output, &chunk, chunk.count)
                guard count > 0 else { return }
                said += chunk[0..<count]
            }
        }
    }
}
