"""Every Python example of the user guide (`docs/*.md`, the ```python blocks) runs, in order
within a page, from the root of a clone; a line `EXPR  # → VALUE` checks that repr(EXPR) is
VALUE."""

import os
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
CHECKED = re.compile(r"^(?P<expr>\S.*?)\s+# → (?P<want>.+)$")


def blocks(text):
    out, current = [], None
    for line in text.splitlines():
        if current is None and line.strip() == "```python":
            current = []
        elif current is not None and line.strip().startswith("```"):
            out.append("\n".join(current))
            current = None
        elif current is not None:
            current.append(line)
    return out


def checked(source):
    """The block with each `EXPR  # → VALUE` line turned into a check."""
    lines = []
    for line in source.splitlines():
        m = CHECKED.match(line)
        if m and "=" not in m["expr"].split("(")[0]:
            lines.append(f"__check({m['expr']}, {m['want']!r})")
        else:
            lines.append(line)
    return "\n".join(lines)


def check(value, want):
    assert repr(value) == want, f"{value!r} != {want}"


PAGES = sorted((ROOT / "docs").glob("*.md"))


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_the_examples_of_the_page_run(page, monkeypatch):
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    namespace = {"__check": check, "__name__": "docs"}
    for source in blocks(page.read_text()):
        exec(compile(checked(source), str(page), "exec"), namespace)
    for served in [v for v in namespace.values() if hasattr(v, "stop_serving")]:
        served.stop_serving()
