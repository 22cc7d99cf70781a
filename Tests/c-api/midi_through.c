/* A C program that sends a song to Midi Through, as a game or tool reaches MIDI gear through
 * libpianola: lists the sequencer's ports, checks the mistakes (a malformed route, a port
 * that is not there), then plays the song's first two bars to "Midi Through" alone (nothing
 * goes to the synthesizer, so no audio device opens). Run in the ALSA VM with aseqdump
 * listening on 14:0 (Tests/alsa-vm/in-vm-midi.sh), which checks what arrived.
 *
 *   midi_through FONT.sf2 SONG.mid
 */
#include <pianola.h>

#include <stdio.h>
#include <string.h>

static int failures;

static void expect(int ok, const char *what) {
    printf("%s: %s\n", ok ? "ok" : "FAIL", what);
    failures += !ok;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: midi_through FONT.sf2 SONG.mid\n");
        return 2;
    }
    pianola_midi_port ports[64];
    size_t count = 0;
    expect(pianola_midi_ports(ports, 64, &count) == PIANOLA_OK, "pianola_midi_ports lists the ports");
    int through = 0;
    for (size_t i = 0; i < count && i < 64; i++)
        through |= strcmp(ports[i].address, "14:0") == 0 && strcmp(ports[i].client, "Midi Through") == 0 && ports[i].receives && ports[i].kernel;
    expect(through, "14:0 is Midi Through, a kernel port that takes events");

    pianola_render_config config;
    pianola_midi_config midi;
    pianola_render_config_init(&config);
    pianola_midi_config_init(&midi);
    config.midi.path = argv[2];
    config.soundfont.path = argv[1];
    config.to = "3:1";
    const char *bad_route[] = {"ch99=14:0"};
    midi.routes = bad_route;
    midi.route_count = 1;
    expect(pianola_play_file_midi(&config, &midi, PIANOLA_DRIVER_DEFAULT, NULL) == PIANOLA_ERROR_ARGUMENT
               && strstr(pianola_last_error(), "routes[0] ch99=14:0: 'ch99' is not a channel") != NULL,
           "a malformed route is an argument error naming it");
    midi.route_count = 0;
    midi.port = "no such port";
    expect(pianola_play_file_midi(&config, &midi, PIANOLA_DRIVER_DEFAULT, NULL) == PIANOLA_ERROR_DEVICE
               && strstr(pianola_last_error(), "MIDI port 'no such port': no such port to send to; ports: 14:0 Midi Through") != NULL,
           "a port that is not there is a device error listing the ports");
    midi.port = "Midi Through";
    pianola_status played = pianola_play_file_midi(&config, &midi, PIANOLA_DRIVER_DEFAULT, NULL);
    if (played != PIANOLA_OK) fprintf(stderr, "%s\n", pianola_last_error());
    expect(played == PIANOLA_OK, "the song's first two bars played to Midi Through");
    return failures == 0 ? 0 : 1;
}
