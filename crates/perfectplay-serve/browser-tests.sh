#!/usr/bin/env bash
# The explorer's tests in a real browser: Debian's Chromium, headless, driven by Selenium
# through Debian's ChromeDriver. Installs what it needs: chromium and chromium-driver from
# Debian's packages (as root; nothing is downloaded at run time but packages), Selenium and
# pytest from PyPI into the Python environment the package's tests use (target/py-venv, or
# $PERFECTPLAY_VENV). Screenshots of every page go to target/screenshots (to look at).
#   crates/perfectplay-serve/browser-tests.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    if [ "$(id -u)" != 0 ]; then
        echo "error: the browser tests need Debian's chromium and chromium-driver:" \
            "sudo apt-get install chromium chromium-driver" >&2
        exit 2
    fi
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q chromium chromium-driver >/dev/null \
        || { apt-get update -q >/dev/null && apt-get install -y -q chromium chromium-driver >/dev/null; }
fi
venv="${PERFECTPLAY_VENV:-$root/target/py-venv}"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check pytest "selenium>=4.20,<5"
python="$venv/bin/python"
. "$root/crates/perfectplay-cli/test-tool.sh"
export PERFECTPLAY_SCREENSHOTS="$root/target/screenshots"
cd "$here/tests/browser"
exec "$venv/bin/python" -m pytest -q -p no:cacheprovider . "$@"
