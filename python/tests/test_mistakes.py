"""Issue 31's table: each mistake a new user made, and what it raises or returns now."""
import errno
from pathlib import Path

import numpy as np
import pytest

import pianola

ROOT = Path(__file__).resolve().parents[2]
FONT = str(ROOT / "soundfonts" / "pianola-gm.sf2")
SONG = str(ROOT / "songs" / "ode-to-joy.mid")
TOWN = str(ROOT / "songs" / "town.mid")


class PrettyMIDILike:
    """pretty_midi.PrettyMIDI as far as pianola needs it: write(filename)."""

    def write(self, filename):
        Path(filename).write_bytes(Path(SONG).read_bytes())


def closed_soundtrack():
    music = pianola.Soundtrack()
    music.close()
    return music.render(64)


def playing(call):
    """Runs `call` on a soundtrack playing town."""
    with pianola.Soundtrack() as music:
        town = music.load_song(TOWN, FONT).wait()
        music.play(town)
        music.render(4800)
        return call(music)


def existing_output(tmp_path):
    out = tmp_path / "out.wav"
    out.write_bytes(b"mine")
    pianola.render_file(SONG, FONT, out)


# mistake, what to do, the error raised (None: it works), the words it says
TABLE = [
    ("a missing file", lambda tmp: pianola.render("/no/such/song.mid", FONT), FileNotFoundError,
     "[Errno 2] No such file or directory: '/no/such/song.mid'"),
    ("b'' as a song", lambda tmp: pianola.render(b"", FONT), pianola.FileError,
     "midi: the bytes given are empty (0 bytes), so there is nothing to read"),
    ("sample_rate=44100.0", lambda tmp: pianola.render(SONG, FONT, sample_rate=44100.0), ValueError,
     "sample_rate must be an int from 8000 to 384000, not 44100.0"),
    ("a closed Soundtrack", lambda tmp: closed_soundtrack(), pianola.HandleError, "this Soundtrack is closed: make a new one"),
    ("an existing output file", existing_output, pianola.FileError, "pass overwrite=True to replace it"),
    ("music.meters()", lambda tmp: playing(lambda music: music.meters()), None, ""),
    ("a jump to a missing marker", lambda tmp: playing(lambda music: music.play(music._songs and list(music._songs.values())[0], marker="no-such-marker")),
     pianola.ArgumentError, "has no marker 'no-such-marker' (markers: loopStart, verse, loopEnd)"),
    ("an empty layer list", lambda tmp: playing(lambda music: music.set_layer("Strings", 0.5)), pianola.ArgumentError, "(it has none)"),
    ("a pretty_midi object", lambda tmp: pianola.render(PrettyMIDILike(), FONT, end="2:1"), None, ""),
]


@pytest.mark.parametrize("mistake, call, raised, words", TABLE, ids=[row[0] for row in TABLE])
def test_each_mistake_now_says_what_to_do(tmp_path, mistake, call, raised, words):
    if raised is None:
        result = call(tmp_path)
        assert result is not None and (not isinstance(result, np.ndarray) or np.abs(result).max() > 0.01)
        return
    with pytest.raises(raised) as caught:
        call(tmp_path)
    assert words in str(caught.value) and "\n" not in str(caught.value)
    if raised is FileNotFoundError:
        assert (caught.value.errno, caught.value.filename) == (errno.ENOENT, "/no/such/song.mid")
