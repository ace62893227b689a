"""PRISM models from Python: the QVBS reference values, properties by name and by text, and
errors with their place."""

import json
from fractions import Fraction

import pytest

import perfectplay
from perfectplay import prism

from conftest import QVBS, ROOT

CASES = json.loads((QVBS / "cases.json").read_text())


def small_cases():
    picked = [c for c in CASES if c["states"] <= 5000 and c["kind"].startswith("prob")]
    return picked[:12]


@pytest.mark.parametrize("case", small_cases(), ids=lambda c: c["id"])
def test_qvbs_reference_values(case):
    m = prism.load(QVBS / case["model"], const=case["constants"])
    assert m.states == case["states"]
    r = m.check(case["property"], exact=True)
    assert r.value == pytest.approx(case["reference"], rel=1e-9, abs=1e-12)
    if case.get("reference_exact"):
        assert r.exact == Fraction(case["reference_exact"])


DIE = """dtmc
module die
  s : [0..7] init 0;
  d : [0..6] init 0;
  [] s=0 -> 0.5 : (s'=1) + 0.5 : (s'=2);
  [] s=1 -> 0.5 : (s'=3) + 0.5 : (s'=4);
  [] s=2 -> 0.5 : (s'=5) + 0.5 : (s'=6);
  [] s=3 -> 0.5 : (s'=1) + 0.5 : (s'=7) & (d'=1);
  [] s=4 -> 0.5 : (s'=7) & (d'=2) + 0.5 : (s'=7) & (d'=3);
  [] s=5 -> 0.5 : (s'=7) & (d'=4) + 0.5 : (s'=7) & (d'=5);
  [] s=6 -> 0.5 : (s'=2) + 0.5 : (s'=7) & (d'=6);
  [] s=7 -> (s'=7);
endmodule
label "six" = s=7 & d=6;
rewards "coins" s<7 : 1; endrewards
"""


def test_knuths_die(tmp_path):
    path = tmp_path / "die.prism"
    path.write_text(DIE)
    props = tmp_path / "die.props"
    props.write_text('"six": P=? [ F "six" ];\n"flips": R{"coins"}=? [ F s=7 ];\n')
    m = prism.load(path, props=props)
    assert m.properties() == ["six", "flips"]
    assert m.check("six", exact=True).exact == Fraction(1, 6)
    assert m.check("flips", exact=True).exact == Fraction(11, 3)
    assert m.check('P>=0.2 [ F "six" ]').holds is False
    # Arithmetic over the values of queries, exact where they are.
    assert m.check('1 - P=? [ F "six" ]', exact=True).exact == Fraction(5, 6)
    assert m.check('6 * P=? [ F "six" ] < R{"coins"}=? [ F s=7 ]').holds is True
    # By number, as PRISM's -prop and the command line's --prop: the same lookup.
    assert m.check("2", exact=True).exact == Fraction(11, 3)
    with pytest.raises(ValueError, match="has 2 properties \\(numbered from 1\\)"):
        m.check("3")
    with pytest.raises(ValueError, match="no properties file is given"):
        prism.load(path).check("1")
    with pytest.raises(ValueError, match="holds 2 properties: ask for one at a time"):
        m.check('P=? [ F "six" ]; P=? [ F s=7 ]')
    # State formulas nested and CTL, and the filters that list states. A six is at least
    # even odds only at s=6 (1/2 + 1/2 · 1/3) and once thrown: reached through s=2, 1/4.
    assert m.check('P=? [ F P>=0.5 [ F "six" ] ]', exact=True).exact == Fraction(1, 4)
    # Some path throws a six; not every path ends (2, 6, 2, 6, … is a path).
    assert m.check('E [ F "six" ] & !A [ F s=7 ]').holds is True
    r = m.check('filter(argmax, P=? [ F "six" ], s<7)', exact=True)
    assert r.exact == Fraction(2, 3)
    assert [v.state for v in r.listed] == ["(s=6,d=0)"]
    low, high = m.check('filter(range, P=? [ F "six" ])', exact=True).listed
    assert (low.exact, high.exact) == (Fraction(0), Fraction(1))
    printed = m.check('filter(print, P>0 [ F "six" ])').listed
    # A six can still come from s=0, 2 and 6, and the six itself.
    assert [v.state for v in printed] == ["(s=0,d=0)", "(s=2,d=0)", "(s=6,d=0)", "(s=7,d=6)"]
    assert all(v.holds for v in printed)


def test_errors_name_their_place(tmp_path):
    path = tmp_path / "bad.prism"
    path.write_text("dtmc\nmodule m\n  x : [0..1] init 0;\n  [] x=0 -> (x'=y);\nendmodule\n")
    with pytest.raises(ValueError, match="y"):
        prism.load(path)
    with pytest.raises(ValueError, match="cannot read"):
        prism.load(tmp_path / "missing.prism")
    good = tmp_path / "good.prism"
    good.write_text(DIE)
    with pytest.raises(ValueError):
        prism.load(good).check("P=? [ F ")


def test_constants_are_required_and_checked():
    case = CASES[0]
    with pytest.raises(Exception, match="N"):
        prism.load(QVBS / case["model"])


def test_floating_point_functions_and_total_reward(tmp_path):
    """pow with a fractional exponent is floating point, as in PRISM and Storm: a float answer,
    and an exact one refused with the reason; R[ C ] is the whole play's total reward."""
    path = tmp_path / "root.prism"
    path.write_text(
        "dtmc\nformula r = pow(x, 0.5);\nmodule m\n  x : [0..4];\n"
        "  [] x=0 -> 1/4 : (x'=2) + 3/4 : (x'=4);\nendmodule\n"
        "rewards\n  x=0 : 2;\nendrewards\n"
    )
    m = prism.load(path)
    assert m.check("P=? [ F r >= 1.5 ]").value == 0.75
    with pytest.raises(perfectplay.SolveError, match="no exact answer"):
        m.check("P=? [ F r >= 1.5 ]", exact=True)
    assert m.check("R=? [ C ]", exact=True).exact == Fraction(2)


def test_zero_reward_and_constants_of_a_properties_file(tmp_path):
    """R[ F0 φ ] counts a play that misses φ as zero: exact where the reward earned is bounded
    (one flip earned, kept with probability 1/2). A properties file's constant takes its value
    with the model's; a constant nobody declares is an error."""
    path = tmp_path / "flip.prism"
    path.write_text(
        "dtmc\nmodule m\n  x : [0..2];\n  [] x=0 -> 1/2 : (x'=1) + 1/2 : (x'=2);\nendmodule\n"
        "rewards\n  x=0 : 1;\nendrewards\n"
    )
    props = tmp_path / "flip.props"
    props.write_text("const int goal;\n\"kept\": R=? [ F0 x=goal ];\n")
    m = prism.load(path, const={"goal": 1}, props=props)
    assert m.check("kept", exact=True).exact == Fraction(1, 2)
    with pytest.raises(ValueError, match="'typo'"):
        prism.load(path, const={"goal": 1, "typo": 2}, props=props)


def test_a_property_solved_as_a_game_answers_every_query(cli):
    """Model.solve: the game a property optimises, queried as a built-in game is, with the
    same answers as the command line's explain, strategy and distribution."""
    import urllib.request

    path = str(ROOT / "crates" / "perfectplay-prism" / "examples" / "pig.prism")
    prop = '<<first>> Pmax=? [ F "first_wins" ]'
    m = prism.load(path, const={"GOAL": 10})
    sol = m.solve(prop, exact=True)
    assert sol.exact == m.check(prop, exact=True).exact
    state = "(a=3,b=0,t=4,p=1,won=0)"
    e = sol.explain(state)
    printed = cli("explain", path, "--const", "GOAL=10", "--prop", prop, "--state", state,
                  "--exact")
    assert str(e.exact) == printed["value_exact"]
    assert [b.label for b in e.branches] == [mv["move"] for mv in printed["moves"]]
    rows = sol.strategy()
    assert len(rows) > 0
    d = sol.distribution()
    assert abs(float(d.mean) - sol.value) < 1e-12
    assert sol.simulate(200, seed=1).games == 200
    with pytest.raises(ValueError):
        sol.explain("(a=99)")
    url = sol.serve()
    try:
        with urllib.request.urlopen(url + "api/explain?state=" + urllib.request.quote(state)) as r:
            assert json.loads(r.read())["value_exact"] == printed["value_exact"]
    finally:
        sol.stop_serving()
    assert "(a=0,b=0,t=0,p=1,won=0)" in sol._repr_html_()


def test_a_reward_bounded_property_is_a_game_with_the_reward_earned(tmp_path):
    """A reward bound's game counts the reward earned: its value is the checked one, and a
    state is named with what was earned (`(s=0), 1 earned`). From `s=0` (worth 1 a step),
    `a` gambles on `s=1` (free, may return) and `s=2` (whose command earns 2); `b` goes to
    `s=3`, which earns 1/2 a step until it leaves: the least chance of `s=4` within 3 is 8/9,
    and 1/3 once 1 is earned."""
    path = tmp_path / "bounded.prism"
    path.write_text(
        "mdp\nmodule m\n  s : [0..4] init 0;\n"
        "  [a] s=0 -> 1/2 : (s'=1) + 1/2 : (s'=2);\n  [b] s=0 -> (s'=3);\n"
        "  [] s=1 -> 1/3 : (s'=0) + 2/3 : (s'=4);\n  [c] s=2 -> (s'=4);\n"
        "  [] s=3 -> 1/4 : (s'=3) + 3/4 : (s'=4);\nendmodule\n"
        "rewards \"r\"\n  s=0 : 1;\n  [c] true : 2;\n  s=3 : 1/2;\nendrewards\n"
    )
    m = prism.load(path)
    prop = 'Pmin=? [ F^{rew{"r"}<=3} s=4 ]'
    sol = m.solve(prop, exact=True)
    assert sol.exact == m.check(prop, exact=True).exact == Fraction(8, 9)
    assert sol.explain("(s=0), 1 earned").exact == Fraction(1, 3)
    assert abs(float(sol.distribution().mean) - 8 / 9) < 1e-12
