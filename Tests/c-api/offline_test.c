/* The C API test's offline rendering, the documented codes, MIDI ports and the position
 * (see api_test.c). */
#define _POSIX_C_SOURCE 200112L

#include "api_test.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void offline(void) {
    pianola_render_config config;
    pianola_renderer *renderer = NULL;
    int64_t most = 0;
    char out[4096], bad[4096];
    snprintf(out, sizeof out, "%s/render.wav", scratch);
    snprintf(bad, sizeof bad, "%s/render.xyz", scratch);
    FAILS(pianola_render_config_init(NULL), PIANOLA_ERROR_ARGUMENT, "NULL");
    OK(pianola_render_config_init(&config));
    CHECK(config.sample_rate == 48000 && config.bits == 16 && config.tail_seconds == 5);
    FAILS(pianola_render_file(&config, out, 0), PIANOLA_ERROR_ARGUMENT, "midi names no file");
    config.midi = path_source(song_path);
    config.soundfont = path_source(font);
    config.tail_seconds = 1;
    FAILS(pianola_render_file(&config, NULL, 0), PIANOLA_ERROR_ARGUMENT, "output_path is NULL");
    FAILS(pianola_render_file(&config, bad, 0), PIANOLA_ERROR_ARGUMENT, "unknown audio file type");
    config.bits = 12;
    FAILS(pianola_render_file(&config, out, 0), PIANOLA_ERROR_ARGUMENT, "bits 12");
    config.bits = 32;
    OK(pianola_render_file(&config, out, 0));
    FAILS(pianola_render_file(&config, out, 0), PIANOLA_ERROR_FILE, "already exists");
    OK(pianola_render_file(&config, out, 1));
    config.soundfont = path_source("/nonexistent.sf2");
    FAILS(pianola_render_file(&config, out, 1), PIANOLA_ERROR_FILE, "/nonexistent.sf2: cannot load SoundFont");
    FAILS(pianola_play_file(&config, "null"), PIANOLA_ERROR_FILE, "/nonexistent.sf2");
    config.soundfont = path_source(font);
    FAILS(pianola_play_file(&config, "no-such-device"), PIANOLA_ERROR_DEVICE, "no-such-device");
    OK(pianola_play_file(&config, "null"));
    FAILS(pianola_play_file_driver(&config, -1, "null"), PIANOLA_ERROR_ARGUMENT, "driver -1");
    OK(pianola_play_file_driver(&config, PIANOLA_DRIVER_ALSA, "null"));

    /* The default SoundFont, as `pianola` and Python choose it, plays when the config names none. */
    char chosen[4096];
    size_t length = 0;
    FAILS(pianola_default_soundfont(chosen, sizeof chosen, NULL), PIANOLA_ERROR_ARGUMENT, "length is NULL");
    CHECK(setenv("PIANOLA_SOUNDFONT", font, 1) == 0);
    OK(pianola_default_soundfont(NULL, 0, &length));
    CHECK(length == strlen(font));
    OK(pianola_default_soundfont(chosen, sizeof chosen, &length));
    CHECK(strcmp(chosen, font) == 0);
    config.soundfont = (pianola_source){0};
    OK(pianola_render_file(&config, out, 1));
    CHECK(unsetenv("PIANOLA_SOUNDFONT") == 0);
    OK(pianola_default_soundfont(chosen, sizeof chosen, &length));
    CHECK(length == strlen(chosen) && access(chosen, R_OK) == 0);
    config.soundfont = path_source(font);

    /* Audio the caller holds, written whole. */
    float tone[2 * 480];
    for (int i = 0; i < 480; i++) tone[2 * i] = -(tone[2 * i + 1] = 0.5f * sinf(6.2831853f * i / 48));
    char written[4096];
    struct stat status;
    snprintf(written, sizeof written, "%s/written.wav", scratch);
    FAILS(pianola_write_audio(bad, tone, 480, 48000, 32, 0), PIANOLA_ERROR_ARGUMENT, "unknown audio file type");
    FAILS(pianola_write_audio(written, tone, 480, 48000, 12, 0), PIANOLA_ERROR_ARGUMENT, "bits 12");
    FAILS(pianola_write_audio(written, NULL, 480, 48000, 32, 0), PIANOLA_ERROR_ARGUMENT, "interleaved is NULL");
    OK(pianola_write_audio(written, tone, 480, 48000, 32, 0));
    CHECK(stat(written, &status) == 0 && status.st_size >= 44 + 480 * 8);
    FAILS(pianola_write_audio(written, tone, 480, 48000, 32, 0), PIANOLA_ERROR_FILE, "already exists");
    OK(pianola_write_audio(written, tone, 480, 48000, 16, 1));
    CHECK(stat(written, &status) == 0 && status.st_size >= 44 + 480 * 4 && status.st_size < 44 + 480 * 8);

    FAILS(pianola_renderer_create(&config, NULL), PIANOLA_ERROR_ARGUMENT, "renderer is NULL");
    FAILS(pianola_renderer_create(NULL, &renderer), PIANOLA_ERROR_ARGUMENT, "config is NULL");
    config.tail_seconds = -1;
    FAILS(pianola_renderer_create(&config, &renderer), PIANOLA_ERROR_ARGUMENT, "tail_seconds -1");
    config.tail_seconds = 1;
    FAILS(pianola_renderer_max_frames(NULL, &most), PIANOLA_ERROR_HANDLE, "NULL");
    OK(pianola_renderer_create(&config, &renderer));
    size_t got = 0, total = 0;
    float *buffer = malloc(2 * 10000 * sizeof(float)), peak = 0;
    FAILS(pianola_renderer_max_frames(renderer, NULL), PIANOLA_ERROR_ARGUMENT, "frames is NULL");
    OK(pianola_renderer_max_frames(renderer, &most));
    CHECK(most > 48000 * 20);
    FAILS(pianola_renderer_read(renderer, NULL, 10, &got), PIANOLA_ERROR_ARGUMENT, "interleaved is NULL");
    FAILS(pianola_renderer_read(renderer, buffer, SIZE_MAX, &got), PIANOLA_ERROR_ARGUMENT, "frames");
    do {
        OK(pianola_renderer_read(renderer, buffer, 10000, &got));
        peak = fmaxf(peak, peak_of(buffer, 2 * got));
        total += got;
    } while (got > 0);
    CHECK((int64_t)total <= most && total > 48000 * 20 && peak > 0.01f);
    OK(pianola_renderer_read(renderer, buffer, 10000, &got));
    CHECK(got == 0);
    OK(pianola_renderer_destroy(renderer));
    FAILS(pianola_renderer_read(renderer, buffer, 10, &got), PIANOLA_ERROR_HANDLE, "pianola_renderer");
    FAILS(pianola_renderer_destroy(renderer), PIANOLA_ERROR_HANDLE, "pianola_renderer");
    free(buffer);
}

/* Create, load from memory, play, render, destroy: over and over. */
/* pianola.h's status codes walked case by case, in the words the header lists them under
   each code: every case returns the code documented for it. */
void documented_codes(void) {
    pianola_soundtrack_config config;
    pianola_soundtrack *soundtrack = NULL;
    pianola_song_config song_config;
    pianola_song *song = NULL, *loading = NULL, *broken = NULL;
    pianola_sound *sound = NULL;
    pianola_render_config render;
    float rms = 0, buffer[2 * 64];
    char fifo[4096], out[4096];
    OK(pianola_soundtrack_config_init(&config));
    OK(pianola_soundtrack_create(&config, &soundtrack));
    pianola_song_config_init(&song_config);
    song_config.midi = path_source("songs/town.mid");
    song_config.soundfont = path_source(font);
    OK(pianola_song_load(soundtrack, &song_config, &song));
    OK(pianola_song_wait(song));

    /* ARGUMENT: a NULL pointer, a value out of range, a wrong struct_size, a malformed route or
       position, a name the song does not have (a layer, a marker). */
    FAILS(pianola_meters(soundtrack, NULL, &rms), PIANOLA_ERROR_ARGUMENT, "peak is NULL");
    FAILS(pianola_set_tempo(soundtrack, 0), PIANOLA_ERROR_ARGUMENT, "tempo 0%");
    config.struct_size = 3;
    FAILS(pianola_soundtrack_create(&config, &soundtrack), PIANOLA_ERROR_ARGUMENT, "struct_size is 3");
    pianola_render_config_init(&render);
    render.midi = path_source("songs/town.mid");
    render.soundfont = path_source(font);
    render.from = "1:9";
    pianola_renderer *renderer = NULL;
    FAILS(pianola_renderer_create(&render, &renderer), PIANOLA_ERROR_ARGUMENT, "from \"1:9\"");
    OK(pianola_play(soundtrack, song, PIANOLA_NOW, NULL, 0, 0));
    FAILS(pianola_set_layer(soundtrack, "Kazoo", 1, 0, PIANOLA_NOW, NULL), PIANOLA_ERROR_ARGUMENT, "no layer 'Kazoo' (it has none)");
    FAILS(pianola_play(soundtrack, song, PIANOLA_AT_MARKER, "nope", 0, 0), PIANOLA_ERROR_ARGUMENT,
          "has no marker 'nope' (markers: loopStart, verse, loopEnd)");

    /* HANDLE: NULL, unknown, destroyed, or of another kind. */
    FAILS(pianola_play(NULL, song, PIANOLA_NOW, NULL, 0, 0), PIANOLA_ERROR_HANDLE, "pianola_soundtrack handle is NULL");
    FAILS(pianola_play((pianola_soundtrack *)(uintptr_t)0x12345, song, PIANOLA_NOW, NULL, 0, 0), PIANOLA_ERROR_HANDLE, "not a live");
    FAILS(pianola_play((pianola_soundtrack *)song, song, PIANOLA_NOW, NULL, 0, 0), PIANOLA_ERROR_HANDLE, "not a live pianola_soundtrack");

    /* STATE: a song still loading or failed, no song playing, a marker not reached again, the
       output already running or not running, a render while Pianola's own output plays. */
    snprintf(fifo, sizeof fifo, "%s/loading.mid", scratch);
    CHECK(mkfifo(fifo, 0600) == 0);   /* the loader waits on it until a writer comes */
    song_config.midi = path_source(fifo);
    OK(pianola_song_load(soundtrack, &song_config, &loading));
    FAILS(pianola_play(soundtrack, loading, PIANOLA_NOW, NULL, 0, 0), PIANOLA_ERROR_STATE, "is still loading");
    size_t town_size;
    void *town = read_file("songs/town.mid", &town_size);
    FILE *writer = fopen(fifo, "wb");
    CHECK(writer != NULL && fwrite(town, 1, town_size, writer) == town_size);
    fclose(writer);
    free(town);
    OK(pianola_song_wait(loading));
    song_config.midi = bytes_source("junk", 4, "junk.mid");
    OK(pianola_song_load(soundtrack, &song_config, &broken));
    FAILS(pianola_song_wait(broken), PIANOLA_ERROR_FILE, "junk.mid");
    FAILS(pianola_play(soundtrack, broken, PIANOLA_NOW, NULL, 0, 0), PIANOLA_ERROR_STATE, "did not load");
    OK(pianola_stop(soundtrack, PIANOLA_NOW, NULL, 0));
    OK(pianola_render_f32(soundtrack, buffer, 64));
    FAILS(pianola_jump(soundtrack, "verse", PIANOLA_NEXT_BAR, NULL), PIANOLA_ERROR_STATE, "no song is playing");
    pianola_song *once = NULL;   /* town without its loop: past its verse marker, it does not come again */
    song_config.midi = path_source("songs/town.mid");
    song_config.loop = 0;
    OK(pianola_song_load(soundtrack, &song_config, &once));
    OK(pianola_song_wait(once));
    OK(pianola_play(soundtrack, once, PIANOLA_NOW, NULL, 0, 0));
    float *past = malloc(2 * 48000 * 3 * sizeof(float));
    OK(pianola_render_f32(soundtrack, past, 48000 * 3));
    free(past);
    FAILS(pianola_stop(soundtrack, PIANOLA_AT_MARKER, "verse", 0), PIANOLA_ERROR_STATE, "does not reach a marker 'verse' again");
    OK(pianola_song_destroy(once));
    FAILS(pianola_output_stop(soundtrack), PIANOLA_ERROR_STATE, "not running");
    OK(pianola_output_start_driver(soundtrack, PIANOLA_DRIVER_ALSA, "null", 256, 3));
    FAILS(pianola_output_start_driver(soundtrack, PIANOLA_DRIVER_ALSA, "null", 256, 3), PIANOLA_ERROR_STATE, "already");
    FAILS(pianola_render_f32(soundtrack, buffer, 64), PIANOLA_ERROR_STATE, "own output");
    OK(pianola_output_stop(soundtrack));

    /* FILE: a file or bytes that cannot be read or are not what they should be, an output file
       that cannot be written. */
    render.from = NULL;
    render.soundfont = path_source("/nonexistent.sf2");
    FAILS(pianola_renderer_create(&render, &renderer), PIANOLA_ERROR_FILE, "/nonexistent.sf2");
    render.soundfont = path_source(font);
    render.tail_seconds = 0;
    render.to = "2:1";
    snprintf(out, sizeof out, "%s/no/such/folder/out.wav", scratch);
    FAILS(pianola_render_file(&render, out, 0), PIANOLA_ERROR_FILE, "out.wav");

    /* DEVICE: an audio device that cannot be opened; no ALSA sequencer, or a MIDI port not there. */
    FAILS(pianola_output_start_driver(soundtrack, PIANOLA_DRIVER_ALSA, "no-such-device", 0, 0), PIANOLA_ERROR_DEVICE, "no-such-device");
    pianola_midi_port port;
    size_t count = 0;
    pianola_status sequencer = pianola_midi_ports(&port, 1, &count);
    CHECK(access("/dev/snd/seq", F_OK) == 0 ? sequencer == PIANOLA_OK : sequencer == PIANOLA_ERROR_DEVICE);

    /* BUSY: 256 sound starts waiting (the audio side takes them as it renders). */
    pianola_source click = path_source(effect_path);
    OK(pianola_sound_load(soundtrack, &click, &sound));
    OK(pianola_sound_wait(sound));
    pianola_status started = PIANOLA_OK;
    int starts = 0;
    while (started == PIANOLA_OK && starts < 1000) {
        started = pianola_play_sound(soundtrack, sound, PIANOLA_NOW, NULL, 1, 0);
        starts += started == PIANOLA_OK;
    }
    CHECK(started == PIANOLA_ERROR_BUSY && starts == 256 && strstr(pianola_last_error(), "256 sound starts already wait for the audio; pull audio") != NULL);
    OK(pianola_render_f32(soundtrack, buffer, 64));
    OK(pianola_play_sound(soundtrack, sound, PIANOLA_NOW, NULL, 1, 0));

    OK(pianola_sound_destroy(sound));
    OK(pianola_song_destroy(song));
    OK(pianola_song_destroy(loading));
    OK(pianola_song_destroy(broken));
    OK(pianola_soundtrack_destroy(soundtrack));
}

/* MIDI ports where this machine has no sequencer (the ALSA VM plays to Midi Through: see
   midi_through.c): one line saying so, and the mistakes found before any port is looked for. */
void midi_ports(void) {
    pianola_midi_port ports[8];
    pianola_midi_config midi;
    pianola_render_config config;
    size_t count = 0;
    FAILS(pianola_midi_ports(ports, 8, NULL), PIANOLA_ERROR_ARGUMENT, "count is NULL");
    FAILS(pianola_midi_ports(NULL, 8, &count), PIANOLA_ERROR_ARGUMENT, "ports is NULL");
    pianola_status listed = pianola_midi_ports(ports, 8, &count);
    if (access("/dev/snd/seq", F_OK) == 0) CHECK(listed == PIANOLA_OK);
    else FAILS(listed, PIANOLA_ERROR_DEVICE, "no ALSA sequencer: /dev/snd/seq is missing (load it: modprobe snd-seq)");
    FAILS(pianola_midi_config_init(NULL), PIANOLA_ERROR_ARGUMENT, "config is NULL");
    OK(pianola_midi_config_init(&midi));
    CHECK(midi.struct_size == sizeof midi && midi.timecode_rate == 30 && midi.port == NULL);
    OK(pianola_render_config_init(&config));
    config.midi = path_source(song_path);
    config.soundfont = path_source(font);
    const char *routes[] = {"track9=14:0"}, *nothing[] = {NULL};
    midi.routes = routes;
    midi.route_count = 1;
    FAILS(pianola_play_file_midi(&config, &midi, PIANOLA_DRIVER_ALSA, "null"), PIANOLA_ERROR_ARGUMENT,
          "routes[0] track9=14:0: 'track9' is not a track of this song or range of them within 1-5");
    midi.routes = nothing;
    FAILS(pianola_play_file_midi(&config, &midi, PIANOLA_DRIVER_ALSA, "null"), PIANOLA_ERROR_ARGUMENT, "routes[0] is NULL");
    midi.route_count = 0;
    midi.timecode_rate = 29;
    FAILS(pianola_play_file_midi(&config, &midi, PIANOLA_DRIVER_ALSA, "null"), PIANOLA_ERROR_ARGUMENT, "timecode_rate 29: use 24, 25, 2997");
    midi.timecode_rate = 30;
    midi.struct_size = 4;
    FAILS(pianola_play_file_midi(&config, &midi, PIANOLA_DRIVER_ALSA, "null"), PIANOLA_ERROR_ARGUMENT, "pianola_midi_config.struct_size is 4");
    OK(pianola_midi_config_init(&midi));
    midi.port = "Midi Through";
    if (access("/dev/snd/seq", F_OK) != 0)
        FAILS(pianola_play_file_midi(&config, &midi, PIANOLA_DRIVER_ALSA, "null"), PIANOLA_ERROR_DEVICE, "no ALSA sequencer");
}

/* Reads a renderer to its end; returns the frames, the peak into *peak. */
static size_t read_all(pianola_renderer *renderer, float *peak) {
    float *buffer = malloc(2 * 8192 * sizeof(float));
    size_t got = 0, total = 0;
    *peak = 0;
    do {
        OK(pianola_renderer_read(renderer, buffer, 8192, &got));
        *peak = fmaxf(*peak, peak_of(buffer, 2 * got));
        total += got;
    } while (got > 0);
    free(buffer);
    return total;
}

/* What a data pipeline asks of one render: a shared font, a range, a transposition, mutes
   and solos, the tracks, and labels of the notes on the frames they sounded. */
void offline_choices(void) {
    pianola_render_config config;
    pianola_renderer *renderer = NULL;
    pianola_soundfont *shared = NULL;
    pianola_source bytes = bytes_source("x", 1, "x.sf2");
    pianola_track_info info;
    pianola_note_label labels[256];
    size_t count = 0;
    int32_t tracks = 0, melody[] = {2}, nine[] = {9};
    float peak = 0;

    FAILS(pianola_soundfont_load(&bytes, PIANOLA_SYNTH_DEFAULT, &shared), PIANOLA_ERROR_ARGUMENT, "give path");
    pianola_source missing = path_source("/nonexistent.sf2");
    FAILS(pianola_soundfont_load(&missing, PIANOLA_SYNTH_DEFAULT, &shared), PIANOLA_ERROR_FILE, "/nonexistent.sf2");
    pianola_source good = path_source(font);
    FAILS(pianola_soundfont_load(&good, 7, &shared), PIANOLA_ERROR_ARGUMENT, "synth 7");
    OK(pianola_soundfont_load(&good, PIANOLA_SYNTH_DEFAULT, &shared));

    OK(pianola_render_config_init(&config));
    config.midi = path_source(song_path);
    config.loaded_soundfont = shared;
    config.tail_seconds = 0.5;
    config.from = "3:1";
    config.to = "5:1";
    config.labels = 1;
    OK(pianola_renderer_create(&config, &renderer));
    OK(pianola_renderer_track_count(renderer, &tracks));
    CHECK(tracks >= 2);
    FAILS(pianola_renderer_track(renderer, 0, &info), PIANOLA_ERROR_ARGUMENT, "track 0: the song has tracks 1 to");
    OK(pianola_renderer_track(renderer, 2, &info));
    CHECK(info.notes > 0 && info.channels != 0);
    size_t frames = read_all(renderer, &peak);
    FAILS(pianola_renderer_labels(renderer, NULL, 4, &count), PIANOLA_ERROR_ARGUMENT, "labels is NULL");
    OK(pianola_renderer_labels(renderer, NULL, 0, &count));
    size_t all = count;
    CHECK(all > 4 && all <= 256);
    OK(pianola_renderer_labels(renderer, labels, 256, &count));
    int inside = 1;
    for (size_t i = 0; i < count && i < 256; i++)
        inside &= labels[i].start_frame >= 0 && labels[i].end_frame <= (int64_t)frames && labels[i].start_frame < labels[i].end_frame
            && labels[i].channel >= 1 && labels[i].channel <= 16 && labels[i].velocity > 0;
    CHECK(count == all && inside && peak > 0.01f);
    /* Bars 3 and 4 at ode's tempo, then at most the half-second tail. */
    printf("offline choices: bars 3-4 rendered as %zu frames with %zu labelled notes\n", frames, all);
    OK(pianola_renderer_destroy(renderer));

    config.transpose = 12;
    config.solo_tracks = melody;
    config.solo_track_count = 1;
    OK(pianola_renderer_create(&config, &renderer));
    read_all(renderer, &peak);
    OK(pianola_renderer_labels(renderer, labels, 256, &count));
    CHECK(count > 0 && count < all && labels[0].key >= 60 + 12 - 12);   /* the melody alone, an octave up */
    OK(pianola_renderer_destroy(renderer));

    config.solo_track_count = 0;
    config.mute_channels = 0xFFFF;
    OK(pianola_renderer_create(&config, &renderer));
    read_all(renderer, &peak);
    OK(pianola_renderer_labels(renderer, labels, 256, &count));
    CHECK(count == 0);
    OK(pianola_renderer_destroy(renderer));

    config.mute_channels = 1u << 16;
    FAILS(pianola_renderer_create(&config, &renderer), PIANOLA_ERROR_ARGUMENT, "mute_channels 0x10000");
    config.mute_channels = 0;
    config.solo_tracks = nine;
    config.solo_track_count = 1;
    FAILS(pianola_renderer_create(&config, &renderer), PIANOLA_ERROR_ARGUMENT, "solo_tracks[0] 9: the song has tracks 1 to");
    config.solo_track_count = 0;
    config.transpose = 49;
    FAILS(pianola_renderer_create(&config, &renderer), PIANOLA_ERROR_ARGUMENT, "transpose 49");
    config.transpose = 0;
    config.from = "99:1";
    FAILS(pianola_renderer_create(&config, &renderer), PIANOLA_ERROR_ARGUMENT, "from \"99:1\"");
    config.from = "soon";
    FAILS(pianola_renderer_create(&config, &renderer), PIANOLA_ERROR_ARGUMENT, "from \"soon\": give seconds (12.5) or bar:beat (3:1)");
    config.from = "5:1";
    config.to = "3:1";
    FAILS(pianola_renderer_create(&config, &renderer), PIANOLA_ERROR_ARGUMENT, "to \"3:1\" is not after from");
    config.from = NULL;
    config.to = NULL;
    config.struct_size = offsetof(pianola_render_config, loaded_soundfont);   /* a 0.2.0 config */
    config.soundfont = path_source(font);
    OK(pianola_renderer_create(&config, &renderer));
    OK(pianola_renderer_labels(renderer, labels, 256, &count));
    CHECK(count == 0);   /* 0.2.0 had no labels */
    OK(pianola_renderer_destroy(renderer));
    OK(pianola_soundfont_destroy(shared));
    FAILS(pianola_soundfont_destroy(shared), PIANOLA_ERROR_HANDLE, "pianola_soundfont");
}

/* The game of issue 31 again: town plays, battle follows on town's next bar, 20 s pulled in
   blocks of 1000 frames; after each block the position agrees with the songs' tempo maps to
   the frame (town: 112 bpm, battle: 150 bpm looping its 6.4 s = 307200 frames), and the
   switch is reported by SONG_STOPPED and SONG_STARTED on its frame, before battle's bar 1. */
static pianola_song *load_song(pianola_soundtrack *soundtrack, const char *path) {
    pianola_song_config config;
    pianola_song *song = NULL;
    pianola_song_config_init(&config);
    config.midi = path_source(path);
    config.soundfont = path_source(font);
    OK(pianola_song_load(soundtrack, &config, &song));
    OK(pianola_song_wait(song));
    return song;
}

void where_the_music_is(void) {
    enum { block = 1000, rate = 48000, battle_loop = 307200 };
    pianola_soundtrack_config config;
    pianola_soundtrack *soundtrack = NULL;
    pianola_position p;
    pianola_event polled[32];
    size_t count;
    pianola_soundtrack_config_init(&config);
    OK(pianola_soundtrack_create(&config, &soundtrack));
    pianola_song *town = load_song(soundtrack, "songs/town.mid"), *battle = load_song(soundtrack, "songs/battle.mid");

    FAILS(pianola_position_init(NULL), PIANOLA_ERROR_ARGUMENT, "position is NULL");
    OK(pianola_position_init(&p));
    CHECK(p.struct_size == sizeof p);
    FAILS(pianola_soundtrack_position(NULL, &p), PIANOLA_ERROR_HANDLE, "NULL");
    FAILS(pianola_soundtrack_position(soundtrack, NULL), PIANOLA_ERROR_ARGUMENT, "position is NULL");
    p.struct_size = 8;
    FAILS(pianola_soundtrack_position(soundtrack, &p), PIANOLA_ERROR_ARGUMENT, "pianola_position.struct_size is 8");
    OK(pianola_position_init(&p));
    OK(pianola_soundtrack_position(soundtrack, &p));
    CHECK(p.song == NULL && p.sample_time == 0 && p.bar == 0 && p.bpm == 0 && p.section[0] == '\0');

    OK(pianola_play(soundtrack, town, PIANOLA_NOW, NULL, 0, 0));
    float *audio = malloc(2 * block * sizeof(float));
    int64_t rendered = 0, town_started = -1, town_stopped = -1, battle_started = -1, battle_bar = -1;
    int asked = 0, agreed = 0, blocks = 20 * rate / block, started_first = 0, wraps = 0;
    for (int b = 0; b < blocks; b++) {
        OK(pianola_render_f32(soundtrack, audio, block));
        rendered += block;
        if (!asked && rendered >= 6 * rate) {
            OK(pianola_play(soundtrack, battle, PIANOLA_NEXT_BAR, NULL, 0, 0));
            asked = 1;
        }
        do {
            OK(pianola_poll_events(soundtrack, polled, 32, &count));
            for (size_t i = 0; i < count; i++) {
                const pianola_event *e = &polled[i];
                if (e->type == PIANOLA_EVENT_SONG_STARTED && e->song == town) town_started = e->sample_time;
                if (e->type == PIANOLA_EVENT_SONG_STARTED && e->song == battle) battle_started = e->sample_time;
                if (e->type == PIANOLA_EVENT_SONG_STOPPED && e->song == town) town_stopped = e->sample_time;
                if (e->type == PIANOLA_EVENT_LOOP_WRAPPED && e->song == battle) wraps++;
                if (e->type == PIANOLA_EVENT_BAR && e->song == battle && battle_bar < 0) {
                    battle_bar = e->sample_time;
                    started_first = battle_started == e->sample_time && e->bar == 1;
                }
            }
        } while (count > 0);
        OK(pianola_soundtrack_position(soundtrack, &p));
        int on_battle = battle_started >= 0 && rendered >= battle_started;
        int64_t frame = on_battle ? (rendered - battle_started) % battle_loop : rendered;
        double quarter = on_battle ? 0.4 : 0.535714;   /* the files' tempos: 400000 and 535714 µs a quarter */
        double bpm = 60 / quarter, quarters = (double)frame / rate / quarter;
        int beat = (int)fmod(quarters, 4) + 1, bar = (int)(quarters / 4) + 1;
        double off_grid = fabs(quarters * 480 - round(quarters * 480));   /* a tick's rounding decides the beat */
        int ok = p.sample_time == rendered && p.song == (on_battle ? battle : town) && p.song_frame == frame
            && fabs(p.seconds - (double)frame / rate) < 1e-12 && fabs(p.bpm - bpm) < 1e-9
            && p.beats_per_bar == 4 && p.beat_unit == 4
            && (off_grid < 1e-3 || (p.bar == bar && p.beat == beat && fabs(p.beat_fraction - (quarters - floor(quarters))) < 1e-3));
        agreed += ok;
        if (!ok)
            fprintf(stderr, "block %d: position %s frame %lld %.6f s bar %d beat %d+%.4f bpm %.3f, expected %s frame %lld bar %d beat %d+%.4f bpm %.3f\n", b,
                    p.song == town ? "town" : p.song == battle ? "battle" : "?", (long long)p.song_frame, p.seconds, p.bar, p.beat, p.beat_fraction, p.bpm,
                    on_battle ? "battle" : "town", (long long)frame, bar, beat, quarters - floor(quarters), bpm);
    }
    CHECK(agreed == blocks);
    CHECK(town_started == 0);
    CHECK(llabs(battle_started - 308571) <= 1);   /* town's bar 4: 12 quarters at 112 bpm */
    CHECK(town_stopped == battle_started && battle_bar == battle_started && started_first);
    CHECK(wraps == 2);
    printf("position: %d blocks of %d frames agree with the tempo maps; battle started on frame %lld (town's bar 4)\n",
           agreed, block, (long long)battle_started);
    free(audio);
    OK(pianola_song_destroy(town));
    OK(pianola_song_destroy(battle));
    OK(pianola_soundtrack_destroy(soundtrack));
}
