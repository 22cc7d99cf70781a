import Engine
import MIDI
import Sequencing

// Chase: the state a song has at a place (controllers, programs, bends, sysex, automation),
// sent when play starts or moves there.
extension MusicPlayer {
    /// Sends, at `time`, the state the events before `index` leave: sysex in order, then per
    /// destination and channel bank, program, controllers, RPN/NRPN selection and data entry,
    /// pitch bend and pressure. Nothing is allocated: the state lives in `chase`.
    func chaseState(toIndex index: Int, at time: SampleTime) {
        guard index > 0 else { return }
        for i in chase.indices { chase[i] = -1 }
        let events = score.events
        for i in 0..<index {
            let e = events[i]
            let d = trackDestination[e.track]
            switch e.message {
            case .controlChange(let c, let n, let v) where n < 120: chase[Self.chaseSlot(d, Int(c), Int(n))] = Int16(v)
            case .programChange(let c, let p): chase[Self.chaseSlot(d, Int(c), 128)] = Int16(p)
            case .pitchBend(let c, let v): chase[Self.chaseSlot(d, Int(c), 129)] = Int16(v)
            case .channelPressure(let c, let p): chase[Self.chaseSlot(d, Int(c), 130)] = Int16(p)
            case .sysex(let bytes):
                bytes.withUnsafeBufferPointer { destinations[d].scheduleSysex(MusicPlayer.sysexBody($0), at: time) }
            default: break
            }
        }
        for d in destinations.indices {
            for channel in 0..<16 {
                let base = Self.chaseSlot(d, channel, 0)
                let status = UInt8(channel)
                func send(_ kind: UInt8, _ index: Int) {
                    let v = Int(chase[base + index])
                    guard v >= 0 else { return }
                    let (d1, d2) = kind == 0xB0 ? (UInt8(index), UInt8(v)) : kind == 0xE0 ? (UInt8(v & 0x7F), UInt8(v >> 7)) : (UInt8(v), 0)
                    self.send(ScheduledMIDI(time: time, status: kind | status, data1: d1, data2: d2), to: d)
                }
                send(0xB0, 0)
                send(0xB0, 32)
                send(0xC0, 128)
                for n in 1..<120 where !MusicPlayer.isBankOrParameterController(n) { send(0xB0, n) }
                send(0xB0, 99); send(0xB0, 98); send(0xB0, 101); send(0xB0, 100); send(0xB0, 6); send(0xB0, 38)
                send(0xE0, 129)
                send(0xD0, 130)
            }
        }
    }

    /// Sets each automated lane, at `time`, to its value at the score position of event
    /// `index` (the anchor): a lane before its first event goes back to its default (unity,
    /// centre; an effect's parameter, which has no default here, to its first event's value),
    /// a lane between two points of a line takes the value on the line, and, when `moving`,
    /// goes on along it.
    func chaseAutomation(toIndex index: Int, at time: SampleTime, moving: Bool) {
        guard parameters != nil, !score.automation.isEmpty else { return }
        // Plain index loops: iterating the arrays themselves is generic, unspecialized code in
        // debug builds, which allocates.
        for lane in 0..<laneLast.count { laneLast[lane] = -1 }
        let steps = score.automation, lanes = score.lanes
        for i in 0..<steps.count where steps[i].index < index { laneLast[steps[i].lane] = Int32(i) }
        for lane in 0..<lanes.count {
            let last = Int(laneLast[lane])
            if last < 0 {
                let (target, parameter) = (lanes[lane].target, lanes[lane].parameter)
                let value: Float = switch parameter {
                case .volume: 1
                case .pan: 0
                case .effect: steps[lanes[lane].first].event.value
                }
                parameters?.scheduleParameter(parameter, of: target, to: value, at: time, rampFrames: 0)
                continue
            }
            let step = steps[last]
            var value = step.event.value
            if step.next >= 0, steps[step.next].event.curve == .linear {
                let next = steps[step.next]
                let fraction = next.frame > step.frame ? Float(min(max(anchorFrame - step.frame, 0), next.frame - step.frame)) / Float(next.frame - step.frame) : 1
                value += (next.event.value - value) * fraction
            }
            automate(step, from: value, at: time, moving: moving)
        }
    }

    /// Sets `step`'s lane to `value` at `time` and, when `moving` and the lane's next event
    /// is a line, starts the line towards it, arriving on its frame. A pan line through the
    /// centre is drawn as two, since the pan law bends there.
    func automate(_ step: MusicPlayer.Score.AutomationStep, from value: Float, at time: SampleTime, moving: Bool) {
        guard let parameters else { return }
        let (target, parameter) = (score.lanes[step.lane].target, score.lanes[step.lane].parameter)
        parameters.scheduleParameter(parameter, of: target, to: value, at: time, rampFrames: 0)
        guard moving, step.next >= 0, score.automation[step.next].event.curve == .linear else { return }
        let next = score.automation[step.next]
        let frames = Int(max(0, outputTime(of: next.frame) - time))
        let end = next.event.value
        if parameter == .pan && value * end < 0 {
            let first = Int(Double(frames) * Double(abs(value)) / Double(abs(value) + abs(end)))
            parameters.scheduleParameter(.pan, of: target, to: 0, at: time, rampFrames: first)
            parameters.scheduleParameter(.pan, of: target, to: end, at: time + SampleTime(first), rampFrames: frames - first)
        } else {
            parameters.scheduleParameter(parameter, of: target, to: end, at: time, rampFrames: frames)
        }
    }


    /// Where `chase` keeps destination `d`'s channel's value `index`: 0-127 the controllers,
    /// 128 the program, 129 the pitch bend, 130 the channel pressure.
    @inline(__always) static func chaseSlot(_ d: Int, _ channel: Int, _ index: Int) -> Int { (d * 16 + channel) * 131 + index }

    /// Bank select and the (N)RPN selection and data-entry controllers, which chase in their own order.
    @inline(__always) static func isBankOrParameterController(_ n: Int) -> Bool {
        n == 32 || n == 6 || n == 38 || (98...101).contains(n)
    }
}
