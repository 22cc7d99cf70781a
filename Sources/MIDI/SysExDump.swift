import Faults

/// A SysEx dump as .syx files hold it: system-exclusive messages back to back, each from its
/// F0 to its F7, nothing between them. Reading is strict: a byte outside a message, a status
/// byte inside one, or a message cut off at the end is refused with its offset. Any thread.
public struct SysExDump: Hashable, Sendable {
    /// The messages, each with its F0 and F7. Any thread.
    public var messages: [[UInt8]]

    /// A dump of `messages` (each F0 … F7). Any thread.
    public init(messages: [[UInt8]]) {
        self.messages = messages
    }

    /// Reads a dump from a .syx file's bytes; throws the first framing fault, with its byte. Any thread.
    public init(bytes: [UInt8]) throws(SysExDumpError) {
        var messages: [[UInt8]] = []
        var start: Int?
        for (offset, byte) in bytes.enumerated() {
            switch (start, byte) {
            case (nil, 0xF0):
                start = offset
            case (nil, _):
                throw SysExDumpError(offset: offset, reason: "0x\(byte.hexDigits) outside a message (each starts with F0)")
            case (let first?, 0xF7):
                messages.append(Array(bytes[first...offset]))
                start = nil
            case (let first?, 0x80...):
                throw SysExDumpError(offset: offset, reason: "status byte 0x\(byte.hexDigits) inside the message from byte \(first) (its data bytes are 00-7F; it has no F7)")
            default:
                break
            }
        }
        if let start { throw SysExDumpError(offset: bytes.count, reason: "the file ends inside the message from byte \(start) (no F7)") }
        guard !messages.isEmpty else { throw SysExDumpError(offset: 0, reason: "holds no message (an empty file)") }
        self.messages = messages
    }

    /// The bytes of all its messages, as a .syx file holds them. Any thread.
    public var bytes: [UInt8] { messages.flatMap { $0 } }

    /// Bytes in all. Any thread.
    public var byteCount: Int { messages.reduce(0) { $0 + $1.count } }
}

/// A .syx file that is not a dump of whole messages: what and at which byte. Any thread.
public struct SysExDumpError: Fault, Hashable, Sendable {
    /// A file's fault. Any thread.
    public var kind: FaultKind { .file }
    /// The byte where it goes wrong (the file's length for a cut-off end). Any thread.
    public var offset: Int
    /// What is wrong. Any thread.
    public var reason: String
    /// "byte N: reason". Any thread.
    public var description: String { "byte \(offset): \(reason)" }
}
