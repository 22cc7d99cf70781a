import AllocationCounter
import Engine
import Foundation
import Pianola
import SoundServers
import Synchronization
import Testing
import TestSupport

/// A sine source that counts, on the render thread, the heap allocations made between two
/// of its renders: what an output's own callback code (and the server's client library)
/// allocates around the graph in each cycle.
final class AllocationsBetweenRenders: AudioNode {
    let cycles = Atomic<Int>(0)
    let allocations = Atomic<Int>(0)
    private let phase = Atomic<Int>(0)

    func prepare(format: AudioFormat, maxFrames: Int) {}

    func render(_ output: StereoSlice, at time: SampleTime) {
        if cycles.load(ordering: .relaxed) > 0 { allocations.add(pianola_allocations_stop(), ordering: .relaxed) }
        var k = phase.load(ordering: .relaxed)
        for i in 0..<output.frames {
            let value = Float(sin(Double(k) * 0.05)) * 0.1
            output.left[i] = value
            output.right[i] = value
            k += 1
        }
        phase.store(k, ordering: .relaxed)
        cycles.add(1, ordering: .relaxed)
        pianola_allocations_start()
    }
}

/// Asks an output's transport once a cycle, as a `TransportFollower` does.
final class TransportAsker: RenderScheduler, @unchecked Sendable {
    let transport: any ExternalTransport
    init(_ transport: any ExternalTransport) { self.transport = transport }
    func willRender(from time: SampleTime, frames: Int) { _ = transport.transportState() }
}

// Serialized: two servers at once would only load the machine.
@Suite("JACK's and PipeWire's process callbacks allocate nothing around the graph, with real servers", .serialized, .listensInRealTime)
struct OutputThreadTests {
    /// Opens `driver` on `server` (retrying until it answers; named, so this process's
    /// environment, which the CLI tests' children inherit, is left alone), plays a sine
    /// through it for two seconds and until `cycles` cycles have been pulled (a server the
    /// machine starves runs slower than real time; at most 20 s), and returns the cycles and
    /// the allocations between renders (an output with a transport is asked it every cycle).
    func play(_ driver: AudioDriver, server: String, connect: Bool, cycles wanted: Int) throws -> (cycles: Int, allocations: Int) {
        var configuration = AudioOutputConfiguration()
        configuration.server = server
        configuration.connect = connect
        var output: (any AudioOutput)?
        for _ in 0..<100 where output == nil {
            output = try? AudioDriver.open(driver, configuration: configuration)
            if output == nil { usleep(50_000) }
        }
        let opened = try #require(output, "no \(driver) server came up")
        let node = AllocationsBetweenRenders()
        let graph = AudioGraph(root: node, format: AudioFormat(sampleRate: opened.format.sampleRate))
        if let transport = opened as? any ExternalTransport { graph.add(TransportAsker(transport)) }
        _ = opened.start(pulling: graph)
        usleep(2_000_000)
        for _ in 0..<180 where node.cycles.load(ordering: .relaxed) < wanted { usleep(100_000) }
        opened.stop(drain: false)
        #expect(opened.failure == nil)
        return (node.cycles.load(ordering: .relaxed), node.allocations.load(ordering: .relaxed))
    }

    @Test("JACK: a real jackd, at least 2 s and 200 of its 256-frame cycles, its transport asked in each")
    func jack() throws {
        let server = try JACKServer()
        let (cycles, allocations) = try play(.jack, server: server.name, connect: false, cycles: 201)
        print("JACK process callback: \(allocations) allocations around the graph in \(cycles) cycles")
        #expect(cycles > 200)
        #expect(allocations == 0)
    }

    @Test("PipeWire: a real headless daemon, at least 2 s and 50 cycles played to its null sink")
    func pipeWire() throws {
        let server = try PipeWireServer()
        let (cycles, allocations) = try play(.pipewire, server: server.socket, connect: true, cycles: 51)
        print("PipeWire process callback: \(allocations) allocations around the graph in \(cycles) cycles")
        #expect(cycles > 50)
        #expect(allocations == 0)
    }
}
