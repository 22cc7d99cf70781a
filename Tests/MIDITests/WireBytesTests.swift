import MIDI
import Testing

@Suite("Messages as cable bytes")
struct WireBytesTests {
    @Test("every channel message survives wireBytes → init(channelBytes:)")
    func channelRoundTrip() {
        var messages: [MIDIMessage] = []
        for c: UInt8 in [0, 9, 15] {
            messages += [.noteOff(channel: c, note: 60, velocity: 64), .noteOn(channel: c, note: 127, velocity: 0),
                         .polyPressure(channel: c, note: 1, pressure: 2), .controlChange(channel: c, controller: 7, value: 100),
                         .programChange(channel: c, program: 127), .channelPressure(channel: c, pressure: 5),
                         .pitchBend(channel: c, value: 0), .pitchBend(channel: c, value: 8192), .pitchBend(channel: c, value: 16_383)]
        }
        for message in messages {
            let bytes = message.wireBytes
            #expect(bytes.count == 1 + MIDIMessage.channelDataLength(bytes[0]))
            #expect(MIDIMessage(channelBytes: bytes) == message)
        }
    }

    @Test("sysex is framed by F0 … F7 once; meta events have no bytes; short or non-channel bytes are refused")
    func framing() {
        #expect(MIDIMessage.sysex([0x7E, 0x7F, 0x09, 0x01, 0xF7]).wireBytes == [0xF0, 0x7E, 0x7F, 0x09, 0x01, 0xF7])
        #expect(MIDIMessage.sysex([0x41, 0x10]).wireBytes == [0xF0, 0x41, 0x10, 0xF7])
        #expect(MIDIMessage.meta(.tempo(microsecondsPerQuarter: 500_000)).wireBytes.isEmpty)
        #expect(MIDIMessage(channelBytes: [0x90, 60]) == nil)
        #expect(MIDIMessage(channelBytes: [0xF0, 1, 2]) == nil)
        #expect(MIDIMessage(channelBytes: [0x3C, 1, 2]) == nil)
        #expect(MIDIMessage(channelBytes: []) == nil)
    }
}
