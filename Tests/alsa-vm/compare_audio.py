#!/usr/bin/env python3
"""Compare captured audio with rendered audio: align by the first sound, report SNR.

usage: compare_audio.py CAPTURED.raw (float32 stereo) RENDERED.wav (32-bit float) MIN_SNR_DB
Exit 0 when the aligned signals agree to MIN_SNR_DB or better.
"""
import math
import struct
import sys


def floats_raw(path):
    data = open(path, "rb").read()
    return struct.unpack("<%df" % (len(data) // 4), data[: len(data) // 4 * 4])


def floats_wav(path):
    data = open(path, "rb").read()
    i = data.find(b"data")
    n = struct.unpack("<I", data[i + 4 : i + 8])[0]
    body = data[i + 8 : i + 8 + n]
    return struct.unpack("<%df" % (len(body) // 4), body)


def first_sound(x):
    return next(i for i, v in enumerate(x) if abs(v) > 1e-4) // 2 * 2


captured, rendered = floats_raw(sys.argv[1]), floats_wav(sys.argv[2])
a, b = first_sound(captured), first_sound(rendered)
n = min(len(captured) - a, len(rendered) - b)
signal = sum(v * v for v in rendered[b : b + n])
noise = sum((captured[a + k] - rendered[b + k]) ** 2 for k in range(n))
snr = math.inf if noise == 0 else 10 * math.log10(signal / noise)
print("aligned %d frames (capture offset %d, render offset %d): SNR %s dB" % (n // 2, a // 2, b // 2, "inf" if snr == math.inf else "%.1f" % snr))
sys.exit(0 if n > 48000 * 2 * 5 and snr >= float(sys.argv[3]) else 1)
