/* A game that plays audio files only, on a machine without libfluidsynth: libpianola loads,
   a sound plays (its peak is printed), and a song (which needs the synthesizer) fails in one
   line that names the missing library. Run by Tests/packages/run.sh in the clean root:
     without-synthesizer SOUND.wav SONG.mid FONT.sf2 */
#include <pianola.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static int failed(const char *what) {
    fprintf(stderr, "without-synthesizer: %s: %s\n", what, pianola_last_error());
    return 1;
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: without-synthesizer SOUND.wav SONG.mid FONT.sf2\n"); return 2; }
    pianola_soundtrack_config config;
    pianola_soundtrack_config_init(&config);
    pianola_soundtrack *soundtrack;
    if (pianola_soundtrack_create(&config, &soundtrack) != PIANOLA_OK) return failed("soundtrack");

    pianola_source sound = { .path = argv[1] };
    pianola_sound *sting;
    if (pianola_sound_load(soundtrack, &sound, &sting) != PIANOLA_OK || pianola_sound_wait(sting) != PIANOLA_OK) return failed("sound");
    if (pianola_play_sound(soundtrack, sting, PIANOLA_NOW, NULL, 1.0f, 0.0f) != PIANOLA_OK) return failed("play sound");
    static float left[48000], right[48000];
    if (pianola_render_planar(soundtrack, left, right, 48000) != PIANOLA_OK) return failed("render");
    float peak = 0;
    for (int i = 0; i < 48000; i++) peak = fmaxf(peak, fmaxf(fabsf(left[i]), fabsf(right[i])));
    printf("the sound played: peak %.1f dBFS in its first second\n", 20 * log10f(peak));

    pianola_song_config song_config;
    pianola_song_config_init(&song_config);
    song_config.midi.path = argv[2];
    song_config.soundfont.path = argv[3];
    pianola_song *song;
    if (pianola_song_load(soundtrack, &song_config, &song) != PIANOLA_OK) return failed("song load");
    if (pianola_song_wait(song) == PIANOLA_OK) { fprintf(stderr, "without-synthesizer: the song loaded\n"); return 1; }
    printf("the song: %s\n", pianola_last_error());
    pianola_song_destroy(song);
    pianola_sound_destroy(sting);
    pianola_soundtrack_destroy(soundtrack);
    return peak > 0.01f ? 0 : 1;
}
