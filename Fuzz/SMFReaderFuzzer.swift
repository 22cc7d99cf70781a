// libFuzzer entry point for the SMF reader, compiled together with Sources/MIDI by
// Fuzz/run-smf-fuzzer.sh (swiftc -sanitize=fuzzer,address). Every input is read in both
// modes; whatever strict mode reads must survive a write and read back equal.

@_cdecl("LLVMFuzzerTestOneInput")
public func smfReaderFuzzTest(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let lenient = try? MIDIFile(bytes: bytes, mode: .lenient) {
        _ = lenient.durationSeconds
        _ = lenient.serialized(runningStatus: true)
    }
    if let strict = try? MIDIFile(bytes: bytes, mode: .strict) {
        for runningStatus in [true, false] {
            let again = try? MIDIFile(bytes: strict.serialized(runningStatus: runningStatus), mode: .strict)
            precondition(again == strict, "strict read(write(x)) != x")
        }
    }
    return 0
}
