import DSP
import MIDI

/// Something whose mixer parameters a player sets at sample times (automation tracks, and
/// channel volume and pan driving a bus). Render thread only.
public protocol ParameterDestination: AnyObject, Sendable {
    /// Sets `parameter` of `target` to `value` from sample time `time`, at once or over
    /// `rampFrames` frames from wherever it stands then. Render thread only.
    func scheduleParameter(_ parameter: ParameterEvent.Parameter, of target: ParameterEvent.Target, to value: Float,
                           at time: SampleTime, rampFrames: Int)
}

/// The automated volume and pan of one mixer input (or output), applied on top of its
/// settings: a fader that a sequence moves, and a trim that a game parameter moves. Render thread only.
struct Automation {
    private var volume = GainTimeline()
    private var pan = GainTimeline()
    private var trim = GainTimeline()

    /// Schedules a change of `parameter`.
    mutating func schedule(_ parameter: ParameterEvent.Parameter, to value: Float, at time: SampleTime, rampFrames: Int) {
        switch parameter {
        case .volume: volume.schedule(GainTimeline.Change(time: time, gain: StereoGain(left: value, right: value), ramp: rampFrames))
        case .pan: pan.schedule(GainTimeline.Change(time: time, gain: StereoGain(left: min(1, 1 - value), right: min(1, 1 + value)), ramp: rampFrames))
        case .effect: break   // the mixer hands it to the insert chain
        }
    }

    /// Sets the trim gain to `gain` from `time`, at once or over `rampFrames` frames.
    mutating func scheduleTrim(to gain: Float, at time: SampleTime, rampFrames: Int) {
        trim.schedule(GainTimeline.Change(time: time, gain: StereoGain(left: gain, right: gain), ramp: rampFrames))
    }

    /// Back to unity with nothing waiting (the input was disconnected). Allocates nothing.
    mutating func reset() {
        volume.reset(to: .unity)
        pan.reset(to: .unity)
        trim.reset(to: .unity)
    }

    /// Whether it leaves `time ..< time + frames` untouched.
    func isUnity(from time: SampleTime, frames: Int) -> Bool {
        volume.isSteady(at: .unity, from: time, frames: frames) && pan.isSteady(at: .unity, from: time, frames: frames)
            && trim.isSteady(at: .unity, from: time, frames: frames)
    }

    /// Scales `audio` (which starts at `time`) by the automated volume, pan and trim.
    mutating func apply(to audio: StereoSlice, from time: SampleTime) {
        volume.scale(audio, from: time)
        pan.scale(audio, from: time)
        trim.scale(audio, from: time)
    }
}
