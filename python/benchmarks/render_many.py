"""render_many against the CLI's batch render, in one run on the same songs and font:

    LD_LIBRARY_PATH=PREFIX/lib PYTHONPATH=python python3 python/benchmarks/render_many.py PIANOLA_CLI [SONGS_FOLDER [FONT]]

Both render every song whole (the music, then up to 5 s of tail) on every core with the font
loaded once; the CLI also writes 32-bit float WAVs (its own work), render_many keeps numpy
arrays. Prints each one's wall time and the ratio."""
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pianola

cli = sys.argv[1]
folder = Path(sys.argv[2]) if len(sys.argv) > 2 else Path(__file__).resolve().parents[3] / "shared" / "corpus" / "midi"
font = sys.argv[3] if len(sys.argv) > 3 else pianola.default_soundfont()
songs = sorted(p for p in folder.rglob("*") if p.suffix.lower() in (".mid", ".midi", ".rmi", ".mus", ".xmi", ".hmp", ".hmi"))

with tempfile.TemporaryDirectory() as out:
    start = time.monotonic()
    run = subprocess.run([cli, "render", *map(str, songs), "-o", out + "/", "--bits", "32f", "--soundfont", font],
                         capture_output=True, text=True)
    cli_seconds = time.monotonic() - start
written = 0
start = time.monotonic()
results = pianola.render_many(songs, font, errors="return", progress=lambda done, total, song: None)
python_seconds = time.monotonic() - start
rendered = [r for r in results if not isinstance(r, Exception)]
frames = sum(len(r) for r in rendered)
print(f"{len(songs)} songs in {folder}, {os.cpu_count()} cores, font {font}")
print(f"pianola render (batch): {cli_seconds:.2f} s (exit {run.returncode})")
print(f"pianola.render_many:    {python_seconds:.2f} s, {len(rendered)} rendered, {frames / 48000:.0f} s of audio")
print(f"render_many is {cli_seconds / python_seconds:.2f}x the CLI's speed")
