"""Batches for data sets: results written to a folder as they finish or streamed in completion
order, sharded and resumed in step with the CLI (the same songs, the same files), Ctrl-C
within a second keeping whole files, failures that keep what finished, any
concurrent.futures executor with the font loaded once a process, and one default font for
the CLI and the module."""
import concurrent.futures
import logging
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import pianola

ROOT = Path(__file__).resolve().parents[2]
FONT = str(ROOT / "soundfonts" / "pianola-gm.sf2")
TEST_FONT = str(ROOT / "soundfonts" / "pianola-test.sf2")
SONGS = ROOT / "songs"
CORPUS = ROOT.parent / "shared" / "corpus" / "midi"
CLI = os.environ.get("PIANOLA_CLI", str(ROOT / ".build" / "debug" / "pianola"))
NAMES = sorted(p.stem for p in SONGS.glob("*.mid"))


def cli(*arguments, env=None):
    """`pianola` run to its end: (status, stdout, stderr)."""
    done = subprocess.run([CLI, *map(str, arguments)], capture_output=True, text=True, env=env, timeout=300)
    return done.returncode, done.stdout, done.stderr


def wav_frames(path):
    """The frames of a WAV file libsndfile wrote (32-bit float or 16-bit), as float32 (frames, 2)."""
    data = Path(path).read_bytes()
    at, fmt, frames = 12, None, None
    while at + 8 <= len(data):
        kind, size = data[at:at + 4], int.from_bytes(data[at + 4:at + 8], "little")
        body = data[at + 8:at + 8 + size]
        if kind == b"fmt ":
            fmt = (int.from_bytes(body[0:2], "little"), int.from_bytes(body[14:16], "little"))
        elif kind == b"data":
            frames = body
        at += 8 + size + (size & 1)
    tag, bits = fmt
    if tag in (3, 0xFFFE) and bits == 32:
        return np.frombuffer(frames, dtype="<f4").reshape(-1, 2)
    return np.frombuffer(frames, dtype="<i2").reshape(-1, 2).astype(np.float32) / 32768


def test_output_writes_each_song_as_it_finishes_the_same_as_render(tmp_path):
    summary = pianola.render_many(SONGS, FONT, end="2:1", output=tmp_path, stems=True, labels=True)
    assert sorted(summary.rendered) == NAMES and summary.skipped == [] and summary.failed == {}
    assert summary.soundfont == FONT and summary.seconds > 0
    for name in NAMES:
        alone = pianola.render(SONGS / f"{name}.mid", FONT, end="2:1", stems=True, labels=True)
        with np.load(tmp_path / f"{name}.npz") as saved:
            assert np.array_equal(saved["audio"], alone.audio) and int(saved["sample_rate"]) == 48000
            assert np.array_equal(saved["labels"], alone.labels)
            assert list(saved["stem_numbers"]) == sorted(alone.stems)
            assert list(saved["stem_names"]) == [alone.stem_names[k] for k in sorted(alone.stems)]
            for number, stem in alone.stems.items():
                assert np.array_equal(saved[f"stem_{number}"], stem)
    assert not [f for f in os.listdir(tmp_path) if f.startswith(".")], "no partial file is left"


def test_wav_flac_and_csv_are_what_the_cli_writes(tmp_path):
    song = SONGS / "ode-to-joy.mid"
    status, _, err = cli("render", song, "-o", tmp_path / "cli.wav", "--labels", tmp_path / "cli.csv", "--to", "3:1",
                         "--soundfont", FONT, "--bits", "32f", "--stems", tmp_path / "cli-stems")
    assert status == 0, err
    summary = pianola.render_many([song], FONT, end="3:1", output=tmp_path / "py", format="wav", labels=True, stems=True)
    assert summary.rendered == {"ode-to-joy": str(tmp_path / "py" / "ode-to-joy.wav")}
    assert (tmp_path / "py" / "ode-to-joy.csv").read_text() == (tmp_path / "cli.csv").read_text()
    assert np.array_equal(wav_frames(tmp_path / "py" / "ode-to-joy.wav"), wav_frames(tmp_path / "cli.wav"))
    cli_stems = sorted(f for f in os.listdir(tmp_path / "cli-stems") if f.startswith("track-"))
    assert sorted(os.listdir(tmp_path / "py" / "ode-to-joy")) == cli_stems and cli_stems
    for stem in cli_stems:
        assert np.array_equal(wav_frames(tmp_path / "py" / "ode-to-joy" / stem), wav_frames(tmp_path / "cli-stems" / stem))
    flac = pianola.render_many([song], FONT, end="3:1", output=tmp_path / "flac", format="flac")
    assert Path(flac.rendered["ode-to-joy"]).read_bytes()[:4] == b"fLaC"


def test_shards_and_skip_existing_share_a_job_with_the_cli(tmp_path):
    out = tmp_path / "out"
    status, _, err = cli("render", SONGS, "-o", f"{out}/", "--labels", f"{out}/", "--to", "2:1", "--soundfont", FONT, "--shard", "1/2")
    assert status == 0, err
    by_cli = sorted(p.stem for p in out.glob("*.wav"))
    first = pianola.render_many(SONGS, FONT, end="2:1", output=out, format="wav", labels=True, shard=(1, 2), skip_existing=True)
    assert first.rendered == {} and sorted(first.skipped) == by_cli, "shard 1/2 is the same songs in both"
    second = pianola.render_many(SONGS, FONT, end="2:1", output=out, format="wav", labels=True, shard=(2, 2))
    assert sorted(second.rendered) == sorted(set(NAMES) - set(by_cli))
    assert by_cli == NAMES[0::2] and sorted(second.rendered) == NAMES[1::2], "every other song of the sorted list"
    status, stdout, err = cli("render", SONGS, "-o", f"{out}/", "--labels", f"{out}/", "--to", "2:1", "--soundfont", FONT, "--skip-existing")
    assert status == 0 and re.search(r"\b5 (songs )?(already there|skipped)", stdout + err), stdout + err
    again = pianola.render_many(SONGS, FONT, end="2:1", output=out, format="wav", labels=True, skip_existing=True)
    assert again.rendered == {} and sorted(again.skipped) == NAMES
    with pytest.raises(pianola.FileError, match="already exists \\(and 9 more\\); pass overwrite=True to replace, or skip_existing=True"):
        pianola.render_many(SONGS, FONT, end="2:1", output=out, format="wav", labels=True)
    with pytest.raises(pianola.ArgumentError, match=r"shard=\(3, 2\): give \(k, n\)"):
        pianola.render_many(SONGS, FONT, output=out, shard=(3, 2))


class CountingExecutor(concurrent.futures.ThreadPoolExecutor):
    """A thread pool that counts the songs handed to it and not yet finished."""

    def __init__(self):
        super().__init__(max_workers=2)
        self.lock, self.in_hand, self.most = threading.Lock(), 0, 0

    def submit(self, fn, *args, **kwargs):
        with self.lock:
            self.in_hand += 1
            self.most = max(self.most, self.in_hand)
        future = super().submit(fn, *args, **kwargs)
        future.add_done_callback(lambda _: self._done())
        return future

    def _done(self):
        with self.lock:
            self.in_hand -= 1


def test_render_iter_streams_in_completion_order_with_a_bounded_number_in_hand():
    songs = [SONGS / f"{name}.mid" for name in NAMES] * 4
    counting = CountingExecutor()
    seen = []
    for song, audio in pianola.render_iter(songs, FONT, end="2:1", workers=3, executor=counting):
        seen.append(song)
        assert counting.in_hand <= 3
    counting.shutdown()
    assert sorted(map(str, seen)) == sorted(map(str, songs)) and counting.most == 3
    streamed = dict(pianola.render_iter([SONGS / "town.mid", SONGS / "battle.mid"], FONT, end="2:1"))
    assert np.array_equal(streamed[SONGS / "town.mid"], pianola.render(SONGS / "town.mid", FONT, end="2:1"))


def test_a_failed_song_keeps_the_finished_ones(tmp_path):
    songs = [SONGS / "town.mid", b"not a MIDI file", SONGS / "battle.mid"]
    with pytest.raises(pianola.FileError, match="byte 0") as caught:
        pianola.render_many(songs, FONT, end="2:1")
    results = caught.value.results
    assert np.array_equal(results[0], pianola.render(songs[0], FONT, end="2:1")) and results[2] is not None
    with pytest.raises(pianola.FileError, match="byte 0") as caught:
        pianola.render_many(songs, FONT, end="2:1", output=tmp_path)
    assert sorted(caught.value.summary.rendered) == ["battle", "town"] and list(caught.value.summary.failed) == ["song-00002"]
    assert sorted(os.listdir(tmp_path)) == ["battle.npz", "town.npz"]
    with pytest.raises(pianola.FileError, match="byte 0"):
        list(pianola.render_iter(songs, FONT, end="2:1", workers=1))
    kinds = [type(r).__name__ for _, r in pianola.render_iter(songs, FONT, end="2:1", workers=1, errors="return")]
    assert kinds == ["ndarray", "FileError", "ndarray"]


INTERRUPTED = """
import signal, sys, pianola
signal.signal(signal.SIGINT, signal.default_int_handler)   # a shell's background job starts with it ignored
def progress(done, total, song):
    print(done, flush=True)
try:
    pianola.render_many(sys.argv[1:-2], sys.argv[-2], output=sys.argv[-1], progress=progress, stems=True, labels=True, workers=2)
except KeyboardInterrupt as stopped:
    print("kept", len(stopped.summary.rendered), flush=True)
    raise
"""


def test_ctrl_c_stops_within_a_second_keeping_whole_files(tmp_path):
    songs = [str(SONGS / f"{name}.mid") for name in NAMES] * 40   # minutes of work
    out = tmp_path / "out"
    names = [f"{i:03d}-{Path(s).name}" for i, s in enumerate(songs)]
    (tmp_path / "songs").mkdir()
    for name, song in zip(names, songs):
        os.symlink(song, tmp_path / "songs" / name)
    batch = subprocess.Popen([sys.executable, "-c", INTERRUPTED, str(tmp_path / "songs"), FONT, str(out)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    assert batch.stdout.readline().strip() == "1" and batch.stdout.readline().strip() == "2"
    asked = time.monotonic()
    batch.send_signal(signal.SIGINT)
    stdout, stderr = batch.communicate(timeout=60)
    took = time.monotonic() - asked
    assert batch.returncode not in (0, None) and "KeyboardInterrupt" in stderr, stderr
    kept = int(re.search(r"kept (\d+)", stdout).group(1))
    assert took < 1.0, f"stopped {took:.2f} s after SIGINT"
    files = sorted(os.listdir(out))
    assert not [f for f in files if f.startswith(".")], f"partial files left: {files}"
    assert 2 <= kept < len(songs) and len(files) == kept
    for file in files:
        with np.load(out / file) as whole:
            assert whole["audio"].shape[1] == 2 and len(whole["labels"]) > 0
    left = next(name for name in names if f"{Path(name).stem}.npz" not in files)
    resumed = pianola.render_many([tmp_path / "songs" / f"{Path(f).stem}.mid" for f in files] + [tmp_path / "songs" / left], FONT,
                                  output=out, skip_existing=True, stems=True, labels=True, end="1:2")
    assert sorted(resumed.skipped) == [Path(f).stem for f in files] and list(resumed.rendered) == [Path(left).stem]


def test_a_process_pool_loads_the_font_once_a_process_and_gives_the_same_audio():
    songs = [SONGS / f"{name}.mid" for name in NAMES] * 2
    with concurrent.futures.ProcessPoolExecutor(max_workers=2) as pool:
        pooled = pianola.render_many(songs, FONT, end="2:1", executor=pool)
        counts = {pid: count for pid, count in [pool.submit(eval, "(__import__('os').getpid(), len(__import__('pianola')._batch._process_fonts))").result()
                                                for _ in range(8)]}
    local = pianola.render_many(songs, FONT, end="2:1")
    assert all(np.array_equal(a, b) for a, b in zip(pooled, local))
    assert set(counts.values()) == {1}, counts
    with pytest.raises(TypeError, match="executor: give a concurrent.futures.Executor"):
        pianola.render_many(songs, FONT, executor="dask")


def test_the_cli_and_the_module_play_the_same_default_font(tmp_path, monkeypatch):
    def cli_font():
        status, stdout, err = cli("render", SONGS / "town.mid", "-o", tmp_path / "x.wav", "--force", "--to", "1:2", env=dict(os.environ))
        assert status == 0, err
        return re.search(r"SoundFont: (\S+) \(", stdout).group(1)
    assert os.path.samefile(cli_font(), pianola.default_soundfont())
    monkeypatch.setenv("PIANOLA_SOUNDFONT", TEST_FONT)
    assert cli_font() == pianola.default_soundfont() == TEST_FONT
    assert np.array_equal(pianola.render(SONGS / "town.mid", end="1:2"), pianola.render(SONGS / "town.mid", TEST_FONT, end="1:2"))


def test_a_dask_local_cluster_of_two_worker_processes_renders_the_corpus_as_a_local_render(tmp_path):
    # Each song's first 20 seconds (the whole corpus twice is 5 GB of npz; Tests/cluster/run.sh
    # renders it whole, four ways, and compares).
    import distributed   # run-tests.sh installs dask[distributed]
    started = time.monotonic()
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=logging.CRITICAL) as cluster, \
            distributed.Client(cluster) as client:
        on_dask = pianola.render_many(CORPUS, FONT, end=20, output=tmp_path / "dask", errors="return", executor=client.get_executor())
        loads = client.run(lambda: len(__import__("pianola")._batch._process_fonts))
    dask_seconds = time.monotonic() - started
    started = time.monotonic()
    local = pianola.render_many(CORPUS, FONT, end=20, output=tmp_path / "local", errors="return")
    print(f"corpus on Dask (2 worker processes): {dask_seconds:.1f} s with the cluster's start; here: {time.monotonic() - started:.1f} s")
    assert sorted(on_dask.rendered) == sorted(local.rendered) and len(local.rendered) > 100
    assert sorted(on_dask.failed) == sorted(local.failed)
    assert list(loads.values()) == [1, 1], f"each worker process loads the font once: {loads}"
    for name in local.rendered:
        with np.load(on_dask.rendered[name]) as theirs, np.load(local.rendered[name]) as ours:
            assert np.array_equal(theirs["audio"], ours["audio"]), name
