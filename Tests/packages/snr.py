"""snr.py REFERENCE.raw OTHER.raw WHAT: the signal-to-noise ratio of OTHER against REFERENCE
(bare float32 stereo frames, as `pianola render --format raw --bits 32f` and numpy's tofile
write them), sample for sample from the start; prints it and exits 1 below 90 dB or when the
lengths differ."""
import sys

import numpy as np

(reference, other), what = (np.fromfile(path, dtype="<f4").reshape(-1, 2) for path in sys.argv[1:3]), sys.argv[3]
if reference.shape != other.shape:
    sys.exit(f"packages: {what}: {other.shape[0]} frames, the development build's {reference.shape[0]}")
noise = np.sum((other.astype(np.float64) - reference) ** 2)
snr = float("inf") if noise == 0 else 10 * np.log10(np.sum(reference.astype(np.float64) ** 2) / noise)
print(f"packages: {what}: SNR {snr:.1f} dB against the development build over {reference.shape[0]} frames")
sys.exit(0 if snr >= 90 else 1)
