"""What a Soundtrack reports: its events (poll_events), where the music is (position) and its level (meters)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple, Optional

if TYPE_CHECKING:
    from . import Song, Sound


@dataclass(frozen=True)
class _SongEvent:
    """Something that happened to `song` (None if its handle was closed), at `sample_time` frames."""
    song: Optional[Song]
    sample_time: int


@dataclass(frozen=True)
class Beat(_SongEvent):
    """A beat other than a bar's first sounded, in `section` (None before the first)."""
    bar: int
    beat: int
    section: Optional[str] = None


@dataclass(frozen=True)
class Bar(_SongEvent):
    """A bar line sounded (beat 1 of `bar`), in `section` (None before the first)."""
    bar: int
    section: Optional[str] = None


@dataclass(frozen=True)
class Marker(_SongEvent):
    """A marker (or cue point) sounded."""
    text: str


@dataclass(frozen=True)
class LoopWrapped(_SongEvent):
    """The song went back to its loop's start."""


@dataclass(frozen=True)
class Jumped(_SongEvent):
    """The song jumped to its section `section` (Soundtrack.jump)."""
    section: str


@dataclass(frozen=True)
class Transitioned(_SongEvent):
    """The music left for `song` by the transition rule named `rule` (Soundtrack.transition)."""
    rule: str


@dataclass(frozen=True)
class SongStarted(_SongEvent):
    """The song started sounding on `sample_time`, from its section `section` (None: its start);
    it comes before the song's first Bar."""
    section: Optional[str] = None


@dataclass(frozen=True)
class SongStopped(_SongEvent):
    """The song was left before its end (another played, or stop()); its fade-out begins on `sample_time`."""


@dataclass(frozen=True)
class SongEnded(_SongEvent):
    """The song played to its end."""


@dataclass(frozen=True)
class Position:
    """Where the music is at the end of the audio rendered so far (Soundtrack.position)."""
    song: Optional[Song]
    """The song sounding (the one played last that has started), None when none does."""
    sample_time: int
    """The music clock's frame this is for: every frame before it has been rendered."""
    song_frame: int
    """Frames into the song as written (its tempo map); a loop's wrap or a jump moves it back."""
    seconds: float
    """`song_frame` in seconds."""
    tick: int
    """The song's tick there."""
    bar: int
    """The bar, from 1; 0 for a song without bars or when none plays."""
    beat: int
    """The beat of the bar, from 1; 0 as for `bar`."""
    beat_fraction: float
    """How far into the beat, 0 up to 1, by frames."""
    beats_per_bar: int
    """Beats in the bar: 3 in 3/4."""
    beat_unit: int
    """The beat's note value: 4 in 3/4."""
    bpm: float
    """The tempo played, in quarter notes a minute (the written tempo times set_tempo's); 0 when none plays."""
    section: Optional[str]
    """The section it is in, None before the first."""


@dataclass(frozen=True)
class SongLoaded(_SongEvent):
    """The song finished loading."""


@dataclass(frozen=True)
class SongLoadFailed(_SongEvent):
    """The song could not be loaded, for `reason`."""
    reason: str


@dataclass(frozen=True)
class _SoundEvent:
    """Something that happened to `sound` (None if its handle was closed), at `sample_time` frames."""
    sound: Optional[Sound]
    sample_time: int


@dataclass(frozen=True)
class SoundLoaded(_SoundEvent):
    """The sound finished loading."""


@dataclass(frozen=True)
class SoundLoadFailed(_SoundEvent):
    """The sound could not be loaded, for `reason`."""
    reason: str


class Meters(NamedTuple):
    """A render's level (Soundtrack.meters()), linear: 1.0 is full scale."""
    peak: float
    """The largest sample, either channel."""
    rms: float
    """The root mean square over both channels."""
