"""The Python module against the real library and the real CLI: renders that match the CLI's
sample for sample, errors that carry the C library's one line, and the game API's events
naming Song objects. Run from the repository with libpianola installed (see .ci/run)."""
import errno
import os
import re
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest

import pianola

ROOT = Path(__file__).resolve().parents[2]
FONT = str(ROOT / "soundfonts" / "pianola-gm.sf2")
SONG = str(ROOT / "songs" / "ode-to-joy.mid")
CLI = os.environ.get("PIANOLA_CLI", str(ROOT / ".build" / "debug" / "pianola"))


def read_float_wav(path):
    """The frames of a 32-bit float stereo WAV, shape (frames, 2)."""
    data = Path(path).read_bytes()
    offset = 12
    while offset < len(data):
        chunk, size = data[offset:offset + 4], struct.unpack("<I", data[offset + 4:offset + 8])[0]
        if chunk == b"data":
            return np.frombuffer(data[offset + 8:offset + 8 + size], dtype="<f4").reshape(-1, 2)
        offset += 8 + size + (size & 1)
    raise ValueError(f"{path}: no data chunk")


def test_render_equals_the_cli_render_sample_for_sample(tmp_path):
    out = tmp_path / "cli.wav"
    subprocess.run([CLI, "render", SONG, "-o", str(out), "--bits", "32f", "--soundfont", FONT], check=True, capture_output=True)
    cli = read_float_wav(out)
    audio = pianola.render(SONG, FONT, sample_rate=48000)
    assert audio.dtype == np.float32 and audio.shape[1] == 2
    assert audio.shape == cli.shape
    assert np.array_equal(audio, cli)
    assert np.abs(audio).max() > 0.05


def test_bytes_render_as_the_files_do():
    from_files = pianola.render(SONG, FONT, tail_seconds=0.5)
    from_bytes = pianola.render(Path(SONG).read_bytes(), Path(FONT).read_bytes(), tail_seconds=0.5)
    assert np.array_equal(from_files, from_bytes)


def test_a_bad_path_raises_what_the_os_said_as_python_does():
    with pytest.raises(pianola.FileError) as caught:
        pianola.render("/no/such/song.mid", FONT)
    assert str(caught.value) == "[Errno 2] No such file or directory: '/no/such/song.mid'"
    assert caught.value.status == -4 and isinstance(caught.value, FileNotFoundError)
    with pytest.raises(FileNotFoundError, match=r"^\[Errno 2\] No such file or directory: '/nonexistent\.sf2'$") as missing:
        pianola.render(SONG, "/nonexistent.sf2")
    assert isinstance(missing.value, pianola.FileError)
    assert (missing.value.errno, missing.value.filename) == (errno.ENOENT, "/nonexistent.sf2")
    with pytest.raises(IsADirectoryError) as folder:
        pianola.render(str(ROOT / "songs"), FONT)
    assert (folder.value.errno, folder.value.filename) == (errno.EISDIR, str(ROOT / "songs"))
    with pytest.raises(pianola.ArgumentError, match=r"^sample_rate must be an int from 8000 to 384000, not 5$"):
        pianola.render(SONG, FONT, sample_rate=5)


def test_a_closed_soundtrack_or_song_says_so():
    music = pianola.Soundtrack()
    song = music.load_song(SONG, FONT).wait()
    song.close()
    with pytest.raises(pianola.HandleError, match=r"^Song '.*ode-to-joy.mid' is closed: load it again to use it$"):
        music.play(song)
    music.close()
    music.close()   # twice is fine
    with pytest.raises(pianola.HandleError, match=r"^this Soundtrack is closed: make a new one$"):
        music.render(100)


def test_render_file_refuses_to_overwrite_unless_asked(tmp_path):
    out = tmp_path / "song.flac"
    pianola.render_file(SONG, FONT, out, tail_seconds=0)
    size = out.stat().st_size
    assert size > 10_000
    with pytest.raises(pianola.FileError, match="already exists"):
        pianola.render_file(SONG, FONT, out)
    pianola.render_file(SONG, FONT, out, overwrite=True, tail_seconds=0)


def test_play_file_through_alsa_null_device():
    pianola.play_file(str(ROOT / "songs" / "battle.mid"), FONT, device="null", tail_seconds=0)
    with pytest.raises(pianola.DeviceError, match="no-such-device"):
        pianola.play_file(SONG, FONT, device="no-such-device")
    with pytest.raises(pianola.ArgumentError, match="driver 'oss'"):
        pianola.play_file(SONG, FONT, driver="oss")


def test_the_other_drivers_name_what_is_missing(monkeypatch):
    monkeypatch.setenv("JACK_DEFAULT_SERVER", "pianola-python-test-nobody")
    monkeypatch.setenv("PIPEWIRE_RUNTIME_DIR", "/nonexistent")
    with pytest.raises(pianola.DeviceError, match="no JACK server named 'pianola-python-test-nobody'"):
        pianola.play_file(SONG, FONT, driver="jack")
    with pianola.Soundtrack() as music:
        with pytest.raises(pianola.DeviceError, match="no PipeWire daemon answers at /nonexistent/pipewire-0"):
            music.start_output(driver="pipewire")


def test_soundtrack_plays_loops_and_names_songs_in_its_events():
    with pianola.Soundtrack(reverb=False, chorus=False) as music:
        town = music.load_song(ROOT / "songs" / "town.mid", FONT, track_layers=["Strings"])
        battle = music.load_song(ROOT / "songs" / "battle.mid", FONT)
        broken = music.load_song(b"not a MIDI file", FONT, name="broken.mid")
        assert town.wait() is town and battle.wait().state == "ready"
        with pytest.raises(pianola.FileError, match="^broken.mid: byte 0"):
            broken.wait()
        assert broken.state == "failed"
        with pytest.raises(pianola.StateError, match="broken.mid did not load"):
            music.play(broken)

        music.play(town)
        music.set_layer("Strings", 0)
        with pytest.raises(pianola.ArgumentError, match="no layer 'Kazoo'"):
            music.set_layer("Kazoo", 1)
        first = music.render(48000 * 3)
        music.play(battle, "bar", fade_out=0.2)
        rest = music.render(48000 * 12)
        assert np.abs(first).max() > 0.05 and np.abs(rest).max() > 0.05

        events = music.poll_events(limit=1000)
        kinds = {type(e) for e in events}
        assert {pianola.SongLoaded, pianola.SongLoadFailed, pianola.Bar, pianola.Beat, pianola.Marker, pianola.LoopWrapped} <= kinds
        assert any(isinstance(e, pianola.SongLoadFailed) and e.song is broken and e.reason.startswith("broken.mid") for e in events)
        town_bars = [e for e in events if isinstance(e, pianola.Bar) and e.song is town]
        battle_bars = [e for e in events if isinstance(e, pianola.Bar) and e.song is battle]
        assert town_bars and battle_bars
        # Asked for at 3 s, the switch lands on the town's next bar line: bar 3, 8 beats at 112 bpm in.
        town_bar_3 = next(e for e in town_bars if e.bar == 3)
        assert battle_bars[0].sample_time == town_bar_3.sample_time == int(8 * 60 / 112 * 48000)
        assert any(isinstance(e, pianola.LoopWrapped) and e.song is battle for e in events)
        assert [e.sample_time for e in events] == sorted(e.sample_time for e in events)


def test_the_position_follows_the_tempo_maps_to_the_frame_and_a_switch_is_reported_on_its_frame():
    with pianola.Soundtrack(reverb=False, chorus=False) as music:
        town = music.load_song(ROOT / "songs" / "town.mid", FONT).wait()
        battle = music.load_song(ROOT / "songs" / "battle.mid", FONT).wait()
        nothing = music.position
        assert nothing.song is None and nothing.sample_time == 0 and nothing.bar == 0 and nothing.bpm == 0
        music.play(town)
        rendered, events, wrong = 0, [], []
        for block in range(12 * 48):
            music.render(1000)
            rendered += 1000
            if rendered == 6 * 48000:
                music.play(battle, "bar")
            events += music.poll_events(limit=1000)
            started = [e.sample_time for e in events if isinstance(e, pianola.SongStarted) and e.song is battle]
            on_battle = bool(started) and rendered >= started[0]
            quarter = 0.4 if on_battle else 0.535714            # the files' tempos, in seconds a quarter
            frame = rendered - started[0] if on_battle else rendered
            quarters = frame / 48000 / quarter
            p = music.position
            expected = (battle if on_battle else town, frame, int(quarters // 4) + 1, int(quarters % 4) + 1)
            if (p.song, p.song_frame, p.bar, p.beat) != expected or p.sample_time != rendered or abs(p.bpm - 60 / quarter) > 1e-9:
                wrong.append((block, p, expected))
        assert not wrong, wrong[:3]
        # Loaded before any audio was rendered: reported at frame 0, not at a later render.
        assert [e.sample_time for e in events if isinstance(e, pianola.SongLoaded)] == [0, 0]
        switch = [e for e in events if e.sample_time == 308571]   # town's bar 4: 12 quarters at 112 bpm
        assert [type(e) for e in switch][:2] == [pianola.SongStopped, pianola.SongStarted]
        assert switch[0].song is town and switch[1].song is battle and switch[1].section is None
        assert isinstance(switch[2], pianola.Bar) and switch[2].song is battle and switch[2].bar == 1
        assert next(e for e in events if isinstance(e, pianola.SongStarted)) == pianola.SongStarted(town, 0)


def test_a_jump_to_a_section_lands_on_a_bar_line_and_is_reported():
    with pianola.Soundtrack(reverb=False, chorus=False) as music:
        town = music.load_song(ROOT / "songs" / "town.mid", FONT).wait()
        music.play(town)
        music.render(48000 * 3)
        with pytest.raises(pianola.ArgumentError, match="has no section 'boss'"):
            music.jump("boss")
        music.jump("verse", "bar")
        music.render(48000 * 3)
        events = music.poll_events(limit=1000)
        jumps = [e for e in events if isinstance(e, pianola.Jumped)]
        assert [(e.song, e.section) for e in jumps] == [(town, "verse")]
        bars = {e.sample_time: e.section for e in events if isinstance(e, pianola.Bar) and e.song is town}
        assert jumps[0].sample_time in bars and jumps[0].sample_time >= 48000 * 3
        assert bars[jumps[0].sample_time] == "verse" and bars[0] is None   # the intro bar comes before the first section
        music.play_stinger(music.load_song(ROOT / "songs" / "battle.mid", FONT).wait(), "beat", priority=1, volume=0.5)
        assert np.abs(music.render(48000)).max() > 0.01


def test_a_transition_rule_moves_the_music_on_the_bar_and_a_parameter_glides():
    with pianola.Soundtrack(reverb=False, chorus=False) as music:
        town = music.load_song(ROOT / "songs" / "town.mid", FONT).wait()
        battle = music.load_song(ROOT / "songs" / "battle.mid", FONT).wait()
        music.set_transition("into battle", from_song=town, to_song=battle, leave="bar", fade_out=0.5, fade_shape="equal_power")
        music.define_parameter("intensity")
        music.map_parameter("intensity", "controller", [(0, 0), (1, 127)], controller=74, channels=[1, 2])
        with pytest.raises(pianola.ArgumentError, match="no parameter 'danger'"):
            music.set_parameter("danger", 1)
        with pytest.raises(pianola.ArgumentError, match="give channels 1 to 16"):
            music.map_parameter("intensity", "controller", [(0, 0), (1, 127)], controller=74, channels=[0])
        music.play(town)
        music.render(48000 * 2)
        music.transition(battle)
        music.set_parameter("intensity", 1, seconds=1)
        music.render(24000)
        assert 0.2 < music.parameter("intensity") < 0.8
        music.render(48000 * 3)
        assert music.parameter("intensity") == 1
        events = music.poll_events(limit=1000)
        moves = [e for e in events if isinstance(e, pianola.Transitioned)]
        assert [(e.song, e.rule) for e in moves] == [(battle, "into battle")]
        first_bar = min(e.sample_time for e in events if isinstance(e, pianola.Bar) and e.song is battle)
        assert first_bar == moves[0].sample_time >= 48000 * 2


def test_the_render_call_refuses_while_the_own_output_plays():
    with pianola.Soundtrack() as music:
        music.start_output("null", 256, 3)
        with pytest.raises(pianola.StateError, match="own output"):
            music.render(64)
        music.stop_output()
        assert music.render(64).shape == (64, 2)


def test_the_readme_python_quick_start_runs(tmp_path):
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"<!-- python quick start -->\n```python\n(.*?)```", readme, re.S).group(1)
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        scope: dict = {}
        exec(compile(block, "README.md", "exec"), scope)
    finally:
        os.chdir(cwd)
    assert scope["audio"].shape[1] == 2 and np.abs(scope["audio"]).max() > 0.05


def test_version_is_the_packages_version():
    from importlib.metadata import version
    assert pianola.__version__ == pianola.version() == version("pianola")
    header = (ROOT / "Sources" / "CPianola" / "pianola.h").read_text()
    assert f'#define PIANOLA_VERSION_STRING "{pianola.__version__}"' in header


def high_band_db(audio):
    """Level in dB of what lies above 4 kHz in the left channel of `audio` (48 kHz)."""
    spectrum = np.abs(np.fft.rfft(audio[:, 0] * np.hanning(len(audio)))) ** 2
    frequencies = np.fft.rfftfreq(len(audio), 1 / 48000)
    return 10 * np.log10(spectrum[frequencies > 4000].sum() + 1e-30)


def test_a_game_parameter_closes_a_low_pass_on_the_music_and_errors_say_what():
    with pianola.Soundtrack() as music:
        song = music.load_song(SONG, FONT).wait()
        lowpass = music.add_effect("lowpass", "music")
        assert repr(lowpass) == "BusEffect(music: lowpass)" and lowpass.id == 0
        music.define_parameter("depth")
        music.map_parameter("depth", "effect", [(0, 20000), (1, 400)], effect=lowpass, parameter="cutoff")
        music.play(song)
        music.render(24000)
        open_ = high_band_db(music.render(48000))
        music.set_parameter("depth", 1, seconds=0.5)
        music.render(36000)
        closed = high_band_db(music.render(48000))
        assert open_ - closed > 30
        lowpass.bypass()
        music.render(4800)
        bypassed = high_band_db(music.render(48000))
        assert abs(bypassed - open_) < 10
        with pytest.raises(pianola.ArgumentError, match="no built-in effect 'lopass'"):
            music.add_effect("lopass", "music")
        with pytest.raises(pianola.ArgumentError, match=r"bus='drums': use one of master, music, sounds, aux"):
            music.add_effect("lowpass", "drums")
        with pytest.raises(pianola.ArgumentError, match="cutoff 30000.0 is out of range"):
            lowpass.set("cutoff", 30000)
        with pytest.raises(pianola.ArgumentError, match="only a compressor or an LV2 plugin with side-chain inputs is keyed by another bus"):
            music.add_effect("highpass", "music", key="sounds")
        ducker = music.add_effect("compressor,threshold=-30", "music", key="sounds")
        assert ducker.id == 1
        music.add_effect("reverb,dry=0,room=0.6", "aux")
        music.set_send("music", 0.4)
        with pytest.raises(pianola.ArgumentError, match="only the music and the sounds send"):
            music.set_send("master", 1)
        ducker.remove()
        assert music.add_effect("highpass", "music").id == 2, "numbers are not reused"
        lowpass.bypass(False)
        music.render(4800)
        assert open_ - high_band_db(music.render(48000)) > 30
        lowpass.remove()
        music.render(4800)
        assert abs(high_band_db(music.render(48000)) - open_) < 10, "removed, the music is open again"
        with pytest.raises(pianola.ArgumentError, match="is not on the music bus"):
            lowpass.set("cutoff", 1000)


def test_a_song_loads_with_its_own_effects_a_layers_and_an_lv2_instrument():
    with pianola.Soundtrack() as music:
        plain = music.load_song(SONG, FONT).wait()
        dull = music.load_song(SONG, FONT, effects=["lowpass,cutoff=300"], track_layers=["Strings"],
                               layer_effects={"Strings": ["highpass,cutoff=4000"]}, instruments={"Bass": "mda piano"}).wait()
        levels = []
        for song in (plain, dull):
            music.play(song)
            music.render(24000)
            levels.append(high_band_db(music.render(48000)))
            music.stop()
            music.render(4800)
        assert levels[0] - levels[1] > 30, f"the song's low-pass takes its highs: {levels}"
        with pytest.raises(pianola.ArgumentError, match=r"effects\[0\]: 'lopass': no built-in effect 'lopass'"):
            music.load_song(SONG, FONT, effects=["lopass"])
        with pytest.raises(pianola.ArgumentError, match=r"instruments\[0\].plugin: 'mda delay'"):
            music.load_song(SONG, FONT, instruments={"Bass": "mda delay"})


def test_the_python_guide_runs(tmp_path):
    """Every block of docs/python.md, in order in one scope, its placeholders a song's path and
    a folder to write to."""
    guide = (ROOT / "docs" / "python.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", guide, re.S)
    song = "songs/ode-to-joy.mid"
    scope: dict = {"pm": song, "path": song, "paths": [song, "songs/town.mid"], "folder": str(tmp_path)}
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        for block in blocks:
            exec(compile(block, "docs/python.md", "exec"), scope)
    finally:
        os.chdir(cwd)
    assert len(blocks) >= 3 and scope["rendering"].audio.shape[1] == 2 and len(scope["results"]) == 2
    names = ["battle", "greensleeves", "ode-to-joy", "town", "twinkle"]
    assert sorted(os.listdir(tmp_path)) == sorted([f"{n}.npz" for n in names] + [f"{n}.wav" for n in names]
                                                  + [f"{n}.{ext}" for n in names[0::2] for ext in ("csv", "flac")])
