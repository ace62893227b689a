"""Shared fixtures: the command-line tool the built-in games are compared with, and the
repository's test data."""

import json
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
QVBS = ROOT / "crates" / "perfectplay-prism" / "tests" / "qvbs"


def _cli():
    given = os.environ.get("PERFECTPLAY_CLI")
    if given:
        # Named, it must be there: a wrong path is an error, not a reason to skip.
        return given if os.access(given, os.X_OK) else None
    candidates = [str(ROOT / "target" / p / "perfectplay") for p in ("release", "debug")]
    return next((c for c in candidates if os.access(c, os.X_OK)), None)


@pytest.fixture(scope="session")
def cli():
    """Runs `perfectplay solve ... --json` and returns the parsed JSON."""
    path = _cli()
    if path is None:
        # Never a skip: these tests compare the package with the tool, and run-tests.sh
        # builds it.
        pytest.fail(
            "the perfectplay command-line tool is not built (cargo build -p perfectplay-cli, "
            "or PERFECTPLAY_CLI names a file that is not there): "
            f"{os.environ.get('PERFECTPLAY_CLI')!r}"
        )

    def run(*args):
        out = subprocess.run([path, *args, "--json", "--quiet"], check=True,
                             capture_output=True, text=True)
        return json.loads(out.stdout)

    return run
