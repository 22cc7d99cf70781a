import Foundation
import SoundServers
import Testing

/// Where the capture tools are built: beside `pianola`.
let captureTools = CLIRun.binary.deletingLastPathComponent()

/// Whether the capture (`xruns`) or Pianola (`played`) missed a cycle: on a shared machine
/// that is the machine's fault, so a capture test tries once more.
func missedACycle(xruns: Int, played: CLIRun) -> Bool {
    xruns > 0 || played.stderr.contains("underrun")
}

/// Plays the test song at 150 % with `arguments` added while `capture` records in a scratch
/// folder, and expects the recording to be `pianola render` of the same (SNR ≥ 60 dB, no
/// gap). One retry when the capture or Pianola counted a missed cycle: on a shared machine
/// that is the machine's fault, not the output's. `check` looks at the play run too.
func expectPlayEqualsRender(_ arguments: [String], environment: [String: String], capture: (URL) throws -> OutputCapture,
                            check: (CLIRun) -> Void = { _ in }) throws {
    let scratch = try Scratch()
    let common = [PlayCommandTests.song, "--soundfont", PlayCommandTests.testFont, "--tempo", "150"]
    let wav = scratch.url.appendingPathComponent("rendered.wav").path
    let rendered = try CLIRun.pianola(["render"] + common + ["-o", wav, "--bits", "32f"])
    #expect(rendered.status == 0, "\(rendered.stderr)")
    let reference = try PlayCommandTests.wavFloats(wav)
    for attempt in 1...2 {
        let recording = try capture(scratch.url)
        let played = try CLIRun.pianola(["play"] + common + arguments, environment: environment)
        #expect(played.status == 0, "\(played.stderr)")
        check(played)
        let (samples, _, xruns) = try recording.finish()
        if missedACycle(xruns: xruns, played: played) && attempt == 1 { continue }
        let snr = alignedSNR(captured: samples, reference: reference)
        #expect(snr != nil, "the capture is shorter than the render: a gap or a cut end")
        #expect((snr ?? 0) >= 60, "SNR \(snr ?? 0) dB; the capture missed \(xruns) cycles; \(played.stderr)")
        return
    }
}

/// Plays the test song through `driver` (`environment` pointing at the server) while `stop`
/// takes the server away 1.5 s in, under timeout(1) only as a backstop: a hang would show as
/// its status 124. The run, for the caller to expect one line and exit 1.
func playWhileServerStops(driver: String, environment: [String: String], stop: @escaping @Sendable () -> Void) throws -> CLIRun {
    let stopper = Thread {
        usleep(1_500_000)
        stop()
    }
    stopper.start()
    return try CLIRun.pianola(["play", PlayCommandTests.root.appendingPathComponent("songs/ode-to-joy.mid").path, "--driver", driver,
                               "--soundfont", PlayCommandTests.testFont, "--quiet"], environment: environment, prefix: ["/usr/bin/timeout", "30"])
}
