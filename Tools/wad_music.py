#!/usr/bin/env python3
"""The music lumps (D_*) of Doom WAD files, written out as files Pianola reads.

usage: wad_music.py OUT-FOLDER WAD...
Each D_ lump is written as OUT-FOLDER/WADNAME-LUMP.mus (a MUS lump) or .mid (a MIDI one), by
its magic; a lump that is neither is named on standard error and left out. Prints how many
it wrote. For measuring the synthesizer on real game music (Freedoom's), not for shipping it.
"""
import os, struct, sys


def lumps(path):
    data = open(path, 'rb').read()
    kind, count, directory = struct.unpack_from('<4sii', data, 0)
    if kind not in (b'IWAD', b'PWAD'):
        raise SystemExit(f'{path}: not a WAD (magic {kind!r})')
    for i in range(count):
        offset, size, name = struct.unpack_from('<ii8s', data, directory + 16 * i)
        yield name.rstrip(b'\0').decode('ascii', 'replace'), data[offset:offset + size]


def main():
    out, wads = sys.argv[1], sys.argv[2:]
    os.makedirs(out, exist_ok=True)
    written = 0
    for wad in wads:
        prefix = os.path.splitext(os.path.basename(wad))[0]
        for name, body in lumps(wad):
            if not name.startswith('D_'):
                continue
            extension = '.mus' if body[:4] == b'MUS\x1a' else '.mid' if body[:4] == b'MThd' else None
            if extension is None:
                print(f'{wad}: {name}: neither MUS nor MIDI (starts {body[:4]!r}), left out', file=sys.stderr)
                continue
            open(os.path.join(out, f'{prefix}-{name}{extension}'), 'wb').write(body)
            written += 1
    print(f'{written} music lumps written to {out}')


main()
