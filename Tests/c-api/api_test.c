/*
 * Calls every function of pianola.h with good and with bad arguments: each bad call must
 * return its error code and leave a one-line message; good calls must do what they say
 * (songs that load and sound, events that name their song's handle, renders that agree).
 * Then 1,000 create/load/render/destroy cycles. Built with -fsanitize=address,undefined, so
 * a crash, an overflow or a leak fails it.
 *
 *   api_test FONT.sf2 SONG.mid EFFECT.wav SCRATCH_DIR
 *
 * This file holds the checks' counters, the helpers, the version and error calls, the cycles
 * and main(); soundtrack_test.c the soundtrack's parts, offline_test.c the rest.
 */
/* setenv: POSIX, not C99. */
#define _POSIX_C_SOURCE 200112L

#include "api_test.h"

#include <math.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int checks, failures;
const char *font, *song_path, *effect_path, *scratch;

void expect_failure(pianola_status status, pianola_status code, const char *words, const char *call, const char *file, int line) {
    const char *message = pianola_last_error();
    checks++;
    if (status != code || message[0] == '\0' || strchr(message, '\n') != NULL || strstr(message, words) == NULL) {
        failures++;
        fprintf(stderr, "%s:%d: %s returned %d (wanted %d), message \"%s\" (wanted one line with \"%s\")\n",
                file, line, call, (int)status, (int)code, message, words);
    }
}

void *read_file(const char *path, size_t *size) {
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

pianola_source path_source(const char *path) {
    pianola_source source = {path, NULL, 0, NULL};
    return source;
}

pianola_source bytes_source(const void *data, size_t size, const char *name) {
    pianola_source source = {NULL, data, size, name};
    return source;
}

float peak_of(const float *samples, size_t count) {
    float peak = 0;
    for (size_t i = 0; i < count; i++) peak = fmaxf(peak, fabsf(samples[i]));
    return peak;
}

static void version_and_errors(void) {
    CHECK(strcmp(pianola_version(), PIANOLA_VERSION_STRING) == 0);
    CHECK(PIANOLA_VERSION == PIANOLA_VERSION_NUMBER(PIANOLA_VERSION_MAJOR, PIANOLA_VERSION_MINOR, PIANOLA_VERSION_PATCH));
    CHECK(pianola_last_error() != NULL);
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
