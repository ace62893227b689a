#!/usr/bin/env bash
# The Python package's tests, from a fresh clone: makes a virtual environment (target/py-venv,
# or $PERFECTPLAY_VENV), installs the test tools and the package from this folder into it
# (the tools and optional peers from PyPI), builds the command-line tool the tests compare
# against, and runs pytest. Every tool is installed by this script; it needs only the Rust
# toolchain and Python 3.9 or later. Extra arguments go to pytest.
#   crates/perfectplay-py/run-tests.sh
#   crates/perfectplay-py/run-tests.sh -k openspiel -x
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="${PERFECTPLAY_VENV:-$root/target/py-venv}"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
export PATH="$venv/bin:$PATH"
pip=("$venv/bin/pip" install --quiet --disable-pip-version-check)
"${pip[@]}" "maturin>=1.5,<2" pytest numpy
# Optional: the tests that need them are skipped, with the reason, where they do not install.
"${pip[@]}" pandas matplotlib || echo "note: pandas or matplotlib did not install; their tests skip"
"${pip[@]}" open_spiel cvxpy || echo "note: open_spiel did not install; the OpenSpiel tests skip"
"${pip[@]}" --no-build-isolation "$here"
python="$venv/bin/python"
. "$root/crates/perfectplay-cli/test-tool.sh"
cd "$here"
exec "$venv/bin/python" -m pytest tests -q -rs "$@"
