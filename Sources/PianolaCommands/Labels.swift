import FoundationEssentials
import Glibc
import Pianola

/// `render --labels`: every note of the render as CSV or JSON, with the frames the synthesizer
/// pressed and released its key, and those frames in seconds.
enum LabelFile {
    /// The format for `path`'s extension, `nil` for one that is neither `.csv` nor `.json`.
    static func isJSON(_ path: String) -> Bool? {
        let lower = path.lowercased()
        return lower.hasSuffix(".json") ? true : lower.hasSuffix(".csv") ? false : nil
    }

    /// Refuses, before anything is rendered, a file of another type or one that exists (unless `force`).
    static func check(_ path: String, force: Bool) throws {
        guard isJSON(path) != nil else { throw fail("--labels \(path): name it .csv or .json") }
        if !force && FileManager.default.fileExists(atPath: path) { throw fail("\(path): already exists (use --force to replace it)") }
    }

    /// Writes `labels` of a render at `sampleRate` to `path`.
    static func write(_ labels: [NoteLabel], sampleRate: Int, to path: String) throws {
        let rate = Double(sampleRate)
        let text: String
        if isJSON(path) == true {
            let notes = labels.map { label in
                "{\"channel\": \(label.channel + 1), \"key\": \(label.key), \"velocity\": \(label.velocity), \"program\": \(label.program), "
                    + "\"bank\": \(label.bank), \"startFrame\": \(label.startFrame), \"endFrame\": \(label.endFrame), "
                    + "\"startSeconds\": \(Double(label.startFrame) / rate), \"endSeconds\": \(Double(label.endFrame) / rate)}"
            }
            text = "{\"sampleRate\": \(sampleRate), \"notes\": [\n  " + notes.joined(separator: ",\n  ") + "\n]}\n"
        } else {
            text = "channel,key,velocity,program,bank,start_frame,end_frame,start_seconds,end_seconds\n" + labels.map { label in
                "\(label.channel + 1),\(label.key),\(label.velocity),\(label.program),\(label.bank),\(label.startFrame),\(label.endFrame),"
                    + "\(Double(label.startFrame) / rate),\(Double(label.endFrame) / rate)\n"
            }.joined()
        }
        guard let file = fopen(path, "w") else { throw fail("\(path): cannot write the labels: \(String(cString: strerror(errno)))") }
        defer { fclose(file) }
        guard fputs(text, file) >= 0 else { throw fail("\(path): cannot write the labels: \(String(cString: strerror(errno)))") }
    }
}
