/*
 * pianola.h — Pianola's C API: MIDI songs played through SoundFonts, for games and scripts.
 *
 * A soundtrack plays songs (a Standard MIDI File and the SoundFont it sounds through, with
 * audio stems and layers), switches and crossfades them on the next beat, bar line or marker,
 * loops them on their loop marks, fades layers, plays sound effects, and reports beats, bars,
 * markers, loop wraps, song ends and finished loads as events the caller polls. The audio is
 * pulled by the caller's own audio callback (pianola_render_f32 and friends) or played
 * through Pianola's own audio output (PipeWire, JACK or ALSA). Offline, one call renders a MIDI file to an audio file,
 * and a renderer hands a song's audio out in pieces.
 *
 * Conventions
 * - Every function returns a pianola_status: PIANOLA_OK (0) or a negative error code. After
 *   an error, pianola_last_error() gives a one-line message for the calling thread.
 * - Handles are opaque. A handle that is NULL, unknown, already destroyed, or of another kind
 *   is PIANOLA_ERROR_HANDLE, never a crash.
 * - Strings are UTF-8, NUL-terminated, and only read during the call. Bytes given in memory
 *   (songs, SoundFonts, audio files) are copied by the call; the caller may free them after.
 * - Config structs start with struct_size; fill them with their *_config_init function first,
 *   then change what you need. A struct_size this library does not know is
 *   PIANOLA_ERROR_ARGUMENT.
 * - Thread rules are given per function. "Any thread": callable from any thread at any time
 *   (calls on one soundtrack are serialised by a lock the audio thread never takes).
 *   "Audio thread": the real-time render calls, which take no lock, allocate nothing and do
 *   no I/O; call them from one thread at a time per soundtrack.
 * - Times are seconds (double); the music clock (sample_time) counts frames rendered while
 *   not paused, from 0.
 */
#ifndef PIANOLA_H
#define PIANOLA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- Version and errors */

#define PIANOLA_VERSION_MAJOR 0
#define PIANOLA_VERSION_MINOR 3
#define PIANOLA_VERSION_PATCH 0
/** The version this header belongs to, as a string. */
#define PIANOLA_VERSION_STRING "0.3.0"
/** A version as one comparable number: 0.2.0 is 200. */
#define PIANOLA_VERSION_NUMBER(major, minor, patch) ((major) * 10000 + (minor) * 100 + (patch))
/** This header's version as one number, for `#if`. */
#define PIANOLA_VERSION PIANOLA_VERSION_NUMBER(PIANOLA_VERSION_MAJOR, PIANOLA_VERSION_MINOR, PIANOLA_VERSION_PATCH)

/** The library's version string ("0.3.0"): compare with PIANOLA_VERSION_STRING. Any thread. */
const char *pianola_version(void);

/** What a call returns: PIANOLA_OK or one of the negative error codes below. */
typedef int32_t pianola_status;

enum {
    PIANOLA_OK = 0,
    /** A NULL pointer where one is needed, a value out of its range, a wrong struct_size,
        a malformed route or position, or a name the song does not have (a layer, a marker). */
    PIANOLA_ERROR_ARGUMENT = -1,
    /** A handle that is NULL, unknown, destroyed, or of another kind. */
    PIANOLA_ERROR_HANDLE = -2,
    /** The call does not fit the moment: a song still loading or failed, no song playing,
        a marker not reached again, the output already running or not running, a render
        while Pianola's own output plays. */
    PIANOLA_ERROR_STATE = -3,
    /** A file or bytes that cannot be read or are not what they should be (MIDI file,
        SoundFont, audio file), or an output file that cannot be written. */
    PIANOLA_ERROR_FILE = -4,
    /** An audio device that cannot be opened, fails, or will not take the format; no ALSA
        sequencer, or a MIDI port that is not there. */
    PIANOLA_ERROR_DEVICE = -5,
    /** A queue to the audio side is full (256 sound starts waiting): pull audio, then try
        again; or a million handles are live. */
    PIANOLA_ERROR_BUSY = -6
};

/** The one-line message of the calling thread's last error ("" if none yet), e.g.
    "songs/x.mid: byte 14, track 1: chunk 'MTrk' claims 4096 bytes, past the end of the file".
    Valid until the next Pianola call on the same thread. Any thread. */
const char *pianola_last_error(void);

/** The path of the SoundFont that plays when a config's soundfont names none (its path and
    data both NULL), the same rule as `pianola` and the Python module: $PIANOLA_SOUNDFONT, else
    the system's General MIDI font (/usr/share/sounds/sf2/default-GM.sf2, FluidR3_GM.sf2), else
    the project's own pianola-gm.sf2 beside or above the library (share/pianola/soundfonts/).
    Writes it NUL-terminated into `path` when `capacity` holds it, and its length (without
    the NUL) to `length`; PIANOLA_ERROR_FILE when no font is found (the error says where it
    looked). Any thread. */
pianola_status pianola_default_soundfont(char *path, size_t capacity, size_t *length);

/* ---------------------------------------------------------------- Handles */

/** A game's music: songs, transitions, layers, effects, events, and the audio they make. */
typedef struct pianola_soundtrack pianola_soundtrack;
/** A song loaded (or loading) into a soundtrack; events name songs by this handle. */
typedef struct pianola_song pianola_song;
/** A sound (a sound effect, a voice line: a one-shot) loaded (or loading) into a soundtrack.
    "Effect" in this API means an effect on a bus (pianola_add_effect). */
typedef struct pianola_sound pianola_sound;
/** An offline render of one song, read out in pieces. */
typedef struct pianola_renderer pianola_renderer;
/** A SoundFont loaded once, shared by many offline renders (on many threads at once). */
typedef struct pianola_soundfont pianola_soundfont;

/* ---------------------------------------------------------------- Files and bytes */

/** A file given by its path, or by bytes in memory (an asset pack). Set exactly one of
    `path` and `data` (for a SoundFont, neither is the default: pianola_default_soundfont). */
typedef struct pianola_source {
    /** The file's path, or NULL. */
    const char *path;
    /** The file's bytes (copied by the call), or NULL. */
    const void *data;
    /** How many bytes `data` holds (more than 0). */
    size_t size;
    /** What messages call the bytes (NULL: "memory"). Ignored for a path. */
    const char *name;
} pianola_source;

/* ---------------------------------------------------------------- The soundtrack */

/** Which synthesizer plays songs: a soundtrack's, an offline render's. */
typedef int32_t pianola_synth;

enum {
    /** The default: Pianola's own, as `pianola render` chooses (libfluidsynth for a DLS bank). */
    PIANOLA_SYNTH_DEFAULT = 0,
    /** Pianola's own engine: every event on its exact frame (SF2 and SF3; a DLS bank goes to
        libfluidsynth). */
    PIANOLA_SYNTH_PIANOLA = 1,
    /** libfluidsynth: events on the nearest 64-frame block edge; also plays DLS banks. */
    PIANOLA_SYNTH_FLUIDSYNTH = 2
};

/** How a soundtrack renders. */
typedef struct pianola_soundtrack_config {
    /** sizeof(pianola_soundtrack_config), set by pianola_soundtrack_config_init. */
    uint32_t struct_size;
    /** Sample rate of everything it renders, 8000 to 384000 (default 48000). */
    int32_t sample_rate;
    /** The largest slice one internal render is cut into, 64 to 65536 (default 4096). A
        render call of more frames is cut into several. */
    int32_t max_frames;
    /** Nonzero: the master peak limiter keeps sums from clipping (default 1). */
    int32_t limiter;
    /** Most synthesizer voices sounding at once per song, 1 to 65535 (default 256). */
    int32_t polyphony;
    /** Sounds that can play at once, 1 to 1024; the oldest is cut beyond (default 32). */
    int32_t sound_voices;
    /** Nonzero: the synthesizers' reverb is on (default 1). */
    int32_t reverb;
    /** Nonzero: the synthesizers' chorus is on (default 1). */
    int32_t chorus;
    /** The synthesizers' output gain, 0 to 10 (default 0.2, FluidSynth's). */
    float gain;
    /* Came in 0.3.0; a config of 0.2.0, ending here, is still taken. */
    /** The synthesizer the songs play on (default PIANOLA_SYNTH_DEFAULT). */
    pianola_synth synth;
} pianola_soundtrack_config;

/** Fills `config` with the defaults and its struct_size. Any thread. */
pianola_status pianola_soundtrack_config_init(pianola_soundtrack_config *config);

/** Makes a soundtrack with nothing playing; `*soundtrack` receives it. Any thread. */
pianola_status pianola_soundtrack_create(const pianola_soundtrack_config *config, pianola_soundtrack **soundtrack);

/** Stops its output (if running) and frees the soundtrack. Its songs and sounds stay valid
    handles until destroyed, but can no longer play. Never call it while an audio callback
    may be pulling it. Any thread. */
pianola_status pianola_soundtrack_destroy(pianola_soundtrack *soundtrack);

/* ---------------------------------------------------------------- Songs and sounds */

/** An audio file that plays with a song from its start, faded as the layer `layer`. */
typedef struct pianola_stem {
    /** The layer's name (any case), for pianola_set_layer. */
    const char *layer;
    /** The audio file (WAV, FLAC, Ogg Vorbis, Opus, MP3…). */
    pianola_source source;
} pianola_stem;

/** Effects on one layer of a song (a track layer or a stem): one entry per effect, in order. */
typedef struct pianola_layer_effect {
    /** The layer's name (any case). */
    const char *layer;
    /** The effect, as pianola_add_effect takes it ("lowpass,cutoff=800", an LV2 plugin). */
    const char *spec;
} pianola_layer_effect;

/** A track of a song played by an LV2 instrument instead of the SoundFont. */
typedef struct pianola_track_instrument {
    /** The track's name (its track-name meta event, any case). */
    const char *track;
    /** The plugin by URI or name and its control ports after commas ("mda piano,random_detuning=0");
        it must be hard real-time capable. */
    const char *plugin;
} pianola_track_instrument;

/** A song to load. */
typedef struct pianola_song_config {
    /** sizeof(pianola_song_config), set by pianola_song_config_init. */
    uint32_t struct_size;
    /** The Standard MIDI File. */
    pianola_source midi;
    /** The SoundFont (.sf2, .sf3) it plays through; path and data both NULL: the default
        (pianola_default_soundfont). */
    pianola_source soundfont;
    /** Audio stems, `stem_count` of them (NULL when 0). */
    const pianola_stem *stems;
    /** How many stems. */
    size_t stem_count;
    /** Names of tracks (their track-name meta event, any case) to fade as layers of their
        own, `track_layer_count` of them (NULL when 0). */
    const char *const *track_layers;
    /** How many track layers. */
    size_t track_layer_count;
    /** Nonzero (default): loop where the song marks a loop (loopStart/loopEnd markers, CC111,
        EMIDI…); 0: play it through once. */
    int32_t loop;
    /** Nonzero: a track layer's CC7 and CC10 move the layer's own fader (default 0). */
    int32_t controllers_drive_layers;
    /** Effects on the song's own bus, in order, `effect_count` of them (NULL when 0), as
        pianola_add_effect takes them: every play of the song gets its own. (The fields from here
        on came after the first release: a struct_size that ends before them is taken, as none.) */
    const char *const *effects;
    /** How many effects. */
    size_t effect_count;
    /** Effects on layers, `layer_effect_count` of them (NULL when 0): a layer's in order. */
    const pianola_layer_effect *layer_effects;
    /** How many layer effects. */
    size_t layer_effect_count;
    /** Tracks played by LV2 instruments, `instrument_count` of them (NULL when 0). */
    const pianola_track_instrument *instruments;
    /** How many track instruments. */
    size_t instrument_count;
} pianola_song_config;

/** Fills `config` with the defaults (no files, looping on) and its struct_size. Any thread. */
pianola_status pianola_song_config_init(pianola_song_config *config);

/** Where a song or sound stands in its loading. */
typedef int32_t pianola_load_state;

enum {
    /** Loading on a worker thread. */
    PIANOLA_LOADING = 0,
    /** Loaded and ready to play. */
    PIANOLA_READY = 1,
    /** Could not be loaded: pianola_song_wait / pianola_sound_wait return why. */
    PIANOLA_FAILED = 2
};

/** Starts loading a song on a worker thread and returns at once: `*song` receives its handle,
    loading. Reading the MIDI file, loading the SoundFont and checking the stems happen there;
    PIANOLA_EVENT_SONG_LOADED or PIANOLA_EVENT_SONG_LOAD_FAILED tells when it is done, as do
    pianola_song_state and pianola_song_wait. Any thread. */
pianola_status pianola_song_load(pianola_soundtrack *soundtrack, const pianola_song_config *config, pianola_song **song);

/** Where `song` stands in its loading, into `*state`. Any thread. */
pianola_status pianola_song_state(pianola_song *song, pianola_load_state *state);

/** Blocks until `song` has loaded: PIANOLA_OK when ready, else the load's error code and
    message. Any thread but the audio thread. */
pianola_status pianola_song_wait(pianola_song *song);

/** Frees the handle. A song that plays goes on until stopped or replaced. Any thread. */
pianola_status pianola_song_destroy(pianola_song *song);

/** Starts loading a sound (decoded whole into memory at the soundtrack's rate) on a worker
    thread and returns at once: `*sound` receives its handle, loading. Any thread. */
pianola_status pianola_sound_load(pianola_soundtrack *soundtrack, const pianola_source *source, pianola_sound **sound);

/** Where `sound` stands in its loading, into `*state`. Any thread. */
pianola_status pianola_sound_state(pianola_sound *sound, pianola_load_state *state);

/** Blocks until `sound` has loaded: PIANOLA_OK when ready, else the load's error. Any
    thread but the audio thread. */
pianola_status pianola_sound_wait(pianola_sound *sound);

/** Frees the handle; a sound playing plays to its end. Any thread. */
pianola_status pianola_sound_destroy(pianola_sound *sound);

/* ---------------------------------------------------------------- Playing */

/** When a change happens. */
typedef int32_t pianola_moment;

enum {
    /** As soon as the audio can take it. */
    PIANOLA_NOW = 0,
    /** On the next beat of the playing song (now if none plays). */
    PIANOLA_NEXT_BEAT = 1,
    /** On the next bar line of the playing song (now if none plays). */
    PIANOLA_NEXT_BAR = 2,
    /** When the playing song next sounds the marker named by the `marker` argument (any
        case), after its loop's wrap if need be. */
    PIANOLA_AT_MARKER = 3,
    /** When the section playing now ends: the next section's marker sounds (after the loop's
        wrap if need be). */
    PIANOLA_SECTION_END = 4
};

/* In the calls below, `marker` is the marker's text for PIANOLA_AT_MARKER and ignored (may be
   NULL) otherwise. Fades are seconds, 0 to 3600. Volumes are linear gains, 0 to 16 (1 is as
   written). */

/** Plays `song` from its start on `moment`, fading in over `fade_in`; the song playing
    before stops on that same frame, fading out over `fade_out`. Any thread. */
pianola_status pianola_play(pianola_soundtrack *soundtrack, pianola_song *song, pianola_moment moment, const char *marker,
                            double fade_in, double fade_out);

/** Crossfades from the playing song to `song` over `seconds`, starting on `moment`. Any thread. */
pianola_status pianola_crossfade(pianola_soundtrack *soundtrack, pianola_song *song, double seconds, pianola_moment moment,
                                 const char *marker);

/** Stops the playing song on `moment`, fading out over `fade_out` (nothing when none plays). Any thread. */
pianola_status pianola_stop(pianola_soundtrack *soundtrack, pianola_moment moment, const char *marker, double fade_out);

/** Moves the playing song to its section `section` (a marker's text, any case) on `moment`,
    on that frame exactly: sounding notes are released and ring out, the section's programs
    and controllers are chased there; PIANOLA_EVENT_JUMPED reports it. Any thread. */
pianola_status pianola_jump(pianola_soundtrack *soundtrack, const char *section, pianola_moment moment, const char *marker);

/** Pauses all music and effects where they are, after a 10 ms fade. Any thread. */
pianola_status pianola_pause(pianola_soundtrack *soundtrack);

/** Resumes from the same frame after pianola_pause. Any thread. */
pianola_status pianola_resume(pianola_soundtrack *soundtrack);

/** Plays the playing song at `percent` (1 to 1000) of its written tempo. Any thread. */
pianola_status pianola_set_tempo(pianola_soundtrack *soundtrack, int32_t percent);

/** Transposes the playing song by `semitones` (-48 to 48); drums (channel 10) stay. Any thread. */
pianola_status pianola_set_transpose(pianola_soundtrack *soundtrack, int32_t semitones);

/** Fades the playing song's layer `layer` (a track layer or a stem) to `volume` over
    `seconds`, from `moment` on. Any thread. */
pianola_status pianola_set_layer(pianola_soundtrack *soundtrack, const char *layer, float volume, double seconds,
                                 pianola_moment moment, const char *marker);

/** Fades everything to `volume` over `seconds`. Any thread. */
pianola_status pianola_set_master_volume(pianola_soundtrack *soundtrack, float volume, double seconds);

/** Plays `sound` on `moment` (a stinger on the next bar line) at `volume`, panned by `pan`
    (-1 left to 1 right). Any thread. */
pianola_status pianola_play_sound(pianola_soundtrack *soundtrack, pianola_sound *sound, pianola_moment moment,
                                   const char *marker, float volume, float pan);

/** Plays the loaded song `stinger` (a short MIDI phrase) over the playing song on `moment`, at
    the song's live tempo and transposition, through synthesizers of its own at `volume`. At most
    4 sound at once: the lowest `priority` (the oldest of those) gives way to a new one of at
    least its priority; a new one below them all fails with PIANOLA_ERROR_BUSY. Any thread. */
pianola_status pianola_play_stinger(pianola_soundtrack *soundtrack, pianola_song *stinger, pianola_moment moment,
                                    const char *marker, int32_t priority, float volume);

/* ---------------------------------------------------------------- Transitions */

/** Where a transition's destination enters. */
typedef int32_t pianola_entry;
enum {
    /** At the start of the section asked for (or of the song). */
    PIANOLA_ENTER_SECTION_START = 0,
    /** At the bar and beat, counted from the section's start, the music leaves from. */
    PIANOLA_ENTER_SAME_POSITION = 1,
    /** At the destination's marker named by `entry_cue` (any case): its entry cue. */
    PIANOLA_ENTER_AT_CUE = 2
};

/** How a transition's fades move. */
typedef int32_t pianola_fade_shape;
enum {
    /** In a straight line of gain. */
    PIANOLA_FADE_LINEAR = 0,
    /** Along a quarter sine: a crossfade that keeps the summed power. */
    PIANOLA_FADE_EQUAL_POWER = 1
};

/** A transition rule: when the music leaves (`leave`, with `leave_marker` for
    PIANOLA_AT_MARKER: an exit cue), a segment played between (`segment`, NULL for none, or its
    section `segment_section`, NULL for the whole song), the fades in seconds and their shape, and where the
    destination enters (`entry`, with `entry_cue` for PIANOLA_ENTER_AT_CUE). `name` names it in
    PIANOLA_EVENT_TRANSITIONED. The strings are copied. */
typedef struct pianola_transition_rule {
    const char *name;
    pianola_moment leave;
    const char *leave_marker;
    pianola_song *segment;
    const char *segment_section;
    double fade_out;
    double fade_in;
    pianola_fade_shape fade_shape;
    pianola_entry entry;
    const char *entry_cue;
} pianola_transition_rule;

/** Sets the rule for leaving `from_song` (NULL: any music; in its section `from_section`, NULL:
    any) for `to_song` (NULL: any song; its section `to_section`, NULL: any). With both NULL it
    is the default rule. pianola_transition uses the most specific rule that fits: the side the
    music leaves counts first, a section before a song before any. Any thread. */
pianola_status pianola_set_transition(pianola_soundtrack *soundtrack, const pianola_transition_rule *rule,
                                      pianola_song *from_song, const char *from_section,
                                      pianola_song *to_song, const char *to_section);

/** Moves the music to `song` (its section `section`, NULL: its start) by the rule that fits:
    leaving on its moment with its fade-out, playing its segment, entering where it says with its
    fade-in; PIANOLA_EVENT_TRANSITIONED reports it. Any thread. */
pianola_status pianola_transition(pianola_soundtrack *soundtrack, pianola_song *song, const char *section);

/* ---------------------------------------------------------------- Game parameters */

/** What a game parameter drives. */
typedef int32_t pianola_parameter_target;
enum {
    /** The volume (linear gain 0 to 16) of the layer `names[0]`, on top of pianola_set_layer's. */
    PIANOLA_TARGET_LAYER_VOLUME = 0,
    /** The tempo, in percent (1 to 1000) of pianola_set_tempo's. */
    PIANOLA_TARGET_TEMPO = 1,
    /** Controller `controller` (0 to 119, value 0 to 127) on the channels in `channels` (bit n-1
        for channel n, 1 to 16); the song's own messages for it there give way. */
    PIANOLA_TARGET_CONTROLLER = 2,
    /** A transposition in semitones (-48 to 48), added to pianola_set_transpose's. */
    PIANOLA_TARGET_TRANSPOSE = 3,
    /** Which section plays when one ends: the curve's value, rounded, picks one of the
        `name_count` section names in `names` (0 the first). */
    PIANOLA_TARGET_NEXT_SECTION = 4
};

/** Makes the game parameter `name` (any case) with values from `minimum` to `maximum`,
    standing at `value`. At most 32. Any thread. */
pianola_status pianola_define_parameter(pianola_soundtrack *soundtrack, const char *name, double minimum, double maximum, double value);

/** Makes parameter `name` drive `target` in the songs played from now on, along straight lines
    through the `count` points (`xs[i]` in the parameter's range, `ys[i]` in the target's unit),
    flat beyond the first and last. `names` (`name_count` of them) names the layer or the
    sections, `controller` and `channels` the controller, for the targets that take them; the
    others ignore them. Any thread. */
pianola_status pianola_map_parameter(pianola_soundtrack *soundtrack, const char *name, pianola_parameter_target target,
                                     const char *const *names, size_t name_count, int32_t controller, uint16_t channels,
                                     const double *xs, const double *ys, size_t count);

/** Moves parameter `name` to `value` along a straight line over `seconds` (at least 20 ms),
    smoothed on the audio thread. Any thread. */
pianola_status pianola_set_parameter(pianola_soundtrack *soundtrack, const char *name, double value, double seconds);

/** Where parameter `name` stands now (along its glide), into `*value`. Any thread. */
pianola_status pianola_get_parameter(pianola_soundtrack *soundtrack, const char *name, double *value);

/* ---------------------------------------------------------------- Effects */

/** A bus of a soundtrack's mix, each with its chain of effects: the sound effects, the music
    and the aux return are summed, in that order, into the master. */
typedef int32_t pianola_bus;
enum {
    /** Everything, before the master volume and the limiter. */
    PIANOLA_BUS_MASTER = 0,
    /** Every song, layers and stems included. */
    PIANOLA_BUS_MUSIC = 1,
    /** The sound effects: dialogue and one-shots. */
    PIANOLA_BUS_SOUNDS = 2,
    /** The return bus: what the music and the sounds send to it (pianola_set_send). */
    PIANOLA_BUS_AUX = 3,
    /** No bus: a compressor keyed by its own input. */
    PIANOLA_BUS_NONE = -1
};

/** Adds the effect `spec` (a built-in and its parameters after commas, as `pianola effects`
    lists them: "lowpass,cutoff=800", "compressor,threshold=-30,ratio=4") at the end of `bus`'s
    chain; `*effect_id` receives its number on the bus (0 for the first added there, then
    counting up; kept while others are removed, never reused). A compressor given a `key` bus other
    than PIANOLA_BUS_NONE is turned down by that bus's level (the music ducking under the
    sounds); a key is summed before the bus it drives. At most 16 effects a bus. Any thread. */
pianola_status pianola_add_effect(pianola_soundtrack *soundtrack, pianola_bus bus, const char *spec, pianola_bus key, int32_t *effect_id);

/** Moves parameter `parameter` of effect `effect_id` on `bus` to `value` (in the parameter's unit),
    gliding over `seconds` (at least 20 ms). Any thread. */
pianola_status pianola_set_effect_parameter(pianola_soundtrack *soundtrack, pianola_bus bus, int32_t effect_id, const char *parameter,
                                            double value, double seconds);

/** Sends `bus` (PIANOLA_BUS_MUSIC or PIANOLA_BUS_SOUNDS, after its effects) into the aux bus at
    `level` (linear gain 0 to 16; 0 sends nothing), gliding over one render slice. Any thread. */
pianola_status pianola_set_send(pianola_soundtrack *soundtrack, pianola_bus bus, float level);

/** Bypasses effect `effect_id` on `bus` (`bypassed` nonzero) or brings it back, fading over 5 ms. Any thread. */
pianola_status pianola_set_effect_bypassed(pianola_soundtrack *soundtrack, pianola_bus bus, int32_t effect_id, int32_t bypassed);

/** Takes effect `effect_id` off `bus` from the next render, fading it out over 5 ms; game
    parameters mapped to it let go of it. Any thread. */
pianola_status pianola_remove_effect(pianola_soundtrack *soundtrack, pianola_bus bus, int32_t effect_id);

/** Makes game parameter `name` drive parameter `parameter` of effect `effect_id` on `bus`, along
    straight lines through the `count` points (`xs[i]` in the game parameter's range, `ys[i]`
    in the effect parameter's), gliding with it: a low-pass opening as the player surfaces.
    Any thread. */
pianola_status pianola_map_parameter_to_effect(pianola_soundtrack *soundtrack, const char *name, pianola_bus bus, int32_t effect_id,
                                               const char *parameter, const double *xs, const double *ys, size_t count);

/** The output's peak and RMS (linear) over the last render, into `*peak` and `*rms`. Any thread. */
pianola_status pianola_meters(pianola_soundtrack *soundtrack, float *peak, float *rms);

/* ---------------------------------------------------------------- Events */

/** What happened. */
typedef int32_t pianola_event_type;

enum {
    /** A beat other than the first of its bar sounded (`bar`, `beat`; `text` the section it
        falls in, empty before the first). */
    PIANOLA_EVENT_BEAT = 1,
    /** A bar line sounded: beat 1 of bar `bar` (`text` its section, as for a beat). */
    PIANOLA_EVENT_BAR = 2,
    /** A marker (or cue point) sounded; `text` is its text. */
    PIANOLA_EVENT_MARKER = 3,
    /** The song went back to its loop's start. */
    PIANOLA_EVENT_LOOP_WRAPPED = 4,
    /** The song played to its end (one left before it is PIANOLA_EVENT_SONG_STOPPED). */
    PIANOLA_EVENT_SONG_ENDED = 5,
    /** The song finished loading and can play. */
    PIANOLA_EVENT_SONG_LOADED = 6,
    /** The song could not be loaded; `text` says why. */
    PIANOLA_EVENT_SONG_LOAD_FAILED = 7,
    /** The sound finished loading and can play. */
    PIANOLA_EVENT_SOUND_LOADED = 8,
    /** The sound could not be loaded; `text` says why. */
    PIANOLA_EVENT_SOUND_LOAD_FAILED = 9,
    /** The song jumped to its section `text` (pianola_jump). */
    PIANOLA_EVENT_JUMPED = 10,
    /** The music left for `song` by the transition rule named `text` (a Swift game's
        Soundtrack.transition(to:section:)). */
    PIANOLA_EVENT_TRANSITIONED = 11,
    /** The song started sounding on `sample_time` (pianola_play, pianola_crossfade, a
        transition): the frame its first sample plays; `text` the section it entered, "" from
        its start. It comes before the song's first BAR. */
    PIANOLA_EVENT_SONG_STARTED = 12,
    /** The song was left before its end (another song played, or pianola_stop): its
        fade-out, if any, begins on `sample_time`. */
    PIANOLA_EVENT_SONG_STOPPED = 13
};

/** Room for an event's text, its NUL included; a longer text is cut at a UTF-8 character. */
#define PIANOLA_EVENT_TEXT_SIZE 256

/** One event. */
typedef struct pianola_event {
    /** What happened. */
    pianola_event_type type;
    /** BEAT and BAR: the bar, counted from 1; else 0. */
    int32_t bar;
    /** BEAT and BAR: the beat in its bar, counted from 1 (1 for BAR); else 0. */
    int32_t beat;
    /** When it sounded on the music clock, in frames; for loads, the frames rendered when
        the load finished. */
    int64_t sample_time;
    /** The song it concerns (its handle from pianola_song_load), or NULL for sounds and for
        a song whose handle was destroyed. */
    pianola_song *song;
    /** The sound it concerns, or NULL. */
    pianola_sound *sound;
    /** MARKER: the marker's text; *_LOAD_FAILED: the reason; else "". */
    char text[PIANOLA_EVENT_TEXT_SIZE];
} pianola_event;

/** Moves up to `capacity` events, oldest first, into `events`; `*count` receives how many.
    The rest wait for the next call. Call it often (each game frame). Any thread. */
pianola_status pianola_poll_events(pianola_soundtrack *soundtrack, pianola_event *events, size_t capacity, size_t *count);

/* ---------------------------------------------------------------- Where the music is */

/** The playing song and its place at the end of the audio rendered so far. */
typedef struct pianola_position {
    /** sizeof(pianola_position): set it before the call (pianola_position_init does). */
    uint32_t struct_size;
    /** Bars and beats: beats in the bar (3 in 3/4; 4 when the song has no meter). */
    int32_t beats_per_bar;
    /** The beat's note value (4 in 3/4). */
    int32_t beat_unit;
    /** The bar, counted from 1; 0 for a song in SMPTE time or when no song plays. */
    int32_t bar;
    /** The beat in its bar, counted from 1; 0 as for `bar`. */
    int32_t beat;
    /** How far into the beat, from 0 up to 1, by frames. */
    double beat_fraction;
    /** The song sounding (the one played last that has started; a song fading out until the
        next one starts), or NULL when none sounds or its handle was destroyed. Stingers are
        not the playing song. */
    pianola_song *song;
    /** The music clock's frame this is for: every frame before it has been rendered. */
    int64_t sample_time;
    /** Frames into the song as written (its tempo map at the soundtrack's rate); a loop's
        wrap or a jump moves it back. */
    int64_t song_frame;
    /** `song_frame` in seconds. */
    double seconds;
    /** The song's tick there. */
    int64_t tick;
    /** The tempo it plays at, in quarter notes a minute: the written tempo times the rate
        (pianola_set_tempo, game parameters). 0 when no song plays. */
    double bpm;
    /** The section it is in ("" before the first, or none). */
    char section[PIANOLA_EVENT_TEXT_SIZE];
} pianola_position;

/** Fills `position` with zeros and its struct_size. Any thread. */
pianola_status pianola_position_init(pianola_position *position);

/** Where the music is at the end of the audio rendered so far, exact to the frame: the
    playing song, seconds, tick, bar and beat, tempo and meter. A game reads it after each
    pianola_render_f32 (or from its UI thread while Pianola's own output plays). Any thread. */
pianola_status pianola_soundtrack_position(pianola_soundtrack *soundtrack, pianola_position *position);

/* ---------------------------------------------------------------- Audio out */

/** Renders the next `frames` frames into `interleaved` (2 × frames floats: left, right). For
    a game that owns the audio callback (SDL, miniaudio…). Real-time safe. Audio thread. */
pianola_status pianola_render_f32(pianola_soundtrack *soundtrack, float *interleaved, size_t frames);

/** Renders the next `frames` frames into `interleaved` (2 × frames signed 16-bit samples:
    each sample × 32767, rounded, held at full scale). Real-time safe. Audio thread. */
pianola_status pianola_render_s16(pianola_soundtrack *soundtrack, int16_t *interleaved, size_t frames);

/** Renders the next `frames` frames into `left` and `right` (frames floats each). Real-time
    safe. Audio thread. */
pianola_status pianola_render_planar(pianola_soundtrack *soundtrack, float *left, float *right, size_t frames);

/** An audio driver for Pianola's own output. */
typedef int32_t pianola_driver;

enum {
    /** What `pianola play` chooses: the PIANOLA_DRIVER environment variable ("alsa",
        "pipewire", "jack") if set, else PipeWire when its daemon has a sink, else JACK when a
        server runs, else ALSA. */
    PIANOLA_DRIVER_DEFAULT = 0,
    /** An ALSA PCM; a device is a PCM name ("default", "hw:0", "null"). */
    PIANOLA_DRIVER_ALSA = 1,
    /** A PipeWire stream "Pianola" (media role Music); a device is a sink's node name or serial. */
    PIANOLA_DRIVER_PIPEWIRE = 2,
    /** A JACK client "pianola" with ports out_L and out_R; a device is a client name or two
        comma-separated ports to connect to. */
    PIANOLA_DRIVER_JACK = 3
};

/** Plays the soundtrack through Pianola's own output on `driver` and `device` (NULL: the
    driver's default: ALSA's "default", PipeWire's default sink, JACK's physical playback
    ports), with periods of `period_frames` (at most max_frames; 0: 512; PipeWire's quantum,
    ignored by JACK, whose server sets it) and `periods` of them (0: 3; ALSA only). The
    output's rate must be the soundtrack's (JACK's server rate is the server's). While it
    runs, the render calls are PIANOLA_ERROR_STATE. Any thread. */
pianola_status pianola_output_start_driver(pianola_soundtrack *soundtrack, pianola_driver driver, const char *device, int32_t period_frames, int32_t periods);

/** pianola_output_start_driver on the driver `pianola play` chooses (PIANOLA_DRIVER_DEFAULT):
    `device` is that driver's (NULL: its default). Any thread. */
pianola_status pianola_output_start(pianola_soundtrack *soundtrack, const char *device, int32_t period_frames, int32_t periods);

/** Stops Pianola's own output at once. Any thread. */
pianola_status pianola_output_stop(pianola_soundtrack *soundtrack);

/* ---------------------------------------------------------------- Offline: one song */

/** Loads the SoundFont at `source`'s path (bytes are refused: give a path; neither: the
    default, pianola_default_soundfont) once, for the
    engine `synth`, to share between renders (pianola_render_config.loaded_soundfont), which
    may run on several threads at once. Any thread. */
pianola_status pianola_soundfont_load(const pianola_source *source, pianola_synth synth, pianola_soundfont **soundfont);

/** Frees the SoundFont; renders made with it keep what they need. Any thread. */
pianola_status pianola_soundfont_destroy(pianola_soundfont *soundfont);

/** A song to render offline or play through once. */
typedef struct pianola_render_config {
    /** sizeof(pianola_render_config), set by pianola_render_config_init. */
    uint32_t struct_size;
    /** The Standard MIDI File. */
    pianola_source midi;
    /** The SoundFont it plays through; path and data both NULL: the default
        (pianola_default_soundfont). */
    pianola_source soundfont;
    /** Sample rate, 8000 to 384000 (default 48000). */
    int32_t sample_rate;
    /** Longest time to let notes ring after the music, 0 to 60 seconds (default 5). */
    double tail_seconds;
    /** Nonzero: reverb on (default 1). */
    int32_t reverb;
    /** Nonzero: chorus on (default 1). */
    int32_t chorus;
    /** Synthesizer gain, 0 to 10 (default 0.2). */
    float gain;
    /** pianola_render_file: 16 or 24 (integer) or 32 (float, WAV only) bits per sample
        (default 16). */
    int32_t bits;
    /* The fields below came in 0.3.0; a config of 0.2.0, ending here, is still taken. */
    /** A SoundFont loaded once (pianola_soundfont_load), or NULL: when set, `soundfont` is
        not read and `synth` is the font's. */
    pianola_soundfont *loaded_soundfont;
    /** The synthesizer (default PIANOLA_SYNTH_DEFAULT). */
    pianola_synth synth;
    /** Semitones every channel but 10 moves, -48 to 48 (default 0). */
    int32_t transpose;
    /** Where the render starts and ends: seconds ("12.5") or bar:beat ("3:1", "3:1:240",
        counted from 1), as `pianola render --from/--to`; NULL: the song's start, its end. */
    const char *from;
    /** See `from`. */
    const char *to;
    /** Tracks to mute, counted from 1 as `pianola info` lists them (`mute_track_count` of them). */
    const int32_t *mute_tracks;
    /** How many `mute_tracks`. */
    size_t mute_track_count;
    /** Tracks to solo: while any track or channel is soloed, only those sound. */
    const int32_t *solo_tracks;
    /** How many `solo_tracks`. */
    size_t solo_track_count;
    /** Channels to mute: bit 0 is channel 1, bit 15 channel 10… (default 0). */
    uint32_t mute_channels;
    /** Channels to solo, as `mute_channels`. */
    uint32_t solo_channels;
    /** Nonzero: the renderer records the notes it plays (pianola_renderer_labels). */
    int32_t labels;
} pianola_render_config;

/** A note as a render played it, on the frames the synthesizer used. */
typedef struct pianola_note_label {
    /** The frame (from the render's start) the key was pressed on. */
    int64_t start_frame;
    /** The frame it was released on (the render's end for a key never released). */
    int64_t end_frame;
    /** The channel, 1 to 16. */
    int32_t channel;
    /** The key, 0 to 127 (as sounded: after transposition). */
    int32_t key;
    /** The velocity, 1 to 127. */
    int32_t velocity;
    /** The channel's program then, 0 to 127. */
    int32_t program;
    /** The channel's bank then (CC0 × 128 + CC32). */
    int32_t bank;
} pianola_note_label;

/** A track of the song being rendered. */
typedef struct pianola_track_info {
    /** Its notes. */
    int64_t notes;
    /** The channels its notes play on: bit 0 is channel 1. */
    uint32_t channels;
    /** Its name ("" if none). */
    char name[PIANOLA_EVENT_TEXT_SIZE];
} pianola_track_info;

/** Fills `config` with the defaults and its struct_size. Any thread. */
pianola_status pianola_render_config_init(pianola_render_config *config);

/** Renders a song into an audio file at `output_path`, its type from the extension (.wav,
    .flac, .ogg, .opus, .mp3, .raw), faster than real time: the music, then until the notes have
    died (at most tail_seconds). An existing file is refused unless `overwrite` is nonzero.
    Blocks until done. Any thread. */
pianola_status pianola_render_file(const pianola_render_config *config, const char *output_path, int32_t overwrite);

/** Writes `frames` frames of interleaved stereo float audio (left, right, …) at
    `sample_rate` to `output_path` in the type its name gives (.wav, .flac, .ogg, .opus, .mp3),
    with `bits` 16, 24 or 32 (float, WAV only), under a hidden name beside it renamed into
    place when whole, so an interrupted write leaves no half file. An existing file is refused
    (PIANOLA_ERROR_FILE) unless `overwrite`. For audio the caller holds (a render's stems,
    normalized audio). Any thread. */
pianola_status pianola_write_audio(const char *output_path, const float *interleaved, size_t frames, int32_t sample_rate, int32_t bits,
                                   int32_t overwrite);

/** Plays a song once through `device` on `driver` (NULL: the driver's default, as
    pianola_output_start_driver) at the output's rate, and returns when it has ended.
    Blocks. Any thread. */
pianola_status pianola_play_file_driver(const pianola_render_config *config, pianola_driver driver, const char *device);

/** pianola_play_file_driver on the driver `pianola play` chooses (PIANOLA_DRIVER_DEFAULT):
    `device` is that driver's (NULL: its default). Blocks. Any thread. */
pianola_status pianola_play_file(const pianola_render_config *config, const char *device);

/** Prepares an offline render of a song, read out with pianola_renderer_read. Any thread. */
pianola_status pianola_renderer_create(const pianola_render_config *config, pianola_renderer **renderer);

/** The render's length in frames, if it plays to its full tail (it may end sooner, when
    the notes have died), into `*frames`. Any thread. */
pianola_status pianola_renderer_max_frames(pianola_renderer *renderer, int64_t *frames);

/** Renders up to `frames` more frames into `interleaved` (2 × frames floats); `*frames_read`
    receives how many, 0 once the song and its tail have ended. One thread at a time. */
pianola_status pianola_renderer_read(pianola_renderer *renderer, float *interleaved, size_t frames, size_t *frames_read);

/** The notes played so far (the config asked for `labels`), oldest first: up to `capacity`
    into `labels`; `*count` receives how many there are in all (call with capacity 0 to size
    the array). Call it after the last read for every note. One thread at a time. */
pianola_status pianola_renderer_labels(pianola_renderer *renderer, pianola_note_label *labels, size_t capacity, size_t *count);

/** How many tracks the song has, into `*count`. Any thread. */
pianola_status pianola_renderer_track_count(pianola_renderer *renderer, int32_t *count);

/** Track `track` (counted from 1) of the song: its notes, channels and name. Any thread. */
pianola_status pianola_renderer_track(pianola_renderer *renderer, int32_t track, pianola_track_info *info);

/** Frees the renderer. Any thread. */
pianola_status pianola_renderer_destroy(pianola_renderer *renderer);

/* ---------------------------------------------------------------- MIDI ports */

/** Room for a port's address, client name and port name, each with its NUL. */
#define PIANOLA_PORT_NAME_SIZE 128

/** An ALSA sequencer port, as `pianola ports` lists it. */
typedef struct pianola_midi_port {
    /** "client:port", e.g. "14:0". */
    char address[16];
    /** The client's name ("Midi Through"). */
    char client[PIANOLA_PORT_NAME_SIZE];
    /** The port's name ("Midi Through Port-0"). */
    char name[PIANOLA_PORT_NAME_SIZE];
    /** Nonzero: it takes events (a song can be sent there). */
    int32_t receives;
    /** Nonzero: it gives events (a clock can be followed from there). */
    int32_t sends;
    /** Nonzero: a kernel client's port (a device, Midi Through). */
    int32_t kernel;
} pianola_midi_port;

/** The sequencer's ports (none of Pianola's own): up to `capacity` into `ports`; `*count`
    receives how many there are in all (capacity 0 to size the array). No sequencer
    (/dev/snd/seq missing) is PIANOLA_ERROR_DEVICE. Any thread. */
pianola_status pianola_midi_ports(pianola_midi_port *ports, size_t capacity, size_t *count);

/** Where a song played with pianola_play_file_midi goes besides the synthesizer. Ports are
    named as `pianola ports` lists them: "24:0", "Midi Through", "client:port". */
typedef struct pianola_midi_config {
    /** sizeof(pianola_midi_config), set by pianola_midi_config_init. */
    uint32_t struct_size;
    /** The port every track goes to that no route names, or NULL: the synthesizer. */
    const char *port;
    /** Routes, first match wins, as `pianola play --route`: "ch10=synth", "track2,ch3-4=24:0". */
    const char *const *routes;
    /** How many `routes`. */
    size_t route_count;
    /** Ports MIDI clock goes to (24 a quarter at the tempo played, Start/Stop/Continue/SPP). */
    const char *const *clock_ports;
    /** How many `clock_ports`. */
    size_t clock_port_count;
    /** Ports MIDI timecode goes to. */
    const char *const *timecode_ports;
    /** How many `timecode_ports`. */
    size_t timecode_port_count;
    /** The timecode's frames a second: 24, 25, 2997 (29.97 drop-frame) or 30 (default 30). */
    int32_t timecode_rate;
    /** A port whose MIDI clock the song follows (it waits for Start), or NULL. */
    const char *follow_port;
} pianola_midi_config;

/** Fills `config` with the defaults (nothing to any port) and its struct_size. Any thread. */
pianola_status pianola_midi_config_init(pianola_midi_config *config);

/** Plays a song once as pianola_play_file_driver does, with `midi`'s ports: routed events go
    to them in time with the audio, clock and timecode go out, a followed clock leads; when
    nothing goes to the synthesizer, the song plays to the ports alone and no audio device is
    opened. A malformed route or rate is PIANOLA_ERROR_ARGUMENT; no sequencer, or a port
    that is not there, PIANOLA_ERROR_DEVICE (as an audio device that cannot be opened), each
    with one line. Blocks until it has played out. Any thread. */
pianola_status pianola_play_file_midi(const pianola_render_config *config, const pianola_midi_config *midi, pianola_driver driver, const char *device);

#ifdef __cplusplus
}
#endif

#endif /* PIANOLA_H */
