/*
 * A small game's music on SDL2 and libpianola: SDL's audio callback pulls the soundtrack.
 * The town theme loops on its loopStart/loopEnd markers; its strings layer fades in on a bar
 * line; a stinger (made in memory) lands on the next bar; after the town has looped, the
 * battle theme takes over on the next bar line while the town fades; the battle's strings dip
 * on a bar line.
 *
 *   cc game.c $(pkg-config --cflags --libs pianola sdl2) -o game
 *   ./game SONGS_DIR SOUNDFONT [SECONDS]
 *
 * The script runs on the audio clock (frames the callback has pulled), and every change
 * waits for a bar line, so with SDL's disk driver (SDL_AUDIODRIVER=disk) the audio written is
 * the same on every run.
 */
#include <pianola.h>
#include <SDL.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { RATE = 48000, CALLBACK_FRAMES = 1024 };

static pianola_soundtrack *soundtrack;
static SDL_atomic_t frames_pulled;

/* SDL's audio thread: Pianola renders straight into SDL's interleaved float buffer. */
static void pull(void *userdata, Uint8 *stream, int length) {
    (void)userdata;
    int frames = length / (int)(2 * sizeof(float));
    if (pianola_render_f32(soundtrack, (float *)stream, (size_t)frames) != PIANOLA_OK) SDL_memset(stream, 0, (size_t)length);
    SDL_AtomicAdd(&frames_pulled, frames);
}

/* Stops with the call's one-line error if it failed. */
static void check(pianola_status status, const char *what) {
    if (status == PIANOLA_OK) return;
    fprintf(stderr, "game: %s: %s\n", what, pianola_last_error());
    exit(1);
}

/* The stinger: a 16-bit mono WAV held in memory, a rising square chirp that dies away over
   a quarter of a second (integer arithmetic, so every build makes the same bytes). */
static unsigned char *stinger_wav(size_t *size) {
    enum { SAMPLES = RATE / 4 };
    unsigned char *wav = malloc(44 + 2 * SAMPLES);
    unsigned int phase = 0;
    static const unsigned char header[44] = {
        'R', 'I', 'F', 'F', 0, 0, 0, 0, 'W', 'A', 'V', 'E', 'f', 'm', 't', ' ', 16, 0, 0, 0, 1, 0, 1, 0,
        0x80, 0xBB, 0, 0, 0x00, 0x77, 0x01, 0, 2, 0, 16, 0, 'd', 'a', 't', 'a', 0, 0, 0, 0};
    memcpy(wav, header, 44);
    unsigned int data = 2 * SAMPLES, riff = 36 + data;
    for (int i = 0; i < 4; i++) {
        wav[4 + i] = (unsigned char)(riff >> (8 * i));
        wav[40 + i] = (unsigned char)(data >> (8 * i));
    }
    for (int i = 0; i < SAMPLES; i++) {
        phase += 600u + (unsigned int)i / 16u;
        int level = 8000 * (SAMPLES - i) / SAMPLES;
        int sample = (phase >> 15) & 1u ? level : -level;
        wav[44 + 2 * i] = (unsigned char)(sample & 0xFF);
        wav[45 + 2 * i] = (unsigned char)((sample >> 8) & 0xFF);
    }
    *size = 44 + 2 * SAMPLES;
    return wav;
}

static pianola_song *load_song(const char *songs, const char *name, const char *font) {
    static const char *layers[] = {"Strings"};
    char path[4096];
    pianola_song_config config;
    pianola_song *song;
    snprintf(path, sizeof path, "%s/%s", songs, name);
    check(pianola_song_config_init(&config), "song config");
    config.midi.path = path;
    config.soundfont.path = font;
    config.track_layers = layers;
    config.track_layer_count = 1;
    check(pianola_song_load(soundtrack, &config, &song), name);   /* returns at once; loads on a worker thread */
    return song;
}

static void report(const pianola_event *event, pianola_song *town, pianola_song *battle) {
    const char *song = event->song == town ? "town" : event->song == battle ? "battle" : "?";
    double at = (double)event->sample_time / RATE;
    switch (event->type) {
    case PIANOLA_EVENT_BAR: printf("%6.2f s  %s bar %d\n", at, song, (int)event->bar); break;
    case PIANOLA_EVENT_MARKER: printf("%6.2f s  %s marker \"%s\"\n", at, song, event->text); break;
    case PIANOLA_EVENT_LOOP_WRAPPED: printf("%6.2f s  %s loops\n", at, song); break;
    case PIANOLA_EVENT_SONG_LOADED: printf("%6.2f s  %s loaded\n", at, song); break;
    case PIANOLA_EVENT_SONG_LOAD_FAILED: printf("%s failed to load: %s\n", song, event->text); break;
    default: break;
    }
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: game SONGS_DIR SOUNDFONT [SECONDS]\n");
        return 2;
    }
    int seconds = argc > 3 ? atoi(argv[3]) : 17;
    pianola_soundtrack_config config;
    check(pianola_soundtrack_config_init(&config), "config");
    config.sample_rate = RATE;
    check(pianola_soundtrack_create(&config, &soundtrack), "soundtrack");

    pianola_song *town = load_song(argv[1], "town.mid", argv[2]);
    pianola_song *battle = load_song(argv[1], "battle.mid", argv[2]);
    size_t wav_size;
    unsigned char *wav = stinger_wav(&wav_size);
    pianola_source source = {NULL, wav, wav_size, "stinger"};
    pianola_sound *stinger;
    check(pianola_sound_load(soundtrack, &source, &stinger), "stinger");
    free(wav);   /* the library copied it */
    check(pianola_song_wait(town), "town.mid");
    check(pianola_song_wait(battle), "battle.mid");
    check(pianola_sound_wait(stinger), "stinger");

    if (SDL_Init(SDL_INIT_AUDIO) != 0) {
        fprintf(stderr, "game: SDL: %s\n", SDL_GetError());
        return 1;
    }
    SDL_AudioSpec want, have;
    SDL_zero(want);
    want.freq = RATE;
    want.format = AUDIO_F32SYS;
    want.channels = 2;
    want.samples = CALLBACK_FRAMES;
    want.callback = pull;
    SDL_AudioDeviceID device = SDL_OpenAudioDevice(NULL, 0, &want, &have, 0);
    if (device == 0) {
        fprintf(stderr, "game: SDL: %s\n", SDL_GetError());
        return 1;
    }

    check(pianola_play(soundtrack, town, PIANOLA_NOW, NULL, 0, 0), "play town");
    check(pianola_set_layer(soundtrack, "Strings", 0, 0, PIANOLA_NOW, NULL), "strings out");
    SDL_PauseAudioDevice(device, 0);

    /* The script, on the audio clock: each change is asked for mid-bar and lands on a bar line. */
    const int end = seconds * RATE;
    int step = 0;
    pianola_event events[32];
    size_t count;
    while (SDL_AtomicGet(&frames_pulled) < end) {
        int now = SDL_AtomicGet(&frames_pulled);
        if (step == 0 && now >= RATE * 32 / 10) {
            check(pianola_set_layer(soundtrack, "Strings", 1, 2, PIANOLA_NEXT_BAR, NULL), "strings in");
            printf("         strings fade in from the next bar\n");
            step++;
        } else if (step == 1 && now >= RATE * 535 / 100) {
            check(pianola_play_sound(soundtrack, stinger, PIANOLA_NEXT_BAR, NULL, 0.8f, 0), "stinger");
            printf("         stinger on the next bar\n");
            step++;
        } else if (step == 2 && now >= RATE * 12) {   /* after the town has looped once */
            check(pianola_play(soundtrack, battle, PIANOLA_NEXT_BAR, NULL, 0, 0.5), "battle");
            printf("         battle on the next bar\n");
            step++;
        } else if (step == 3 && now >= RATE * 1526 / 100) {
            check(pianola_set_layer(soundtrack, "Strings", 0.3f, 0.2, PIANOLA_NEXT_BAR, NULL), "strings dip");
            printf("         battle strings dip on the next bar\n");
            step++;
        }
        check(pianola_poll_events(soundtrack, events, 32, &count), "events");
        for (size_t i = 0; i < count; i++) report(&events[i], town, battle);
        SDL_Delay(2);
    }

    SDL_CloseAudioDevice(device);
    SDL_Quit();
    check(pianola_song_destroy(town), "town");
    check(pianola_song_destroy(battle), "battle");
    check(pianola_sound_destroy(stinger), "stinger");
    check(pianola_soundtrack_destroy(soundtrack), "soundtrack");
    return 0;
}
