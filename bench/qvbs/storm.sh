#!/usr/bin/env bash
# perfectplay against Storm on the QVBS cases of 0.3 to 2 million states (compare_storm.py):
# makes the virtual environment of bench/peers with stormpy from PyPI, builds perfectplay in
# release mode and runs the comparison. Options go to compare_storm.py.
#   bench/qvbs/storm.sh                       # about half an hour
#   bench/qvbs/storm.sh --max-states 500000 --markdown table.md
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="$root/bench/peers/.venv"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check stormpy==2.0.0
(cd "$root" && cargo build --release --locked -p perfectplay-cli)
exec "$venv/bin/python" "$here/compare_storm.py" "$@"
