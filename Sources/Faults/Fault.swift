/// What kind of fault an error is: the classes the C API's status codes and the Python
/// module's exceptions are made from, chosen where the error is made so that no caller guesses.
/// Any thread.
public enum FaultKind: Hashable, Sendable, CaseIterable {
    /// A value out of its range, or a name the song does not have. Any thread.
    case argument
    /// The call does not fit the moment: a song still loading or failed, none playing,
    /// the output already running. Any thread.
    case state
    /// A file or bytes that cannot be read, or are not what they should be; an output file
    /// that cannot be written; a shared library that is not installed. Any thread.
    case file
    /// An audio or MIDI device that cannot be opened, fails, or does not take the format. Any thread.
    case device
    /// A queue to the audio side is full: pull audio, then try again. Any thread.
    case busy
}

/// An error of Pianola's: one line saying what, where and why, and its kind. Every public
/// error type of the library's modules is one (a test holds them to it). Any thread.
public protocol Fault: Error, CustomStringConvertible {
    /// What kind of fault it is. Any thread.
    var kind: FaultKind { get }
}
