/*
 * What the C API test's files share: the counters and checks, the files the test was given,
 * small helpers, and the parts main() runs. See api_test.c.
 */
#ifndef PIANOLA_API_TEST_H
#define PIANOLA_API_TEST_H

#include <pianola.h>

#include <stddef.h>
#include <stdio.h>

extern int checks, failures;
/* The font, song, sound and scratch folder the test was given. */
extern const char *font, *song_path, *effect_path, *scratch;

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
#define FAILS(call, code, words) expect_failure((call), (code), (words), #call, __FILE__, __LINE__)

void expect_failure(pianola_status status, pianola_status code, const char *words, const char *call, const char *file, int line);
/* The whole file at `path`, malloc'd; its length in *size. */
void *read_file(const char *path, size_t *size);
pianola_source path_source(const char *path);
pianola_source bytes_source(const void *data, size_t size, const char *name);
float peak_of(const float *samples, size_t count);

/* The soundtrack's parts (soundtrack_test.c), in the order main() runs them. */
pianola_soundtrack *soundtrack_configs(void);
pianola_song *songs(pianola_soundtrack *soundtrack, pianola_song **failed);
pianola_sound *effects(pianola_soundtrack *soundtrack, pianola_sound **failed);
void transport(pianola_soundtrack *soundtrack, pianola_song *song, pianola_song *failed, pianola_sound *effect, pianola_sound *failed_effect);
void rendering(pianola_soundtrack *soundtrack, pianola_song *song);
void events(pianola_soundtrack *soundtrack, pianola_song *song, pianola_song *failed, pianola_sound *effect);
void interactive(pianola_soundtrack *soundtrack, pianola_song *song, pianola_song *failed);
void bus_effects(pianola_soundtrack *soundtrack, pianola_song *song);
void song_effects(void);
void own_output(pianola_soundtrack *soundtrack);

/* Offline rendering, the codes, MIDI ports and the position (offline_test.c). */
void offline(void);
void offline_choices(void);
void documented_codes(void);
void midi_ports(void);
void where_the_music_is(void);

#endif
