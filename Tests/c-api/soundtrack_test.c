/* The C API test's soundtrack: configs, songs, sounds, transport, rendering, events,
 * interactive music and effects (see api_test.c). */
#define _POSIX_C_SOURCE 200112L

#include "api_test.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

pianola_soundtrack *soundtrack_configs(void) {
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

pianola_song *songs(pianola_soundtrack *soundtrack, pianola_song **failed) {
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

pianola_sound *effects(pianola_soundtrack *soundtrack, pianola_sound **failed) {
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

void transport(pianola_soundtrack *soundtrack, pianola_song *song, pianola_song *failed, pianola_sound *effect,
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

void rendering(pianola_soundtrack *soundtrack, pianola_song *song) {
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

void events(pianola_soundtrack *soundtrack, pianola_song *song, pianola_song *failed, pianola_sound *effect) {
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

void interactive(pianola_soundtrack *soundtrack, pianola_song *song, pianola_song *failed) {
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

void bus_effects(pianola_soundtrack *soundtrack, pianola_song *song) {
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

void song_effects(void) {
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

void own_output(pianola_soundtrack *soundtrack) {
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
