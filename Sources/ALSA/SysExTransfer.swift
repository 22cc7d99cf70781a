import CALSA
#if canImport(Glibc)
import Glibc
#endif

extension SequencerClient {
    /// Largest piece of a system-exclusive message sent as one sequencer event, as the
    /// kernel's own rawmidi ports cut them; receivers join the pieces again.
    public static let sysexPiece = 256

    /// Sends `bytes` (a system-exclusive message, or a piece of one) from Pianola's port
    /// `port` straight to `destination`, waiting for room in the kernel. Throws one line if
    /// the kernel refuses it. Control thread.
    public func sendSysex(_ bytes: [UInt8], from port: Int, to destination: SequencerPort) throws(SequencerError) {
        var event = snd_seq_event_t()
        event.type = UInt8(SND_SEQ_EVENT_SYSEX.rawValue)
        event.flags = UInt8(SND_SEQ_EVENT_LENGTH_VARIABLE)
        event.queue = UInt8(SND_SEQ_QUEUE_DIRECT)
        event.source.port = UInt8(port)
        event.dest.client = UInt8(destination.client)
        event.dest.port = UInt8(destination.port)
        let status = bytes.withUnsafeBufferPointer { buffer in
            event.data.ext.len = UInt32(buffer.count)
            event.data.ext.ptr = UnsafeMutableRawPointer(mutating: buffer.baseAddress)
            return snd_seq_event_output_direct(handle, &event)
        }
        try SequencerError.check(status, "MIDI port \(destination.address): cannot send a system-exclusive message")
    }
}
