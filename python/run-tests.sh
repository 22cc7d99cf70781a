#!/usr/bin/env bash
# The Python module as a user installs it: `pip install ./python` into a fresh virtual
# environment, then its pytest tests against libpianola installed under a prefix and the
# debug `pianola` CLI (for the sample-for-sample comparison), and Dask for the executor tests.
set -euo pipefail
cd "$(dirname "$0")/.."
source Tools/with-libpianola.sh
python3 -m venv "$work/venv"
cp -r python "$work/source"   # pip builds in the source folder: keep the checkout clean
"$work/venv/bin/pip" install -q --disable-pip-version-check "$work/source" pytest "dask[distributed]"
swift build --product pianola >/dev/null
env LD_LIBRARY_PATH="$prefix/lib" PIANOLA_CLI="$PWD/.build/debug/pianola" \
    "$work/venv/bin/python" -m pytest -q -p no:cacheprovider python/tests
