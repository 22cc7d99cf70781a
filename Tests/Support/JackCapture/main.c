/* jack-capture [--freewheel] [--roll FRAME AFTER] CLIENT SECONDS OUT.raw: a JACK client named
   CLIENT with inputs in_L and in_R that records what reaches them, from its activation, as
   32-bit float stereo into OUT.raw. The tests' independent ear.

   --freewheel: the server freewheels from the capture's activation: no deadlines, every
   client's process callback run for every cycle, one after another, as fast as they go, so a
   busy machine cannot make a cycle go missing and what is recorded is exactly what was
   rendered. Only the cycles in which something is connected to an input are recorded, and
   the recording ends when the last connection goes (or at SECONDS).
   --roll FRAME AFTER: AFTER frames into the recording, locate JACK's transport to FRAME and
   start it, from this client's process callback (both calls are real-time safe): the roll
   lands on a known cycle whatever the machine is doing.

   Prints "ready RATE" once active, and when done (SECONDS of audio, SIGINT/SIGTERM, the server
   gone, or with --freewheel the last connection gone) "first_sound_ns=T", the CLOCK_MONOTONIC
   time in the JACK graph of the first sample above 1e-4 (-1 if none), then "frames=N xruns=X",
   then "rolled_at=I transport_frame=F": the recorded frame at which JACK's transport was first
   seen rolling, and the transport's frame then (-1 if it never rolled). */
#include <jack/jack.h>
#include <jack/transport.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static jack_client_t *client;
static jack_port_t *in_l, *in_r;
static float *recorded;
static size_t capacity, frames;
static atomic_int done, xruns;
static int64_t first_sound_us = -1;
static int64_t rolled_at = -1, transport_frame = -1;
static int freewheel_wanted, was_connected;
static int64_t roll_frame = -1, roll_after = -1;

static int process(jack_nframes_t count, void *arg) {
    (void)arg;
    if (freewheel_wanted) {
        if (!jack_port_connected(in_l) && !jack_port_connected(in_r)) {
            if (was_connected) atomic_store(&done, 1);
            return 0;
        }
        was_connected = 1;
    }
    float *l = jack_port_get_buffer(in_l, count), *r = jack_port_get_buffer(in_r, count);
    jack_nframes_t start = jack_last_frame_time(client);
    jack_position_t position;
    if (rolled_at < 0 && jack_transport_query(client, &position) == JackTransportRolling) {
        rolled_at = (int64_t)frames;
        transport_frame = position.frame;
    }
    if (roll_after >= 0 && (int64_t)frames >= roll_after) {
        jack_transport_locate(client, (jack_nframes_t)roll_frame);
        jack_transport_start(client);
        roll_after = -1;
    }
    for (jack_nframes_t i = 0; i < count && frames < capacity; i++, frames++) {
        recorded[2 * frames] = l[i];
        recorded[2 * frames + 1] = r[i];
        if (first_sound_us < 0 && (l[i] > 1e-4f || l[i] < -1e-4f || r[i] > 1e-4f || r[i] < -1e-4f))
            first_sound_us = (int64_t)jack_frames_to_time(client, start + i);
    }
    if (frames >= capacity) atomic_store(&done, 1);
    return 0;
}

static int xrun(void *arg) { (void)arg; atomic_fetch_add(&xruns, 1); return 0; }
static void gone(void *arg) { (void)arg; atomic_store(&done, 1); }
static void stop(int signal) { (void)signal; atomic_store(&done, 1); }

static void quiet(const char *message) { (void)message; }

static int64_t monotonic_us(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000 + now.tv_nsec / 1000;
}

static int usage(void) {
    fprintf(stderr, "usage: jack-capture [--freewheel] [--roll FRAME AFTER] CLIENT SECONDS OUT.raw\n");
    return 2;
}

int main(int argc, char **argv) {
    int arg = 1;
    for (; arg < argc && strncmp(argv[arg], "--", 2) == 0; arg++) {
        if (strcmp(argv[arg], "--freewheel") == 0) freewheel_wanted = 1;
        else if (strcmp(argv[arg], "--roll") == 0 && arg + 2 < argc) {
            roll_frame = atoll(argv[++arg]);
            roll_after = atoll(argv[++arg]);
        } else return usage();
    }
    if (argc - arg != 3) return usage();
    const char *name = argv[arg], *seconds = argv[arg + 1], *path = argv[arg + 2];
    jack_status_t status;
    /* libjack prints each failed try at the server; the tries are expected until it is up. */
    jack_set_error_function(quiet);
    jack_set_info_function(quiet);
    for (int tries = 0; !(client = jack_client_open(name, JackNoStartServer | JackUseExactName, &status)); tries++) {
        if (tries == 100) { fprintf(stderr, "jack-capture: no JACK server (status 0x%x)\n", status); return 1; }
        usleep(50000);
    }
    in_l = jack_port_register(client, "in_L", JACK_DEFAULT_AUDIO_TYPE, JackPortIsInput, 0);
    in_r = jack_port_register(client, "in_R", JACK_DEFAULT_AUDIO_TYPE, JackPortIsInput, 0);
    jack_nframes_t rate = jack_get_sample_rate(client);
    capacity = (size_t)(atof(seconds) * rate);
    recorded = calloc(capacity * 2, sizeof(float));
    if (!in_l || !in_r || !recorded) { fprintf(stderr, "jack-capture: cannot set up\n"); return 1; }
    signal(SIGINT, stop);
    signal(SIGTERM, stop);
    sigset_t wanted;   /* whoever started us may have blocked them */
    sigemptyset(&wanted);
    sigaddset(&wanted, SIGINT);
    sigaddset(&wanted, SIGTERM);
    sigprocmask(SIG_UNBLOCK, &wanted, NULL);
    jack_set_process_callback(client, process, NULL);
    jack_set_xrun_callback(client, xrun, NULL);
    jack_on_shutdown(client, gone, NULL);
    /* JACK's clock against CLOCK_MONOTONIC, so the first sound's time is comparable. */
    int64_t offset = monotonic_us() - (int64_t)jack_get_time();
    if (jack_activate(client)) { fprintf(stderr, "jack-capture: cannot activate\n"); return 1; }
    printf("ready %u\n", rate);
    fflush(stdout);
    if (freewheel_wanted && jack_set_freewheel(client, 1)) { fprintf(stderr, "jack-capture: the server refused freewheel mode\n"); return 1; }
    while (!atomic_load(&done)) usleep(10000);
    if (freewheel_wanted) jack_set_freewheel(client, 0);
    jack_deactivate(client);
    FILE *out = fopen(path, "wb");
    if (!out || fwrite(recorded, sizeof(float) * 2, frames, out) != frames || fclose(out)) { perror(path); return 1; }
    printf("first_sound_ns=%lld\nframes=%zu xruns=%d\nrolled_at=%lld transport_frame=%lld\n",
           first_sound_us < 0 ? -1LL : (long long)(first_sound_us + offset) * 1000, frames, atomic_load(&xruns),
           (long long)rolled_at, (long long)transport_frame);
    jack_client_close(client);
    return 0;
}
