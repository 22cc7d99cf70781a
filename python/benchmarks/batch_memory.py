"""Peak memory of a batch with stems, streamed against held, in one run on the corpus:

    LD_LIBRARY_PATH=PREFIX/lib PYTHONPATH=python python3 python/benchmarks/batch_memory.py [SONGS_FOLDER [FONT]]

Each mode runs in a child process of its own and reports its peak RSS (getrusage's maxrss):
render_iter over every song with stems, each result dropped as it comes (what writing to a
folder does: output= writes and drops it in the worker), then render_many holding every result
in memory over the first 10, 20 and 40 songs (today's mode before streaming); the corpus whole
held would need the sum of its results, which the streamed run counts."""
import resource
import subprocess
import sys
from pathlib import Path

CHILD = """
import resource, sys, pianola
mode, count, folder, font = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
songs = pianola._batch._jobs([folder], None)[:count]
paths = [job.song for job in songs]
held = 0
if mode == "stream":
    for song, result in pianola.render_iter(paths, font, stems=True, errors="return"):
        if not isinstance(result, Exception):
            held += result.audio.nbytes + sum(stem.nbytes for stem in result.stems.values())
else:
    results = pianola.render_many(paths, font, stems=True, errors="return")
    held = sum(r.audio.nbytes + sum(s.nbytes for s in r.stems.values()) for r in results if not isinstance(r, Exception))
print(len(paths), held, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""

folder = sys.argv[1] if len(sys.argv) > 1 else str(Path(__file__).resolve().parents[3] / "shared" / "corpus" / "midi")
font = sys.argv[2] if len(sys.argv) > 2 else str(Path(__file__).resolve().parents[2] / "soundfonts" / "pianola-gm.sf2")
print(f"{'mode':<32} {'songs':>5} {'results GB':>10} {'peak RSS GB':>11}")
for mode, count in [("stream", 10_000), ("hold", 10), ("hold", 20), ("hold", 40)]:
    songs, held, peak = map(int, subprocess.run([sys.executable, "-c", CHILD, mode, str(count), folder, font],
                                                capture_output=True, text=True, check=True).stdout.split())
    name = "render_iter, streamed" if mode == "stream" else "render_many, held in memory"
    print(f"{name:<32} {songs:>5} {held / 1e9:>10.2f} {peak * 1024 / 1e9:>11.2f}")
