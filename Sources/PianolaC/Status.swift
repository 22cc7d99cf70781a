import Faults
import CPianola
import Pianola
#if canImport(Glibc)
import Glibc
#endif

/// A C call that failed: its status code and one line for `pianola_last_error`.
struct APIError: Error {
    let status: pianola_status
    let message: String

    init(_ status: Int, _ message: String) {
        self.status = pianola_status(status)
        self.message = message
    }

    /// The code and line for any error the Swift modules throw.
    init(_ error: any Error) {
        switch error {
        case let error as APIError: self = error
        case let fault as any Fault:
            switch fault.kind {
            case .argument: self.init(PIANOLA_ERROR_ARGUMENT, fault.description)
            case .state: self.init(PIANOLA_ERROR_STATE, fault.description)
            case .file: self.init(PIANOLA_ERROR_FILE, fault.description)
            case .device: self.init(PIANOLA_ERROR_DEVICE, fault.description)
            case .busy: self.init(PIANOLA_ERROR_BUSY, fault.description)
            }
        default: self.init(PIANOLA_ERROR_FILE, "\(error)")   // none expected: every public error type of the library is a Fault (ModuleMapTests holds them to it)
        }
    }

    /// A NULL, out-of-range or malformed argument.
    static func argument(_ message: String) -> APIError { APIError(PIANOLA_ERROR_ARGUMENT, message) }
}

/// The calling thread's last error line, for `pianola_last_error`: a buffer of its own per
/// thread, made on the thread's first question and freed when the thread ends.
enum LastError {
    static let capacity = 1024
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { free($0) }
        return key
    }()

    /// The thread's buffer. Any thread.
    static var buffer: UnsafeMutablePointer<CChar> {
        if let existing = pthread_getspecific(key) { return existing.assumingMemoryBound(to: CChar.self) }
        let made = calloc(capacity, 1)!
        pthread_setspecific(key, made)
        return made.assumingMemoryBound(to: CChar.self)
    }

    /// Keeps `message`, cut to the buffer at a character's edge. Any thread.
    static func set(_ message: String) {
        copy(message, into: buffer, capacity: capacity)
    }
}

/// Copies `text` into a C buffer of `capacity` bytes, NUL-terminated, cut at a UTF-8
/// character's edge when too long. Any thread.
func copy(_ text: String, into buffer: UnsafeMutablePointer<CChar>, capacity: Int) {
    var utf8 = Array(text.utf8.prefix(capacity - 1))
    if utf8.count == capacity - 1 {
        while let last = utf8.last, last & 0xC0 == 0x80 { utf8.removeLast() }   // continuation bytes
        if let last = utf8.last, last >= 0xC0 { utf8.removeLast() }              // a lead byte left alone
    }
    for (i, byte) in utf8.enumerated() { buffer[i] = CChar(bitPattern: byte) }
    buffer[utf8.count] = 0
}

/// Runs the body of a C call: PIANOLA_OK, or the error's code with its line kept for the thread.
@inline(__always)
func status(_ body: () throws -> Void) -> pianola_status {
    do {
        try body()
        return pianola_status(PIANOLA_OK)
    } catch {
        let failure = APIError(error)
        LastError.set(failure.message)
        return failure.status
    }
}

/// `pointer`, or an argument error naming `what`.
func required<T>(_ pointer: T?, _ what: String) throws(APIError) -> T {
    guard let pointer else { throw .argument("\(what) is NULL") }
    return pointer
}

/// Fills the struct at `pointer` (an *_init call's argument, named `what`) with `empty`
/// and its own size at `size`, returning the pointer for the defaults that follow.
@discardableResult
func initialize<T>(_ pointer: UnsafeMutablePointer<T>?, _ what: String, to empty: T, size: WritableKeyPath<T, UInt32>) throws(APIError) -> UnsafeMutablePointer<T> {
    let pointer = try required(pointer, what)
    pointer.pointee = empty
    pointer.pointee[keyPath: size] = UInt32(MemoryLayout<T>.size)
    return pointer
}

/// The caller's array of `capacity` `what` to fill, checked: NULL only when empty, at most `limit` long.
func callerArray<T>(_ items: UnsafeMutablePointer<T>?, capacity: Int, _ what: String, limit: Int) throws(APIError) -> UnsafeMutablePointer<T>? {
    guard capacity >= 0, capacity <= limit else { throw .argument("capacity \(UInt(bitPattern: capacity)): use 0 to \(limit) \(what)") }
    guard capacity == 0 || items != nil else { throw .argument("\(what) is NULL") }
    return items
}

/// Fills the caller's array `out` of `capacity` `what` (checked as `callerArray` checks it)
/// with the first of `items` (made after the checks) as `c` makes them, and puts how many
/// there are in all in `count`.
func fill<Item, C>(_ out: UnsafeMutablePointer<C>?, capacity: Int, count: UnsafeMutablePointer<Int>?, _ what: String, limit: Int,
                   with items: () throws -> [Item], as c: (Item) -> C) throws {
    let count = try required(count, "count")
    let out = try callerArray(out, capacity: capacity, what, limit: limit)
    let all = try items()
    // By index, not through an iterator: an iterator's Optional of a multi-payload enum
    // (Soundtrack.Event) tests the enum's spare bits, part of a byte Swift leaves partly
    // unwritten for the smaller cases, which valgrind reports as an uninitialised read.
    for i in 0..<min(capacity, all.count) { out![i] = c(all[i]) }
    count.pointee = all.count
}

/// A C string argument as Swift, or an argument error naming `what` when NULL.
func string(_ pointer: UnsafePointer<CChar>?, _ what: String) throws(APIError) -> String {
    String(cString: try required(pointer, what))
}

/// Checks a config struct's `struct_size` against this library's.
func checkSize(_ size: UInt32, of type: String, is expected: Int) throws(APIError) {
    guard Int(size) == expected else {
        throw .argument("\(type).struct_size is \(size), but this library's is \(expected): fill it with \(type)_init")
    }
}

/// A whole number in `range`, or an argument error naming `what`.
func inRange<T: BinaryInteger>(_ value: T, _ range: ClosedRange<Int>, _ what: String) throws(APIError) -> Int {
    guard let value = Int(exactly: value), range.contains(value) else { throw .argument("\(what) \(value): use \(range.lowerBound) to \(range.upperBound)") }
    return value
}

/// The driver a pianola_driver names (`nil`: the default choice), or an argument error. The
/// numbers are AudioDriver's codes, which pianola.h repeats (a test holds them together).
func audioDriver(_ driver: pianola_driver) throws(APIError) -> AudioDriver? {
    if Int(driver) == PIANOLA_DRIVER_DEFAULT { return nil }
    guard let chosen = AudioDriver(code: driver) else {
        let names = ["PIANOLA_DRIVER_DEFAULT"] + AudioDriver.allCases.map { "_\($0.rawValue.uppercased())" }
        throw .argument("driver \(driver): use \(names.dropLast().joined(separator: ", ")) or \(names.last!)")
    }
    return chosen
}

/// A real number in `range`, or an argument error naming `what`.
func inRange(_ value: Double, _ range: ClosedRange<Double>, _ what: String) throws(APIError) -> Double {
    guard value.isFinite, range.contains(value) else { throw .argument("\(what) \(value): use \(range.lowerBound) to \(range.upperBound)") }
    return value
}

extension pianola_source {
    /// The SoundFont it names, or, when it names none, the one `SoundFontChoice` chooses (the
    /// CLI's default): a file error when there is none.
    func soundFontSource(_ what: String) throws(APIError) -> FileSource {
        guard path == nil, data == nil else { return try fileSource(what) }
        return .path(try defaultSoundFont())
    }

    /// The file or bytes it names; `what` names it in errors. Exactly one of path and data.
    func fileSource(_ what: String) throws(APIError) -> FileSource {
        switch (path, data) {
        case (let path?, nil): return .path(String(cString: path))
        case (nil, let data?):
            guard size > 0, size <= 1 << 32 else { throw .argument("\(what).size \(size): give the bytes' length, 1 byte to 4 GiB") }
            let bytes = [UInt8](UnsafeRawBufferPointer(start: data, count: size))
            return .bytes(bytes, name: name.map { String(cString: $0) } ?? "memory")
        case (nil, nil): throw .argument("\(what) names no file: set its path or its data")
        case (_?, _?): throw .argument("\(what) sets both a path and data: set one")
        }
    }
}

/// The engine a pianola_synth names.
func engine(_ synth: pianola_synth) throws(APIError) -> SynthesisEngine {
    switch synth {
    case pianola_synth(PIANOLA_SYNTH_DEFAULT): return SongGraph.Settings().engine
    case pianola_synth(PIANOLA_SYNTH_PIANOLA): return .pianola
    case pianola_synth(PIANOLA_SYNTH_FLUIDSYNTH): return .fluidsynth
    default: throw .argument("synth \(synth): use PIANOLA_SYNTH_DEFAULT, PIANOLA_SYNTH_PIANOLA or PIANOLA_SYNTH_FLUIDSYNTH")
    }
}

/// The SoundFont a render plays when given none, or a file error saying where it looked.
func defaultSoundFont() throws(APIError) -> String {
    guard let choice = SoundFontChoice.choose(explicit: nil) else { throw APIError(PIANOLA_ERROR_FILE, SoundFontChoice.notFound()) }
    return choice.path
}
