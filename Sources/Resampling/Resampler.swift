import Faults
import CSoxr

/// Sample-rate conversion of interleaved stereo float audio by libsoxr at its very high
/// quality (28-bit, passband to 91 % of Nyquist: images and aliases far below −90 dB). A
/// stream: feed it input as it comes and take what it gives. One thread at a time.
public final class Resampler {
    private let soxr: soxr_t
    /// Input frames per second. Any thread.
    public let inputRate: Double
    /// Output frames per second. Any thread.
    public let outputRate: Double

    /// A stereo resampler from `inputRate` to `outputRate`; throws libsoxr's reason when it
    /// refuses (a rate of 0, say), or why libsoxr cannot be opened. One thread at a time.
    public init(from inputRate: Double, to outputRate: Double) throws(ResamplerError) {
        if let missing = csoxr_open() { throw ResamplerError(kind: .file, reason: String(cString: missing)) }
        var error: soxr_error_t?
        var io = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I)
        var quality = soxr_quality_spec(UInt(SOXR_VHQ), 0)
        guard let created = soxr_create(inputRate, outputRate, 2, &error, &io, &quality, nil), error == nil else {
            throw ResamplerError(kind: .argument, reason: error.map { String(cString: $0) } ?? "cannot create")
        }
        soxr = created
        self.inputRate = inputRate
        self.outputRate = outputRate
    }

    deinit { soxr_delete(soxr) }

    /// Resamples up to `inputFrames` frames of `input` (nil: the input has ended, give what
    /// is left) into at most `outputCapacity` frames of `output`; returns the frames used and
    /// made. One thread at a time.
    public func process(_ input: UnsafePointer<Float>?, inputFrames: Int, into output: UnsafeMutablePointer<Float>, outputCapacity: Int) -> (used: Int, made: Int) {
        var used = 0, made = 0
        _ = soxr_process(soxr, input, input == nil ? 0 : inputFrames, &used, output, outputCapacity, &made)
        return (used, made)
    }

    /// Converts a whole sound (interleaved stereo) at once, the resampler's tail included;
    /// for a fresh resampler. One thread at a time.
    public func convert(_ interleaved: [Float]) -> [Float] {
        let frames = interleaved.count / 2
        var out = [Float](repeating: 0, count: (Int(Double(frames) * outputRate / inputRate) + 1_024) * 2)
        var made = 0
        out.withUnsafeMutableBufferPointer { o in
            interleaved.withUnsafeBufferPointer { i in
                var used = 0
                while used < frames {
                    let step = process(i.baseAddress! + used * 2, inputFrames: frames - used, into: o.baseAddress! + made * 2, outputCapacity: o.count / 2 - made)
                    used += step.used
                    made += step.made
                    if step.used == 0 && step.made == 0 { break }
                }
                while true {
                    let step = process(nil, inputFrames: 0, into: o.baseAddress! + made * 2, outputCapacity: o.count / 2 - made)
                    made += step.made
                    if step.made == 0 { break }
                }
            }
        }
        return Array(out.prefix(made * 2))
    }
}

/// libsoxr refused a conversion, or is not installed. Any thread.
public struct ResamplerError: Fault, Hashable, Sendable {
    /// A rate or format libsoxr refuses (an argument's fault), or libsoxr missing (a file's). Any thread.
    public var kind: FaultKind
    /// libsoxr's words. Any thread.
    public var reason: String
    /// `resampler: reason`. Any thread.
    public var description: String { "resampler: \(reason)" }
}
