import Foundation
import Testing

/// `pianola plugins --check` and the renders that use it, against plugins built to misbehave:
/// one that crashes when run, one that never returns, one that writes NaN, and one that
/// behaves (half gain). Each is tried in a child process; the bad ones are reported in one
/// line each and a render that asks for one goes on without it.
@Suite("LV2 plugins tried in child processes")
struct PluginCheckTests {
    /// Four mono effects in one binary, chosen by URI.
    static let source = #"""
    #include <lv2/core/lv2.h>
    #include <math.h>
    #include <signal.h>
    #include <stdlib.h>
    #include <string.h>
    typedef struct { int kind; const float *in; float *out; } Faulty;
    static const char *uris[] = { "urn:pianola:test:crash", "urn:pianola:test:hang", "urn:pianola:test:nan", "urn:pianola:test:half" };
    static LV2_Handle make(const LV2_Descriptor *d, double rate, const char *path, const LV2_Feature *const *features) {
        Faulty *f = calloc(1, sizeof *f);
        for (int i = 0; i < 4; i++) if (!strcmp(d->URI, uris[i])) f->kind = i;
        return f;
    }
    static void connect(LV2_Handle h, uint32_t port, void *data) {
        Faulty *f = h;
        if (port == 0) f->in = data; else f->out = data;
    }
    static void run(LV2_Handle h, uint32_t n) {
        Faulty *f = h;
        if (f->kind == 0) raise(SIGSEGV);
        if (f->kind == 1) for (volatile int spin = 1; spin;) {}
        for (uint32_t i = 0; i < n; i++) f->out[i] = f->kind == 2 ? NAN : f->in[i] * 0.5f;
    }
    static void cleanup(LV2_Handle h) { free(h); }
    static const LV2_Descriptor descriptors[4] = {
        { "urn:pianola:test:crash", make, connect, NULL, run, NULL, cleanup, NULL },
        { "urn:pianola:test:hang", make, connect, NULL, run, NULL, cleanup, NULL },
        { "urn:pianola:test:nan", make, connect, NULL, run, NULL, cleanup, NULL },
        { "urn:pianola:test:half", make, connect, NULL, run, NULL, cleanup, NULL },
    };
    LV2_SYMBOL_EXPORT const LV2_Descriptor *lv2_descriptor(uint32_t i) { return i < 4 ? &descriptors[i] : NULL; }
    """#

    /// A folder of LV2 bundles holding the four plugins, built with cc.
    static func bundles(in folder: URL) throws -> URL {
        let bundle = folder.appendingPathComponent("lv2/faulty.lv2")
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        try source.write(to: bundle.appendingPathComponent("faulty.c"), atomically: true, encoding: .utf8)
        let cc = Process()
        cc.executableURL = URL(fileURLWithPath: "/usr/bin/cc")
        cc.arguments = ["-shared", "-fPIC", "-O1", "-o", bundle.appendingPathComponent("faulty.so").path, bundle.appendingPathComponent("faulty.c").path, "-lm"]
        try cc.run()
        cc.waitUntilExit()
        #expect(cc.terminationStatus == 0)
        var turtle = "@prefix lv2: <http://lv2plug.in/ns/lv2core#> .\n@prefix doap: <http://usefulinc.com/ns/doap#> .\n"
        for (uri, name) in [("crash", "Faulty Crash"), ("hang", "Faulty Hang"), ("nan", "Faulty NaN"), ("half", "Faulty Half")] {
            turtle += """
            <urn:pianola:test:\(uri)> a lv2:Plugin ; lv2:binary <faulty.so> ; doap:name "\(name)" ;
                lv2:port [ a lv2:AudioPort , lv2:InputPort ; lv2:index 0 ; lv2:symbol "in" ; lv2:name "In" ] ,
                         [ a lv2:AudioPort , lv2:OutputPort ; lv2:index 1 ; lv2:symbol "out" ; lv2:name "Out" ] .

            """
        }
        try turtle.write(to: bundle.appendingPathComponent("manifest.ttl"), atomically: true, encoding: .utf8)
        return folder.appendingPathComponent("lv2")
    }

    @Test("each plugin's verdict in one line (crashed with its signal, hung and killed, bad output, ok), cached until the bundle changes; a render with the crashing one warns and goes on, with the good one it plays at half gain")
    func verdicts() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pianola-check-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let environment = ["LV2_PATH": try Self.bundles(in: folder).path, "XDG_CACHE_HOME": folder.appendingPathComponent("cache").path,
                           "PIANOLA_PLUGIN_CHECK_TIMEOUT": "3"]
        let started = Date()
        let check = try CLIRun.pianola(["plugins", "--check"], environment: environment)
        let seconds = Date().timeIntervalSince(started)
        print(check.stdout)
        #expect(check.status == 0 && !check.signaled)
        let lines = check.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("crashed\turn:pianola:test:crash\tSegmentation fault (signal 11)") })
        #expect(lines.contains { $0.hasPrefix("hung\turn:pianola:test:hang\tstill running after 3 s") })
        #expect(lines.contains { $0.hasPrefix("bad-output\turn:pianola:test:nan\tNaN or infinite output in its run from frame 0") })
        #expect(lines.contains { $0.hasPrefix("ok\turn:pianola:test:half\tpeak -18.1 dBFS") })
        #expect(lines.last == "4 LV2 plugins checked: 1 ok, 0 refused, 1 bad-output, 1 crashed, 1 hung")
        #expect(seconds < 30, "the hung child is killed at its timeout (\(seconds) s in all)")

        let again = try CLIRun.pianola(["plugins", "--check"], environment: environment)
        #expect(again.stdout == check.stdout, "the second check reads the cache")

        let song = folder.appendingPathComponent("song.mid")
        try Data(RenderCommandTests.song()).write(to: song)
        let out = folder.appendingPathComponent("out.wav").path
        let render = try CLIRun.pianola(["render", song.path, "-o", out, "--soundfont", RenderCommandTests.testFont, "--fx", "urn:pianola:test:crash"],
                                        environment: environment)
        #expect(render.status == 0 && !render.signaled)
        #expect(render.stderr.contains("warning: --fx 'Faulty Crash' left out: it crashed when tried in a child process (Segmentation fault (signal 11))"))
        #expect(FileManager.default.fileExists(atPath: out))
    }
}
