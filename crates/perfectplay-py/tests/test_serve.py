"""``Solution.serve()``: the explorer served from Python answers as the command line's
``perfectplay serve`` does; ``_repr_html_`` shows the start's moves."""

import json
import os
import subprocess
import urllib.error
import urllib.request

import perfectplay
from fractions import Fraction as F
from perfectplay import Decision, Move, Terminal

CLI = os.environ["PERFECTPLAY_CLI"]


def get(url):
    with urllib.request.urlopen(url, timeout=30) as r:
        return r.status, r.read().decode()


def test_serve_answers_explain_as_the_command_line_prints_it():
    sol = perfectplay.solve("pig", goal=15)
    url = sol.serve()
    try:
        assert url.startswith("http://127.0.0.1:")
        status, body = get(url + "api/explain?state=A+3+B+5%2C+A+to+move%2C+turn+4")
        assert status == 200
        printed = subprocess.run(
            [CLI, "explain", "pig", "--goal", "15", "--state", "A 3 B 5, A to move, turn 4",
             "--json", "-q"],
            check=True, capture_output=True, text=True).stdout
        assert body == printed
        game = json.loads(get(url + "api/game")[1])
        assert game["name"] == "pig" and game["title"] == "pig --goal 15"
        assert game["report"]["value"] == sol.value
        try:
            get(url + "api/explain?state=nonsense")
            raise AssertionError("a bad state was answered")
        except urllib.error.HTTPError as e:
            assert e.code == 400
            assert "not a Pig position" in json.loads(e.read())["error"]
        assert get(url + "api/game")[0] == 200  # still serving
    finally:
        sol.stop_serving()


def test_a_python_game_is_served():
    class Race(perfectplay.Game):
        """Roll a three-sided die until the sum reaches 4, or stop; the payoff is the sum."""

        def start(self):
            return 0

        def expand(self, s):
            if isinstance(s, tuple):
                return Terminal(s[1])
            if s >= 4:
                return Terminal(s)
            roll = Move("roll", chance=[(F(1, 3), s + f, 0) for f in (1, 2, 3)])
            return Decision("max", [roll, Move("stop", ("stopped", s))])

    sol = perfectplay.solve(Race(), exact=True)
    url = sol.serve()
    try:
        e = json.loads(get(url + "api/explain")[1])
        assert e["value_exact"] == str(sol.exact)
        play = json.loads(get(url + "api/play?seed=4")[1])
        assert play["finished"]
    finally:
        sol.stop_serving()


def test_notebooks_show_the_start():
    sol = perfectplay.solve("gold-pots", pots="4,1,2,10,3")
    html = sol._repr_html_()
    start = sol.explain()
    assert html.startswith("<div class=\"perfectplay\">")
    for b in start.branches:
        assert b.label in html
    assert "★" in html or "●" in html
