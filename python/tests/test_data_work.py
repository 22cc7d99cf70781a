"""The module for data work: renders with stems and note labels on the frames they sound,
ranges, transposition, mutes and solos, shapes and normalization, songs handed over as the
objects pretty_midi, mido and symusic make (imitated here: the module imports none of them),
many songs on every core with one font load, and mistakes worded as Python words them."""
import io
import math
import os
import struct
from pathlib import Path

import numpy as np
import pytest

import pianola

ROOT = Path(__file__).resolve().parents[2]
FONT = str(ROOT / "soundfonts" / "pianola-gm.sf2")
TEST_FONT = str(ROOT / "soundfonts" / "pianola-test.sf2")
SONG = str(ROOT / "songs" / "ode-to-joy.mid")
CORPUS = ROOT.parent / "shared" / "corpus" / "midi"


def var_length(value):
    out = [value & 0x7F]
    value >>= 7
    while value:
        out.insert(0, (value & 0x7F) | 0x80)
        value >>= 7
    return bytes(out)


def off_grid_song():
    """A format-0 song at 120 bpm, 480 ticks a quarter: A4 at ticks 7, 500 and 1013, frames
    350, 25,000 and 50,650 at 48 kHz (none on a 64-frame edge), as the CLI's test has it."""
    events, last = b"", 0
    for tick, message in [(7, b"\x90\x45\x64"), (200, b"\x80\x45\x00"), (500, b"\x90\x45\x64"), (700, b"\x80\x45\x00"),
                          (1013, b"\x90\x45\x64"), (1200, b"\x80\x45\x00"), (1440, b"\xff\x2f\x00")]:
        events += var_length(tick - last) + message
        last = tick
    return b"MThd" + struct.pack(">IHHH", 6, 0, 1, 480) + b"MTrk" + struct.pack(">I", len(events)) + events


class PrettyMIDILike:
    """What pretty_midi.PrettyMIDI offers for this: write(filename)."""

    def __init__(self, data):
        self.data = data

    def write(self, filename):
        Path(filename).write_bytes(self.data)


class MidoLike:
    """mido.MidiFile: save(filename=None, file=None)."""

    def __init__(self, data):
        self.data = data

    def save(self, filename=None, file=None):
        Path(filename).write_bytes(self.data)


class SymusicLike:
    """symusic.Score: dump_midi(path)."""

    def __init__(self, data):
        self.data = data

    def dump_midi(self, path):
        Path(path).write_bytes(self.data)


def test_labels_match_the_rendered_onsets_and_stems_are_given_per_track():
    rendering = pianola.render(PrettyMIDILike(off_grid_song()), TEST_FONT, synth="pianola", reverb=False, chorus=False,
                               stems=True, labels=True)
    starts = list(rendering.labels["start_frame"])
    assert starts == [350, 25_000, 50_650]
    assert list(rendering.labels["key"]) == [69] * 3 and list(rendering.labels["channel"]) == [1] * 3
    left = rendering.audio[:, 0]
    for start in starts:   # silent up to its frame, sounding from the next
        assert not left[start - 200:start + 1].any() and left[start + 1:start + 100].any()
    assert list(rendering.stems) == [1] and np.array_equal(rendering.stems[1], rendering.audio)


def test_every_way_of_handing_over_a_song_renders_the_same():
    data = Path(SONG).read_bytes()
    reference = pianola.render(SONG, FONT, end="2:1")
    with open(SONG, "rb") as file:
        given = [data, bytearray(data), Path(SONG), io.BytesIO(data), file, PrettyMIDILike(data), MidoLike(data), SymusicLike(data)]
        for song in given:
            assert np.array_equal(pianola.render(song, FONT, end="2:1"), reference), type(song).__name__
    with pytest.raises(TypeError, match=r"^midi: give a path, bytes, a binary file object, or an object with write/save/dump_midi "
                                        r"\(pretty_midi, mido, symusic\), not int$"):
        pianola.render(42, FONT)
    with pytest.raises(TypeError, match="open it in binary mode"):
        pianola.render(io.StringIO("MThd"), FONT)


def test_track_and_channel_stems_add_up_to_the_mix():
    # Pianola's engine: the stems add up to the mix to float rounding. (Through libfluidsynth
    # they differ inside a note's first 64-frame block, by up to 0.012 on this song: it glides
    # a voice's filter from the note its voice slot played before, which differs alone.)
    rendering = pianola.render(SONG, FONT, end="5:1", stems="tracks", synth="pianola")
    assert sorted(rendering.stems) == [2, 3, 4, 5]
    assert rendering.stem_names == {2: "Melody", 3: "Bass", 4: "Strings", 5: "Drums"}
    total = sum(rendering.stems.values())
    assert np.abs(total - rendering.audio).max() < 1e-6 and np.abs(rendering.audio).max() > 0.05
    channels = pianola.render(SONG, FONT, end="5:1", stems="channels", solo=[2, 5], synth="pianola")
    assert sorted(channels.stems) == [1, 10] and channels.stem_names[10] == "channel 10"
    assert np.abs(channels.stems[1] + channels.stems[10] - channels.audio).max() < 1e-6
    alone = pianola.render(SONG, FONT, end="5:1", solo=[2], synth="pianola")
    assert np.abs(channels.stems[1] - alone).max() < 1e-6


def test_range_transposition_mutes_and_shapes():
    full = pianola.render(SONG, FONT, labels=True, tail_seconds=0)
    part = pianola.render(SONG, FONT, start="3:1", end="5:1", labels=True, tail_seconds=0)
    quarter = 0.535714   # the song's first tempo: 535714 µs a quarter
    assert abs(len(part.audio) - round(8 * quarter * 48000)) <= 1
    assert 0 < len(part.labels) < len(full.labels)
    up = pianola.render(SONG, FONT, start="3:1", end="5:1", labels=True, tail_seconds=0, transpose=12)
    pitched = part.labels["channel"] != 10
    assert np.array_equal(up.labels["key"][pitched], part.labels["key"][pitched] + 12)
    assert np.array_equal(up.labels["key"][~pitched], part.labels["key"][~pitched])
    quiet = pianola.render(SONG, FONT, end="3:1", labels=True, mute=[2, 3], mute_channels=[3, 10])
    assert len(quiet.labels) == 0
    mix = pianola.render(SONG, FONT, end="2:1")
    first = pianola.render(SONG, FONT, end="2:1", channels_first=True)
    mono = pianola.render(SONG, FONT, end="2:1", mono=True)
    assert first.shape == (2, len(mix)) and np.array_equal(first.T, mix)
    assert mono.shape == (len(mix),) and np.allclose(mono, mix.mean(axis=1))


def test_normalize_by_peak_and_by_loudness():
    peak = pianola.render(SONG, FONT, end="4:1", normalize="peak")
    assert abs(np.abs(peak).max() - 1) < 1e-6
    loud = pianola.render(SONG, FONT, end="4:1", normalize="loudness")
    assert abs(pianola.loudness(loud, 48000) - pianola.LOUDNESS_TARGET) < 0.01
    # BS.1770's K-weighting at 48 kHz is the standard's table; a full-scale 997 Hz sine in
    # both channels reads 0 LUFS (in one channel, -3.01).
    from pianola import _loudness
    assert np.allclose(_loudness._shelf(48000)[0], [1.53512485958697, -2.69169618940638, 1.19839281085285], atol=1e-10)
    assert np.allclose(_loudness._shelf(48000)[1], [1, -1.69065929318241, 0.73248077421585], atol=1e-10)
    assert np.allclose(_loudness._high_pass(48000)[1], [1, -1.99004745483398, 0.99007225036621], atol=1e-10)
    t = np.arange(48000 * 3) / 48000
    sine = np.sin(2 * np.pi * 997 * t)
    assert abs(pianola.loudness(np.stack([sine, sine], axis=1), 48000)) < 0.05
    assert abs(pianola.loudness(np.stack([sine, 0 * sine], axis=1), 48000) + 3.01) < 0.05
    assert abs(pianola.loudness(np.stack([sine, sine]), 44100) - pianola.loudness(np.stack([sine, sine], axis=1), 44100)) < 1e-9
    assert pianola.loudness(np.zeros((48000, 2)), 48000) == -math.inf


def test_render_many_loads_the_font_once_renders_in_order_and_reports_progress():
    songs = [SONG, ROOT / "songs" / "town.mid", b"not a MIDI file", ROOT / "songs" / "battle.mid"]
    seen = []
    results = pianola.render_many(songs, FONT, end="2:1", errors="return", workers=2,
                                  progress=lambda done, total, song: seen.append((done, total)))
    assert seen == [(1, 4), (2, 4), (3, 4), (4, 4)]
    assert isinstance(results[2], pianola.FileError) and "byte 0" in str(results[2])
    # libfluidsynth plays a font loaded whole (shared) a hair differently from one it loads for
    # one song; Pianola's engine plays both the same.
    assert np.abs(results[0] - pianola.render(SONG, FONT, end="2:1")).max() < 1e-3
    ours = pianola.render_many(songs[:2], FONT, end="2:1", synth="pianola")
    assert np.array_equal(ours[1], pianola.render(songs[1], FONT, end="2:1", synth="pianola"))
    with pytest.raises(pianola.FileError, match="byte 0"):
        pianola.render_many(songs, FONT, end="2:1")
    with pytest.raises(TypeError, match="unexpected keyword argument 'tempo'"):
        pianola.render_many(songs, FONT, tempo=120)


@pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared corpus sits beside the checkout on the project's machines")
def test_render_many_over_the_corpus_with_a_bar():
    files = sorted(p for p in CORPUS.iterdir() if p.suffix.lower() in (".mid", ".midi"))[:12]
    results = pianola.render_many(files, FONT, end=2.0, tail_seconds=0, errors="return", progress=True)
    assert len(results) == len(files) and sum(isinstance(r, np.ndarray) for r in results) >= len(files) // 2


@pytest.mark.parametrize("call, words", [
    (lambda: pianola.render(SONG, FONT, sample_rate=44100.0), "sample_rate must be an int from 8000 to 384000, not 44100.0"),
    (lambda: pianola.render(SONG, FONT, transpose=60), "transpose must be an int from -48 to 48, not 60"),
    (lambda: pianola.render(SONG, FONT, solo=[0]), "solo entries must be an int from 1 to 65535, not 0"),
    (lambda: pianola.render(SONG, FONT, solo=[9]), "solo_tracks[0] 9: the song has tracks 1 to 5"),
    (lambda: pianola.render(SONG, FONT, mute_channels=[17]), "mute_channels entries must be an int from 1 to 16, not 17"),
    (lambda: pianola.render(SONG, FONT, start="99:1"), 'from "99:1"'),
    (lambda: pianola.render(SONG, FONT, start="soon"), 'from "soon": give seconds (12.5) or bar:beat (3:1), counted from 1'),
    (lambda: pianola.render(SONG, FONT, normalize="rms"), "normalize must be 'peak', 'loudness' or None, not 'rms'"),
    (lambda: pianola.render(SONG, FONT, stems="bars"), "stems must be True, 'tracks', 'channels' or False, not 'bars'"),
    (lambda: pianola.render(SONG, FONT, synth="timidity"), "synth must be 'pianola', 'fluidsynth' or None, not 'timidity'"),
    (lambda: pianola.Soundtrack(sample_rate=44100.0), "sample_rate must be an int from 8000 to 384000, not 44100.0"),
    (lambda: pianola.Soundtrack(gain="loud"), "gain must be a number from 0 to 10, not 'loud'"),
])
def test_bad_arguments_are_value_errors_worded_in_pythons_terms(call, words):
    with pytest.raises(ValueError) as caught:
        call()
    assert isinstance(caught.value, pianola.ArgumentError) and words in str(caught.value)


def test_empty_bytes_and_an_existing_output_say_what_to_do(tmp_path):
    with pytest.raises(pianola.FileError, match=r"^midi: the bytes given are empty \(0 bytes\), so there is nothing to read$"):
        pianola.render(b"", FONT)
    out = tmp_path / "out.wav"
    pianola.render_file(SONG, FONT, out, tail_seconds=0)
    with pytest.raises(pianola.FileError, match="already exists.*; pass overwrite=True to replace it$"):
        pianola.render_file(SONG, FONT, out)
    pianola.render_file(SONG, None, out, overwrite=True, tail_seconds=0)


def test_the_package_is_typed():
    assert (Path(pianola.__file__).parent / "py.typed").is_file()


@pytest.mark.parametrize("synth, first", [("pianola", 351), ("fluidsynth", 321), (None, 351)])
def test_the_soundtrack_plays_on_the_synthesizer_chosen(synth, first):
    # A4 at frame 350: Pianola's engine (the default) sounds it from the next frame,
    # libfluidsynth from the nearest 64-frame block edge's (320). No limiter, whose look-ahead
    # would put both 48 frames later.
    with pianola.Soundtrack(synth=synth, reverb=False, chorus=False, limiter=False) as music:
        song = music.load_song(off_grid_song(), TEST_FONT, name="off-grid.mid").wait()
        music.play(song)
        audio = music.render(4800)
    assert int(np.flatnonzero(audio[:, 0])[0]) == first
