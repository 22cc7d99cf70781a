/* A game's loop as a C programmer writes it, for valgrind: a soundtrack rendered by hand (the
   pull API), a song played and another crossfaded in on the next bar, and every event polled
   and read field by field as it comes. Exits 0 when the songs started and bars were heard. */
#include <pianola.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OK(call) do { pianola_status s_ = (call); if (s_ != PIANOLA_OK) { fprintf(stderr, "%s: %s\n", #call, pianola_last_error()); return 1; } } while (0)

static pianola_status load(pianola_soundtrack *soundtrack, const char *font, const char *path, pianola_song **song) {
    pianola_song_config config;
    pianola_song_config_init(&config);
    config.midi.path = path;
    config.soundfont.path = font;
    pianola_status status = pianola_song_load(soundtrack, &config, song);
    return status == PIANOLA_OK ? pianola_song_wait(*song) : status;
}

int main(int argc, char **argv) {
    if (argc < 4) { fprintf(stderr, "usage: events_game FONT SONG SONG\n"); return 2; }
    enum { block = 1024, rate = 48000 };
    pianola_soundtrack_config config;
    pianola_soundtrack *soundtrack = NULL;
    pianola_song *first = NULL, *second = NULL;
    pianola_event events[16];
    size_t count = 0;
    int bars = 0, beats = 0, started = 0, text = 0;
    pianola_soundtrack_config_init(&config);
    OK(pianola_soundtrack_create(&config, &soundtrack));
    OK(load(soundtrack, argv[1], argv[2], &first));
    OK(load(soundtrack, argv[1], argv[3], &second));
    OK(pianola_play(soundtrack, first, PIANOLA_NOW, NULL, 0, 0));
    float *audio = malloc(2 * block * sizeof(float));
    for (int b = 0; b < 12 * rate / block; b++) {
        OK(pianola_render_f32(soundtrack, audio, block));
        if (b == 5 * rate / block) OK(pianola_play(soundtrack, second, PIANOLA_NEXT_BAR, NULL, 2, 0));
        do {
            OK(pianola_poll_events(soundtrack, events, 16, &count));
            for (size_t i = 0; i < count; i++) {
                const pianola_event *e = &events[i];
                if (e->type == PIANOLA_EVENT_BAR) bars += e->bar > 0;
                if (e->type == PIANOLA_EVENT_BEAT) beats += e->beat > 1;
                if (e->type == PIANOLA_EVENT_SONG_STARTED) started += e->song == first || e->song == second;
                if (e->sample_time < 0) return 1;
                text += strlen(e->text) > 0;
            }
        } while (count > 0);
    }
    free(audio);
    pianola_soundtrack_destroy(soundtrack);
    printf("events_game: %d bars, %d beats, %d songs started, %d events with text\n", bars, beats, started, text);
    return bars > 0 && beats > 0 && started == 2 ? 0 : 1;
}
