/* pipewire-capture [--freewheel] SINK SECONDS OUT.raw: a PipeWire capture stream on the monitor
   of the sink named SINK that records what the sink plays, as 32-bit float stereo at 48 kHz,
   into OUT.raw. Prints "ready 48000" once the session manager has linked it and it streams, and
   when done (SECONDS of audio, SIGINT/SIGTERM, or the daemon gone) "first_sound_ns=T", the
   CLOCK_MONOTONIC time of the graph cycle that carried the first sample above 1e-4 (-1 if
   none), then "frames=N xruns=X", X the cycles it missed. The PipeWire output tests' independent ear.

   --freewheel: the stream joins the group of PipeWire's freewheel driver (node.group
   pipewire.freewheel, as pipewire-jack's jack_set_freewheel does), and the nodes linked to it,
   the sink and whatever plays into it, follow: the graph runs cycle after cycle as fast as its
   nodes finish, with no deadline, so a busy machine cannot make a cycle go missing. The
   silence before the first sound is not recorded (it comes as fast as the machine can make
   it), and the capture ends SECONDS of audio after the first sound. It then also prints
   "realtime_cycles=N": the recorded cycles the graph ran on a real-time driver after all
   (under load PipeWire has been seen to leave the sink on its own driver). */
#include <pipewire/pipewire.h>
#include <spa/node/io.h>
#include <spa/param/audio/format-utils.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct pw_main_loop *loop;
static struct pw_stream *stream;
static float *recorded;
static size_t capacity, frames;
static int64_t first_sound_ns = -1;
static int64_t last_ticks = -1;
static size_t last_frames;
static int xruns, freewheel, full, realtime_cycles;
static struct spa_io_position *position;

static void on_process(void *data) {
    (void)data;
    struct pw_buffer *b = pw_stream_dequeue_buffer(stream);
    if (!b) return;
    struct spa_data *d = &b->buffer->datas[0];
    if (d->data && d->chunk) {
        const float *samples = SPA_PTROFF(d->data, d->chunk->offset, const float);
        size_t n = d->chunk->size / (2 * sizeof(float));
        struct pw_time time;
        pw_stream_get_time_n(stream, &time, sizeof time);
        /* The driver's ticks advance by one cycle's frames: a bigger step is a cycle this ear
           missed. Freewheeling, only steps while recording count: the ticks jump as the graph
           moves to the freewheel driver, before the first sound. */
        if (last_ticks >= 0 && (int64_t)time.ticks - last_ticks > (int64_t)last_frames && (!freewheel || frames > 0)) xruns++;
        last_ticks = (int64_t)time.ticks;
        last_frames = n;
        /* Freewheeling, a recorded cycle the graph ran on a real-time driver is one that
           could have been missed: the graph had not moved to the freewheel driver. */
        if (freewheel && frames > 0 && position && !(position->clock.flags & SPA_IO_CLOCK_FLAG_FREEWHEEL)) realtime_cycles++;
        size_t i = 0;
        if (freewheel && first_sound_ns < 0)   /* the silence before the first sound */
            while (i < n && samples[2 * i] <= 1e-4f && samples[2 * i] >= -1e-4f && samples[2 * i + 1] <= 1e-4f && samples[2 * i + 1] >= -1e-4f) i++;
        for (; i < n && frames < capacity; i++, frames++) {
            recorded[2 * frames] = samples[2 * i];
            recorded[2 * frames + 1] = samples[2 * i + 1];
            if (first_sound_ns < 0 && (samples[2 * i] > 1e-4f || samples[2 * i] < -1e-4f || samples[2 * i + 1] > 1e-4f || samples[2 * i + 1] < -1e-4f))
                first_sound_ns = time.now + (int64_t)i * 1000000000 / 48000;
        }
    }
    if (frames >= capacity) full = 1;
    pw_stream_queue_buffer(stream, b);
}

/* On the main loop: a full recording ends the capture (the data thread may not quit the loop). */
static void check_full(void *data, uint64_t expirations) {
    (void)data; (void)expirations;
    if (full) pw_main_loop_quit(loop);
}

/* The graph's position, whose clock says whether the graph freewheels. */
static void on_io_changed(void *data, uint32_t id, void *area, uint32_t size) {
    (void)data; (void)size;
    if (id == SPA_IO_Position) position = area;
}

static void on_state(void *data, enum pw_stream_state old, enum pw_stream_state state, const char *error) {
    (void)data; (void)old; (void)error;
    if (state == PW_STREAM_STATE_STREAMING) { printf("ready 48000\n"); fflush(stdout); }
    if (state == PW_STREAM_STATE_ERROR || state == PW_STREAM_STATE_UNCONNECTED) pw_main_loop_quit(loop);
}

static const struct pw_stream_events events = { PW_VERSION_STREAM_EVENTS, .process = on_process, .state_changed = on_state,
                                                 .io_changed = on_io_changed };

static void quit(void *data, int signal) { (void)data; (void)signal; pw_main_loop_quit(loop); }

int main(int argc, char **argv) {
    int arg = 1;
    if (argc == 5 && strcmp(argv[1], "--freewheel") == 0) { freewheel = 1; arg = 2; }
    if (argc - arg != 3) { fprintf(stderr, "usage: pipewire-capture [--freewheel] SINK SECONDS OUT.raw\n"); return 2; }
    const char *sink = argv[arg], *seconds = argv[arg + 1], *path = argv[arg + 2];
    pw_init(&argc, &argv);
    capacity = (size_t)(atof(seconds) * 48000);
    recorded = calloc(capacity * 2, sizeof(float));
    loop = pw_main_loop_new(NULL);
    if (!recorded || !loop) return 1;
    pw_loop_add_signal(pw_main_loop_get_loop(loop), SIGINT, quit, NULL);
    pw_loop_add_signal(pw_main_loop_get_loop(loop), SIGTERM, quit, NULL);
    /* client-rt.conf: a real-time data thread, so a loaded machine does not make the ear miss cycles. */
    struct pw_context *context = pw_context_new(pw_main_loop_get_loop(loop), pw_properties_new(PW_KEY_CONFIG_NAME, "client-rt.conf", NULL), 0);
    struct pw_core *core = context ? pw_context_connect(context, NULL, 0) : NULL;
    if (!core) { fprintf(stderr, "pipewire-capture: no PipeWire daemon\n"); return 1; }
    struct pw_properties *properties = pw_properties_new(PW_KEY_MEDIA_TYPE, "Audio", PW_KEY_MEDIA_CATEGORY, "Capture", PW_KEY_MEDIA_ROLE, "Music",
                                                         PW_KEY_TARGET_OBJECT, sink, PW_KEY_STREAM_CAPTURE_SINK, "true", NULL);
    if (freewheel) pw_properties_set(properties, PW_KEY_NODE_GROUP, "pipewire.freewheel");
    stream = pw_stream_new(core, "pipewire-capture", properties);
    if (!stream) { fprintf(stderr, "pipewire-capture: cannot make a stream\n"); return 1; }
    struct spa_hook listener;
    spa_zero(listener);
    pw_stream_add_listener(stream, &listener, &events, NULL);
    uint8_t buffer[1024];
    struct spa_pod_builder builder = SPA_POD_BUILDER_INIT(buffer, sizeof buffer);
    const struct spa_pod *params[1] = { spa_format_audio_raw_build(&builder, SPA_PARAM_EnumFormat,
        &SPA_AUDIO_INFO_RAW_INIT(.format = SPA_AUDIO_FORMAT_F32, .channels = 2, .rate = 48000, .position = { SPA_AUDIO_CHANNEL_FL, SPA_AUDIO_CHANNEL_FR })) };
    pw_stream_connect(stream, PW_DIRECTION_INPUT, PW_ID_ANY,
                      PW_STREAM_FLAG_AUTOCONNECT | PW_STREAM_FLAG_MAP_BUFFERS | PW_STREAM_FLAG_RT_PROCESS, params, 1);
    struct timespec every = { 0, 10000000 };
    struct spa_source *timer = pw_loop_add_timer(pw_main_loop_get_loop(loop), check_full, NULL);
    pw_loop_update_timer(pw_main_loop_get_loop(loop), timer, &every, &every, false);
    pw_main_loop_run(loop);
    pw_stream_destroy(stream);
    pw_core_disconnect(core);
    pw_context_destroy(context);
    FILE *out = fopen(path, "wb");
    if (!out || fwrite(recorded, sizeof(float) * 2, frames, out) != frames || fclose(out)) { perror(path); return 1; }
    printf("first_sound_ns=%lld\nframes=%zu xruns=%d\nrealtime_cycles=%d\n", (long long)first_sound_ns, frames, xruns, realtime_cycles);
    return 0;
}
