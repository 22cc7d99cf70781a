#!/usr/bin/env python3
"""The preset conformance table: how far Pianola's synthesizer is from libfluidsynth, preset by preset.

usage: preset_conformance.py DIR FONT-NAME [EXCEPTIONS.tsv]
DIR holds what `pianola-bench preset-renders` wrote: presets.tsv and two float WAVs a preset.
For every note (a key at a velocity, held then released) it measures
  - pitch: the shift, in cents, that best lines up the two held spectra on a log-frequency
    axis (cross-correlation, 1-cent steps, refined by a parabola): the same sample played at
    another rate moves every partial by the same number of cents;
  - level: the difference of RMS level in dB, each side (left, right) alone;
and for the preset's whole render the log-mel distance of ../shared/tools/mel_distance.py.
A preset differs when a note's pitch is more than 1 cent off, its level more than 0.5 dB, or
the log-mel distance over 1 dB. Prints every preset that differs, with its figures, then one
summary line 'FONT: N presets checked, M differ (K documented)'. Exits 1 when a preset differs
that EXCEPTIONS.tsv (font, bank-program, why: one a line) does not list.
"""
import os, subprocess, sys
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
MEL = os.environ.get('MEL_DISTANCE', os.path.join(HERE, '..', '..', 'shared', 'tools', 'mel_distance.py'))
RATE = 48000
PITCH_CENTS, LEVEL_DB, MEL_DB = 1.0, 0.5, 1.0


def read_float_wav(path):
    data = open(path, 'rb').read()
    i = 12
    while i < len(data) - 8:
        cid, size = data[i:i + 4], int.from_bytes(data[i + 4:i + 8], 'little')
        if cid == b'data':
            return np.frombuffer(data[i + 8:i + 8 + size], '<f4').astype(np.float64).reshape(-1, 2)
        i += 8 + size + (size & 1)
    raise SystemExit(f'{path}: no data chunk')


def db(x):
    return 10 * np.log10(max(float((x ** 2).mean()), 1e-20))


def log_spectrum(x):
    """Magnitudes on a log-frequency axis: 1-cent steps from 40 Hz to 16 kHz."""
    n = 1 << 18
    spectrum = np.abs(np.fft.rfft(x * np.hanning(len(x)), n))
    cents = np.arange(0, int(1200 * np.log2(16000 / 40)))
    bins = 40 * 2 ** (cents / 1200) * n / RATE
    return np.sqrt(np.interp(bins, np.arange(len(spectrum)), spectrum))


def pitch_shift(a, b):
    """Cents by which b's held spectrum lies above a's, and how alike the two are (0-1)."""
    sa, sb = log_spectrum(a), log_spectrum(b)
    sa, sb = sa - sa.mean(), sb - sb.mean()
    if not sa.any() or not sb.any():
        return None, 0.0
    n = 1 << int(np.ceil(np.log2(2 * len(sa))))
    corr = np.fft.irfft(np.conj(np.fft.rfft(sa, n)) * np.fft.rfft(sb, n), n)
    lags = np.r_[corr[:1201], corr[-1200:]]
    order = np.r_[np.arange(1201), np.arange(-1200, 0)]
    k = int(np.argmax(lags))
    peak = lags[k]
    left, right = lags[k - 1], lags[(k + 1) % len(lags)]
    denominator = left - 2 * peak + right
    fraction = 0.5 * (left - right) / denominator if denominator < 0 else 0.0
    likeness = peak / np.sqrt((sa ** 2).sum() * (sb ** 2).sum())
    return order[k] + fraction, float(likeness)


def mel_distance(a, b):
    result = subprocess.run([sys.executable, MEL, a, b], capture_output=True, text=True)
    try:
        return float(result.stdout.strip())
    except ValueError:
        return float('nan')


def main():
    folder, font = sys.argv[1], sys.argv[2]
    documented = {}
    if len(sys.argv) > 3:
        for line in open(sys.argv[3]):
            if line.strip() and not line.startswith('#'):
                f, preset, why = line.rstrip('\n').split('\t', 2)
                if f == font:
                    documented[preset] = why
    rows = [line.rstrip('\n').split('\t') for line in open(os.path.join(folder, 'presets.tsv'))][1:]
    differ, undocumented = 0, 0
    for bank, program, name, notes, seconds in rows:
        tag = f'{bank}-{program}'
        ours = read_float_wav(os.path.join(folder, f'{tag}.pianola.wav'))
        theirs = read_float_wav(os.path.join(folder, f'{tag}.fluidsynth.wav'))
        span = int(float(seconds) * RATE)
        worst_pitch, worst_level, problems = 0.0, 0.0, []
        for i, note in enumerate(notes.split()):
            a, b = theirs[i * span:(i + 1) * span], ours[i * span:(i + 1) * span]
            loud = max(db(a), db(b))
            if loud < -90:
                continue  # no sound from either: nothing plays this key
            for side in (0, 1):
                if max(db(a[:, side]), db(b[:, side])) > loud - 30:
                    difference = db(b[:, side]) - db(a[:, side])
                    if abs(difference) > abs(worst_level):
                        worst_level = difference
            held = slice(int(0.02 * RATE), int(0.98 * RATE))
            ha, hb = a[held].mean(axis=1), b[held].mean(axis=1)
            if max(db(ha), db(hb)) > loud - 40 and min(db(ha), db(hb)) > -100:
                shift, likeness = pitch_shift(ha, hb)
                if shift is not None and likeness > 0.5 and abs(shift) > abs(worst_pitch):
                    worst_pitch = shift
        mel = mel_distance(os.path.join(folder, f'{tag}.fluidsynth.wav'), os.path.join(folder, f'{tag}.pianola.wav'))
        if abs(worst_pitch) > PITCH_CENTS:
            problems.append(f'pitch {worst_pitch:+.1f} cents')
        if abs(worst_level) > LEVEL_DB:
            problems.append(f'level {worst_level:+.2f} dB')
        if not mel <= MEL_DB:
            problems.append(f'log-mel {mel:.2f} dB')
        if problems:
            differ += 1
            why = documented.get(tag)
            undocumented += why is None
            print(f'{font} {tag:>7} {name[:20]:20} {"; ".join(problems)}' + (f'  [listed]' if why else ''))
    print(f'{font}: {len(rows)} presets checked, {differ} differ ({differ - undocumented} of them listed)')
    sys.exit(1 if undocumented else 0)


main()
