import CALSA
import CALSAShims
import Engine

extension PCMOutput {
    /// Every PCM that can play, as ALSA's configuration names them (what `aplay -L` lists):
    /// the cards' devices and the PCMs of the configuration; `default` is the default.
    /// Control thread.
    public static func playbackDevices() -> [AudioDevice] {
        shim_alsa_capture_errors()
        var hints: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        guard snd_device_name_hint(-1, "pcm", &hints) == 0, let hints else { return [] }
        defer { snd_device_name_free_hint(hints) }
        func hint(_ entry: UnsafeMutableRawPointer, _ id: String) -> String? {
            guard let value = snd_device_name_get_hint(entry, id) else { return nil }
            defer { free(value) }
            return String(cString: value)
        }
        var devices: [AudioDevice] = []
        var index = 0
        while let entry = hints[index] {
            index += 1
            guard let name = hint(entry, "NAME") else { continue }
            // IOID is absent for devices that do both directions.
            if let direction = hint(entry, "IOID"), direction != "Output" { continue }
            let description = (hint(entry, "DESC") ?? "").split(separator: "\n").joined(separator: ", ")
            devices.append(AudioDevice(name: name, description: description, isDefault: name == "default"))
        }
        return devices
    }
}

#if canImport(Glibc)
import Glibc
#endif
