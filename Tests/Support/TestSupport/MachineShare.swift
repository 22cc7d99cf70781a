import Testing

/// How the tests share these 2 cores. Swift Testing runs every suite's tests beside each other
/// in one process, so a test that listens in real time (a sound server's cycles, a device
/// drained at 48 kHz, a line shown as it is sung) could find itself beside one that keeps every
/// core busy (four threads calling the game API, batch renders, an hour of looped audio).
/// Tests marked `.listensInRealTime` therefore run with nothing marked `.cpuHeavy` beside them,
/// and with no other real-time test either (two sound servers at once would load the machine
/// as badly); `.cpuHeavy` tests may run beside each other. Unmarked tests run as they come: they
/// are short and light. A real-time test that finds a heavy one running waits for it to end,
/// and heavy tests that come later wait for the real-time ones already waiting.
public struct MachineShare: TestTrait, SuiteTrait, TestScoping {
    /// What a test does to the machine.
    public enum Use: Sendable { case realTime, cpuHeavy }

    /// This trait's use.
    public let use: Use

    /// On a suite, each of its tests takes its turn, not the suite as a whole.
    public var isRecursive: Bool { true }

    /// Runs the test when the machine is free enough for it.
    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        await MachineGate.shared.enter(use)
        do {
            try await function()
        } catch {
            await MachineGate.shared.leave(use)
            throw error
        }
        await MachineGate.shared.leave(use)
    }
}

extension Trait where Self == MachineShare {
    /// The test listens in real time: nothing CPU-heavy, and no other real-time test, runs beside it.
    public static var listensInRealTime: Self { MachineShare(use: .realTime) }
    /// The test keeps the cores busy: it never runs beside a real-time test.
    public static var cpuHeavy: Self { MachineShare(use: .cpuHeavy) }
}

/// The turns `MachineShare` hands out, a readers-writer gate with the real-time tests as the
/// writers: one real-time test, or any number of heavy ones, at a time; a waiting real-time
/// test goes before heavy tests that come after it.
actor MachineGate {
    static let shared = MachineGate()

    private var heavyRunning = 0
    private var realTimeRunning = false
    private var waiting: [(use: MachineShare.Use, resume: CheckedContinuation<Void, Never>)] = []

    func enter(_ use: MachineShare.Use) async {
        if waiting.isEmpty && mayStart(use) {
            start(use)
            return
        }
        await withCheckedContinuation { waiting.append((use, $0)) }
    }

    func leave(_ use: MachineShare.Use) {
        switch use {
        case .realTime: realTimeRunning = false
        case .cpuHeavy: heavyRunning -= 1
        }
        // Wake waiters in order while they may start: a real-time test at the head blocks the rest.
        while let next = waiting.first, mayStart(next.use) {
            waiting.removeFirst()
            start(next.use)
            next.resume.resume()
        }
    }

    private func mayStart(_ use: MachineShare.Use) -> Bool {
        switch use {
        case .realTime: !realTimeRunning && heavyRunning == 0
        case .cpuHeavy: !realTimeRunning
        }
    }

    private func start(_ use: MachineShare.Use) {
        switch use {
        case .realTime: realTimeRunning = true
        case .cpuHeavy: heavyRunning += 1
        }
    }
}
