#!/usr/bin/env bash
# The Python package's tests, from a fresh clone: makes a virtual environment (target/py-venv,
# or $PERFECTPLAY_VENV), installs the test tools and the package from this folder into it
# (the tools and optional peers from PyPI), builds the command-line tool the tests compare
# against, and runs pytest. Every tool is installed by this script; it needs only the Rust
# toolchain and Python 3.9 or later. Extra arguments go to pytest. With PERFECTPLAY_PY_BUILD set
# (cargo's arguments, as .ci/run sets them), the extension is that build's instead of a release
# build by pip and maturin.
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
python="$venv/bin/python"
if [ -z "${PERFECTPLAY_PY_BUILD:-}" ]; then
    "${pip[@]}" --no-build-isolation "$here"
else
    # The extension from `cargo $PERFECTPLAY_PY_BUILD` (.ci/run: the workspace's libraries in
    # the test profile, whose dependencies its test build already compiled) instead of
    # maturin's release build of everything anew: the package's Python files and that library
    # in target/py-dev, put on the environment's path.
    # shellcheck disable=SC2086 # the build's arguments are split on purpose
    lib="$(cd "$root" && cargo $PERFECTPLAY_PY_BUILD --message-format=json-render-diagnostics \
        | "$python" -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "_core":
        print(*(f for f in m["filenames"] if f.endswith(".so")))
')"
    if [ ! -f "$lib" ]; then
        echo "error: cargo $PERFECTPLAY_PY_BUILD did not build the Python extension (_core)" >&2
        exit 2
    fi
    dev="$root/target/py-dev"
    rm -rf "$dev" && mkdir -p "$dev/perfectplay"
    cp "$here"/python/perfectplay/* "$dev/perfectplay/"
    cp "$lib" "$dev/perfectplay/_core.abi3.so"
    "$venv/bin/pip" uninstall --quiet --yes perfectplay 2>/dev/null || true
    "$python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' \
        | { read -r site; echo "$dev" > "$site/perfectplay-dev.pth"; }
fi
. "$root/crates/perfectplay-cli/test-tool.sh"
cd "$here"
exec "$venv/bin/python" -m pytest tests -q -rs "$@"
