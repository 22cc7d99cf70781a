#!/usr/bin/env python3
"""Every installed LV2 effect run by Pianola and by lilv's own lv2apply, compared.

usage: lv2_table.py [--pianola PATH] [--jobs N] [URI-SUBSTRING...]

For each plugin `pianola plugins` lists with audio inputs (only those whose URI contains one
of the substrings, when given): `pianola render` of a song with `--fx URI` (controls at their
defaults), against lv2apply run on the same song's dry render, fed as Pianola feeds the plugin
(a mono effect once a side, a 1-in effect the sides' mean, a stereo one both). lv2apply runs
twice: where its two outputs differ the plugin is not deterministic and is not compared.
Neither Pianola nor lv2apply moves the output back by the plugin's latency, so the two line up
as they are. Where the two differ, Pianola's host runs the plugin again a frame at a time, as
lv2apply does: a plugin whose output depends on the run length is equal at lv2apply's. Prints
one line a plugin, then a summary: equal (>= 90 dB SNR), differ, not
compared (why), refused by Pianola (why), crashed.
"""
import concurrent.futures, os, re, subprocess, sys, tempfile
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def read(path):
    data = open(path, 'rb').read()
    i, channels, bits, fmt = 12, 2, 32, 3
    while i < len(data) - 8:
        cid, size = data[i:i + 4], int.from_bytes(data[i + 4:i + 8], 'little')
        if cid == b'fmt ':
            fmt = int.from_bytes(data[i + 8:i + 10], 'little')
            channels = int.from_bytes(data[i + 10:i + 12], 'little')
            bits = int.from_bytes(data[i + 22:i + 24], 'little')
            if fmt == 0xFFFE:
                fmt = int.from_bytes(data[i + 32:i + 34], 'little')
        if cid == b'data':
            raw = data[i + 8:i + 8 + size]
            x = np.frombuffer(raw, '<f4').astype(np.float64) if fmt == 3 else np.frombuffer(raw, '<i2').astype(np.float64) / 32768
            return x.reshape(-1, channels)
        i += 8 + size + (size & 1)
    raise ValueError(f'{path}: no data chunk')


def write(path, x):
    x = np.asarray(x, dtype='<f4')
    if x.ndim == 1:
        x = x[:, None]
    frames, channels = x.shape
    body = x.tobytes()
    header = b'RIFF' + (36 + len(body)).to_bytes(4, 'little') + b'WAVEfmt ' + (16).to_bytes(4, 'little')
    header += (3).to_bytes(2, 'little') + channels.to_bytes(2, 'little') + (48000).to_bytes(4, 'little')
    header += (48000 * 4 * channels).to_bytes(4, 'little') + (4 * channels).to_bytes(2, 'little') + (32).to_bytes(2, 'little')
    open(path, 'wb').write(header + b'data' + len(body).to_bytes(4, 'little') + body)


def snr(reference, other):
    n = min(len(reference), len(other))
    power = float((reference[:n] ** 2).sum())
    error = float(((reference[:n] - other[:n]) ** 2).sum())
    if power == 0:
        return float('inf') if error == 0 else float('-inf')
    return 10 * np.log10(power / max(error, 1e-30))


def lv2apply(uri, source, out):
    result = subprocess.run(['lv2apply', '-i', source, '-o', out, uri], capture_output=True, text=True, timeout=120)
    if result.returncode < 0:
        return f'lv2apply crashed (signal {-result.returncode})'
    if result.returncode != 0:
        return 'lv2apply refused it: ' + (result.stderr.strip().splitlines() or ['no reason'])[-1][:120]
    return None


def compare(pianola, song, dry, work, uri, ins, outs):
    folder = tempfile.mkdtemp(dir=work)
    ours = os.path.join(folder, 'ours.wav')
    run = subprocess.run([pianola, 'render', song, '-o', ours, '--bits', '32f', '--to', '4', '--tail', '0', '--force',
                          '--soundfont', os.path.join(ROOT, 'soundfonts/pianola-gm.sf2'), '--reverb', 'off', '--chorus', 'off',
                          '--fx', uri], capture_output=True, text=True, timeout=300)
    if run.returncode < 0:
        return 'crashed', f'pianola crashed (signal {-run.returncode})'
    if run.returncode != 0:
        return 'refused', run.stderr.strip().splitlines()[-1][:160]
    if 'left out' in run.stderr:
        return 'refused', run.stderr.strip().splitlines()[-1][:160]
    ours = read(ours)
    feeds = [dry[:, 0], dry[:, 1]] if ins == 1 and outs == 1 else [dry.mean(axis=1)] if ins == 1 else [dry]
    theirs = []
    for k, feed in enumerate(feeds):
        source = os.path.join(folder, f'in{k}.wav')
        write(source, feed)
        outputs = []
        for attempt in range(2):
            out = os.path.join(folder, f'out{k}-{attempt}.wav')
            problem = lv2apply(uri, source, out)
            if problem:
                return 'not compared', problem
            outputs.append(read(out))
        if not np.isfinite(outputs[0]).all():
            return 'not compared', f'lv2apply\'s output is not finite ({int((~np.isfinite(outputs[0])).sum())} samples NaN or infinite)'
        if snr(outputs[0], outputs[1]) < 200:
            return 'not compared', f'not deterministic: two lv2apply runs are {snr(outputs[0], outputs[1]):.1f} dB apart'
        theirs.append(outputs[0])
    pairs = sides(theirs, ins, outs)
    worst = min(snr(a, ours[:, side]) for a, side in pairs)
    if worst >= 90:
        return 'equal', f'{worst:.1f} dB SNR against lv2apply'
    # lv2apply runs a plugin a frame at a time: run Pianola's host so too, over the same input.
    single = os.path.join(folder, 'single.wav')
    run = subprocess.run([pianola, 'plugins', '--probe', uri, '--apply', dry_path_of(work), '--apply-output', single, '--block', '1'],
                         capture_output=True, text=True, timeout=300)
    if run.returncode == 0:
        mine = read(single)
        frame = min(snr(a, mine[:, side]) for a, side in pairs)
        if frame >= 90:
            return 'equal', f'{frame:.1f} dB SNR against lv2apply a frame a run, as lv2apply runs it ({worst:.1f} dB in a render: its output depends on the run length)'
        # Pianola runs a plugin that starts threads when made one frame of silence before the
        # song (so they find its controls): give lv2apply that frame too, and drop it.
        settled = []
        for k, feed in enumerate(feeds):
            source, out = os.path.join(folder, f'settle-in{k}.wav'), os.path.join(folder, f'settle-out{k}.wav')
            write(source, np.concatenate([np.zeros((1,) + feed.shape[1:]), feed]))
            if lv2apply(uri, source, out):
                break
            settled.append(read(out)[1:])
        if len(settled) == len(feeds):
            after = min(snr(a, mine[:, side]) for a, side in sides(settled, ins, outs))
            if after >= 90:
                return 'equal', (f'{after:.1f} dB SNR a frame a run against lv2apply given the frame of silence Pianola runs a '
                                 f'plugin that starts threads before the song ({frame:.1f} dB without it)')
    reason = incomparable(uri)
    if reason:
        return 'not compared', f'{reason} ({worst:.1f} dB SNR against lv2apply)'
    return 'differ', f'{worst:.1f} dB SNR against lv2apply'


def sides(theirs, ins, outs):
    """lv2apply's outputs (one a feed) as its sides, each with the side of Pianola's output it is compared with."""
    if ins == 1 and outs == 1:
        return [(theirs[0][:, 0], 0), (theirs[1][:, 0], 1)]
    if outs == 1:
        return [(theirs[0][:, 0], 0)]
    return [(theirs[0][:, 0], 0), (theirs[0][:, -1], 1)]


def incomparable(uri):
    """Why lv2apply's output is no reference for a plugin whose output differs, if it is not:
    lv2apply instantiates every plugin with no host features at all, and a fresh process's
    rand() sequence is not the one a plugin sees inside Pianola."""
    info = subprocess.run(['lv2info', uri], capture_output=True, text=True).stdout
    required = re.search(r'Required Features:\s*(.*?)\n\s*Optional Features', info, re.S)
    if required and required.group(1).strip():
        features = ', '.join(f.rsplit('/', 1)[-1] for f in required.group(1).split())
        return f'lv2apply runs it without the host features it requires ({features})'
    binary = re.search(r'Binary:\s*file://(\S+)', info)
    symbols = subprocess.run(['nm', '-D', binary.group(1)], capture_output=True, text=True).stdout if binary else ''
    if re.search(r' U (rand|random|drand48)@', symbols):
        return 'it draws from the C library\'s rand(), whose sequence depends on what else the process called'
    return None


def dry_path_of(work):
    return os.path.join(work, 'dry.wav')


def main():
    args = sys.argv[1:]
    pianola, jobs = os.path.join(ROOT, '.build/debug/pianola'), 2
    while args and args[0].startswith('--'):
        option = args.pop(0)
        if option == '--pianola':
            pianola = args.pop(0)
        elif option == '--jobs':
            jobs = int(args.pop(0))
    listing = subprocess.run([pianola, 'plugins'], capture_output=True, text=True).stdout.splitlines()
    plugins = []
    for line in listing:
        m = re.search(r'<([^>]+)>.*?  (\d+) in, (\d+) out', line)
        if m and int(m.group(2)) > 0 and (not args or any(a in m.group(1) for a in args)):
            plugins.append((m.group(1), int(m.group(2)), int(m.group(3)), 'cannot be hosted' in line))
    work = tempfile.mkdtemp(prefix='lv2-table.')
    song = os.path.join(ROOT, 'songs/ode-to-joy.mid')
    dry_path = dry_path_of(work)
    subprocess.run([pianola, 'render', song, '-o', dry_path, '--bits', '32f', '--to', '4', '--tail', '0', '--force',
                    '--soundfont', os.path.join(ROOT, 'soundfonts/pianola-gm.sf2'), '--reverb', 'off', '--chorus', 'off'],
                   check=True, capture_output=True)
    dry = read(dry_path)
    counts = {}

    def one(entry):
        uri, ins, outs, unhostable = entry
        if unhostable:
            return uri, 'refused', 'its audio ports do not fit a stereo bus'
        try:
            return (uri,) + compare(pianola, song, dry, work, uri, ins, outs)
        except subprocess.TimeoutExpired:
            return uri, 'not compared', 'timed out'

    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        for uri, verdict, detail in pool.map(one, plugins):
            counts[verdict] = counts.get(verdict, 0) + 1
            print(f'{verdict}\t{uri}\t{detail}', flush=True)
    subprocess.run(['rm', '-rf', work])
    print(f'{len(plugins)} LV2 effects: ' + ', '.join(f'{counts.get(v, 0)} {v}' for v in ['equal', 'differ', 'not compared', 'refused', 'crashed']))


main()
