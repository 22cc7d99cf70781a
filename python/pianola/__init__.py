"""Pianola for Python: MIDI songs played through SoundFonts, as numpy audio or out of ALSA.

A thin layer over libpianola (the C library): each call is one C call, each error the C
library's one-line message raised as a `PianolaError`.

    audio = pianola.render("song.mid", "font.sf2")              # numpy (frames, 2) float32

    with pianola.Soundtrack() as music:                        # the game API
        town = music.load_song("town.mid", "font.sf2", track_layers=["Strings"])
        town.wait()
        music.play(town)
        block = music.render(1024)                             # what an audio callback pulls
        for event in music.poll_events(): print(event)
"""
import ctypes
import os
from dataclasses import dataclass
from typing import NamedTuple, Optional, Sequence, Union

import numpy as np

from . import _library as _c
from ._errors import (ArgumentError, BusyError, Data, DeviceError, FileError, HandleError, PianolaError, PianolaFileNotFoundError,
                      PianolaIsADirectoryError, PianolaPermissionError, StateError, _check, _source, driver as _driver,
                      integer as _integer, number as _number, synth as _synth)
from ._events import (Bar, Beat, Jumped, LoopWrapped, Marker, Meters, Position, SongEnded, SongLoaded, SongLoadFailed, SongStarted,
                      SongStopped, SoundLoaded, SoundLoadFailed, Transitioned)
from ._batch import BatchSummary, render_iter, render_many
from ._offline import (LABEL_DTYPE, LOUDNESS_TARGET, MidiPort, Rendering, default_soundfont, loudness, midi_ports, play_file, render,
                       render_file)

__all__ = [
    "__version__", "version", "render", "render_file", "play_file", "render_many", "render_iter", "BatchSummary", "Rendering", "LABEL_DTYPE", "loudness",
    "LOUDNESS_TARGET", "default_soundfont", "midi_ports", "MidiPort", "Meters", "Soundtrack", "Song", "Sound", "BusEffect",
    "PianolaError", "ArgumentError", "HandleError", "StateError", "FileError", "DeviceError", "BusyError",
    "Beat", "Bar", "Marker", "LoopWrapped", "Jumped", "Transitioned", "SongStarted", "SongStopped", "SongEnded", "Position", "SongLoaded", "SongLoadFailed", "SoundLoaded", "SoundLoadFailed",
]



def version() -> str:
    """The library's version ("0.3.0")."""
    return _c.lib.pianola_version().decode()


__version__ = version()
"""The version of the libpianola this module runs on: the project's one version number, which
the wheel and the Debian packages carry too."""


_moments = {"now": _c.NOW, "beat": _c.NEXT_BEAT, "bar": _c.NEXT_BAR, "section_end": _c.SECTION_END}


def _moment(at: str, marker: Optional[str]):
    """The C moment and marker text for `at` ("now", "beat", "bar") or a marker's name."""
    if marker is not None:
        return _c.AT_MARKER, marker.encode()
    if at not in _moments:
        raise ArgumentError(_c.ERROR_ARGUMENT, f"at={at!r}: use 'now', 'beat', 'bar' or 'section_end', or give marker=")
    return _moments[at], None


class _Loadable:
    """A song or sound handle: loading on a worker thread, then ready or failed."""
    _kind = ""

    def __init__(self, handle: ctypes.c_void_p, name: str):
        self._live: Optional[ctypes.c_void_p] = handle
        self.name = name

    @property
    def _handle(self) -> ctypes.c_void_p:
        """The live handle; a clear error once closed."""
        if self._live is None:
            raise HandleError(_c.ERROR_HANDLE, f"{type(self).__name__} {self.name!r} is closed: load it again to use it")
        return self._live

    @property
    def state(self) -> str:
        """'loading', 'ready' or 'failed'."""
        state = ctypes.c_int32()
        _check(getattr(_c.lib, f"pianola_{self._kind}_state")(self._handle, ctypes.byref(state)))
        return {_c.LOADING: "loading", _c.READY: "ready", _c.FAILED: "failed"}[state.value]

    def wait(self) -> "_Loadable":
        """Blocks until loaded; raises the load's error if it failed. Returns itself."""
        _check(getattr(_c.lib, f"pianola_{self._kind}_wait")(self._handle))
        return self

    def close(self) -> None:
        """Frees the handle (a song or sound playing plays on)."""
        if self._live is not None:
            _check(getattr(_c.lib, f"pianola_{self._kind}_destroy")(self._live))
            self._live = None

    def __repr__(self) -> str:
        return f"<pianola.{type(self).__name__} {self.name!r}>"


class Song(_Loadable):
    """A song loaded (or loading) into a `Soundtrack`; events name it by this object."""
    _kind = "song"


class Sound(_Loadable):
    """A sound (a sound effect, a voice line: a one-shot) loaded (or loading) into a
    `Soundtrack`. An effect, here, is one on a bus (`Soundtrack.add_effect`)."""
    _kind = "sound"


class BusEffect:
    """An effect on one of a soundtrack's buses ('master', 'music', 'sounds', 'aux'), as
    Soundtrack.add_effect made it; `id` is its number on the bus (0 for the first added there,
    kept while others are removed)."""

    def __init__(self, soundtrack: "Soundtrack", bus: str, id: int, spec: str):
        self._soundtrack, self.bus, self.id, self.spec = soundtrack, bus, id, spec

    def set(self, parameter: str, value: float, seconds: float = 0) -> None:
        """Moves `parameter` to `value` (in its unit: Hz, dB, s) over `seconds` (at least 20 ms)."""
        _check(_c.lib.pianola_set_effect_parameter(self._soundtrack._handle, _c.BUSES[self.bus], self.id, parameter.encode(),
                                                   value, seconds))

    def bypass(self, bypassed: bool = True) -> None:
        """Bypasses the effect (or brings it back with False), fading over 5 ms."""
        _check(_c.lib.pianola_set_effect_bypassed(self._soundtrack._handle, _c.BUSES[self.bus], self.id, 1 if bypassed else 0))

    def remove(self) -> None:
        """Takes the effect off its bus, fading it out over 5 ms; parameters mapped to it let go."""
        _check(_c.lib.pianola_remove_effect(self._soundtrack._handle, _c.BUSES[self.bus], self.id))

    def __repr__(self) -> str:
        return f"BusEffect({self.bus}: {self.spec})"


def _bus(bus: Optional[str], what: str) -> int:
    if bus is None and what == "key":
        return _c.BUS_NONE
    if bus not in _c.BUSES:
        raise ArgumentError(_c.ERROR_ARGUMENT, f"{what}={bus!r}: use one of {', '.join(_c.BUSES)}")
    return _c.BUSES[bus]


def _curve(curve) -> tuple:
    points = list(curve)
    xs = (ctypes.c_double * max(1, len(points)))(*[float(x) for x, _ in points])
    ys = (ctypes.c_double * max(1, len(points)))(*[float(y) for _, y in points])
    return xs, ys, len(points)


class Soundtrack:
    """A game's music, as pianola.h's pianola_soundtrack: songs switched and crossfaded on the
    beat, bar or a marker, loops, layers, effects, events, and the audio they make (pulled with
    `render`, or played through Pianola's own ALSA output)."""

    def __init__(self, sample_rate: int = 48000, *, max_frames: int = 4096, limiter: bool = True, polyphony: int = 256,
                 sound_voices: int = 32, reverb: bool = True, chorus: bool = True, gain: float = 0.2, synth: Optional[str] = None):
        config = _c.SoundtrackConfig()
        _check(_c.lib.pianola_soundtrack_config_init(ctypes.byref(config)))
        self._live: Optional[ctypes.c_void_p] = None
        config.sample_rate = _integer("sample_rate", sample_rate, 8000, 384000)
        config.max_frames = _integer("max_frames", max_frames, 64, 65536)
        config.polyphony = _integer("polyphony", polyphony, 1, 65535)
        config.sound_voices = _integer("sound_voices", sound_voices, 1, 1024)
        config.limiter, config.reverb, config.chorus, config.gain = int(limiter), int(reverb), int(chorus), _number("gain", gain, 0, 10)
        config.synth = _synth(synth)
        handle = ctypes.c_void_p()
        _check(_c.lib.pianola_soundtrack_create(ctypes.byref(config), ctypes.byref(handle)))
        self._live = handle
        self.sample_rate = sample_rate
        self._songs: dict = {}
        self._sounds: dict = {}

    @property
    def _handle(self) -> ctypes.c_void_p:
        """The live handle; a clear error once closed."""
        if self._live is None:
            raise HandleError(_c.ERROR_HANDLE, "this Soundtrack is closed: make a new one")
        return self._live

    def close(self) -> None:
        """Stops the output, frees the soundtrack and its songs' and sounds' handles."""
        for loaded in list(self._songs.values()) + list(self._sounds.values()):
            loaded.close()
        if self._live is not None:
            _check(_c.lib.pianola_soundtrack_destroy(self._live))
            self._live = None

    def __enter__(self) -> "Soundtrack":
        return self

    def __exit__(self, *_) -> None:
        self.close()

    def load_song(self, midi: Data, soundfont: Data, *, stems: Optional[dict] = None, track_layers: Sequence[str] = (),
                  loop: bool = True, controllers_drive_layers: bool = False, name: Optional[str] = None,
                  effects: Sequence[str] = (), layer_effects: Optional[dict] = None, instruments: Optional[dict] = None) -> Song:
        """Starts loading a song (MIDI and SoundFont as paths or bytes; `stems` maps layer names to
        audio files) and returns it at once, loading; `wait()` or a SongLoaded event tell when done.
        `effects` are specs for the song's own bus ('lowpass,cutoff=800'), `layer_effects` maps a
        layer's name to its specs, and `instruments` maps a track's name to an LV2 instrument
        ('mda piano')."""
        keep: list = []
        config = _c.SongConfig()
        _check(_c.lib.pianola_song_config_init(ctypes.byref(config)))
        label = name or (os.fsdecode(midi) if not isinstance(midi, (bytes, bytearray, memoryview)) else "midi")
        config.midi = _source(midi, keep, label)
        config.soundfont = _source(soundfont, keep, "soundfont")
        stem_items = list((stems or {}).items())
        stem_array = (_c.Stem * max(1, len(stem_items)))()
        for i, (layer, data) in enumerate(stem_items):
            stem_array[i] = _c.Stem(layer.encode(), _source(data, keep, layer))
        config.stems, config.stem_count = (stem_array if stem_items else None), len(stem_items)
        layer_array = (ctypes.c_char_p * max(1, len(track_layers)))(*[layer.encode() for layer in track_layers])
        config.track_layers, config.track_layer_count = (layer_array if track_layers else None), len(track_layers)
        config.loop, config.controllers_drive_layers = int(loop), int(controllers_drive_layers)
        effect_array = (ctypes.c_char_p * max(1, len(effects)))(*[spec.encode() for spec in effects])
        config.effects, config.effect_count = (effect_array if effects else None), len(effects)
        layer_items = [(layer, spec) for layer, specs in (layer_effects or {}).items() for spec in specs]
        layer_effect_array = (_c.LayerEffect * max(1, len(layer_items)))(*[_c.LayerEffect(l.encode(), s.encode()) for l, s in layer_items])
        config.layer_effects, config.layer_effect_count = (layer_effect_array if layer_items else None), len(layer_items)
        instrument_items = list((instruments or {}).items())
        instrument_array = (_c.TrackInstrument * max(1, len(instrument_items)))(*[_c.TrackInstrument(t.encode(), p.encode()) for t, p in instrument_items])
        config.instruments, config.instrument_count = (instrument_array if instrument_items else None), len(instrument_items)
        handle = ctypes.c_void_p()
        _check(_c.lib.pianola_song_load(self._handle, ctypes.byref(config), ctypes.byref(handle)))
        song = Song(handle, label)
        self._songs[handle.value] = song
        return song

    def load_sound(self, data: Data, *, name: str = "sound") -> Sound:
        """Starts loading a sound (an audio file's path or bytes: a sound effect, a voice line) and returns it at once, loading."""
        keep: list = []
        source = _source(data, keep, name)
        handle = ctypes.c_void_p()
        _check(_c.lib.pianola_sound_load(self._handle, ctypes.byref(source), ctypes.byref(handle)))
        sound = Sound(handle, name if isinstance(data, (bytes, bytearray, memoryview)) else os.fsdecode(data))
        self._sounds[handle.value] = sound
        return sound

    def play(self, song: Song, at: str = "now", *, marker: Optional[str] = None, fade_in: float = 0, fade_out: float = 0) -> None:
        """Plays `song` from its start at `at` ('now', 'beat', 'bar') or at `marker`; the song
        playing before stops on that frame (fades in seconds)."""
        moment, text = _moment(at, marker)
        _check(_c.lib.pianola_play(self._handle, song._handle, moment, text, fade_in, fade_out))

    def crossfade(self, song: Song, seconds: float, at: str = "now", *, marker: Optional[str] = None) -> None:
        """Crossfades to `song` over `seconds`, from `at` or `marker`."""
        moment, text = _moment(at, marker)
        _check(_c.lib.pianola_crossfade(self._handle, song._handle, seconds, moment, text))

    def stop(self, at: str = "now", *, marker: Optional[str] = None, fade_out: float = 0) -> None:
        """Stops the playing song at `at` or `marker`, fading out over `fade_out` seconds."""
        moment, text = _moment(at, marker)
        _check(_c.lib.pianola_stop(self._handle, moment, text, fade_out))

    def jump(self, section: str, at: str = "bar", *, marker: Optional[str] = None) -> None:
        """Moves the playing song to its section `section` (a marker's text) at `at` ('now',
        'beat', 'bar', 'section_end') or `marker`, on that frame: sounding notes ring out, the
        section's programs and controllers are chased."""
        moment, text = _moment(at, marker)
        _check(_c.lib.pianola_jump(self._handle, section.encode(), moment, text))

    def pause(self) -> None:
        """Pauses everything where it is."""
        _check(_c.lib.pianola_pause(self._handle))

    def resume(self) -> None:
        """Resumes after `pause`."""
        _check(_c.lib.pianola_resume(self._handle))

    def set_tempo(self, percent: int) -> None:
        """Plays the song at `percent` (1 to 1000) of its written tempo."""
        _check(_c.lib.pianola_set_tempo(self._handle, percent))

    def set_transpose(self, semitones: int) -> None:
        """Transposes the song (-48 to 48 semitones; drums stay)."""
        _check(_c.lib.pianola_set_transpose(self._handle, semitones))

    def set_layer(self, layer: str, volume: float, seconds: float = 0, at: str = "now", *, marker: Optional[str] = None) -> None:
        """Fades the playing song's layer (a track layer or stem) to `volume` over `seconds`."""
        moment, text = _moment(at, marker)
        _check(_c.lib.pianola_set_layer(self._handle, layer.encode(), volume, seconds, moment, text))

    def set_master_volume(self, volume: float, seconds: float = 0.01) -> None:
        """Fades everything to `volume` over `seconds`."""
        _check(_c.lib.pianola_set_master_volume(self._handle, volume, seconds))

    def play_sound(self, sound: Sound, at: str = "now", *, marker: Optional[str] = None, volume: float = 1, pan: float = 0) -> None:
        """Plays `sound` at `at` or `marker`, at `volume`, panned by `pan` (-1 to 1)."""
        moment, text = _moment(at, marker)
        _check(_c.lib.pianola_play_sound(self._handle, sound._handle, moment, text, volume, pan))

    def play_stinger(self, stinger: Song, at: str = "beat", *, marker: Optional[str] = None, priority: int = 0, volume: float = 1) -> None:
        """Plays the loaded song `stinger` (a short MIDI phrase) over the playing song at `at`
        or `marker`, at the song's live tempo and transposition; `priority` decides which of
        too many gives way."""
        moment, text = _moment(at, marker)
        _check(_c.lib.pianola_play_stinger(self._handle, stinger._handle, moment, text, priority, volume))

    def set_transition(self, name: str, *, from_song: Optional[Song] = None, from_section: Optional[str] = None,
                       to_song: Optional[Song] = None, to_section: Optional[str] = None, leave: str = "bar",
                       leave_marker: Optional[str] = None, segment: Optional[Song] = None, segment_section: Optional[str] = None,
                       fade_out: float = 0, fade_in: float = 0, fade_shape: str = "linear", entry: str = "section_start",
                       entry_cue: Optional[str] = None) -> None:
        """Sets the transition rule `name` for leaving `from_song` (None: any; its `from_section`)
        for `to_song` (its `to_section`): leaving at `leave` or `leave_marker`, playing `segment`
        (or its `segment_section`) between, with the fades ('linear' or 'equal_power'), entering at `entry` ('section_start',
        'same_position', or 'cue' with `entry_cue`). The most specific rule that fits is used."""
        moment, marker = _moment(leave, leave_marker)
        if entry not in _c.ENTRIES:
            raise ArgumentError(_c.ERROR_ARGUMENT, f"entry={entry!r}: use 'section_start', 'same_position' or 'cue'")
        if fade_shape not in _c.FADE_SHAPES:
            raise ArgumentError(_c.ERROR_ARGUMENT, f"fade_shape={fade_shape!r}: use 'linear' or 'equal_power'")
        encode = lambda text: text.encode() if text is not None else None
        rule = _c.TransitionRule(name.encode(), moment, marker, segment._handle if segment else None, encode(segment_section),
                                 fade_out, fade_in, _c.FADE_SHAPES[fade_shape], _c.ENTRIES[entry], encode(entry_cue))
        _check(_c.lib.pianola_set_transition(self._handle, ctypes.byref(rule), from_song._handle if from_song else None,
                                             encode(from_section), to_song._handle if to_song else None, encode(to_section)))

    def transition(self, song: Song, section: Optional[str] = None) -> None:
        """Moves the music to `song` (its `section`) by the rule that fits; a Transitioned event names it."""
        _check(_c.lib.pianola_transition(self._handle, song._handle, section.encode() if section is not None else None))

    def define_parameter(self, name: str, minimum: float = 0, maximum: float = 1, value: Optional[float] = None) -> None:
        """Makes the game parameter `name`, from `minimum` to `maximum`, standing at `value` (else `minimum`)."""
        _check(_c.lib.pianola_define_parameter(self._handle, name.encode(), minimum, maximum, minimum if value is None else value))

    def add_effect(self, spec: str, bus: str = "master", *, key: Optional[str] = None) -> BusEffect:
        """Adds the effect `spec` ('lowpass,cutoff=800'; `pianola effects` lists them) at the end of
        `bus`'s chain ('master', 'music', 'sounds' or 'aux', the return bus `set_send` feeds). A compressor with a `key` bus is turned down
        by that bus's level: the music ducking under the sounds."""
        effect_id = ctypes.c_int32()
        _check(_c.lib.pianola_add_effect(self._handle, _bus(bus, "bus"), spec.encode(), _bus(key, "key"), ctypes.byref(effect_id)))
        return BusEffect(self, bus, effect_id.value, spec)

    def set_send(self, bus: str, level: float) -> None:
        """Sends `bus` ('music' or 'sounds', after its effects) into the 'aux' bus at `level` (linear, 0 to 16)."""
        _check(_c.lib.pianola_set_send(self._handle, _bus(bus, "bus"), level))

    def map_parameter(self, name: str, target: str, curve, *, layer: Optional[str] = None, controller: int = 0,
                      channels=(), sections=(), effect: Optional[BusEffect] = None, parameter: Optional[str] = None) -> None:
        """Makes parameter `name` drive `target` ('layer_volume' with `layer`, 'tempo', 'controller'
        with `controller` and `channels` 1 to 16, 'transpose', 'next_section' with `sections`, 'effect'
        with an `effect` of add_effect's and its `parameter`) along `curve`, a list of (x, y) points,
        in the songs played from now on."""
        if target == "effect":
            if effect is None or parameter is None:
                raise ArgumentError(_c.ERROR_ARGUMENT, "target='effect': give effect= (from add_effect) and parameter=")
            xs, ys, count = _curve(curve)
            _check(_c.lib.pianola_map_parameter_to_effect(self._handle, name.encode(), _c.BUSES[effect.bus], effect.id,
                                                          parameter.encode(), xs, ys, count))
            return
        if target not in _c.TARGETS:
            raise ArgumentError(_c.ERROR_ARGUMENT, f"target={target!r}: use one of {', '.join([*_c.TARGETS, 'effect'])}")
        names = [layer] if target == "layer_volume" and layer is not None else list(sections)
        name_array = (ctypes.c_char_p * max(1, len(names)))(*[n.encode() for n in names])
        mask = 0
        for channel in channels:
            if not 1 <= channel <= 16:
                raise ArgumentError(_c.ERROR_ARGUMENT, f"channel {channel}: give channels 1 to 16")
            mask |= 1 << (channel - 1)
        xs, ys, count = _curve(curve)
        _check(_c.lib.pianola_map_parameter(self._handle, name.encode(), _c.TARGETS[target], name_array, len(names), controller,
                                            mask, xs, ys, count))

    def set_parameter(self, name: str, value: float, seconds: float = 0) -> None:
        """Moves parameter `name` to `value` over `seconds` (at least 20 ms), smoothed on the audio thread."""
        _check(_c.lib.pianola_set_parameter(self._handle, name.encode(), value, seconds))

    def parameter(self, name: str) -> float:
        """Where parameter `name` stands now, along its glide."""
        value = ctypes.c_double()
        _check(_c.lib.pianola_get_parameter(self._handle, name.encode(), ctypes.byref(value)))
        return value.value

    @property
    def position(self) -> Position:
        """The playing song and where it is at the end of the audio rendered so far, exact to the frame."""
        p = _c.Position()
        _check(_c.lib.pianola_position_init(ctypes.byref(p)))
        _check(_c.lib.pianola_soundtrack_position(self._handle, ctypes.byref(p)))
        return Position(self._songs.get(p.song), p.sample_time, p.song_frame, p.seconds, p.tick, p.bar, p.beat, p.beat_fraction,
                        p.beats_per_bar, p.beat_unit, p.bpm, p.section.decode("utf-8", "replace") or None)

    def meters(self) -> Meters:
        """The last render's level: Meters(peak, rms), linear (1.0 is full scale)."""
        peak, rms = ctypes.c_float(), ctypes.c_float()
        _check(_c.lib.pianola_meters(self._handle, ctypes.byref(peak), ctypes.byref(rms)))
        return Meters(peak.value, rms.value)

    def poll_events(self, limit: int = 256) -> list:
        """What happened since the last call, oldest first, at most `limit` events."""
        buffer = (_c.Event * max(1, limit))()
        count = ctypes.c_size_t()
        _check(_c.lib.pianola_poll_events(self._handle, buffer, limit, ctypes.byref(count)))
        return [self._event(buffer[i]) for i in range(count.value)]

    def _event(self, e: _c.Event):
        song, sound, text, t = self._songs.get(e.song), self._sounds.get(e.sound), e.text.decode("utf-8", "replace"), e.sample_time
        kind = e.type
        if kind == _c.EVENT_BEAT:
            return Beat(song, t, bar=e.bar, beat=e.beat, section=text or None)
        if kind == _c.EVENT_BAR:
            return Bar(song, t, bar=e.bar, section=text or None)
        if kind == _c.EVENT_MARKER:
            return Marker(song, t, text=text)
        if kind == _c.EVENT_JUMPED:
            return Jumped(song, t, section=text)
        if kind == _c.EVENT_TRANSITIONED:
            return Transitioned(song, t, rule=text)
        if kind == _c.EVENT_SONG_STARTED:
            return SongStarted(song, t, section=text or None)
        if kind in (_c.EVENT_SONG_LOAD_FAILED, _c.EVENT_SOUND_LOAD_FAILED):
            return SongLoadFailed(song, t, reason=text) if kind == _c.EVENT_SONG_LOAD_FAILED else SoundLoadFailed(sound, t, reason=text)
        if kind in (_c.EVENT_SOUND_LOADED,):
            return SoundLoaded(sound, t)
        return {_c.EVENT_LOOP_WRAPPED: LoopWrapped, _c.EVENT_SONG_ENDED: SongEnded, _c.EVENT_SONG_STOPPED: SongStopped,
                _c.EVENT_SONG_LOADED: SongLoaded}[kind](song, t)

    def render(self, frames: int) -> np.ndarray:
        """The next `frames` frames, float32, shape (frames, 2)."""
        audio = np.empty((frames, 2), dtype=np.float32)
        self.render_into(audio)
        return audio

    def render_into(self, audio: np.ndarray) -> None:
        """Fills a C-contiguous float32 array of shape (frames, 2) with the next frames."""
        if audio.dtype != np.float32 or audio.ndim != 2 or audio.shape[1] != 2 or not audio.flags.c_contiguous:
            raise ArgumentError(_c.ERROR_ARGUMENT, "render_into takes a C-contiguous float32 array of shape (frames, 2)")
        _check(_c.lib.pianola_render_f32(self._handle, audio.ctypes.data, audio.shape[0]))

    def start_output(self, device: Optional[str] = None, period_frames: int = 0, periods: int = 0, *, driver: Optional[str] = None) -> None:
        """Plays through Pianola's own output on `driver` ("alsa", "pipewire", "jack", or None for
        what `pianola play` chooses) and `device` (None: the driver's default); then `render` is refused."""
        _check(_c.lib.pianola_output_start_driver(self._handle, _driver(driver), device.encode() if device is not None else None,
                                                  period_frames, periods))

    def stop_output(self) -> None:
        """Stops Pianola's own output at once."""
        _check(_c.lib.pianola_output_stop(self._handle))
