import MIDI
import Testing

/// One defective file: its name, its bytes, the line strict reading gives, and the notes
/// lenient reading keeps (`nil`: lenient reading refuses it too).
typealias DefectCase = (name: String, bytes: [UInt8], says: String, notes: Int?)

/// Expects each case refused by strict reading with exactly its line, and, where lenient
/// reading recovers, that line among the warnings and the notes kept.
func expectDefects(_ cases: [DefectCase]) throws {
    for (name, bytes, says, notes) in cases {
        do {
            _ = try MIDIFile(bytes: bytes, mode: .strict)
            Issue.record("\(name): read strictly")
        } catch {
            #expect(error.description == says, "\(name)")
        }
        guard let notes else { continue }
        let lenient = try MIDIFile(bytes: bytes, mode: .lenient)
        #expect(lenient.warnings.map(\.description).contains(says), "\(name)")
        #expect(lenient.noteCount == notes, "\(name)")
    }
}
