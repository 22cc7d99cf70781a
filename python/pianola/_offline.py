"""Songs rendered offline for data work: one song with its stems and note labels; songs given
as paths, bytes, file objects or the objects of pretty_midi, mido and symusic; the audio
shaped and normalized as asked. Many songs at once are _batch's."""
import ctypes
import os
import tempfile
import threading
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Union

import numpy as np

from . import _library as _c
from ._errors import ArgumentError, Data, FileError, _check, _source, driver as _driver, integer, number, synth as _synth
from ._loudness import LOUDNESS_TARGET, loudness

Song = Union[str, os.PathLike, bytes, bytearray, memoryview, object]
"""A song: a path, its bytes, a binary file object, or an object that writes a MIDI file
(pretty_midi.PrettyMIDI.write, mido.MidiFile.save, symusic.Score.dump_midi)."""

LABEL_DTYPE = np.dtype([("start_frame", "<i8"), ("end_frame", "<i8"), ("channel", "<i4"), ("key", "<i4"),
                        ("velocity", "<i4"), ("program", "<i4"), ("bank", "<i4")], align=True)
"""A note label as `render(labels=True)` gives it: the frames (from the audio's first) the key
was pressed and released on, its channel (1-16), key, velocity, and the channel's program and bank."""

_NORMALIZE = (None, "peak", "loudness")


def default_soundfont() -> str:
    """The SoundFont that plays when none is given, by the rule `pianola` and the C library
    follow too: $PIANOLA_SOUNDFONT, else the system's General MIDI font
    (/usr/share/sounds/sf2/default-GM.sf2), else the project's own pianola-gm.sf2 (the wheel
    carries it beside the library). Raises a FileError (FileNotFoundError) saying where it looked."""
    length = ctypes.c_size_t()
    _check(_c.lib.pianola_default_soundfont(None, 0, ctypes.byref(length)))
    path = ctypes.create_string_buffer(length.value + 1)
    _check(_c.lib.pianola_default_soundfont(path, len(path), ctypes.byref(length)))
    return os.fsdecode(path.value)


def _song_data(midi: Song) -> Data:
    """A song as a path or bytes: a file object read, an object that writes MIDI files asked to
    write one (pretty_midi, mido, symusic: none of them imported here)."""
    if isinstance(midi, (str, os.PathLike, bytes, bytearray, memoryview)):
        return midi
    if callable(getattr(midi, "read", None)):
        data = midi.read()
        if not isinstance(data, (bytes, bytearray)):
            raise TypeError(f"midi: the file object gave {type(data).__name__}, not bytes; open it in binary mode ('rb')")
        return bytes(data)
    for method in ("write", "save", "dump_midi"):   # pretty_midi, mido, symusic
        if callable(getattr(midi, method, None)):
            with tempfile.TemporaryDirectory() as folder:
                path = os.path.join(folder, "song.mid")
                getattr(midi, method)(path)
                with open(path, "rb") as written:
                    return written.read()
    raise TypeError(f"midi: give a path, bytes, a binary file object, or an object with write/save/dump_midi "
                    f"(pretty_midi, mido, symusic), not {type(midi).__name__}")


def _name_of(midi: Song) -> str:
    """What messages call an in-memory song."""
    if isinstance(midi, (bytes, bytearray, memoryview)):
        return "midi"
    name = getattr(midi, "name", None) or getattr(midi, "filename", None)
    return os.path.basename(str(name)) if isinstance(name, (str, os.PathLike)) else f"{type(midi).__name__} song"


def _tracks(name: str, tracks) -> List[int]:
    """Track numbers counted from 1, as ints."""
    chosen = [tracks] if isinstance(tracks, int) and not isinstance(tracks, bool) else list(tracks)
    for track in chosen:
        integer(f"{name} entries", track, 1, 65535)
    return chosen


def _mask(name: str, channels) -> int:
    """Channels 1-16 as the C API's mask."""
    chosen = [channels] if isinstance(channels, int) and not isinstance(channels, bool) else list(channels)
    return sum(1 << (integer(f"{name} entries", channel, 1, 16) - 1) for channel in set(chosen))


def _position(name: str, value) -> Optional[bytes]:
    """A start or end: seconds (a number), or bar:beat text ("3:1")."""
    if value is None:
        return None
    if isinstance(value, str):
        return value.encode()
    return repr(number(name, value, 0, 1e9)).encode()


@dataclass
class _Request:
    """One render's choices, checked in Python's terms before any C call."""
    sample_rate: int = 48000
    start: Optional[bytes] = None
    end: Optional[bytes] = None
    transpose: int = 0
    mute: List[int] = field(default_factory=list)
    solo: List[int] = field(default_factory=list)
    mute_channels: int = 0
    solo_channels: int = 0
    tail_seconds: float = 5.0
    reverb: bool = True
    chorus: bool = True
    gain: float = 0.2
    synth: int = 0

    @staticmethod
    def checked(sample_rate, start, end, transpose, mute, solo, mute_channels, solo_channels, tail_seconds, reverb, chorus,
                gain, synth) -> "_Request":
        return _Request(integer("sample_rate", sample_rate, 8000, 384000), _position("start", start), _position("end", end),
                        integer("transpose", transpose, -48, 48), _tracks("mute", mute), _tracks("solo", solo),
                        _mask("mute_channels", mute_channels), _mask("solo_channels", solo_channels),
                        number("tail_seconds", tail_seconds, 0, 60), bool(reverb), bool(chorus), number("gain", gain, 0, 10), _synth(synth))

    def config(self, midi: Data, name: str, soundfont, keep: list, labels: bool = False, solo: Optional[List[int]] = None,
               solo_channels: Optional[int] = None, mute: Optional[List[int]] = None, bits: int = 16) -> _c.RenderConfig:
        """The C config for `midi` through `soundfont` (a path or bytes, or a loaded handle),
        with the solos and mutes given in place of the request's."""
        config = _c.RenderConfig()
        _check(_c.lib.pianola_render_config_init(ctypes.byref(config)))
        config.midi = _source(midi, keep, name)
        if isinstance(soundfont, ctypes.c_void_p):
            config.loaded_soundfont = soundfont
        else:
            config.soundfont = _source(soundfont, keep, "soundfont")
        config.sample_rate, config.tail_seconds, config.gain, config.bits = self.sample_rate, self.tail_seconds, self.gain, bits
        config.reverb, config.chorus, config.synth, config.transpose = int(self.reverb), int(self.chorus), self.synth, self.transpose
        config.labels = int(labels)
        setattr(config, "from", self.start)   # a keyword in Python, a field in C
        config.to = self.end
        config.mute_channels = self.mute_channels
        config.solo_channels = self.solo_channels if solo_channels is None else solo_channels
        for array_name, tracks in (("mute_tracks", self.mute if mute is None else mute), ("solo_tracks", self.solo if solo is None else solo)):
            array = (ctypes.c_int32 * max(1, len(tracks)))(*tracks)
            keep.append(array)
            setattr(config, array_name, ctypes.cast(array, ctypes.POINTER(ctypes.c_int32)))
            setattr(config, array_name.replace("tracks", "track_count"), len(tracks))
        return config


class _Renderer:
    """A pianola_renderer: read out whole, with its labels and its song's tracks."""

    def __init__(self, config: _c.RenderConfig):
        self.handle = ctypes.c_void_p()
        _check(_c.lib.pianola_renderer_create(ctypes.byref(config), ctypes.byref(self.handle)))

    def __enter__(self) -> "_Renderer":
        return self

    def __exit__(self, *_) -> None:
        _c.lib.pianola_renderer_destroy(self.handle)

    def read(self, progress: Optional[Callable[[float], None]] = None, stop: Optional[threading.Event] = None) -> np.ndarray:
        """The whole render; raises Stopped, between pieces of a second or so, once `stop` is set."""
        most = ctypes.c_int64()
        _check(_c.lib.pianola_renderer_max_frames(self.handle, ctypes.byref(most)))
        audio = np.empty((most.value, 2), dtype=np.float32)
        done, got = 0, ctypes.c_size_t()
        while done < most.value:
            if stop is not None and stop.is_set():
                raise Stopped()
            chunk = min(1 << 16, most.value - done)
            _check(_c.lib.pianola_renderer_read(self.handle, audio[done:].ctypes.data, chunk, ctypes.byref(got)))
            if got.value == 0:
                break
            done += got.value
            if progress:
                progress(done / most.value)
        if done < most.value:
            audio.resize((done, 2), refcheck=False)   # shrunk in place: no second copy of a long song
        return audio

    def labels(self) -> np.ndarray:
        count = ctypes.c_size_t()
        _check(_c.lib.pianola_renderer_labels(self.handle, None, 0, ctypes.byref(count)))
        array = (_c.NoteLabel * max(1, count.value))()
        _check(_c.lib.pianola_renderer_labels(self.handle, array, count.value, ctypes.byref(count)))
        return np.frombuffer(bytes(array), dtype=LABEL_DTYPE, count=count.value).copy()

    def tracks(self) -> List[_c.TrackInfo]:
        count = ctypes.c_int32()
        _check(_c.lib.pianola_renderer_track_count(self.handle, ctypes.byref(count)))
        infos = []
        for track in range(1, count.value + 1):
            info = _c.TrackInfo()
            _check(_c.lib.pianola_renderer_track(self.handle, track, ctypes.byref(info)))
            infos.append(info)
        return infos


@dataclass
class Rendering:
    """A render with what was asked besides the mix (`render(stems=..., labels=True)`)."""
    audio: np.ndarray
    """The mix, shaped as asked."""
    sample_rate: int
    """Frames a second."""
    stems: Dict[int, np.ndarray] = field(default_factory=dict)
    """stems="tracks" (or True): track number (from 1, as `pianola info` counts) → that track
    alone; stems="channels": channel (1-16) → that channel alone. Each as long and shaped as the
    mix, normalized by the mix's factor, so they add up to it."""
    stem_names: Dict[int, str] = field(default_factory=dict)
    """The tracks' names ("" if none), for track stems; "channel N" for channel stems."""
    labels: Optional[np.ndarray] = None
    """The notes played (labels=True): a structured array of LABEL_DTYPE, oldest first, on
    the audio's frames."""
    gain: float = 1.0
    """The factor `normalize` applied (1 when not asked)."""


def _shape(audio: np.ndarray, channels_first: bool, mono: bool) -> np.ndarray:
    if mono:
        audio = audio.mean(axis=1, dtype=np.float32)
        return audio
    return np.ascontiguousarray(audio.T) if channels_first else audio


def _fit(audio: np.ndarray, frames: int) -> np.ndarray:
    """`audio` (a render's own array) cut or padded with silence to `frames` frames, in place."""
    audio.resize((frames, 2), refcheck=False)
    return audio


def _gain(audio: np.ndarray, normalize: Optional[str], sample_rate: int) -> float:
    """The factor `normalize` asks for: "peak" brings the peak to 1.0 (0 dBFS), "loudness" the
    integrated loudness to LOUDNESS_TARGET (it may then peak above 1.0; the audio is float)."""
    if normalize not in _NORMALIZE:
        raise ArgumentError(_c.ERROR_ARGUMENT, f"normalize must be 'peak', 'loudness' or None, not {normalize!r}")
    if normalize == "peak":
        peak = float(np.abs(audio).max()) if audio.size else 0.0
        return 1.0 / peak if peak > 0 else 1.0
    if normalize == "loudness":
        measured = loudness(audio, sample_rate)
        return float(10 ** ((LOUDNESS_TARGET - measured) / 20)) if np.isfinite(measured) else 1.0
    return 1.0


class Stopped(Exception):
    """A render given up because its batch was interrupted (Ctrl-C)."""


def _render_one(midi: Song, soundfont, request: _Request, stems, labels: bool, channels_first: bool, mono: bool,
                normalize: Optional[str], progress: Optional[Callable[[float], None]] = None, stop: Optional[threading.Event] = None):
    """One song rendered as `render` describes; `soundfont` may be a loaded handle. Raises
    Stopped soon after `stop` is set."""
    if stems not in (False, True, "tracks", "channels"):
        raise ArgumentError(_c.ERROR_ARGUMENT, f"stems must be True, 'tracks', 'channels' or False, not {stems!r}")
    data, name = _song_data(midi), _name_of(midi)
    keep: list = []
    with _Renderer(request.config(data, name, soundfont, keep, labels=labels)) as renderer:
        mix = renderer.read(progress, stop)
        label_array = renderer.labels() if labels else None
        tracks = renderer.tracks() if stems else []
    parts: Dict[int, np.ndarray] = {}
    names: Dict[int, str] = {}
    if stems in (True, "tracks"):
        for number_, info in enumerate(tracks, start=1):
            if info.notes == 0 or number_ in request.mute or (request.solo and number_ not in request.solo):
                continue
            with _Renderer(request.config(data, name, soundfont, keep, solo=[number_], mute=[], solo_channels=0)) as alone:
                parts[number_] = _fit(alone.read(stop=stop), len(mix))
            names[number_] = info.name.decode("utf-8", "replace")
    elif stems == "channels":
        silenced = sorted(set(request.mute) | ({t for t in range(1, len(tracks) + 1)} - set(request.solo) if request.solo else set()))
        used = 0   # the channels the tracks heard play on
        for number_, info in enumerate(tracks, start=1):
            used |= 0 if number_ in silenced else info.channels
        for channel in range(1, 17):
            bit = 1 << (channel - 1)
            if not used & bit or request.mute_channels & bit or (request.solo_channels and not request.solo_channels & bit):
                continue
            with _Renderer(request.config(data, name, soundfont, keep, solo=[], mute=silenced, solo_channels=bit)) as alone:
                parts[channel] = _fit(alone.read(stop=stop), len(mix))
            names[channel] = f"channel {channel}"
    gain = _gain(mix, normalize, request.sample_rate)
    shaped = _shape(mix * np.float32(gain) if gain != 1 else mix, channels_first, mono)
    if not stems and not labels:
        return shaped
    return Rendering(shaped, request.sample_rate, {k: _shape(v * np.float32(gain) if gain != 1 else v, channels_first, mono) for k, v in parts.items()},
                     names, label_array, gain)


def render(midi: Song, soundfont: Optional[Data] = None, sample_rate: int = 48000, *, start=None, end=None, transpose: int = 0,
           mute: Sequence[int] = (), solo: Sequence[int] = (), mute_channels: Sequence[int] = (), solo_channels: Sequence[int] = (),
           stems: Union[bool, str] = False, labels: bool = False, channels_first: bool = False, mono: bool = False,
           normalize: Optional[str] = None, synth: Optional[str] = None, tail_seconds: float = 5.0, reverb: bool = True,
           chorus: bool = True, gain: float = 0.2):
    """Renders a song through a SoundFont, faster than real time: the music (from `start` to
    `end`: seconds, or "bar:beat" text), then until its notes have died (at most
    `tail_seconds`). `soundfont` None is the default (default_soundfont()). Tracks
    (from 1, as `pianola info` counts) and channels (1-16) can be muted or soloed; `transpose`
    moves every channel but 10. Returns float32 audio shaped (frames, 2), or (2, frames) with
    `channels_first`, or (frames,) with `mono`, scaled by `normalize` ("peak" or "loudness").
    With `stems` ("tracks"/True or "channels") or `labels`, returns a Rendering holding the
    mix, each track or channel alone, and the notes played on their frames."""
    request = _Request.checked(sample_rate, start, end, transpose, mute, solo, mute_channels, solo_channels, tail_seconds,
                               reverb, chorus, gain, synth)
    return _render_one(midi, default_soundfont() if soundfont is None else soundfont, request, stems, bool(labels),
                       bool(channels_first), bool(mono), normalize)


def render_file(midi: Song, soundfont: Optional[Data], output: Union[str, os.PathLike], *, overwrite: bool = False, bits: int = 16,
                sample_rate: int = 48000, tail_seconds: float = 5.0, reverb: bool = True, chorus: bool = True, gain: float = 0.2) -> None:
    """Renders a song into an audio file (.wav, .flac, .ogg, .opus, .mp3 by its name), with
    `bits` 16, 24 or 32 (float). An existing file is refused unless `overwrite`; `soundfont`
    None is the default (default_soundfont())."""
    request = _Request.checked(sample_rate, None, None, 0, (), (), (), (), tail_seconds, reverb, chorus, gain, None)
    keep: list = []
    config = request.config(_song_data(midi), _name_of(midi), default_soundfont() if soundfont is None else soundfont, keep,
                            bits=integer("bits", bits, 16, 32))
    status = _c.lib.pianola_render_file(ctypes.byref(config), os.fsencode(output), int(overwrite))
    if status == _c.ERROR_FILE and not overwrite and os.path.exists(output):
        raise FileError(status, _c.lib.pianola_last_error().decode("utf-8", "replace") + "; pass overwrite=True to replace it")
    _check(status)


@dataclass(frozen=True)
class MidiPort:
    """An ALSA sequencer port, as `pianola ports` lists it."""
    address: str
    """"client:port", e.g. "14:0"."""
    client: str
    """The client's name ("Midi Through")."""
    name: str
    """The port's name."""
    receives: bool
    """It takes events: a song can be sent there."""
    sends: bool
    """It gives events: a clock can be followed from there."""
    kernel: bool
    """A kernel client's port (a device, Midi Through)."""


def midi_ports() -> List[MidiPort]:
    """The sequencer's ports (none of Pianola's own). No sequencer raises a DeviceError."""
    count = ctypes.c_size_t()
    _check(_c.lib.pianola_midi_ports(None, 0, ctypes.byref(count)))
    ports = (_c.MidiPort * max(1, count.value))()
    _check(_c.lib.pianola_midi_ports(ports, count.value, ctypes.byref(count)))
    text = lambda field: field.decode("utf-8", "replace")
    return [MidiPort(text(p.address), text(p.client), text(p.name), bool(p.receives), bool(p.sends), bool(p.kernel))
            for p in ports[:count.value]]


_TIMECODE_RATES = {24: 24, 25: 25, 29.97: 2997, 30: 30}


def _strings(name: str, values, keep: list):
    """A C array of the strings `values` (a str alone is one), kept alive in `keep`."""
    values = [values] if isinstance(values, str) else list(values)
    for value in values:
        if not isinstance(value, str):
            raise TypeError(f"{name} entries must be str, not {type(value).__name__}")
    array = (ctypes.c_char_p * max(1, len(values)))(*[value.encode() for value in values])
    keep.append(array)
    return array, len(values)


def _midi_config(port, routes, clock, timecode, timecode_rate, follow, keep: list) -> _c.MidiConfig:
    """The pianola_midi_config for play_file's MIDI options."""
    config = _c.MidiConfig()
    _check(_c.lib.pianola_midi_config_init(ctypes.byref(config)))
    config.port = port.encode() if port is not None else None
    config.follow_port = follow.encode() if follow is not None else None
    config.routes, config.route_count = _strings("routes", routes, keep)
    config.clock_ports, config.clock_port_count = _strings("clock", clock, keep)
    config.timecode_ports, config.timecode_port_count = _strings("timecode", timecode, keep)
    if timecode_rate not in _TIMECODE_RATES:
        raise ArgumentError(_c.ERROR_ARGUMENT, f"timecode_rate must be 24, 25, 29.97 (drop-frame) or 30, not {timecode_rate!r}")
    config.timecode_rate = _TIMECODE_RATES[timecode_rate]
    return config


def play_file(midi: Song, soundfont: Optional[Data] = None, device: Optional[str] = None, *, driver: Optional[str] = None,
              sample_rate: int = 48000, start=None, end=None, transpose: int = 0, mute: Sequence[int] = (), solo: Sequence[int] = (),
              port: Optional[str] = None, routes: Sequence[str] = (), clock: Sequence[str] = (), timecode: Sequence[str] = (),
              timecode_rate: float = 30, follow: Optional[str] = None, tail_seconds: float = 5.0, reverb: bool = True,
              chorus: bool = True, gain: float = 0.2) -> None:
    """Plays a song once through `device` on `driver` ("alsa", "pipewire", "jack", or None
    for what `pianola play` chooses; device None is the driver's default) and returns when it
    has ended. MIDI ports, named as `pianola ports` (or midi_ports()) lists them: `port` takes
    every track no route names, `routes` as `pianola play --route` ("ch10=synth",
    "track2=24:0"), `clock` and `timecode` ports get MIDI clock and timecode (at
    `timecode_rate`), and `follow` is a port whose MIDI clock leads. When nothing goes to the
    synthesizer, no audio device is opened."""
    request = _Request.checked(sample_rate, start, end, transpose, mute, solo, (), (), tail_seconds, reverb, chorus, gain, None)
    keep: list = []
    config = request.config(_song_data(midi), _name_of(midi), default_soundfont() if soundfont is None else soundfont, keep)
    device_name = device.encode() if device is not None else None
    if port is None and not routes and not clock and not timecode and follow is None:
        _check(_c.lib.pianola_play_file_driver(ctypes.byref(config), _driver(driver), device_name))
        return
    ports = _midi_config(port, routes, clock, timecode, timecode_rate, follow, keep)
    _check(_c.lib.pianola_play_file_midi(ctypes.byref(config), ctypes.byref(ports), _driver(driver), device_name))
