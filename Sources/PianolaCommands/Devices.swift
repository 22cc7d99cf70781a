import ALSA
import ArgumentParser

/// `pianola devices`: the ALSA PCMs `play --device` can use.
struct Devices: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the audio devices 'play --device' accepts (like aplay -L).")

    func run() throws {
        let devices = PCMDevice.playbackDevices()
        guard !devices.isEmpty else { throw fail("ALSA lists no playback device") }
        for device in devices {
            print(device.name)
            if !device.description.isEmpty { print("    \(device.description)") }
        }
    }
}
