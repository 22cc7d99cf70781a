import Faults
import DSP
import CALSA
import CALSAShims
import Engine
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// An ALSA PCM playback device pulling an audio graph in real time: Core Audio's default
/// output unit for Linux. Open it, read back what the device granted (`format`), build the
/// graph at that rate, then `start`; its own audio thread pulls one period at a time.
/// Underruns are recovered and counted; start is primed (nothing plays until the buffer is
/// full). Control thread for every member, except as noted.
public final class PCMOutput: AudioOutput, @unchecked Sendable {
    // @unchecked Sendable: `pcm` and the conversion buffer belong to the audio thread between
    // `start` and `stop`, and to the control thread otherwise; the two talk through atomics.

    /// ALSA. Any thread.
    public var driver: AudioDriver { .alsa }
    /// The granted parameters; `sampleFormat` is `FLOAT_LE`, `S32_LE` or `S16_LE`. Any thread.
    public let format: AudioOutputFormat
    /// The PCM name. Any thread.
    public let deviceName: String
    private let pcm: OpaquePointer
    private let sampleFormat: snd_pcm_format_t
    private let stopRequested = Atomic<Bool>(false)
    private let underrunCount = Atomic<Int>(0)
    private let written = Atomic<Int64>(0)
    private let failureCode = Atomic<Int>(0)
    private let frameZero = Atomic<Int64>(.max)
    private let timelineWanted = Atomic<Bool>(false)
    private var thread: pthread_t?
    private var graph: AudioGraph?
    private var isClosed = false

    /// Opens and configures `configuration.device` (an ALSA PCM name: `default`, `hw:1,0`,
    /// `plughw:…`, any PCM of the user's configuration; `nil` is `default`). Throws with the
    /// device and ALSA's reason when it does not exist, is busy or refuses every usable
    /// setting. Control thread.
    public init(configuration: AudioOutputConfiguration = AudioOutputConfiguration()) throws(ALSAError) {
        shim_alsa_capture_errors()
        let device = configuration.device ?? "default"
        deviceName = device
        var handle: OpaquePointer?
        try ALSAError.check(snd_pcm_open(&handle, device, SND_PCM_STREAM_PLAYBACK, 0), device: device, call: "snd_pcm_open")
        guard let pcm = handle else { throw ALSAError(device: device, call: "snd_pcm_open", code: -ENODEV) }
        self.pcm = pcm
        do throws(ALSAError) {
            var hw: OpaquePointer?
            try ALSAError.check(snd_pcm_hw_params_malloc(&hw), device: device, call: "snd_pcm_hw_params_malloc")
            defer { snd_pcm_hw_params_free(hw) }
            try ALSAError.check(snd_pcm_hw_params_any(pcm, hw), device: device, call: "snd_pcm_hw_params_any")
            try ALSAError.check(snd_pcm_hw_params_set_access(pcm, hw, SND_PCM_ACCESS_RW_INTERLEAVED), device: device, call: "snd_pcm_hw_params_set_access")
            let formats: [(snd_pcm_format_t, String)] = [(SND_PCM_FORMAT_FLOAT_LE, "FLOAT_LE"), (SND_PCM_FORMAT_S32_LE, "S32_LE"), (SND_PCM_FORMAT_S16_LE, "S16_LE")]
            guard let format = formats.first(where: { snd_pcm_hw_params_test_format(pcm, hw, $0.0) == 0 }) else {
                throw ALSAError(device: device, call: "snd_pcm_hw_params_set_format", code: -EINVAL, detail: "no float, 32- or 16-bit format")
            }
            try ALSAError.check(snd_pcm_hw_params_set_format(pcm, hw, format.0), device: device, call: "snd_pcm_hw_params_set_format")
            try ALSAError.check(snd_pcm_hw_params_set_channels(pcm, hw, 2), device: device, call: "snd_pcm_hw_params_set_channels")
            var rate = UInt32(configuration.sampleRate)
            try ALSAError.check(snd_pcm_hw_params_set_rate_near(pcm, hw, &rate, nil), device: device, call: "snd_pcm_hw_params_set_rate_near")
            var period = snd_pcm_uframes_t(configuration.periodFrames)
            try ALSAError.check(snd_pcm_hw_params_set_period_size_near(pcm, hw, &period, nil), device: device, call: "snd_pcm_hw_params_set_period_size_near")
            var buffer = snd_pcm_uframes_t(configuration.periodFrames * configuration.periods)
            try ALSAError.check(snd_pcm_hw_params_set_buffer_size_near(pcm, hw, &buffer), device: device, call: "snd_pcm_hw_params_set_buffer_size_near")
            try ALSAError.check(snd_pcm_hw_params(pcm, hw), device: device, call: "snd_pcm_hw_params")
            snd_pcm_hw_params_get_period_size(hw, &period, nil)
            snd_pcm_hw_params_get_buffer_size(hw, &buffer)

            var sw: OpaquePointer?
            try ALSAError.check(snd_pcm_sw_params_malloc(&sw), device: device, call: "snd_pcm_sw_params_malloc")
            defer { snd_pcm_sw_params_free(sw) }
            try ALSAError.check(snd_pcm_sw_params_current(pcm, sw), device: device, call: "snd_pcm_sw_params_current")
            // Primed start: the device starts once the whole buffer is written.
            try ALSAError.check(snd_pcm_sw_params_set_start_threshold(pcm, sw, buffer), device: device, call: "snd_pcm_sw_params_set_start_threshold")
            try ALSAError.check(snd_pcm_sw_params(pcm, sw), device: device, call: "snd_pcm_sw_params")
            self.format = AudioOutputFormat(sampleRate: Int(rate), periodFrames: Int(period), bufferFrames: Int(buffer), sampleFormat: format.1)
            sampleFormat = format.0
        } catch {
            snd_pcm_close(pcm)
            throw error
        }
    }

    deinit {
        if thread != nil { stop(drain: false) }
        if !isClosed { snd_pcm_close(pcm) }
    }

    /// Underruns recovered so far. Any thread.
    public var underruns: Int { underrunCount.load(ordering: .relaxed) }

    /// Frames pulled from the graph and handed to the device since `start`. Any thread.
    public var framesWritten: Int64 { written.load(ordering: .relaxed) }

    /// Starts the audio thread pulling `graph` (built at `format.sampleRate`, with
    /// `maxFrames` ≥ the period). Real-time priority is asked for; if refused, `start`
    /// returns a note saying so and playback goes on at normal priority. Control thread.
    @discardableResult
    public func start(pulling graph: AudioGraph) -> String? {
        precondition(thread == nil, "the output is already running")
        precondition(graph.format.sampleRate == format.sampleRate, "build the graph at the negotiated rate")
        self.graph = graph
        stopRequested.store(false, ordering: .relaxed)
        let (created, note) = startThread(realTimePriority: 70) { self.run() }
        thread = created
        return note
    }

    /// Stops the audio thread, then lets the device play out what it holds (`drain`) or
    /// drops it. Never call it from the render path. Control thread.
    public func stop(drain: Bool) {
        guard let running = thread else { return }
        stopRequested.store(true, ordering: .releasing)
        pthread_join(running, nil)
        thread = nil
        if drain { snd_pcm_drain(pcm) } else { snd_pcm_drop(pcm) }
    }

    /// An ALSA error that ended playback (the device vanished…), `nil` while all is well. Any thread.
    public var failure: String? {
        let code = failureCode.load(ordering: .acquiring)
        return code == 0 ? nil : ALSAError(device: deviceName, call: "snd_pcm_writei", code: Int32(code)).description
    }

    /// When frame 0 of the graph's clock left (or leaves) the device, in CLOCK_MONOTONIC
    /// nanoseconds, so frame F sounds at this + F / rate; `nil` until the device runs and
    /// something has asked for it. It is the earliest of the estimates made after each period
    /// (a stale hardware pointer only ever makes one late) and starts again after an
    /// underrun. Asking starts the estimates (one `snd_pcm_delay` per period). Any thread.
    public var frameZeroNanos: Int64? {
        timelineWanted.store(true, ordering: .relaxed)
        let value = frameZero.load(ordering: .acquiring)
        return value == .max ? nil : value
    }


    /// The audio thread: render a period, convert it, write it; recover from underruns.
    private func run() {
        guard let graph else { return }
        let period = format.periodFrames
        let buffer = AudioBuffer(capacity: period)
        let bytesPerSample = sampleFormat == SND_PCM_FORMAT_S16_LE ? 2 : 4
        let interleaved = UnsafeMutableRawPointer.allocate(byteCount: period * 2 * bytesPerSample, alignment: 16)
        defer { interleaved.deallocate() }
        while !stopRequested.load(ordering: .acquiring) {
            graph.render(into: buffer.slice(frames: period))
            convert(buffer, frames: period, into: interleaved)
            var offset = 0
            while offset < period && !stopRequested.load(ordering: .relaxed) {
                let written = snd_pcm_writei(pcm, interleaved + offset * 2 * bytesPerSample, snd_pcm_uframes_t(period - offset))
                if written >= 0 {
                    offset += Int(written)
                } else if written == -snd_pcm_sframes_t(EAGAIN) {
                    snd_pcm_wait(pcm, 100)
                } else if written == -snd_pcm_sframes_t(EPIPE) || written == -snd_pcm_sframes_t(ESTRPIPE) {
                    underrunCount.add(1, ordering: .relaxed)
                    frameZero.store(.max, ordering: .releasing)
                    if snd_pcm_recover(pcm, Int32(written), 1) < 0 { return fail(Int(written)) }
                } else {
                    return fail(Int(written))
                }
            }
            let total = self.written.add(Int64(offset), ordering: .relaxed).newValue
            if total >= Int64(format.bufferFrames) && timelineWanted.load(ordering: .relaxed) { estimateFrameZero(written: total) }
        }
    }

    /// The device thread's estimate of when frame 0 sounded, from the frames still queued.
    private func estimateFrameZero(written: Int64) {
        var delay: snd_pcm_sframes_t = 0
        guard snd_pcm_delay(pcm, &delay) == 0 else { return }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let nanos = Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
        let estimate = nanos + (Int64(delay) - written) * 1_000_000_000 / Int64(format.sampleRate)
        if estimate < frameZero.load(ordering: .relaxed) { frameZero.store(estimate, ordering: .releasing) }
    }

    private func fail(_ code: Int) {
        failureCode.store(code, ordering: .releasing)
        stopRequested.store(true, ordering: .releasing)
    }

    /// Float stereo to the device's interleaved format, clipped to full scale.
    private func convert(_ buffer: AudioBuffer, frames: Int, into out: UnsafeMutableRawPointer) {
        switch sampleFormat {
        case SND_PCM_FORMAT_FLOAT_LE:
            let f = out.assumingMemoryBound(to: Float.self)
            for i in 0..<frames {
                f[2 * i] = buffer.left[i]
                f[2 * i + 1] = buffer.right[i]
            }
        case SND_PCM_FORMAT_S32_LE:
            let s = out.assumingMemoryBound(to: Int32.self)
            for i in 0..<frames {
                s[2 * i] = Int32(max(-1, min(1, Double(buffer.left[i]))) * 2_147_483_647)
                s[2 * i + 1] = Int32(max(-1, min(1, Double(buffer.right[i]))) * 2_147_483_647)
            }
        default:
            let s = out.assumingMemoryBound(to: Int16.self)
            for i in 0..<frames {
                s[2 * i] = Int16((max(-1, min(1, buffer.left[i])) * 32_767).rounded())
                s[2 * i + 1] = Int16((max(-1, min(1, buffer.right[i])) * 32_767).rounded())
            }
        }
    }
}

/// An ALSA call that failed: device, the function and ALSA's reason. Any thread.
public struct ALSAError: Fault, Hashable, Sendable {
    /// A device's fault. Any thread.
    public var kind: FaultKind { .device }
    /// The PCM name. Any thread.
    public var device: String
    /// The alsa-lib function. Any thread.
    public var call: String
    /// The negative errno it returned. Any thread.
    public var code: Int32
    /// More words, when alsa-lib or Pianola had them. Any thread.
    public var detail: String

    init(device: String, call: String, code: Int32, detail: String = "") {
        self.device = device
        self.call = call
        self.code = code
        self.detail = detail
    }

    /// Throws when `status` is negative, with alsa-lib's own last message as detail.
    static func check(_ status: Int32, device: String, call: String) throws(ALSAError) {
        guard let failure = ALSAStatus.failure(status) else { return }
        throw ALSAError(device: device, call: call, code: status, detail: failure.detail)
    }

    /// `device 'NAME': reason`, one line. Any thread.
    public var description: String {
        if call == "snd_pcm_open" && detail.contains("Unknown PCM") {
            return "audio device '\(device)': ALSA has no such device (`pianola devices` lists them)"
        }
        let reason = String(cString: snd_strerror(code))
        return "audio device '\(device)': \(reason)\(detail.isEmpty ? "" : " (\(detail))")"
    }
}
