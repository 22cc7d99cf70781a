/*
 * Calls every function of pianola.h with good and with bad arguments: each bad call must
 * return its error code and leave a one-line message; good calls must do what they say
 * (songs that load and sound, events that name their song's handle, renders that agree).
 * Then 1,000 create/load/render/destroy cycles. Built with -fsanitize=address,undefined, so
 * a crash, an overflow or a leak fails it.
 *
 *   api_test FONT.sf2 SONG.mid EFFECT.wav SCRATCH_DIR
 */
/* setenv: POSIX, not C99. */
#define _POSIX_C_SOURCE 200112L

#include <pianola.h>

#include <math.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int checks, failures;

#define CHECK(condition)                                                                                   \
    do {                                                                                                   \
        checks++;                                                                                          \
        if (!(condition)) {                                                                                \
            failures++;                                                                                    \
            fprintf(stderr, "%s:%d: failed: %s (last error: %s)\n", __FILE__, __LINE__, #condition,        \
                    pianola_last_error());                                                                 \
        }                                                                                                  \
    } while (0)

/* A call that must succeed. */
#define OK(call) CHECK((call) == PIANOLA_OK)

/* A call that must fail with `code` and leave one non-empty line that mentions `words`. */
#define FAILS(call, code, words) expect_failure((call), (code), (words), #call, __LINE__)

static void expect_failure(pianola_status status, pianola_status code, const char *words, const char *call, int line) {
    const char *message = pianola_last_error();
    checks++;
    if (status != code || message[0] == '\0' || strchr(message, '\n') != NULL || strstr(message, words) == NULL) {
        failures++;
        fprintf(stderr, "%s:%d: %s returned %d (wanted %d), message \"%s\" (wanted one line with \"%s\")\n",
                __FILE__, line, call, (int)status, (int)code, message, words);
    }
}

/* The whole file at `path`, malloc'd; its length in *size. */
static void *read_file(const char *path, size_t *size) {
    FILE *file = fopen(path, "rb");
    if (file == NULL) { perror(path); exit(2); }
    fseek(file, 0, SEEK_END);
    *size = (size_t)ftell(file);
    fseek(file, 0, SEEK_SET);
    void *bytes = malloc(*size);
    if (fread(bytes, 1, *size, file) != *size) { perror(path); exit(2); }
    fclose(file);
    return bytes;
}

static pianola_source path_source(const char *path) {
    pianola_source source = {path, NULL, 0, NULL};
    return source;
}

static pianola_source bytes_source(const void *data, size_t size, const char *name) {
    pianola_source source = {NULL, data, size, name};
    return source;
}

static float peak_of(const float *samples, size_t count) {
    float peak = 0;
    for (size_t i = 0; i < count; i++) peak = fmaxf(peak, fabsf(samples[i]));
    return peak;
}

static const char *font, *song_path, *effect_path, *scratch;

static void version_and_errors(void) {
    CHECK(strcmp(pianola_version(), PIANOLA_VERSION_STRING) == 0);
    CHECK(PIANOLA_VERSION == PIANOLA_VERSION_NUMBER(PIANOLA_VERSION_MAJOR, PIANOLA_VERSION_MINOR, PIANOLA_VERSION_PATCH));
    CHECK(pianola_last_error() != NULL);
}

static pianola_soundtrack *soundtrack_configs(void) {
    pianola_soundtrack_config config;
    pianola_soundtrack *soundtrack = NULL;
    FAILS(pianola_soundtrack_config_init(NULL), PIANOLA_ERROR_ARGUMENT, "config is NULL");
    OK(pianola_soundtrack_config_init(&config));
    CHECK(config.struct_size == sizeof config && config.sample_rate == 48000 && config.max_frames == 4096 && config.limiter == 1);
    FAILS(pianola_soundtrack_create(NULL, &soundtrack), PIANOLA_ERROR_ARGUMENT, "config is NULL");
    FAILS(pianola_soundtrack_create(&config, NULL), PIANOLA_ERROR_ARGUMENT, "soundtrack is NULL");
    config.struct_size = 12;
    FAILS(pianola_soundtrack_create(&config, &soundtrack), PIANOLA_ERROR_ARGUMENT, "struct_size is 12");
    OK(pianola_soundtrack_config_init(&config));
    config.sample_rate = 0;
    FAILS(pianola_soundtrack_create(&config, &soundtrack), PIANOLA_ERROR_ARGUMENT, "sample_rate 0");
    OK(pianola_soundtrack_config_init(&config));
    config.max_frames = INT32_MAX;
    FAILS(pianola_soundtrack_create(&config, &soundtrack), PIANOLA_ERROR_ARGUMENT, "max_frames");
    OK(pianola_soundtrack_config_init(&config));
    config.gain = NAN;
    FAILS(pianola_soundtrack_create(&config, &soundtrack), PIANOLA_ERROR_ARGUMENT, "gain");
    CHECK(soundtrack == NULL);
    OK(pianola_soundtrack_config_init(&config));
    CHECK(config.synth == PIANOLA_SYNTH_DEFAULT);
    config.synth = 9;
    FAILS(pianola_soundtrack_create(&config, &soundtrack), PIANOLA_ERROR_ARGUMENT, "synth 9");
    config.struct_size = offsetof(pianola_soundtrack_config, synth);   /* a 0.2.0 config */
    OK(pianola_soundtrack_create(&config, &soundtrack));
    OK(pianola_soundtrack_destroy(soundtrack));
    soundtrack = NULL;
    OK(pianola_soundtrack_config_init(&config));
    config.reverb = 0;
    config.chorus = 0;
    config.limiter = 0;
    OK(pianola_soundtrack_create(&config, &soundtrack));
    CHECK(soundtrack != NULL);
    return soundtrack;
}

static pianola_song *songs(pianola_soundtrack *soundtrack, pianola_song **failed) {
    pianola_song_config config;
    pianola_song *song = NULL, *from_memory = NULL;
    pianola_load_state state = -1;
    size_t midi_size, font_size;
    void *midi = read_file(song_path, &midi_size), *font_bytes = read_file(font, &font_size);
    const char *layers[] = {"Strings", "Bass"};
    const char *no_such_layer[] = {"Kazoo"};
    pianola_stem stems[] = {{"click", {effect_path, NULL, 0, NULL}}};

    FAILS(pianola_song_config_init(NULL), PIANOLA_ERROR_ARGUMENT, "NULL");
    OK(pianola_song_config_init(&config));
    CHECK(config.struct_size == sizeof config && config.loop == 1 && config.midi.path == NULL);
    FAILS(pianola_song_load(soundtrack, &config, &song), PIANOLA_ERROR_ARGUMENT, "midi names no file");
    config.midi = path_source(song_path);
    config.soundfont = path_source(font);
    FAILS(pianola_song_load(NULL, &config, &song), PIANOLA_ERROR_HANDLE, "handle is NULL");
    FAILS(pianola_song_load(soundtrack, NULL, &song), PIANOLA_ERROR_ARGUMENT, "config is NULL");
    FAILS(pianola_song_load(soundtrack, &config, NULL), PIANOLA_ERROR_ARGUMENT, "song is NULL");
    config.midi.data = midi;
    FAILS(pianola_song_load(soundtrack, &config, &song), PIANOLA_ERROR_ARGUMENT, "both a path and data");
    config.midi = bytes_source(midi, 0, "empty");
    FAILS(pianola_song_load(soundtrack, &config, &song), PIANOLA_ERROR_ARGUMENT, "midi.size 0");
    config.midi = path_source(song_path);
    config.stem_count = 1;
    FAILS(pianola_song_load(soundtrack, &config, &song), PIANOLA_ERROR_ARGUMENT, "stems");
    config.stems = stems;
    config.track_layer_count = 2;
    FAILS(pianola_song_load(soundtrack, &config, &song), PIANOLA_ERROR_ARGUMENT, "track_layers");
    config.track_layers = layers;
    config.struct_size = 4;
    FAILS(pianola_song_load(soundtrack, &config, &song), PIANOLA_ERROR_ARGUMENT, "struct_size is 4");
    config.struct_size = sizeof config;
    CHECK(song == NULL);

    /* By path, with layers and a stem. */
    OK(pianola_song_load(soundtrack, &config, &song));
    FAILS(pianola_song_state(song, NULL), PIANOLA_ERROR_ARGUMENT, "state is NULL");
    FAILS(pianola_song_state(NULL, &state), PIANOLA_ERROR_HANDLE, "NULL");
    FAILS(pianola_song_state((pianola_song *)soundtrack, &state), PIANOLA_ERROR_HANDLE, "not a live pianola_song");
    OK(pianola_song_wait(song));
    OK(pianola_song_state(song, &state));
    CHECK(state == PIANOLA_READY);

    /* From memory, freed as soon as the call returns. */
    pianola_song_config memory;
    OK(pianola_song_config_init(&memory));
    memory.midi = bytes_source(midi, midi_size, "ode bytes");
    memory.soundfont = bytes_source(font_bytes, font_size, "font bytes");
    OK(pianola_song_load(soundtrack, &memory, &from_memory));
    free(midi);
    free(font_bytes);
    OK(pianola_song_wait(from_memory));
    OK(pianola_song_destroy(from_memory));
    FAILS(pianola_song_destroy(from_memory), PIANOLA_ERROR_HANDLE, "not a live pianola_song");
    FAILS(pianola_song_wait(from_memory), PIANOLA_ERROR_HANDLE, "not a live pianola_song");

    /* Bad bytes load "successfully" (it is asynchronous) and then fail, with the reason. */
    static const unsigned char junk[] = "this is not a MIDI file";
    memory.midi = bytes_source(junk, sizeof junk, "junk.mid");
    memory.soundfont = path_source(font);
    OK(pianola_song_load(soundtrack, &memory, failed));
    FAILS(pianola_song_wait(*failed), PIANOLA_ERROR_FILE, "junk.mid: byte ");
    OK(pianola_song_state(*failed, &state));
    CHECK(state == PIANOLA_FAILED && strstr(pianola_last_error(), "junk.mid") != NULL);

    /* A layer the song does not have. */
    pianola_song *no_layer = NULL;
    config.track_layers = no_such_layer;
    config.track_layer_count = 1;
    OK(pianola_song_load(soundtrack, &config, &no_layer));
    FAILS(pianola_song_wait(no_layer), PIANOLA_ERROR_ARGUMENT, "no track is named 'Kazoo'");
    OK(pianola_song_destroy(no_layer));
    return song;
}

static pianola_sound *effects(pianola_soundtrack *soundtrack, pianola_sound **failed) {
    pianola_sound *effect = NULL, *from_memory = NULL;
    pianola_load_state state = -1;
    pianola_source source = path_source(effect_path);
    size_t size;
    void *bytes = read_file(effect_path, &size);
    FAILS(pianola_sound_load(soundtrack, NULL, &effect), PIANOLA_ERROR_ARGUMENT, "source is NULL");
    FAILS(pianola_sound_load(soundtrack, &source, NULL), PIANOLA_ERROR_ARGUMENT, "sound is NULL");
    OK(pianola_sound_load(soundtrack, &source, &effect));
    OK(pianola_sound_wait(effect));
    OK(pianola_sound_state(effect, &state));
    CHECK(state == PIANOLA_READY);
    source = bytes_source(bytes, size, "sting bytes");
    OK(pianola_sound_load(soundtrack, &source, &from_memory));
    free(bytes);
    OK(pianola_sound_wait(from_memory));
    OK(pianola_sound_destroy(from_memory));
    FAILS(pianola_sound_destroy(from_memory), PIANOLA_ERROR_HANDLE, "pianola_sound");
    FAILS(pianola_sound_state(from_memory, &state), PIANOLA_ERROR_HANDLE, "pianola_sound");
    static const unsigned char noise[] = {1, 2, 3, 4, 5, 6, 7, 8};
    source = bytes_source(noise, sizeof noise, "noise.wav");
    OK(pianola_sound_load(soundtrack, &source, failed));
    FAILS(pianola_sound_wait(*failed), PIANOLA_ERROR_FILE, "noise.wav: not an audio file");
    OK(pianola_sound_state(*failed, &state));
    CHECK(state == PIANOLA_FAILED);
    return effect;
}

static void transport(pianola_soundtrack *soundtrack, pianola_song *song, pianola_song *failed, pianola_sound *effect,
                      pianola_sound *failed_effect) {
    /* Wrong state before anything plays. */
    FAILS(pianola_set_layer(soundtrack, "Strings", 0, 0, PIANOLA_NOW, NULL), PIANOLA_ERROR_STATE, "no song is playing");
    OK(pianola_stop(soundtrack, PIANOLA_AT_MARKER, "end", 0)); /* nothing plays: nothing to stop */
    FAILS(pianola_stop(soundtrack, -1, NULL, 0), PIANOLA_ERROR_ARGUMENT, "moment -1");
    FAILS(pianola_jump(soundtrack, "verse", PIANOLA_NEXT_BAR, NULL), PIANOLA_ERROR_STATE, "no song is playing");
    FAILS(pianola_jump(soundtrack, NULL, PIANOLA_NEXT_BAR, NULL), PIANOLA_ERROR_ARGUMENT, "section");
    FAILS(pianola_jump(soundtrack, "verse", PIANOLA_SECTION_END, NULL), PIANOLA_ERROR_STATE, "no song is playing");
    FAILS(pianola_play_stinger(soundtrack, failed, PIANOLA_NEXT_BEAT, NULL, 0, 1), PIANOLA_ERROR_STATE, "did not load");
    FAILS(pianola_play_stinger(soundtrack, song, PIANOLA_NEXT_BEAT, NULL, 0, -1), PIANOLA_ERROR_ARGUMENT, "stinger volume");
    FAILS(pianola_stop(soundtrack, PIANOLA_NOW, NULL, NAN), PIANOLA_ERROR_ARGUMENT, "fade-out");
    FAILS(pianola_stop((pianola_soundtrack *)effect, PIANOLA_NOW, NULL, 0), PIANOLA_ERROR_HANDLE, "not a live pianola_soundtrack");
    FAILS(pianola_crossfade(soundtrack, failed, 1, PIANOLA_NOW, NULL), PIANOLA_ERROR_STATE, "did not load");
    FAILS(pianola_set_tempo(NULL, 100), PIANOLA_ERROR_HANDLE, "NULL");
    FAILS(pianola_set_transpose(NULL, 0), PIANOLA_ERROR_HANDLE, "NULL");
    FAILS(pianola_set_master_volume(NULL, 1, 0), PIANOLA_ERROR_HANDLE, "NULL");
    FAILS(pianola_play(soundtrack, failed, PIANOLA_NOW, NULL, 0, 0), PIANOLA_ERROR_STATE, "did not load");
    FAILS(pianola_play(soundtrack, NULL, PIANOLA_NOW, NULL, 0, 0), PIANOLA_ERROR_HANDLE, "pianola_song handle is NULL");
    FAILS(pianola_play(soundtrack, song, 99, NULL, 0, 0), PIANOLA_ERROR_ARGUMENT, "moment 99");
    FAILS(pianola_play(soundtrack, song, PIANOLA_AT_MARKER, NULL, 0, 0), PIANOLA_ERROR_ARGUMENT, "marker is NULL");
    FAILS(pianola_play(soundtrack, song, PIANOLA_NOW, NULL, -1, 0), PIANOLA_ERROR_ARGUMENT, "fade-in of -1");
    FAILS(pianola_play(soundtrack, song, PIANOLA_NOW, NULL, 0, INFINITY), PIANOLA_ERROR_ARGUMENT, "fade-out");
    OK(pianola_play(soundtrack, song, PIANOLA_NOW, NULL, 0, 0));
    FAILS(pianola_play(soundtrack, song, PIANOLA_AT_MARKER, "no such marker", 0, 0), PIANOLA_ERROR_ARGUMENT, "has no marker 'no such marker' (");
    FAILS(pianola_crossfade(soundtrack, song, -2, PIANOLA_NEXT_BAR, NULL), PIANOLA_ERROR_ARGUMENT, "-2");
    OK(pianola_crossfade(soundtrack, song, 0.5, PIANOLA_NEXT_BAR, NULL));
    FAILS(pianola_set_tempo(soundtrack, 0), PIANOLA_ERROR_ARGUMENT, "tempo 0%");
    FAILS(pianola_set_tempo(soundtrack, 5000), PIANOLA_ERROR_ARGUMENT, "tempo 5000%");
    OK(pianola_set_tempo(soundtrack, 100));
    FAILS(pianola_set_transpose(soundtrack, 100), PIANOLA_ERROR_ARGUMENT, "100");
    OK(pianola_set_transpose(soundtrack, 0));
    FAILS(pianola_set_layer(soundtrack, NULL, 1, 0, PIANOLA_NOW, NULL), PIANOLA_ERROR_ARGUMENT, "layer is NULL");
    FAILS(pianola_set_layer(soundtrack, "Kazoo", 1, 0, PIANOLA_NOW, NULL), PIANOLA_ERROR_ARGUMENT, "no layer 'Kazoo'");
    FAILS(pianola_set_layer(soundtrack, "Strings", NAN, 0, PIANOLA_NOW, NULL), PIANOLA_ERROR_ARGUMENT, "volume");
    OK(pianola_set_layer(soundtrack, "strings", 0.5f, 1, PIANOLA_NEXT_BEAT, NULL));
    OK(pianola_set_layer(soundtrack, "click", 0.8f, 0, PIANOLA_NOW, NULL));
    FAILS(pianola_set_master_volume(soundtrack, -1, 0), PIANOLA_ERROR_ARGUMENT, "master volume -1");
    FAILS(pianola_set_master_volume(soundtrack, 1, NAN), PIANOLA_ERROR_ARGUMENT, "fade");
    OK(pianola_set_master_volume(soundtrack, 0.9f, 0.01));
    FAILS(pianola_play_sound(soundtrack, failed_effect, PIANOLA_NOW, NULL, 1, 0), PIANOLA_ERROR_STATE, "did not load");
    FAILS(pianola_play_sound(soundtrack, NULL, PIANOLA_NOW, NULL, 1, 0), PIANOLA_ERROR_HANDLE, "pianola_sound");
    FAILS(pianola_play_sound(soundtrack, effect, PIANOLA_NOW, NULL, 1, 2), PIANOLA_ERROR_ARGUMENT, "pan 2");
    OK(pianola_play_sound(soundtrack, effect, PIANOLA_NEXT_BAR, NULL, 0.5f, -0.25f));
    OK(pianola_pause(soundtrack));
    OK(pianola_resume(soundtrack));
    FAILS(pianola_pause(NULL), PIANOLA_ERROR_HANDLE, "NULL");
    FAILS(pianola_resume((pianola_soundtrack *)song), PIANOLA_ERROR_HANDLE, "not a live pianola_soundtrack");
}

static void rendering(pianola_soundtrack *soundtrack, pianola_song *song) {
    enum { frames = 48000 };
    float *interleaved = calloc(2 * frames, sizeof(float));
    int16_t *shorts = calloc(2 * 1000, sizeof(int16_t));
    float left[1000], right[1000], peak = -1, rms = -1;
    FAILS(pianola_render_f32(NULL, interleaved, 10), PIANOLA_ERROR_HANDLE, "NULL");
    FAILS(pianola_render_f32((pianola_soundtrack *)song, interleaved, 10), PIANOLA_ERROR_HANDLE, "not a live");
    FAILS(pianola_render_f32(soundtrack, NULL, 10), PIANOLA_ERROR_ARGUMENT, "NULL");
    FAILS(pianola_render_f32(soundtrack, interleaved, SIZE_MAX), PIANOLA_ERROR_ARGUMENT, "frames 18446744073709551615");
    FAILS(pianola_render_f32(soundtrack, interleaved, (size_t)1 << 40), PIANOLA_ERROR_ARGUMENT, "at most");
    FAILS(pianola_render_s16(soundtrack, NULL, 10), PIANOLA_ERROR_ARGUMENT, "NULL");
    FAILS(pianola_render_planar(soundtrack, left, NULL, 10), PIANOLA_ERROR_ARGUMENT, "NULL");
    OK(pianola_render_f32(soundtrack, interleaved, 0));
    for (int second = 0; second < 3; second++) OK(pianola_render_f32(soundtrack, interleaved, frames));
    CHECK(peak_of(interleaved, 2 * frames) > 0.01f);
    OK(pianola_render_s16(soundtrack, shorts, 1000));
    OK(pianola_render_planar(soundtrack, left, right, 1000));
    CHECK(peak_of(left, 1000) > 0.001f && peak_of(right, 1000) > 0.001f);
    FAILS(pianola_meters(soundtrack, NULL, &rms), PIANOLA_ERROR_ARGUMENT, "peak is NULL");
    FAILS(pianola_meters(NULL, &peak, &rms), PIANOLA_ERROR_HANDLE, "NULL");
    OK(pianola_meters(soundtrack, &peak, &rms));
    CHECK(peak > 0 && rms > 0 && rms <= peak);
    free(interleaved);
    free(shorts);
}

static void events(pianola_soundtrack *soundtrack, pianola_song *song, pianola_song *failed, pianola_sound *effect) {
    pianola_event polled[8];
    size_t count = 99, total = 0;
    int loaded = 0, load_failed = 0, bars = 0, beats = 0, effect_loaded = 0;
    FAILS(pianola_poll_events(soundtrack, polled, 8, NULL), PIANOLA_ERROR_ARGUMENT, "count is NULL");
    FAILS(pianola_poll_events(soundtrack, NULL, 8, &count), PIANOLA_ERROR_ARGUMENT, "events is NULL");
    FAILS(pianola_poll_events(soundtrack, polled, SIZE_MAX, &count), PIANOLA_ERROR_ARGUMENT, "capacity");
    FAILS(pianola_poll_events(NULL, polled, 8, &count), PIANOLA_ERROR_HANDLE, "NULL");
    OK(pianola_poll_events(soundtrack, NULL, 0, &count));
    CHECK(count == 0);
    int64_t last = -1;
    do {
        OK(pianola_poll_events(soundtrack, polled, 8, &count));
        CHECK(count <= 8);
        for (size_t i = 0; i < count; i++) {
            const pianola_event *e = &polled[i];
            CHECK(e->sample_time >= last);
            last = e->sample_time;
            CHECK(memchr(e->text, '\0', sizeof e->text) != NULL);
            switch (e->type) {
            case PIANOLA_EVENT_SONG_LOADED: loaded += e->song == song; break;
            case PIANOLA_EVENT_SONG_LOAD_FAILED: load_failed += e->song == failed && strstr(e->text, "junk.mid") != NULL; break;
            case PIANOLA_EVENT_SOUND_LOADED: effect_loaded += e->sound == effect; break;
            case PIANOLA_EVENT_BAR: bars += e->song == song && e->beat == 1; break;
            case PIANOLA_EVENT_BEAT: beats += e->song == song && e->beat > 1; break;
            default: break;
            }
        }
        total += count;
    } while (count > 0);
    CHECK(loaded == 1 && load_failed == 1 && effect_loaded == 1);
    CHECK(bars >= 2 && beats >= 2 * bars - 2);
}

static void interactive(pianola_soundtrack *soundtrack, pianola_song *song, pianola_song *failed) {
    /* Game parameters: a glide read back half-way and at its end; refusals in one line. */
    double value = -1;
    const double xs[] = {0, 1}, ys[] = {0, 1}, cc[] = {0, 127}, tempo[] = {80, 120};
    const char *strings[] = {"strings"};
    FAILS(pianola_define_parameter(soundtrack, "intensity", 1, 0, 0), PIANOLA_ERROR_ARGUMENT, "must be below maximum");
    OK(pianola_define_parameter(soundtrack, "intensity", 0, 1, 0));
    FAILS(pianola_define_parameter(soundtrack, "Intensity", 0, 1, 0), PIANOLA_ERROR_ARGUMENT, "already defined");
    FAILS(pianola_map_parameter(soundtrack, "intensity", PIANOLA_TARGET_LAYER_VOLUME, NULL, 0, 0, 0, xs, ys, 2), PIANOLA_ERROR_ARGUMENT, "names[0]");
    FAILS(pianola_map_parameter(soundtrack, "intensity", PIANOLA_TARGET_CONTROLLER, NULL, 0, 74, 0, xs, cc, 2), PIANOLA_ERROR_ARGUMENT, "give channels 1 to 16");
    FAILS(pianola_map_parameter(soundtrack, "intensity", 99, NULL, 0, 0, 0, xs, ys, 2), PIANOLA_ERROR_ARGUMENT, "target 99");
    FAILS(pianola_map_parameter(soundtrack, "intensity", PIANOLA_TARGET_TEMPO, NULL, 0, 0, 0, xs, ys, 0), PIANOLA_ERROR_ARGUMENT, "count 0");
    FAILS(pianola_map_parameter(soundtrack, "speed", PIANOLA_TARGET_TEMPO, NULL, 0, 0, 0, xs, tempo, 2), PIANOLA_ERROR_ARGUMENT, "no parameter 'speed'");
    OK(pianola_map_parameter(soundtrack, "intensity", PIANOLA_TARGET_LAYER_VOLUME, strings, 1, 0, 0, xs, ys, 2));
    OK(pianola_map_parameter(soundtrack, "intensity", PIANOLA_TARGET_CONTROLLER, NULL, 0, 74, 0x0003, xs, cc, 2));
    FAILS(pianola_set_parameter(soundtrack, "intensity", 2, 0), PIANOLA_ERROR_ARGUMENT, "outside its range");
    FAILS(pianola_get_parameter(soundtrack, "intensity", NULL), PIANOLA_ERROR_ARGUMENT, "value is NULL");
    FAILS(pianola_get_parameter(soundtrack, "nothing", &value), PIANOLA_ERROR_ARGUMENT, "no parameter 'nothing'");
    OK(pianola_play(soundtrack, song, PIANOLA_NOW, NULL, 0, 0));
    float *audio = calloc(2 * 24000, sizeof(float));
    OK(pianola_render_f32(soundtrack, audio, 4800));
    OK(pianola_set_parameter(soundtrack, "intensity", 1, 1));
    OK(pianola_render_f32(soundtrack, audio, 24000));
    OK(pianola_get_parameter(soundtrack, "intensity", &value));
    CHECK(value > 0.4 && value < 0.7);
    OK(pianola_render_f32(soundtrack, audio, 24000));
    OK(pianola_render_f32(soundtrack, audio, 4800));
    OK(pianola_get_parameter(soundtrack, "intensity", &value));
    CHECK(value == 1);

    /* A transition rule, the move it makes, and the event that names it. */
    pianola_transition_rule rule = {.name = "again", .leave = PIANOLA_NEXT_BAR, .fade_out = 0.1, .fade_in = 0.1, .entry = PIANOLA_ENTER_SECTION_START};
    FAILS(pianola_set_transition(soundtrack, NULL, NULL, NULL, NULL, NULL), PIANOLA_ERROR_ARGUMENT, "rule is NULL");
    FAILS(pianola_set_transition(soundtrack, &rule, NULL, "verse", NULL, NULL), PIANOLA_ERROR_ARGUMENT, "a section needs its song");
    rule.entry = 9;
    FAILS(pianola_set_transition(soundtrack, &rule, song, NULL, song, NULL), PIANOLA_ERROR_ARGUMENT, "entry 9");
    rule.fade_shape = 7;
    rule.entry = PIANOLA_ENTER_SECTION_START;
    FAILS(pianola_set_transition(soundtrack, &rule, song, NULL, song, NULL), PIANOLA_ERROR_ARGUMENT, "fade_shape 7");
    rule.fade_shape = PIANOLA_FADE_EQUAL_POWER;
    rule.entry = PIANOLA_ENTER_AT_CUE;
    FAILS(pianola_set_transition(soundtrack, &rule, song, NULL, song, NULL), PIANOLA_ERROR_ARGUMENT, "entry_cue is NULL");
    rule.entry = PIANOLA_ENTER_SECTION_START;
    OK(pianola_set_transition(soundtrack, &rule, song, NULL, song, NULL));
    FAILS(pianola_transition(soundtrack, failed, NULL), PIANOLA_ERROR_STATE, "did not load");
    FAILS(pianola_transition(soundtrack, song, "nowhere"), PIANOLA_ERROR_ARGUMENT, "has no section 'nowhere'");
    OK(pianola_transition(soundtrack, song, NULL));
    pianola_event polled[64];
    size_t count = 0;
    int moved = 0;
    for (int second = 0; second < 8 && !moved; second++) {
        OK(pianola_render_f32(soundtrack, audio, 24000));
        OK(pianola_render_f32(soundtrack, audio, 24000));
        do {
            OK(pianola_poll_events(soundtrack, polled, 64, &count));
            for (size_t i = 0; i < count; i++) moved += polled[i].type == PIANOLA_EVENT_TRANSITIONED && polled[i].song == song && strcmp(polled[i].text, "again") == 0;
        } while (count > 0);
    }
    CHECK(moved == 1);
    free(audio);
}

/* The energy of the left channel's frame-to-frame steps: what the highs carry. */
static double step_energy(const float *audio, size_t frames) {
    double sum = 0;
    for (size_t i = 1; i < frames; i++) {
        double step = audio[2 * i] - audio[2 * i - 2];
        sum += step * step;
    }
    return sum;
}

static void bus_effects(pianola_soundtrack *soundtrack, pianola_song *song) {
    /* A low-pass on the music that a game parameter closes; refusals in one line. */
    int32_t index = -1;
    const double xs[] = {0, 1}, cutoffs[] = {20000, 100};
    FAILS(pianola_add_effect(soundtrack, 7, "lowpass", PIANOLA_BUS_NONE, &index), PIANOLA_ERROR_ARGUMENT, "bus 7: use PIANOLA_BUS_MASTER");
    FAILS(pianola_add_effect(soundtrack, PIANOLA_BUS_MUSIC, "lopass", PIANOLA_BUS_NONE, &index), PIANOLA_ERROR_ARGUMENT, "no built-in effect 'lopass'");
    FAILS(pianola_add_effect(soundtrack, PIANOLA_BUS_MUSIC, "lowpass", PIANOLA_BUS_NONE, NULL), PIANOLA_ERROR_ARGUMENT, "effect_id is NULL");
    FAILS(pianola_add_effect(soundtrack, PIANOLA_BUS_MUSIC, "lowpass", PIANOLA_BUS_SOUNDS, &index), PIANOLA_ERROR_ARGUMENT, "only a compressor");
    OK(pianola_add_effect(soundtrack, PIANOLA_BUS_MUSIC, "lowpass", PIANOLA_BUS_NONE, &index));
    CHECK(index == 0);
    OK(pianola_add_effect(soundtrack, PIANOLA_BUS_MUSIC, "compressor,threshold=-30,ratio=4", PIANOLA_BUS_SOUNDS, &index));
    CHECK(index == 1);
    FAILS(pianola_set_effect_parameter(soundtrack, PIANOLA_BUS_MUSIC, 0, "frequency", 500, 0), PIANOLA_ERROR_ARGUMENT, "no parameter 'frequency'");
    FAILS(pianola_set_effect_parameter(soundtrack, PIANOLA_BUS_MASTER, 0, "cutoff", 500, 0), PIANOLA_ERROR_ARGUMENT, "effect 0 is not on the master bus (it has none)");
    FAILS(pianola_set_effect_bypassed(soundtrack, PIANOLA_BUS_MUSIC, 2, 1), PIANOLA_ERROR_ARGUMENT, "it has 0, 1");
    FAILS(pianola_set_send(soundtrack, PIANOLA_BUS_AUX, 1), PIANOLA_ERROR_ARGUMENT, "only the music and the sounds send");
    FAILS(pianola_set_send(soundtrack, PIANOLA_BUS_MUSIC, -1), PIANOLA_ERROR_ARGUMENT, "send level -1.0");
    OK(pianola_add_effect(soundtrack, PIANOLA_BUS_AUX, "reverb,dry=0", PIANOLA_BUS_NONE, &index));
    OK(pianola_set_send(soundtrack, PIANOLA_BUS_MUSIC, 0.3f));
    OK(pianola_define_parameter(soundtrack, "depth", 0, 1, 0));
    FAILS(pianola_map_parameter_to_effect(soundtrack, "depth", PIANOLA_BUS_MUSIC, 0, "cutoff", xs, xs, 2), PIANOLA_ERROR_ARGUMENT, "y in 10.0...24000.0");
    OK(pianola_map_parameter_to_effect(soundtrack, "depth", PIANOLA_BUS_MUSIC, 0, "cutoff", xs, cutoffs, 2));
    OK(pianola_play(soundtrack, song, PIANOLA_NOW, NULL, 0, 0));
    float *audio = calloc(2 * 24000, sizeof(float));
    OK(pianola_render_f32(soundtrack, audio, 24000));
    OK(pianola_render_f32(soundtrack, audio, 24000));
    double open = step_energy(audio, 24000);
    OK(pianola_set_parameter(soundtrack, "depth", 1, 0.1));
    OK(pianola_render_f32(soundtrack, audio, 24000));
    OK(pianola_render_f32(soundtrack, audio, 24000));
    double closed = step_energy(audio, 24000);
    OK(pianola_set_effect_bypassed(soundtrack, PIANOLA_BUS_MUSIC, 0, 1));
    OK(pianola_render_f32(soundtrack, audio, 4800));
    OK(pianola_render_f32(soundtrack, audio, 24000));
    double bypassed = step_energy(audio, 24000);
    OK(pianola_set_effect_bypassed(soundtrack, PIANOLA_BUS_MUSIC, 0, 0));
    OK(pianola_render_f32(soundtrack, audio, 4800));
    OK(pianola_render_f32(soundtrack, audio, 24000));
    double back = step_energy(audio, 24000);
    /* Taken off: the compressor keeps number 1, the parameter lets go of the low-pass. */
    OK(pianola_remove_effect(soundtrack, PIANOLA_BUS_MUSIC, 0));
    FAILS(pianola_remove_effect(soundtrack, PIANOLA_BUS_MUSIC, 0), PIANOLA_ERROR_ARGUMENT, "effect 0 is not on the music bus (it has 1)");
    OK(pianola_set_effect_parameter(soundtrack, PIANOLA_BUS_MUSIC, 1, "ratio", 2, 0));
    OK(pianola_set_parameter(soundtrack, "depth", 0.5, 0));
    OK(pianola_render_f32(soundtrack, audio, 4800));
    OK(pianola_render_f32(soundtrack, audio, 24000));
    double removed = step_energy(audio, 24000);
    printf("bus effects: step energy %.3g open, %.3g under a 100 Hz low-pass, %.3g bypassed, %.3g back, %.3g removed\n",
           open, closed, bypassed, back, removed);
    CHECK(open > 30 * closed && bypassed > 10 * closed && back * 30 < open && removed > 10 * closed);
    free(audio);
}

static double song_energy(pianola_soundtrack *soundtrack, pianola_song *song) {
    /* Step energy of a second of `song`, half a second in. */
    float *audio = calloc(2 * 48000, sizeof(float));
    OK(pianola_play(soundtrack, song, PIANOLA_NOW, NULL, 0, 0));
    OK(pianola_render_f32(soundtrack, audio, 24000));
    OK(pianola_render_f32(soundtrack, audio, 48000));
    double energy = step_energy(audio, 48000);
    OK(pianola_stop(soundtrack, PIANOLA_NOW, NULL, 0));
    OK(pianola_render_f32(soundtrack, audio, 4800));
    free(audio);
    return energy;
}

static void song_effects(void) {
    /* A song's own effects, a layer's and a track's LV2 instrument, from the config. */
    pianola_soundtrack_config config;
    pianola_soundtrack *soundtrack = NULL;
    pianola_song *plain = NULL, *dull = NULL, *old = NULL, *bad = NULL;
    OK(pianola_soundtrack_config_init(&config));
    OK(pianola_soundtrack_create(&config, &soundtrack));
    pianola_song_config song;
    OK(pianola_song_config_init(&song));
    song.midi = path_source(song_path);
    song.soundfont = path_source(font);
    OK(pianola_song_load(soundtrack, &song, &plain));
    const char *effects[] = {"lowpass,cutoff=150"}, *bad_effects[] = {"lopass"};
    const char *layers[] = {"Strings"};
    pianola_layer_effect layer_effects[] = {{"strings", "highpass,cutoff=5000"}, {"Strings", "peak,frequency=6000,gain=-6"}};
    pianola_track_instrument instruments[] = {{"Bass", "mda piano"}};
    song.effects = effects;
    song.effect_count = 1;
    song.track_layers = layers;
    song.track_layer_count = 1;
    song.layer_effects = layer_effects;
    song.layer_effect_count = 2;
    song.instruments = instruments;
    song.instrument_count = 1;
    OK(pianola_song_load(soundtrack, &song, &dull));
    song.effects = bad_effects;
    FAILS(pianola_song_load(soundtrack, &song, &bad), PIANOLA_ERROR_ARGUMENT, "effects[0]: 'lopass': no built-in effect 'lopass'");
    song.effects = NULL;
    FAILS(pianola_song_load(soundtrack, &song, &bad), PIANOLA_ERROR_ARGUMENT, "effects: give 0 to 256 of them");
    song.effect_count = 0;
    instruments[0].plugin = "mda delay";
    FAILS(pianola_song_load(soundtrack, &song, &bad), PIANOLA_ERROR_ARGUMENT, "instruments[0].plugin: 'mda delay': LV2 plugin 'MDA Delay' takes no MIDI");
    /* A config from before the effect fields: taken, with none of them. */
    song.struct_size = (uint32_t)offsetof(pianola_song_config, effects);
    song.layer_effect_count = 0;
    song.instrument_count = 0;
    OK(pianola_song_load(soundtrack, &song, &old));
    OK(pianola_song_wait(plain));
    OK(pianola_song_wait(dull));
    OK(pianola_song_wait(old));
    double open = song_energy(soundtrack, plain), closed = song_energy(soundtrack, dull), before = song_energy(soundtrack, old);
    printf("song effects: step energy %.3g plain, %.3g under the song's 150 Hz low-pass, %.3g from an older config\n", open, closed, before);
    CHECK(open > 20 * closed && before > 0.5 * open && before < 2 * open);
    OK(pianola_song_destroy(plain));
    OK(pianola_song_destroy(dull));
    OK(pianola_song_destroy(old));
    OK(pianola_soundtrack_destroy(soundtrack));
}

static void own_output(pianola_soundtrack *soundtrack) {
    float buffer[2 * 64];
    FAILS(pianola_output_stop(soundtrack), PIANOLA_ERROR_STATE, "not running");
    FAILS(pianola_output_start(soundtrack, "no-such-device", 0, 0), PIANOLA_ERROR_DEVICE, "no-such-device");
    FAILS(pianola_output_start(soundtrack, "null", 1 << 20, 0), PIANOLA_ERROR_ARGUMENT, "period_frames");
    OK(pianola_output_start(soundtrack, "null", 256, 3));
    FAILS(pianola_output_start(soundtrack, "null", 256, 3), PIANOLA_ERROR_STATE, "already");
    FAILS(pianola_render_f32(soundtrack, buffer, 64), PIANOLA_ERROR_STATE, "own output");
    OK(pianola_output_stop(soundtrack));
    OK(pianola_render_f32(soundtrack, buffer, 64));
    /* The other drivers, each pointed where no server is, refuse in one line naming it. */
    setenv("JACK_DEFAULT_SERVER", "pianola-api-test-nobody", 1);
    setenv("PIPEWIRE_RUNTIME_DIR", scratch, 1);
    FAILS(pianola_output_start_driver(soundtrack, 7, NULL, 0, 0), PIANOLA_ERROR_ARGUMENT, "driver 7");
    FAILS(pianola_output_start_driver(soundtrack, PIANOLA_DRIVER_JACK, NULL, 0, 0), PIANOLA_ERROR_DEVICE, "no JACK server named 'pianola-api-test-nobody'");
    FAILS(pianola_output_start_driver(soundtrack, PIANOLA_DRIVER_PIPEWIRE, NULL, 0, 0), PIANOLA_ERROR_DEVICE, "no PipeWire daemon answers");
    OK(pianola_output_start_driver(soundtrack, PIANOLA_DRIVER_ALSA, "null", 128, 2));
    FAILS(pianola_render_f32(soundtrack, buffer, 64), PIANOLA_ERROR_STATE, "own output");
    OK(pianola_output_stop(soundtrack));
}

static void offline(void) {
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
static void documented_codes(void) {
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
static void midi_ports(void) {
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
static void offline_choices(void) {
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

static void where_the_music_is(void) {
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

static void cycles(int count) {
    size_t midi_size, font_size;
    void *midi = read_file(song_path, &midi_size), *font_bytes = read_file(font, &font_size);
    float *buffer = malloc(2 * 4096 * sizeof(float));
    int sounded = 0;
    for (int i = 0; i < count; i++) {
        pianola_soundtrack_config config;
        pianola_song_config song_config;
        pianola_soundtrack *soundtrack = NULL;
        pianola_song *song = NULL;
        pianola_event polled[16];
        size_t polled_count;
        pianola_soundtrack_config_init(&config);
        config.polyphony = 32;
        OK(pianola_soundtrack_create(&config, &soundtrack));
        pianola_song_config_init(&song_config);
        song_config.midi = bytes_source(midi, midi_size, "cycle.mid");
        song_config.soundfont = i % 2 ? bytes_source(font_bytes, font_size, "cycle.sf2") : path_source(font);
        OK(pianola_song_load(soundtrack, &song_config, &song));
        OK(pianola_song_wait(song));
        OK(pianola_play(soundtrack, song, PIANOLA_NOW, NULL, 0, 0));
        OK(pianola_render_f32(soundtrack, buffer, 4096));
        sounded += peak_of(buffer, 2 * 4096) > 0.001f;
        OK(pianola_poll_events(soundtrack, polled, 16, &polled_count));
        OK(pianola_song_destroy(song));
        OK(pianola_soundtrack_destroy(soundtrack));
        FAILS(pianola_render_f32(soundtrack, buffer, 64), PIANOLA_ERROR_HANDLE, "not a live");
    }
    CHECK(sounded == count);
    free(midi);
    free(font_bytes);
    free(buffer);
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: api_test FONT.sf2 SONG.mid EFFECT.wav SCRATCH_DIR\n");
        return 2;
    }
    font = argv[1];
    song_path = argv[2];
    effect_path = argv[3];
    scratch = argv[4];
    int cycle_count = getenv("PIANOLA_CYCLES") ? atoi(getenv("PIANOLA_CYCLES")) : 1000;

    version_and_errors();
    pianola_soundtrack *soundtrack = soundtrack_configs();
    pianola_song *failed_song = NULL;
    pianola_sound *failed_effect = NULL;
    pianola_song *song = songs(soundtrack, &failed_song);
    pianola_sound *effect = effects(soundtrack, &failed_effect);
    transport(soundtrack, song, failed_song, effect, failed_effect);
    rendering(soundtrack, song);
    events(soundtrack, song, failed_song, effect);
    interactive(soundtrack, song, failed_song);
    bus_effects(soundtrack, song);
    song_effects();
    own_output(soundtrack);
    OK(pianola_stop(soundtrack, PIANOLA_NEXT_BAR, NULL, 0.1));
    OK(pianola_song_destroy(song));
    OK(pianola_song_destroy(failed_song));
    OK(pianola_sound_destroy(effect));
    FAILS(pianola_play_sound(soundtrack, effect, PIANOLA_NOW, NULL, 1, 0), PIANOLA_ERROR_HANDLE, "not a live pianola_sound");
    OK(pianola_sound_destroy(failed_effect));
    OK(pianola_soundtrack_destroy(soundtrack));
    FAILS(pianola_soundtrack_destroy(soundtrack), PIANOLA_ERROR_HANDLE, "not a live pianola_soundtrack");
    FAILS(pianola_play(soundtrack, song, PIANOLA_NOW, NULL, 0, 0), PIANOLA_ERROR_HANDLE, "not a live pianola_soundtrack");
    offline();
    offline_choices();
    documented_codes();
    midi_ports();
    where_the_music_is();
    cycles(cycle_count);

    printf("%d passed, %d failed\n", checks - failures, failures);
    return failures == 0 ? 0 : 1;
}
