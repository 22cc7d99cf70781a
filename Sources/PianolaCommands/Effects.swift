import ArgumentParser
import Pianola

/// `pianola effects`: the built-in effects `--fx` takes, with their parameters.
struct Effects: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the effects --fx takes, with their parameters, ranges and defaults.",
        discussion: "A spec is the effect's name and its parameters after commas: --fx 'lowpass,cutoff=800,q=2'. Values may carry their unit (2.5kHz, -6dB, 300ms).")

    func run() throws {
        for effect in BuiltInEffect.all {
            print("\(effect.name): \(effect.summary)")
            for parameter in effect.parameters {
                let unit = parameter.unit.isEmpty ? "" : " \(parameter.unit)"
                print("    \(parameter.name)=\(number(parameter.minimum))..\(number(parameter.maximum))\(unit) (default \(number(parameter.defaultValue))): \(parameter.summary)")
            }
        }
    }

    private func number(_ value: Double) -> String { value == value.rounded() ? String(Int(value)) : String(value) }
}
