// The fuzzer's entry points. Built by Fuzz/run-fuzzers.sh with SwiftPM's fuzzer and address
// sanitizers and -DFUZZING: libFuzzer calls LLVMFuzzerTestOneInput with each input for the
// target named by $PIANOLA_FUZZ_TARGET. In an ordinary build this is a command that replays
// inputs through a target (to reproduce a finding) and writes a target's seed inputs.
import Foundation

#if FUZZING
/// The target this process fuzzes, from $PIANOLA_FUZZ_TARGET.
let fuzzTarget: FuzzTarget = {
    let name = ProcessInfo.processInfo.environment["PIANOLA_FUZZ_TARGET"] ?? ""
    guard let target = FuzzTarget(rawValue: name) else {
        fatalError("set PIANOLA_FUZZ_TARGET to one of: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", "))")
    }
    return target
}()

/// libFuzzer's entry point: one input through the chosen target.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    fuzzTarget.run(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
#else
/// `pianola-fuzz TARGET FILE…` replays inputs; `pianola-fuzz seeds TARGET FOLDER` writes seeds.
@main
struct FuzzReplay {
    static func main() throws {
        let arguments = Array(CommandLine.arguments.dropFirst())
        let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")
        if arguments.count == 3, arguments[0] == "seeds", let target = FuzzTarget(rawValue: arguments[1]) {
            try FileManager.default.createDirectory(atPath: arguments[2], withIntermediateDirectories: true)
            for (name, bytes) in target.seeds() {
                try Data(bytes).write(to: URL(fileURLWithPath: arguments[2]).appendingPathComponent("seed-\(name)"))
            }
            return
        }
        guard arguments.count >= 2, let target = FuzzTarget(rawValue: arguments[0]) else {
            print("usage: pianola-fuzz \(names) FILE|FOLDER…\n       pianola-fuzz seeds \(names) FOLDER")
            exit(2)
        }
        var count = 0
        for path in arguments.dropFirst() {
            let files = (try? FileManager.default.contentsOfDirectory(atPath: path))?.sorted().map { path + "/" + $0 } ?? [path]
            for file in files {
                guard let data = FileManager.default.contents(atPath: file) else { continue }
                target.run(Array(data))
                count += 1
            }
        }
        print("\(target.rawValue): \(count) inputs replayed, no crash")
    }
}
#endif
