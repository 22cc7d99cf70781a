/* A game on a machine without libfluidsynth: libpianola loads, a sound plays, a song plays on
   Pianola's own synthesizer (the default; their peaks are printed), and a song asked of
   libfluidsynth fails in one line that names the missing library. Run by
   Tests/packages/run.sh in the clean root:
     without-libfluidsynth SOUND.wav SONG.mid FONT.sf2 */
#include <pianola.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static int failed(const char *what) {
    fprintf(stderr, "without-libfluidsynth: %s: %s\n", what, pianola_last_error());
    return 1;
}

/* The peak of one second rendered by `soundtrack`, in dBFS. */
static float peak_of_a_second(pianola_soundtrack *soundtrack) {
    static float left[48000], right[48000];
    if (pianola_render_planar(soundtrack, left, right, 48000) != PIANOLA_OK) return -INFINITY;
    float peak = 0;
    for (int i = 0; i < 48000; i++) peak = fmaxf(peak, fmaxf(fabsf(left[i]), fabsf(right[i])));
    return 20 * log10f(peak);
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: without-libfluidsynth SOUND.wav SONG.mid FONT.sf2\n"); return 2; }
    pianola_soundtrack_config config;
    pianola_soundtrack_config_init(&config);
    pianola_soundtrack *soundtrack;
    if (pianola_soundtrack_create(&config, &soundtrack) != PIANOLA_OK) return failed("soundtrack");

    pianola_source sound = { .path = argv[1] };
    pianola_sound *sting;
    if (pianola_sound_load(soundtrack, &sound, &sting) != PIANOLA_OK || pianola_sound_wait(sting) != PIANOLA_OK) return failed("sound");
    if (pianola_play_sound(soundtrack, sting, PIANOLA_NOW, NULL, 1.0f, 0.0f) != PIANOLA_OK) return failed("play sound");
    float sound_peak = peak_of_a_second(soundtrack);
    printf("the sound played: peak %.1f dBFS in its first second\n", sound_peak);

    pianola_song_config song_config;
    pianola_song_config_init(&song_config);
    song_config.midi.path = argv[2];
    song_config.soundfont.path = argv[3];
    pianola_song *song;
    if (pianola_song_load(soundtrack, &song_config, &song) != PIANOLA_OK || pianola_song_wait(song) != PIANOLA_OK) return failed("song");
    if (pianola_play(soundtrack, song, PIANOLA_NOW, NULL, 0, 0) != PIANOLA_OK) return failed("play song");
    float song_peak = peak_of_a_second(soundtrack);
    printf("the song played on Pianola's synthesizer: peak %.1f dBFS in its first second\n", song_peak);

    pianola_soundtrack_config fluid_config;
    pianola_soundtrack_config_init(&fluid_config);
    fluid_config.synth = PIANOLA_SYNTH_FLUIDSYNTH;
    pianola_soundtrack *fluid;
    if (pianola_soundtrack_create(&fluid_config, &fluid) != PIANOLA_OK) return failed("libfluidsynth's soundtrack");
    pianola_song *refused;
    if (pianola_song_load(fluid, &song_config, &refused) != PIANOLA_OK) return failed("song load on libfluidsynth");
    if (pianola_song_wait(refused) == PIANOLA_OK) { fprintf(stderr, "without-libfluidsynth: the song loaded on libfluidsynth\n"); return 1; }
    printf("the song on libfluidsynth: %s\n", pianola_last_error());
    pianola_song_destroy(refused);
    pianola_soundtrack_destroy(fluid);
    pianola_song_destroy(song);
    pianola_sound_destroy(sting);
    pianola_soundtrack_destroy(soundtrack);
    return sound_peak > -40 && song_peak > -40 ? 0 : 1;
}
