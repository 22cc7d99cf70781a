import FoundationEssentials
import Glibc

/// A file a command writes what it took in to (a recording, a SysEx dump): checked before
/// anything is taken in, then written whole beside its place and renamed into it, so an
/// interrupted write never leaves half a file and nothing the user had is replaced unasked.
enum OutputFile {
    /// Refuses an output that exists (without `force`) or a folder that cannot take it.
    static func check(_ output: String, force: Bool) throws {
        var isDirectory = false
        if FileManager.default.fileExists(atPath: output, isDirectory: &isDirectory) {
            if isDirectory { throw fail("\(output): is a directory; give a file name") }
            if !force { throw fail("\(output): already exists (use --force to replace it)") }
        }
        let folder = output.lastIndex(of: "/").map { $0 == output.startIndex ? "/" : String(output[..<$0]) } ?? "."
        guard access(folder, W_OK) == 0 else {
            throw fail("\(output): cannot write in \(folder): \(String(cString: strerror(errno)))")
        }
    }

    /// Writes `bytes` to a temporary name beside `output`, then renames it into place; a file
    /// that appeared at `output` meanwhile (`doing` says while what) is kept unless `force`.
    static func write(_ bytes: [UInt8], to output: String, force: Bool, while doing: String) throws {
        let temporary = output + ".pianola-\(getpid()).tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(bytes)) else {
            throw fail("\(output): cannot write \(temporary): \(String(cString: strerror(errno)))")
        }
        if !force && FileManager.default.fileExists(atPath: output) {
            try? FileManager.default.removeItem(atPath: temporary)
            throw fail("\(output): appeared while \(doing); not replaced (use --force to replace it)")
        }
        guard rename(temporary, output) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(atPath: temporary)
            throw fail("\(output): cannot write: \(reason)")
        }
    }
}
