#!/usr/bin/env bash
# perfectplay against Storm and OpenSpiel, end to end on a fresh machine: makes a Python
# virtual environment with the peers from PyPI, builds perfectplay in release mode, runs the
# same problems in all tools, checks the answers agree and prints the table.
#   bench/peers/run.sh            # every size (about 10 minutes; Storm's exact 50x50 needs ~11 GB)
#   bench/peers/run.sh --quick    # small sizes, about a minute
#   bench/peers/run.sh --skip-exact-50 --markdown table.md
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="$here/.venv"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"
(cd "$root" && cargo build --release --locked -p perfectplay-cli)
exec "$venv/bin/python" "$here/compare.py" "$@"
