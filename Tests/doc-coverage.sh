#!/usr/bin/env bash
# Every public symbol a user reaches through `import Pianola` (the Pianola module and the
# modules it re-exports) has a doc comment. Counts them from SwiftPM's symbol graphs; members
# the compiler writes (Hashable's, a protocol's defaults) have no place in the sources and are
# not counted. Fails, listing them, when one written in the sources has none.
set -euo pipefail
cd "$(dirname "$0")/.."
log=$(swift package dump-symbol-graph --minimum-access-level public 2>&1) || { echo "$log" >&2; exit 1; }
folder=$(swift build --show-bin-path 2>/dev/null)/../symbolgraph
python3 - "$folder" <<'PY'
import glob, json, os, re, sys
folder = sys.argv[1]
umbrella = open('Sources/Pianola/Pianola.swift').read()
modules = ['Pianola'] + re.findall(r'(?m)^@_exported import (\w+)$', umbrella)
counted, missing, seen = 0, [], set()
for module in modules:
    for path in glob.glob(os.path.join(folder, f'{module}.symbols.json')) + glob.glob(os.path.join(folder, f'{module}@*.symbols.json')):
        for symbol in json.load(open(path))['symbols']:
            key = symbol['identifier']['precise']
            if symbol.get('accessLevel') not in ('public', 'open') or 'location' not in symbol or key in seen:
                continue
            seen.add(key)
            counted += 1
            if not symbol.get('docComment'):
                where = symbol['location']
                missing.append(f"{where['uri'].replace('file://' + os.getcwd() + '/', '')}:{where['position']['line'] + 1}: "
                               f"{module}.{'.'.join(symbol['pathComponents'])}")
for line in missing:
    print(line)
print(f'import Pianola: {counted} public symbols in {len(modules)} modules, {len(missing)} without a doc comment')
sys.exit(1 if missing else 0)
PY
