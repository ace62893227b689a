"""The built-in games through Python: the same values as the command-line tool, the
parameters checked as it checks them, and the queries after the value."""

from fractions import Fraction

import pytest

import perfectplay

# Each game at its catalog example and at other sizes, as keyword arguments.
CASES = [
    ("subset-sum-extreme", dict(blocks=[1, 2, 3], faces=[6, 5])),
    ("subset-sum-extreme", dict(blocks="3,5,7,2", faces="12,4,7,7")),
    ("subset-sum-extreme", dict(blocks=[3, 5, 7, 2], faces=[3817, 12000, 4])),
    ("subset-sum-extreme", dict(blocks=list(range(1, 15)), faces=[3, 5, 7, 11, 30])),
    ("perfect-memory", dict(rows=2, cols=3)),
    ("perfect-memory", dict(rows=4, cols=4)),
    ("yeetzhee", dict(dice=3, faces=6, groups=[1, 2])),
    ("yeetzhee", dict(dice=5, faces=6, groups=[1, 1, 3])),
    ("gold-pots", dict(pots=[4, 1, 2, 10, 3])),
    ("gold-pots", dict(pots=[4, 1, 2, 10, 3], variant="cooperative-unknown")),
    ("gold-pots", dict(pots=[7, 3, 9, 1, 1, 8], variant="competitive-unknown")),
    ("grid-game", dict(grid=[[10, 10], [-5, -5]])),
    ("grid-game", dict(grid="1 2 3; 4 5 6; 7 8 10", method="search")),
    ("pig", dict(goal=20)),
    ("pig", dict(goal=30, opponent="hold-at-10")),
]


def cli_args(name, params):
    args = ["solve", name]
    for k, v in params.items():
        args += [f"--{k}", perfectplay._param_text(k, v)]
    return args


@pytest.mark.parametrize("name,params", CASES)
@pytest.mark.parametrize("exact", [False, True])
def test_every_game_gives_the_command_lines_value(cli, name, params, exact):
    s = perfectplay.solve(name, exact=exact, **params)
    expected = cli(*cli_args(name, params), *(["--exact"] if exact else []))
    assert s.value == pytest.approx(expected["value"], rel=1e-12, abs=1e-12)
    if exact:
        assert s.exact == Fraction(expected["exact"])
        assert float(s.exact) == pytest.approx(s.value, rel=1e-15)
    else:
        assert s.exact is None
    assert s.report["states"] == expected["states"]
    assert s.report["method"] == expected["method"]
    assert s.report["exact"] == s.exact
    assert s.error_bound == expected["error_bound"]


@pytest.mark.parametrize("name,params", CASES)
def test_the_float_value_is_within_its_error_bound(name, params):
    float_solve = perfectplay.solve(name, **params)
    exact = perfectplay.solve(name, exact=True, **params).exact
    # Compared exactly: a float is a fraction.
    assert abs(Fraction(float_solve.value) - exact) <= Fraction(float_solve.error_bound)
    assert perfectplay.solve(name, exact=True, **params).error_bound == 0


def test_the_catalog_lists_every_game_with_its_parameters():
    names = [g["name"] for g in perfectplay.games()]
    assert names == ["subset-sum-extreme", "perfect-memory", "yeetzhee", "gold-pots",
                     "grid-game", "pig", "yahtzee"]
    pig = next(g for g in perfectplay.games() if g["name"] == "pig")
    goal = next(p for p in pig["params"] if p["name"] == "goal")
    assert (goal["kind"], goal["min"], goal["max"], goal["default"]) == ("int", 1, 1000, "100")
    assert "A to move" in pig["notation"]


def test_names_may_use_underscores():
    a = perfectplay.solve("subset_sum_extreme", blocks=[1, 2, 3], faces=[6, 5], exact=True)
    assert a.exact == Fraction(1, 2)


@pytest.mark.parametrize("call,words", [
    (lambda: perfectplay.solve("chess"), ["unknown game 'chess'", "pig"]),
    (lambda: perfectplay.solve("pig", gaol=10), ["unknown parameter 'gaol'", "goal"]),
    (lambda: perfectplay.solve("pig", goal=0), ["goal"]),
    (lambda: perfectplay.solve("pig", goal=1001), ["goal", "1000"]),
    (lambda: perfectplay.solve("pig", goal="ten"), ["goal"]),
    (lambda: perfectplay.solve("pig", goal=True), ["goal"]),
    (lambda: perfectplay.solve("pig", opponent="hold-at-0"), ["opponent"]),
    (lambda: perfectplay.solve("perfect-memory", rows=3, cols=3), ["3x3", "odd"]),
    (lambda: perfectplay.solve("perfect-memory", rows=2), ["cols", "required"]),
    (lambda: perfectplay.solve("yeetzhee", dice=3, faces=6, groups=[2, 2]), ["groups"]),
    (lambda: perfectplay.solve("gold-pots", pots=[1, 2], variant="nice"), ["variant"]),
    (lambda: perfectplay.solve("grid-game", grid="1 2; 3"), ["grid"]),
    (lambda: perfectplay.solve("pig", threads=0), ["threads"]),
    (lambda: perfectplay.solve("pig", max_states=-1), ["max_states"]),
])
def test_a_bad_parameter_raises_a_value_error_naming_it(call, words):
    with pytest.raises(ValueError) as e:
        call()
    for w in words:
        assert w in str(e.value)


def test_a_state_limit_stops_the_solve():
    with pytest.raises(perfectplay.SolveError, match="state limit"):
        perfectplay.solve("pig", goal=40, max_states=1000)


def test_explain_names_every_move_with_its_value_and_loss():
    s = perfectplay.solve("pig", goal=20, exact=True)
    start = s.explain()
    assert start.kind == "decision" and start.player == "max"
    assert start.exact == s.exact
    e = s.explain("A 10 B 15, A to move, turn 8")
    assert {b.label for b in e} == {"roll", "hold"}
    best = e.best
    assert best.chosen and best.optimal and best.loss == 0 and best.loss_exact == 0
    other = next(b for b in e if not b.chosen)
    assert other.loss_exact == best.exact - other.exact > 0
    # A random move lists its outcomes with their probabilities.
    roll = next(b for b in e if b.label == "roll")
    assert sum(o.probability for o in roll.outcomes) == 1
    assert sum(o.probability * (o.reward + o.exact) for o in roll.outcomes) + roll.reward \
        == roll.exact
    with pytest.raises(ValueError, match="notation"):
        s.explain(42)
    with pytest.raises(ValueError):
        s.explain("A 10 B 15")


def test_strategy_rows_and_pandas():
    s = perfectplay.solve("gold-pots", pots=[4, 1, 2, 10, 3])
    rows = s.strategy()
    assert rows[0].value == s.value
    assert all(r.chosen in r.optimal for r in rows)
    pandas = pytest.importorskip("pandas", reason="pandas is not installed")
    df = rows.to_pandas()
    assert list(df.columns) == ["state", "value", "exact", "optimal", "chosen"]
    assert len(df) == len(rows)


def test_distribution_of_a_memory_game():
    s = perfectplay.solve("perfect-memory", rows=2, cols=3, exact=True)
    d = s.distribution()
    assert d.support.dtype.kind == "f" and len(d.support) == len(d.probabilities)
    assert sum(d.probabilities_exact) == 1 and d.tail == 0
    assert d.mean_exact == s.exact
    assert sum(p * t for p, t in zip(d.probabilities_exact, d.support_exact)) == s.exact
    assert d.cdf[-1] == pytest.approx(1.0)
    assert d.quantiles[0.5] == d.quantile(0.5)


def test_distribution_plot(tmp_path):
    matplotlib = pytest.importorskip("matplotlib", reason="matplotlib is not installed")
    matplotlib.use("Agg")
    d = perfectplay.solve("yeetzhee", dice=3, faces=6, groups=[1, 2]).distribution()
    ax = d.plot(title="yeetzhee")
    assert ax.get_xlabel() == "rolls" and ax.get_title() == "yeetzhee"
    assert d.total_name == "rolls"
    ax.figure.savefig(tmp_path / "d.png")
    assert (tmp_path / "d.png").stat().st_size > 0


def test_simulated_play_agrees_with_the_value():
    s = perfectplay.solve("yeetzhee", dice=3, faces=6, groups=[1, 2])
    sim = s.simulate(20000, seed=3)
    low, high = sim.ci95
    assert sim.games == 20000
    assert low - 0.05 <= s.value <= high + 0.05
    assert s.simulate(100, seed=3) == s.simulate(100, seed=3)


def test_the_assignment_method_answers_the_value_only():
    s = perfectplay.solve("grid-game", grid="1 2 3; 4 5 6; 7 8 10", method="assignment")
    assert s.value == perfectplay.solve("grid-game", grid="1 2 3; 4 5 6; 7 8 10",
                                        method="search").value
    with pytest.raises(perfectplay.SolveError, match="assignment"):
        s.explain()


def test_the_package_docs_examples_run():
    import doctest

    import perfectplay.prism

    for module in (perfectplay, perfectplay.prism):
        result = doctest.testmod(module)
        assert result.failed == 0
    assert doctest.testmod(perfectplay).attempted >= 4


def test_yahtzee_by_turns_from_python(cli):
    """A small Yahtzee: the value is the command line's, and a position inside a turn is
    explained (its turn solved again) with the keep that the strategy plays."""
    s = perfectplay.solve("yahtzee", boxes="3s,y", exact=True)
    expected = cli("solve", "yahtzee", "--boxes", "3s,y", "--exact")
    assert s.exact == Fraction(expected["exact"])
    # The exact start value of a game this small is multi-modular; floats go turn by turn.
    assert s.report["method"] == expected["method"] == "multimodular"
    assert perfectplay.solve("yahtzee", boxes="3s,y").report["method"] == "turns"
    e = s.explain("filled -, upper 0, dice 3 3 3 5 6 after roll 1")
    assert e.best.label == "keep 3 3 3"
    assert e.best.next == "filled -, upper 0, kept 3 3 3 before roll 2"
    d = s.distribution()
    assert sum(d.probabilities_exact) == 1
    assert float(sum(t * p for t, p in zip(d.support, d.probabilities_exact))) == pytest.approx(
        s.value, rel=1e-12)
