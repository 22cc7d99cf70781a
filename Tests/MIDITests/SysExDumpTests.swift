import MIDI
import Testing

@Suite("SysEx dumps (.syx): whole messages, strictly framed")
struct SysExDumpTests {
    @Test("a dump of several messages reads into them and writes back byte for byte")
    func roundTrip() throws {
        let messages: [[UInt8]] = [[0xF0, 0x7E, 0x7F, 0x09, 0x01, 0xF7], [0xF0, 0x43, 0x10] + (0..<300).map { UInt8($0 % 128) } + [0xF7], [0xF0, 0xF7]]
        let dump = try SysExDump(bytes: messages.flatMap { $0 })
        #expect(dump.messages == messages)
        #expect(dump.bytes == messages.flatMap { $0 } && dump.byteCount == 312)
    }

    @Test("each framing fault is refused with its byte", arguments: [
        ([UInt8](), "byte 0: holds no message (an empty file)"),
        ([0x43, 0xF0, 0xF7], "byte 0: 0x43 outside a message (each starts with F0)"),
        ([0xF0, 0x01, 0xF7, 0x00], "byte 3: 0x00 outside a message (each starts with F0)"),
        ([0xF0, 0x01, 0xF0, 0xF7], "byte 2: status byte 0xF0 inside the message from byte 0 (its data bytes are 00-7F; it has no F7)"),
        ([0xF0, 0x01, 0x02], "byte 3: the file ends inside the message from byte 0 (no F7)"),
    ])
    func faults(bytes: [UInt8], says: String) {
        do {
            _ = try SysExDump(bytes: bytes)
            Issue.record("accepted \(bytes)")
        } catch {
            #expect(error.description == says)
        }
    }
}
