import CALSA
import CShims

/// A PCM playback device as ALSA's configuration names it (what `aplay -L` lists). Any thread.
public struct PCMDevice: Hashable, Sendable {
    /// The name to open: `default`, `hw:CARD=Loopback,DEV=0`, `null`… Any thread.
    public var name: String
    /// ALSA's description, one line. Any thread.
    public var description: String

    /// Every PCM that can play: the cards' devices and the PCMs of the ALSA configuration.
    /// Control thread.
    public static func playbackDevices() -> [PCMDevice] {
        shim_alsa_capture_errors()
        var hints: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        guard snd_device_name_hint(-1, "pcm", &hints) == 0, let hints else { return [] }
        defer { snd_device_name_free_hint(hints) }
        func hint(_ entry: UnsafeMutableRawPointer, _ id: String) -> String? {
            guard let value = snd_device_name_get_hint(entry, id) else { return nil }
            defer { free(value) }
            return String(cString: value)
        }
        var devices: [PCMDevice] = []
        var index = 0
        while let entry = hints[index] {
            index += 1
            guard let name = hint(entry, "NAME") else { continue }
            // IOID is absent for devices that do both directions.
            if let direction = hint(entry, "IOID"), direction != "Output" { continue }
            let description = (hint(entry, "DESC") ?? "").split(separator: "\n").joined(separator: ", ")
            devices.append(PCMDevice(name: name, description: description))
        }
        return devices
    }
}

#if canImport(Glibc)
import Glibc
#endif
