import CLilv

/// One instance of an LV2 plugin with the features it was given, its own worker among them,
/// kept as long as it lives: instantiated, its state restored (a preset's, or the plugin's
/// default state when it asks for it), activated, run, and freed once the threads plugins
/// started are idle. Control thread, but `run` and `reset` (render thread only).
final class LV2Instance {
    /// The lilv instance, for connecting its ports. Control thread.
    let pointer: UnsafeMutablePointer<LilvInstance>
    private let features: LV2Features
    private let worker: LV2Worker
    private let world: LV2World
    private var active = false
    private let offline: Bool

    /// `plugin` at `sampleRate`, run for at most `maxFrames`; its worker does its work at once
    /// when `offline` (a render), else on a thread of its own. Restores `state` (a preset's URI)
    /// when given, else the plugin's default state when it asks for that; throws one line when
    /// it cannot be made or a state read. Control thread.
    init(_ plugin: LV2PluginInfo, sampleRate: Int, maxFrames: Int, offline: Bool, state: String? = nil) throws(LV2Error) {
        self.offline = offline
        worker = LV2Worker(offline: offline)
        features = LV2Features(sampleRate: sampleRate, maxFrames: maxFrames, schedule: worker.schedule)
        world = try LV2World.shared()
        let threads = PluginThreads.current()
        pointer = try world.instantiate(plugin, sampleRate: sampleRate, features: features)
        PluginThreads.noteStarted(since: threads)
        worker.attach(to: pointer)
        let restored = state ?? (plugin.requiredFeatures.contains(LV2Features.loadDefaultState) ? plugin.uri : nil)
        // Thrown from here, the instance is whole and its deinit frees it.
        if let restored { try world.restoreState(restored, into: pointer, features: features) }
    }

    deinit {
        worker.stop()
        if active { lilv_instance_deactivate(pointer) }
        PluginThreads.settle()
        world.free(pointer)
    }

    /// Activates it, its ports connected (`auxiliary` among them), hands it the answers to the
    /// work its state asked for, and starts its worker. Offline, when plugins have threads of
    /// their own, it is run for one frame of silence (it reads its controls then) and the
    /// threads are let finish: the work they start (padthv1's wave tables) is done before a
    /// live host's first note, and a render's first note must not find it half done (padthv1
    /// plays NaN). Control thread, once.
    func activate(_ auxiliary: LV2AuxiliaryPorts) {
        lilv_instance_activate(pointer)
        active = true
        worker.deliver()
        worker.start()
        if offline && PluginThreads.exist {
            auxiliary.beforeRun()
            run(1)
            auxiliary.afterRun()
            PluginThreads.settle()
        }
    }

    /// Runs it for `frames`, then hands it its worker's answers. Render thread only.
    @inline(__always) func run(_ frames: Int) {
        lilv_instance_run(pointer, UInt32(frames))
        worker.endRun()
    }

    /// Forgets what it has heard: deactivated and activated again (LV2's reset). Render thread only.
    func reset() {
        lilv_instance_deactivate(pointer)
        lilv_instance_activate(pointer)
    }
}
