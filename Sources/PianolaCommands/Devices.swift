import ArgumentParser
import Pianola

/// `pianola devices`: where `play` can play, driver by driver.
struct Devices: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List what 'play --driver X --device Y' accepts, driver by driver.",
        discussion: "With --driver alsa the list is aplay -L's. '*' marks where a driver plays when no device is named.")

    @Option(help: ArgumentHelp("List only this driver's devices: \(AudioDriver.choices).", valueName: "driver"))
    var driver: AudioDriver?

    func run() throws {
        if let driver {
            let devices = driver.playbackDevices()
            guard !devices.isEmpty else { throw fail(Self.nothing(on: driver)) }
            list(devices, marked: driver != .alsa)
            return
        }
        let chosen = try? AudioDriver.defaultDriver()
        for driver in AudioDriver.allCases {
            let devices = driver.playbackDevices()
            let mark = chosen?.driver == driver ? " (the default driver: \(chosen!.reason))" : ""
            print(devices.isEmpty ? "\(driver.rawValue): \(Self.nothing(on: driver))\(mark)" : "\(driver.rawValue)\(mark):")
            list(devices, marked: true, indent: "  ")
        }
    }

    /// One device a line, its description under it, `*` before the default when `marked`.
    private func list(_ devices: [AudioDevice], marked: Bool, indent: String = "") {
        for device in devices {
            print("\(indent)\(marked && device.isDefault ? "* " : marked ? "  " : "")\(device.name)")
            let under = indent + (marked ? "      " : "    ")
            if !device.description.isEmpty { print("\(under)\(device.description.shortened(to: 100 - under.count))") }
        }
    }

    /// Why a driver lists nothing.
    private static func nothing(on driver: AudioDriver) -> String {
        switch driver {
        case .alsa: "ALSA lists no playback device"
        case .jack: "no JACK server is running"
        case .pipewire: "no PipeWire daemon is running"
        }
    }
}
