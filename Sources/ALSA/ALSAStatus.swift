import CALSA
import CALSAShims

/// The one gate alsa-lib's status codes pass through, for PCM and sequencer calls alike: a
/// negative status becomes alsa-lib's reason and the last message alsa-lib reported (caught
/// by CALSAShims, which otherwise would print it on stderr).
enum ALSAStatus {
    /// For a negative `status`: `snd_strerror`'s reason and alsa-lib's last message (empty
    /// when it gave none); nil otherwise. Takes the message, so the next call starts clean. Any thread.
    static func failure(_ status: Int32) -> (reason: String, detail: String)? {
        guard status < 0 else { return nil }
        return (String(cString: snd_strerror(status)), takeLastMessage())
    }

    /// alsa-lib's last reported message since the previous take, or "". Any thread.
    static func takeLastMessage() -> String {
        var message = [CChar](repeating: 0, count: 512)
        let length = shim_take_last_error(&message, message.count)
        return String(decoding: message.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
