"""libpianola loaded through ctypes: the C structs of pianola.h and each function's signature.

Only translation lives here; the behaviour is the C library's (and below it, Swift's).
"""
import ctypes
import os
import subprocess

# Status codes (pianola.h).
OK = 0
ERROR_ARGUMENT = -1
ERROR_HANDLE = -2
ERROR_STATE = -3
ERROR_FILE = -4
ERROR_DEVICE = -5
ERROR_BUSY = -6

# Load states, moments and event types (pianola.h).
LOADING, READY, FAILED = 0, 1, 2
NOW, NEXT_BEAT, NEXT_BAR, AT_MARKER, SECTION_END = 0, 1, 2, 3, 4
(EVENT_BEAT, EVENT_BAR, EVENT_MARKER, EVENT_LOOP_WRAPPED, EVENT_SONG_ENDED, EVENT_SONG_LOADED,
 EVENT_SONG_LOAD_FAILED, EVENT_SOUND_LOADED, EVENT_SOUND_LOAD_FAILED, EVENT_JUMPED, EVENT_TRANSITIONED,
 EVENT_SONG_STARTED, EVENT_SONG_STOPPED) = range(1, 14)
# Transition entries and parameter targets (pianola.h), by the names the module takes.
ENTRIES = {"section_start": 0, "same_position": 1, "cue": 2}
FADE_SHAPES = {"linear": 0, "equal_power": 1}
TARGETS = {"layer_volume": 0, "tempo": 1, "controller": 2, "transpose": 3, "next_section": 4}
# The soundtrack's buses (pianola.h), by the names the module takes; None is no key.
BUSES = {"master": 0, "music": 1, "sounds": 2, "aux": 3}
BUS_NONE = -1
EVENT_TEXT_SIZE = 256
# Synthesizers (pianola.h), by the names `pianola render --synth` takes; None is the default.
SYNTHS = {None: 0, "pianola": 1, "fluidsynth": 2}
# Audio drivers (pianola.h), by the names `pianola play --driver` takes; None is the default choice.
DRIVERS = {None: 0, "alsa": 1, "pipewire": 2, "jack": 3}


class Source(ctypes.Structure):
    """pianola_source: a path, or bytes in memory."""
    _fields_ = [("path", ctypes.c_char_p), ("data", ctypes.c_void_p), ("size", ctypes.c_size_t), ("name", ctypes.c_char_p)]


class SoundtrackConfig(ctypes.Structure):
    """pianola_soundtrack_config."""
    _fields_ = [("struct_size", ctypes.c_uint32), ("sample_rate", ctypes.c_int32), ("max_frames", ctypes.c_int32),
                ("limiter", ctypes.c_int32), ("polyphony", ctypes.c_int32), ("sound_voices", ctypes.c_int32),
                ("reverb", ctypes.c_int32), ("chorus", ctypes.c_int32), ("gain", ctypes.c_float), ("synth", ctypes.c_int32)]


class Stem(ctypes.Structure):
    """pianola_stem."""
    _fields_ = [("layer", ctypes.c_char_p), ("source", Source)]


class LayerEffect(ctypes.Structure):
    """pianola_layer_effect."""
    _fields_ = [("layer", ctypes.c_char_p), ("spec", ctypes.c_char_p)]


class TrackInstrument(ctypes.Structure):
    """pianola_track_instrument."""
    _fields_ = [("track", ctypes.c_char_p), ("plugin", ctypes.c_char_p)]


class SongConfig(ctypes.Structure):
    """pianola_song_config."""
    _fields_ = [("struct_size", ctypes.c_uint32), ("midi", Source), ("soundfont", Source),
                ("stems", ctypes.POINTER(Stem)), ("stem_count", ctypes.c_size_t),
                ("track_layers", ctypes.POINTER(ctypes.c_char_p)), ("track_layer_count", ctypes.c_size_t),
                ("loop", ctypes.c_int32), ("controllers_drive_layers", ctypes.c_int32),
                ("effects", ctypes.POINTER(ctypes.c_char_p)), ("effect_count", ctypes.c_size_t),
                ("layer_effects", ctypes.POINTER(LayerEffect)), ("layer_effect_count", ctypes.c_size_t),
                ("instruments", ctypes.POINTER(TrackInstrument)), ("instrument_count", ctypes.c_size_t)]


class Event(ctypes.Structure):
    """pianola_event."""
    _fields_ = [("type", ctypes.c_int32), ("bar", ctypes.c_int32), ("beat", ctypes.c_int32), ("sample_time", ctypes.c_int64),
                ("song", ctypes.c_void_p), ("sound", ctypes.c_void_p), ("text", ctypes.c_char * EVENT_TEXT_SIZE)]


class Position(ctypes.Structure):
    """pianola_position."""
    _fields_ = [("struct_size", ctypes.c_uint32), ("beats_per_bar", ctypes.c_int32), ("beat_unit", ctypes.c_int32),
                ("bar", ctypes.c_int32), ("beat", ctypes.c_int32), ("beat_fraction", ctypes.c_double), ("song", ctypes.c_void_p),
                ("sample_time", ctypes.c_int64), ("song_frame", ctypes.c_int64), ("seconds", ctypes.c_double),
                ("tick", ctypes.c_int64), ("bpm", ctypes.c_double), ("section", ctypes.c_char * EVENT_TEXT_SIZE)]


PORT_NAME_SIZE = 128


class MidiPort(ctypes.Structure):
    """pianola_midi_port."""
    _fields_ = [("address", ctypes.c_char * 16), ("client", ctypes.c_char * PORT_NAME_SIZE), ("name", ctypes.c_char * PORT_NAME_SIZE),
                ("receives", ctypes.c_int32), ("sends", ctypes.c_int32), ("kernel", ctypes.c_int32)]


class MidiConfig(ctypes.Structure):
    """pianola_midi_config."""
    _fields_ = [("struct_size", ctypes.c_uint32), ("port", ctypes.c_char_p), ("routes", ctypes.POINTER(ctypes.c_char_p)),
                ("route_count", ctypes.c_size_t), ("clock_ports", ctypes.POINTER(ctypes.c_char_p)), ("clock_port_count", ctypes.c_size_t),
                ("timecode_ports", ctypes.POINTER(ctypes.c_char_p)), ("timecode_port_count", ctypes.c_size_t),
                ("timecode_rate", ctypes.c_int32), ("follow_port", ctypes.c_char_p)]


class TransitionRule(ctypes.Structure):
    """pianola_transition_rule."""
    _fields_ = [("name", ctypes.c_char_p), ("leave", ctypes.c_int32), ("leave_marker", ctypes.c_char_p),
                ("segment", ctypes.c_void_p), ("segment_section", ctypes.c_char_p), ("fade_out", ctypes.c_double),
                ("fade_in", ctypes.c_double), ("fade_shape", ctypes.c_int32), ("entry", ctypes.c_int32), ("entry_cue", ctypes.c_char_p)]


class RenderConfig(ctypes.Structure):
    """pianola_render_config."""
    _fields_ = [("struct_size", ctypes.c_uint32), ("midi", Source), ("soundfont", Source), ("sample_rate", ctypes.c_int32),
                ("tail_seconds", ctypes.c_double), ("reverb", ctypes.c_int32), ("chorus", ctypes.c_int32),
                ("gain", ctypes.c_float), ("bits", ctypes.c_int32), ("loaded_soundfont", ctypes.c_void_p), ("synth", ctypes.c_int32),
                ("transpose", ctypes.c_int32), ("from", ctypes.c_char_p), ("to", ctypes.c_char_p),
                ("mute_tracks", ctypes.POINTER(ctypes.c_int32)), ("mute_track_count", ctypes.c_size_t),
                ("solo_tracks", ctypes.POINTER(ctypes.c_int32)), ("solo_track_count", ctypes.c_size_t),
                ("mute_channels", ctypes.c_uint32), ("solo_channels", ctypes.c_uint32), ("labels", ctypes.c_int32)]


class NoteLabel(ctypes.Structure):
    """pianola_note_label."""
    _fields_ = [("start_frame", ctypes.c_int64), ("end_frame", ctypes.c_int64), ("channel", ctypes.c_int32), ("key", ctypes.c_int32),
                ("velocity", ctypes.c_int32), ("program", ctypes.c_int32), ("bank", ctypes.c_int32)]


class TrackInfo(ctypes.Structure):
    """pianola_track_info."""
    _fields_ = [("notes", ctypes.c_int64), ("channels", ctypes.c_uint32), ("name", ctypes.c_char * EVENT_TEXT_SIZE)]


BUNDLED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "libpianola.so.0")


def _candidates():
    """Where libpianola may be, in the order tried: $PIANOLA_LIBRARY, the copy a wheel
    carries beside this file, the loader's search path, the prefix pkg-config knows."""
    if os.environ.get("PIANOLA_LIBRARY"):
        yield os.environ["PIANOLA_LIBRARY"]
    if os.path.exists(BUNDLED):
        yield BUNDLED
    yield "libpianola.so.0"
    try:
        libdir = subprocess.run(["pkg-config", "--variable=libdir", "pianola"], capture_output=True, text=True, check=True).stdout.strip()
        yield os.path.join(libdir, "libpianola.so.0")
    except (OSError, subprocess.CalledProcessError):
        pass


def _load():
    errors = {}
    for candidate in _candidates():
        try:
            return ctypes.CDLL(candidate)
        except OSError as error:
            errors[candidate] = str(error)
    if BUNDLED in errors:   # the wheel's own copy is there but would not load: say why
        raise ImportError(f"pianola: the library this wheel carries would not load: {errors[BUNDLED]}")
    # One line: what is missing, and the ways to provide it; the loader's own words last.
    raise ImportError("pianola: libpianola.so.0 not found: install the pianola wheel for this platform (it carries "
                      "the library) or the libpianola0 package, or set PIANOLA_LIBRARY to its path ("
                      + list(errors.values())[-1] + ")")


lib = _load()


def path() -> str:
    """Where the libpianola this module loaded lives (as the process mapped it), or ""."""
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                if "libpianola.so" in line and "/" in line:
                    return os.path.realpath(line[line.index("/"):].strip())
    except OSError:
        pass
    return ""

_handle = ctypes.c_void_p
_out_handle = ctypes.POINTER(ctypes.c_void_p)
_status = ctypes.c_int32
_c = ctypes
_signatures = {
    "pianola_version": (_c.c_char_p, []),
    "pianola_last_error": (_c.c_char_p, []),
    "pianola_default_soundfont": (_status, [_c.c_char_p, _c.c_size_t, _c.POINTER(_c.c_size_t)]),
    "pianola_soundtrack_config_init": (_status, [_c.POINTER(SoundtrackConfig)]),
    "pianola_soundtrack_create": (_status, [_c.POINTER(SoundtrackConfig), _out_handle]),
    "pianola_soundtrack_destroy": (_status, [_handle]),
    "pianola_song_config_init": (_status, [_c.POINTER(SongConfig)]),
    "pianola_song_load": (_status, [_handle, _c.POINTER(SongConfig), _out_handle]),
    "pianola_song_state": (_status, [_handle, _c.POINTER(_c.c_int32)]),
    "pianola_song_wait": (_status, [_handle]),
    "pianola_song_destroy": (_status, [_handle]),
    "pianola_sound_load": (_status, [_handle, _c.POINTER(Source), _out_handle]),
    "pianola_sound_state": (_status, [_handle, _c.POINTER(_c.c_int32)]),
    "pianola_sound_wait": (_status, [_handle]),
    "pianola_sound_destroy": (_status, [_handle]),
    "pianola_play": (_status, [_handle, _handle, _c.c_int32, _c.c_char_p, _c.c_double, _c.c_double]),
    "pianola_crossfade": (_status, [_handle, _handle, _c.c_double, _c.c_int32, _c.c_char_p]),
    "pianola_stop": (_status, [_handle, _c.c_int32, _c.c_char_p, _c.c_double]),
    "pianola_jump": (_status, [_handle, _c.c_char_p, _c.c_int32, _c.c_char_p]),
    "pianola_pause": (_status, [_handle]),
    "pianola_resume": (_status, [_handle]),
    "pianola_set_tempo": (_status, [_handle, _c.c_int32]),
    "pianola_set_transpose": (_status, [_handle, _c.c_int32]),
    "pianola_set_layer": (_status, [_handle, _c.c_char_p, _c.c_float, _c.c_double, _c.c_int32, _c.c_char_p]),
    "pianola_set_master_volume": (_status, [_handle, _c.c_float, _c.c_double]),
    "pianola_play_sound": (_status, [_handle, _handle, _c.c_int32, _c.c_char_p, _c.c_float, _c.c_float]),
    "pianola_play_stinger": (_status, [_handle, _handle, _c.c_int32, _c.c_char_p, _c.c_int32, _c.c_float]),
    "pianola_meters": (_status, [_handle, _c.POINTER(_c.c_float), _c.POINTER(_c.c_float)]),
    "pianola_position_init": (_status, [_c.POINTER(Position)]),
    "pianola_soundtrack_position": (_status, [_handle, _c.POINTER(Position)]),
    "pianola_set_transition": (_status, [_handle, _c.POINTER(TransitionRule), _handle, _c.c_char_p, _handle, _c.c_char_p]),
    "pianola_transition": (_status, [_handle, _handle, _c.c_char_p]),
    "pianola_define_parameter": (_status, [_handle, _c.c_char_p, _c.c_double, _c.c_double, _c.c_double]),
    "pianola_map_parameter": (_status, [_handle, _c.c_char_p, _c.c_int32, _c.POINTER(_c.c_char_p), _c.c_size_t, _c.c_int32,
                                        _c.c_uint16, _c.POINTER(_c.c_double), _c.POINTER(_c.c_double), _c.c_size_t]),
    "pianola_set_parameter": (_status, [_handle, _c.c_char_p, _c.c_double, _c.c_double]),
    "pianola_add_effect": (_status, [_handle, _c.c_int32, _c.c_char_p, _c.c_int32, _c.POINTER(_c.c_int32)]),
    "pianola_set_effect_parameter": (_status, [_handle, _c.c_int32, _c.c_int32, _c.c_char_p, _c.c_double, _c.c_double]),
    "pianola_set_effect_bypassed": (_status, [_handle, _c.c_int32, _c.c_int32, _c.c_int32]),
    "pianola_remove_effect": (_status, [_handle, _c.c_int32, _c.c_int32]),
    "pianola_set_send": (_status, [_handle, _c.c_int32, _c.c_float]),
    "pianola_map_parameter_to_effect": (_status, [_handle, _c.c_char_p, _c.c_int32, _c.c_int32, _c.c_char_p,
                                                  _c.POINTER(_c.c_double), _c.POINTER(_c.c_double), _c.c_size_t]),
    "pianola_get_parameter": (_status, [_handle, _c.c_char_p, _c.POINTER(_c.c_double)]),
    "pianola_poll_events": (_status, [_handle, _c.POINTER(Event), _c.c_size_t, _c.POINTER(_c.c_size_t)]),
    "pianola_render_f32": (_status, [_handle, _c.c_void_p, _c.c_size_t]),
    "pianola_output_start_driver": (_status, [_handle, _c.c_int32, _c.c_char_p, _c.c_int32, _c.c_int32]),
    "pianola_output_stop": (_status, [_handle]),
    "pianola_render_config_init": (_status, [_c.POINTER(RenderConfig)]),
    "pianola_render_file": (_status, [_c.POINTER(RenderConfig), _c.c_char_p, _c.c_int32]),
    "pianola_write_audio": (_status, [_c.c_char_p, _c.POINTER(_c.c_float), _c.c_size_t, _c.c_int32, _c.c_int32, _c.c_int32]),
    "pianola_play_file_driver": (_status, [_c.POINTER(RenderConfig), _c.c_int32, _c.c_char_p]),
    "pianola_renderer_create": (_status, [_c.POINTER(RenderConfig), _out_handle]),
    "pianola_renderer_max_frames": (_status, [_handle, _c.POINTER(_c.c_int64)]),
    "pianola_renderer_read": (_status, [_handle, _c.c_void_p, _c.c_size_t, _c.POINTER(_c.c_size_t)]),
    "pianola_renderer_destroy": (_status, [_handle]),
    "pianola_renderer_labels": (_status, [_handle, _c.POINTER(NoteLabel), _c.c_size_t, _c.POINTER(_c.c_size_t)]),
    "pianola_renderer_track_count": (_status, [_handle, _c.POINTER(_c.c_int32)]),
    "pianola_renderer_track": (_status, [_handle, _c.c_int32, _c.POINTER(TrackInfo)]),
    "pianola_soundfont_load": (_status, [_c.POINTER(Source), _c.c_int32, _out_handle]),
    "pianola_soundfont_destroy": (_status, [_handle]),
    "pianola_midi_ports": (_status, [_c.POINTER(MidiPort), _c.c_size_t, _c.POINTER(_c.c_size_t)]),
    "pianola_midi_config_init": (_status, [_c.POINTER(MidiConfig)]),
    "pianola_play_file_midi": (_status, [_c.POINTER(RenderConfig), _c.POINTER(MidiConfig), _c.c_int32, _c.c_char_p]),
}
for _name, (_restype, _argtypes) in _signatures.items():
    _function = getattr(lib, _name)
    _function.restype = _restype
    _function.argtypes = _argtypes
