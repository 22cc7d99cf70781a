"""Many songs rendered for a data set: in memory, streamed as they finish, or written to a
folder as they finish; on this process's threads with one SoundFont load, or on any
concurrent.futures executor (a process pool, Dask's, Ray's); sharded and resumable the way
`pianola render FOLDER -o OUT/ --shard K/N --skip-existing` is, so the two can share a job;
stopped by Ctrl-C within a second, keeping whole files only."""
import concurrent.futures
import contextlib
import csv
import ctypes
import io
import os
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterator, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _library as _c
from ._errors import ArgumentError, Data, FileError, _check, _source, integer
from ._offline import Rendering, Song, Stopped, _Request, _render_one, _song_data, default_soundfont

SONG_EXTENSIONS = {"mid", "midi", "kar", "smf", "rmi", "mus", "xmi", "hmp", "hmi"}
"""The extensions of the songs found in a folder, as `pianola render FOLDER` finds them."""

FORMATS = ("npz", "wav", "flac")
"""What `output=` writes: one .npz a song (audio, stems, labels), or WAV or FLAC files with
the labels as CSV and the stems in a folder named after the song."""

_SHAPING = ("stems", "labels", "channels_first", "mono", "normalize")
_RENDERING = ("start", "end", "transpose", "mute", "solo", "mute_channels", "solo_channels", "synth", "tail_seconds", "reverb",
              "chorus", "gain")


@dataclass
class _Job:
    """A song of the batch: what to render (a path or bytes), its name, its place in the list."""
    song: Song
    name: str
    index: int


@dataclass
class _Plan:
    """Where a batch writes: a folder, the file type, and whether files there may be replaced."""
    folder: str
    format: str
    labels: bool
    stems: Union[bool, str]
    bits: int

    def mix(self, name: str) -> str:
        return os.path.join(self.folder, f"{name}.{self.format}")

    def labels_file(self, name: str) -> Optional[str]:
        return os.path.join(self.folder, f"{name}.csv") if self.labels and self.format != "npz" else None

    def outputs(self, name: str) -> List[str]:
        """The files that, all there, mean the song is done (as the CLI's --skip-existing reads them)."""
        return [self.mix(name)] + ([self.labels_file(name)] if self.labels_file(name) else [])


@dataclass
class BatchSummary:
    """What `render_many(output=...)` did."""
    rendered: Dict[str, str] = field(default_factory=dict)
    """Song name → the file written for it (its .npz, or its mix's audio file)."""
    skipped: List[str] = field(default_factory=list)
    """The songs left out because their files were there (skip_existing=True)."""
    failed: Dict[str, BaseException] = field(default_factory=dict)
    """Song name → why it failed (errors="return"; with errors="raise" the first is raised)."""
    soundfont: str = ""
    """The SoundFont played."""
    seconds: float = 0.0
    """Wall time."""


class _Progress:
    """A tqdm-style progress line on stderr: count, bar, rate and time left."""

    def __init__(self, total: int):
        self.total, self.started = total, time.monotonic()

    def __call__(self, done: int, total: int, song) -> None:
        elapsed = time.monotonic() - self.started
        width = 30
        filled = int(width * done / max(1, total))
        left = elapsed / done * (total - done) if done else 0
        sys.stderr.write(f"\rrender_many: {done}/{total} [{'#' * filled}{'.' * (width - filled)}] {elapsed:.1f} s, {left:.1f} s left ")
        if done == total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def _stem_of(name: str) -> str:
    """`a/b.mid` → `a/b`, as the CLI names a song's outputs."""
    head, tail = os.path.split(name)
    root, ext = os.path.splitext(tail)
    return os.path.join(head, root) if ext and root else name


def _folder_songs(folder: str) -> List[Tuple[str, str]]:
    """The songs under `folder` at any depth, (path, name), in byte order of their paths below
    it: the order `pianola render FOLDER` lists, and so shards, them."""
    found = []
    for top, folders, files in os.walk(folder):
        for file in files:
            if "." in file and file.rsplit(".", 1)[1].lower() in SONG_EXTENSIONS:
                relative = os.path.relpath(os.path.join(top, file), folder)
                found.append((os.fsencode(relative), relative))
    if not found:
        raise FileError(_c.ERROR_FILE, f"{folder}: no MIDI files (.mid, .midi, .kar, .smf) in this folder")
    found.sort()
    return [(os.path.join(folder, relative), _stem_of(relative)) for _, relative in found]


def _jobs(songs, shard: Optional[Tuple[int, int]]) -> List[_Job]:
    """The batch's songs in the CLI's order (a folder gives its songs sorted), then this
    shard's every n-th from the k-th. A path's name is its file's stem (a folder's songs keep
    their place below it); a song in memory is named song-NNNNN by its place in `songs`."""
    if isinstance(songs, (str, os.PathLike)):
        songs = [songs]
    listed: List[Tuple[Song, str]] = []
    for given, song in enumerate(songs):
        if isinstance(song, (str, os.PathLike)) and os.path.isdir(song):
            listed += _folder_songs(os.fspath(song))
        elif isinstance(song, (str, os.PathLike)):
            listed.append((song, _stem_of(os.path.basename(os.fspath(song)))))
        else:
            listed.append((song, f"song-{given + 1:05d}"))
    if shard is not None:
        if not (isinstance(shard, tuple) and len(shard) == 2 and all(isinstance(x, int) and not isinstance(x, bool) for x in shard)
                and 1 <= shard[0] <= shard[1]):
            raise ArgumentError(_c.ERROR_ARGUMENT, f"shard={shard!r}: give (k, n), the k-th of n parts, with 1 <= k <= n (e.g. (2, 8))")
        k, n = shard
        listed = listed[k - 1::n]
    return [_Job(song, name, index) for index, (song, name) in enumerate(listed)]


def _stem_label(name: str) -> str:
    """A track's name as a file name's part, as `pianola render --stems` writes it."""
    safe = "".join(c if c.isascii() and (c.isalnum() or c in "-_") else "-" for c in name)
    safe = "-".join(part for part in safe.split("-") if part)
    return "-" + safe[:40] if safe else ""


def _partial(path: str) -> str:
    """A hidden name beside `path`, for writing it whole before it takes its place."""
    folder, name = os.path.split(path)
    return os.path.join(folder, f".{name}.{os.getpid()}-{threading.get_ident()}.partial")


def _write_audio(path: str, audio: np.ndarray, sample_rate: int, bits: int) -> None:
    """Float audio (frames, 2) written by libsndfile with `bits` (16, 24, or 32: float),
    whole or not at all."""
    frames = np.ascontiguousarray(audio, dtype=np.float32)
    _check(_c.lib.pianola_write_audio(os.fsencode(path), frames.ctypes.data_as(ctypes.POINTER(ctypes.c_float)), len(frames),
                                      sample_rate, bits, 1))


def _write_labels(path: str, labels: np.ndarray, sample_rate: int) -> None:
    """The labels as CSV, the columns `pianola render --labels NOTES.csv` writes."""
    text = io.StringIO()
    out = csv.writer(text, lineterminator="\n")
    out.writerow(["channel", "key", "velocity", "program", "bank", "start_frame", "end_frame", "start_seconds", "end_seconds"])
    for label in labels:
        out.writerow([int(label["channel"]), int(label["key"]), int(label["velocity"]), int(label["program"]), int(label["bank"]),
                      int(label["start_frame"]), int(label["end_frame"]), repr(int(label["start_frame"]) / sample_rate),
                      repr(int(label["end_frame"]) / sample_rate)])
    partial = _partial(path)
    try:
        with open(partial, "w") as file:
            file.write(text.getvalue())
        os.replace(partial, path)
    except BaseException:
        if os.path.exists(partial):
            os.unlink(partial)
        raise


def _write(plan: _Plan, name: str, result, sample_rate: int) -> str:
    """A song's result written where `plan` says, the mix (or the .npz) last: its file there
    means the song is whole. Returns that file."""
    mix = plan.mix(name)
    os.makedirs(os.path.dirname(mix) or ".", exist_ok=True)
    rendering = result if isinstance(result, Rendering) else None
    audio = rendering.audio if rendering else result
    if plan.format == "npz":
        arrays = {"audio": audio, "sample_rate": np.int64(sample_rate)}
        if rendering is not None:
            arrays["gain"] = np.float64(rendering.gain)
            if rendering.labels is not None:
                arrays["labels"] = rendering.labels
            if plan.stems:
                arrays["stem_numbers"] = np.array(sorted(rendering.stems), dtype=np.int64)
                arrays["stem_names"] = np.array([rendering.stem_names.get(k, "") for k in sorted(rendering.stems)], dtype=str)
                for number, stem in rendering.stems.items():
                    arrays[f"stem_{number}"] = stem
        partial = _partial(mix)
        try:
            with open(partial, "wb") as file:
                np.savez(file, **arrays)
            os.replace(partial, mix)
        except BaseException:
            if os.path.exists(partial):
                os.unlink(partial)
            raise
        return mix
    stereo = lambda x: x if x.ndim == 2 and x.shape[1] == 2 else (np.stack([x, x], axis=1) if x.ndim == 1 else x.T)
    if rendering is not None and plan.stems:
        folder = os.path.join(plan.folder, name)
        os.makedirs(folder, exist_ok=True)
        for number, stem in sorted(rendering.stems.items()):
            label = f"track-{number:02d}{_stem_label(rendering.stem_names.get(number, ''))}" if plan.stems != "channels" else f"channel-{number:02d}"
            _write_audio(os.path.join(folder, f"{label}.{plan.format}"), stereo(stem), sample_rate, plan.bits)
    labels_file = plan.labels_file(name)
    if labels_file and rendering is not None and rendering.labels is not None:
        _write_labels(labels_file, rendering.labels, sample_rate)
    _write_audio(mix, stereo(audio), sample_rate, plan.bits)
    return mix


_process_fonts: Dict[Tuple[str, int], ctypes.c_void_p] = {}
_process_fonts_lock = threading.Lock()


def _process_font(path: str, synth: int) -> ctypes.c_void_p:
    """The font loaded once in this process (a worker of an executor) and kept for its life."""
    with _process_fonts_lock:
        font = _process_fonts.get((path, synth))
        if font is None:
            font = ctypes.c_void_p()
            _check(_c.lib.pianola_soundfont_load(ctypes.byref(_source(path, [], "soundfont")), synth, ctypes.byref(font)))
            _process_fonts[(path, synth)] = font
        return font


def _task(song, name: str, font, request: _Request, shaping: dict, plan: Optional[_Plan], stop: Optional[threading.Event] = None):
    """One song of a batch, where it renders (a thread here, or an executor's worker): its
    result, or with `plan` the file it wrote. `font` is a loaded handle, or (path, synth) for a
    worker to load once."""
    handle = font if isinstance(font, ctypes.c_void_p) else _process_font(*font)
    result = _render_one(song, handle, request, shaping.get("stems", False), bool(shaping.get("labels", False)),
                         bool(shaping.get("channels_first", False)), bool(shaping.get("mono", False)), shaping.get("normalize"), stop=stop)
    return result if plan is None else _write(plan, name, result, request.sample_rate)


class _Batch:
    """The songs, the options and where they go, checked before anything renders."""

    def __init__(self, songs, soundfont: Optional[Data], sample_rate: int, workers: Optional[int], executor, errors: str,
                 shard, options: dict, output=None, format: str = "npz", bits: Optional[int] = None, overwrite: bool = False,
                 skip_existing: bool = False):
        if errors not in ("raise", "return"):
            raise ArgumentError(_c.ERROR_ARGUMENT, f"errors must be 'raise' or 'return', not {errors!r}")
        unknown = set(options) - set(_SHAPING) - set(_RENDERING)
        if unknown:
            raise TypeError(f"got an unexpected keyword argument {sorted(unknown)[0]!r}")
        if executor is not None and not isinstance(executor, concurrent.futures.Executor) and not callable(getattr(executor, "submit", None)):
            raise TypeError(f"executor: give a concurrent.futures.Executor (ProcessPoolExecutor, Dask's client.get_executor()), not {type(executor).__name__}")
        self.errors, self.executor = errors, executor
        self.workers = integer("workers", workers if workers is not None else (os.cpu_count() or 1) * (2 if executor else 1), 1, 4096)
        self.shaping = {key: options[key] for key in _SHAPING if key in options}
        self.request = _Request.checked(sample_rate, options.get("start"), options.get("end"), options.get("transpose", 0),
                                        options.get("mute", ()), options.get("solo", ()), options.get("mute_channels", ()),
                                        options.get("solo_channels", ()), options.get("tail_seconds", 5.0), options.get("reverb", True),
                                        options.get("chorus", True), options.get("gain", 0.2), options.get("synth"))
        self.font_path = default_soundfont() if soundfont is None else soundfont
        if not _source(self.font_path, [], "soundfont").path:
            raise ArgumentError(_c.ERROR_ARGUMENT, "a batch loads the SoundFont once from a path: give its path, not bytes")
        self.font_path = os.fspath(self.font_path)
        self.jobs = _jobs(songs, shard)
        self.plan = None
        self.skipped: List[str] = []
        self.unclaimed: List[Tuple[_Job, object]] = []   # run's songs the caller has not yet kept
        if output is not None:
            if format not in FORMATS:
                raise ArgumentError(_c.ERROR_ARGUMENT, f"format={format!r}: use 'npz', 'wav' or 'flac'")
            bits = integer("bits", bits if bits is not None else (24 if format == "flac" else 32), 16, 32)
            if bits not in (16, 24, 32) or (bits == 32 and format == "flac"):
                raise ArgumentError(_c.ERROR_ARGUMENT, f"bits={bits}: use 16 or 24, or 32 (float) for WAV")
            self.plan = _Plan(os.fspath(output), format, bool(self.shaping.get("labels")), self.shaping.get("stems", False), bits)
            self._check_outputs(bool(skip_existing), bool(overwrite))

    def _check_outputs(self, skip_existing: bool, overwrite: bool) -> None:
        """As the CLI: two songs writing one file are refused, and so are files that are there
        unless `overwrite`, or `skip_existing` (a song whose files are all there is left out)."""
        writers: Dict[str, str] = {}
        kept, existing = [], []
        for job in self.jobs:
            outputs = self.plan.outputs(job.name)
            for output in outputs:
                if output in writers:
                    raise ArgumentError(_c.ERROR_ARGUMENT, f"{writers[output]} and {job.name} would both write {output}; give songs distinct names")
                writers[output] = job.name
            there = [output for output in outputs if os.path.exists(output)]
            if skip_existing and len(there) == len(outputs):
                self.skipped.append(job.name)
                continue
            if not overwrite and not skip_existing:
                existing += there
            kept.append(job)
        if existing:
            more = f" (and {len(existing) - 1} more)" if len(existing) > 1 else ""
            raise FileError(_c.ERROR_FILE, f"{existing[0]} already exists{more}; pass overwrite=True to replace, or skip_existing=True to keep what is there")
        self.jobs = kept

    def run(self, progress) -> Iterator[Tuple[_Job, object]]:
        """(job, result or exception) in the order they finish, with at most `workers` songs
        handed out ahead: memory does not grow with the batch. Ctrl-C cancels what has not
        started, stops what has (on threads here; an executor's workers finish their song),
        and raises KeyboardInterrupt within a second."""
        font = None
        stop = threading.Event()
        pool = self.executor
        if pool is None:
            font = ctypes.c_void_p()
            _check(_c.lib.pianola_soundfont_load(ctypes.byref(_source(self.font_path, [], "soundfont")), self.request.synth,
                                                 ctypes.byref(font)))
            pool = concurrent.futures.ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="pianola-render")
        running: Dict[concurrent.futures.Future, _Job] = {}
        waiting = iter(self.jobs)
        done = 0
        try:
            while True:
                while len(running) < self.workers:
                    job = next(waiting, None)
                    if job is None:
                        break
                    song = job.song if self.executor is None or isinstance(job.song, (str, os.PathLike, bytes)) else _song_data(job.song)
                    if self.executor is None:
                        future = pool.submit(_task, song, job.name, font, self.request, self.shaping, self.plan, stop)
                    else:
                        future = pool.submit(_task, song, job.name, (self.font_path, self.request.synth), self.request, self.shaping, self.plan)
                    running[future] = job
                if not running:
                    return
                finished, _ = concurrent.futures.wait(running, timeout=0.25, return_when=concurrent.futures.FIRST_COMPLETED)
                for future in finished:
                    job = running.pop(future)
                    try:
                        result = future.result()
                    except Exception as problem:   # the song's own error, handed over in its place
                        result = problem
                    self.unclaimed = [(job, result)]   # until the caller asks for the next
                    yield job, result
                    self.unclaimed = []
                    done += 1
                    if progress:   # after the caller has kept it: a count it shows is a count it has
                        progress(done, len(self.jobs), job.song)
        finally:
            stop.set()
            for future in running:
                future.cancel()
            if self.executor is None:
                pool.shutdown(wait=True, cancel_futures=True)   # the running ones stop at their next piece
                _c.lib.pianola_soundfont_destroy(font)
            for future, job in running.items():   # finished while stopping: their files are whole
                if future.done() and not future.cancelled() and not isinstance(future.exception(), Stopped):
                    self.unclaimed.append((job, future.exception() or future.result()))


def render_many(songs: Union[Sequence[Song], str, os.PathLike], soundfont: Optional[Data] = None, sample_rate: int = 48000, *,
                workers: Optional[int] = None, progress: Union[bool, Callable[[int, int, Song], None], None] = None,
                errors: str = "raise", output: Union[str, os.PathLike, None] = None, format: str = "npz", bits: Optional[int] = None,
                overwrite: bool = False,
                skip_existing: bool = False, shard: Optional[Tuple[int, int]] = None,
                executor: Optional[concurrent.futures.Executor] = None, **options):
    """Renders every song as `render` does (the same keyword options). `songs` are paths,
    bytes, file or pretty_midi/mido/symusic objects, and folders, whose songs (.mid, .midi,
    .kar, .smf, .rmi, .mus, .xmi, .hmp, .hmi, at any depth) come in the order `pianola render
    FOLDER` takes them. `soundfont` None is the default (default_soundfont(), as `pianola`
    chooses). On this process's threads (`workers`, default every core) the SoundFont is loaded once; with `executor` (any concurrent.futures.Executor: a
    ProcessPoolExecutor, Dask's client.get_executor()) each worker process loads it once.

    Without `output`, returns the results in the songs' order (each held in memory). With
    `output` (a folder), writes each song as it finishes (`format` "npz": NAME.npz holding
    audio, sample_rate, labels, stems; "wav"/"flac": NAME.wav, NAME.csv labels, NAME/track-NN-
    Name.wav stems, with `bits` 16, 24 or 32 (float; the default for WAV, 24 for FLAC)), each
    file under a hidden name renamed when whole, and returns a
    BatchSummary: memory stays flat however many songs. Files there are refused before
    anything renders unless `overwrite`, or `skip_existing` (songs whose files are all there
    are left out, as `--skip-existing`). `shard=(k, n)` renders every n-th song from the k-th,
    as `--shard k/n`, so n machines share a corpus.

    `progress` is called as progress(done, total, song), or draws a bar on stderr when True.
    A song that fails: with errors="raise", the first error is raised once the others are
    done, carrying `.results` (or `.summary` with `output`) with every finished song; with
    errors="return", its exception takes its place. Ctrl-C stops within a second, keeping
    whole files only: the KeyboardInterrupt carries `.results` (or `.summary`) too."""
    started = time.monotonic()
    batch = _Batch(songs, soundfont, sample_rate, workers, executor, errors, shard, options, output, format, bits, overwrite, skip_existing)
    report = _Progress(len(batch.jobs)) if progress is True else (progress or None)
    summary = BatchSummary(skipped=batch.skipped, soundfont=batch.font_path) if batch.plan else None
    results: list = [None] * len(batch.jobs)
    first_error = None

    def keep(job: _Job, result) -> None:   # idempotent: a song handed over twice is kept once
        if summary is None:
            results[job.index] = result
        elif isinstance(result, Exception):
            summary.failed[job.name] = result
        else:
            summary.rendered[job.name] = result

    try:
        with contextlib.closing(batch.run(report)) as finished:
            for job, result in finished:
                if isinstance(result, Exception):
                    first_error = first_error or result
                keep(job, result)
    except KeyboardInterrupt as interrupt:
        for job, result in batch.unclaimed:
            keep(job, result)
        _attach(interrupt, results, summary, started)
        raise
    if summary is not None:
        summary.seconds = time.monotonic() - started
    if first_error is not None and errors == "raise":
        _attach(first_error, results, summary, started)
        raise first_error
    return summary if summary is not None else results


def _attach(problem: BaseException, results: list, summary: Optional[BatchSummary], started: float) -> None:
    """What finished, on the exception that ends a batch."""
    if summary is not None:
        summary.seconds = time.monotonic() - started
        problem.summary = summary
    else:
        problem.results = results


def render_iter(songs: Union[Sequence[Song], str, os.PathLike], soundfont: Optional[Data] = None, sample_rate: int = 48000, *,
                workers: Optional[int] = None, errors: str = "raise", shard: Optional[Tuple[int, int]] = None,
                executor: Optional[concurrent.futures.Executor] = None, **options) -> Iterator[Tuple[Song, object]]:
    """Renders songs as `render_many` does (the same songs, options, `shard` and `executor`)
    and yields (song, result) as each finishes, in the order they finish: at most `workers`
    songs are in hand at once, so memory does not grow with the batch. A failed song: with
    errors="raise" its error is raised when it comes (the songs not yet started are not
    rendered); with errors="return" its exception is yielded as its result. Closing the
    iterator early, or Ctrl-C, stops the rest within a second."""
    batch = _Batch(songs, soundfont, sample_rate, workers, executor, errors, shard, options)
    for job, result in batch.run(None):
        if isinstance(result, Exception) and errors == "raise":
            raise result
        yield job.song, result
