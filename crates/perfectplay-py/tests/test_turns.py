"""Python games with turn-local states (Game.has_turns, Game.turn_of): the same answers as
the game without the hook and as a recursion written here, queries inside a turn, and a
broken hook raising."""

from fractions import Fraction as F
from functools import lru_cache

import pytest

import perfectplay
from perfectplay import Chance, Decision, Move, Terminal


class Dice(perfectplay.Game):
    """Three turns; in each, roll a die up to three times and bank the last roll, or stop
    after a roll of 1 with nothing. A turn start is (turn,); inside, (turn, rolls, die)."""

    def __init__(self, turns=True):
        self.turns = turns

    def start(self):
        return (0,)

    def expand(self, s):
        if s[0] == 3:
            return Terminal(0)
        nxt = (s[0] + 1,)
        if len(s) == 1:
            return Chance([(F(1, 6), (s[0], 1, d), 0) for d in range(1, 7)])
        _, rolls, die = s
        moves = [Move("bank", nxt, reward=die)]
        if rolls < 3:
            moves.append(Move("roll", chance=[(F(1, 6), (s[0], rolls + 1, d), 0)
                                              for d in range(1, 7)]))
        return Decision("max", moves)

    def has_turns(self):
        return self.turns

    def turn_of(self, s):
        return None if len(s) == 1 else (s[0],)


@lru_cache(maxsize=None)
def best(rolls):
    """The value of a turn after `rolls` rolls, averaged over the die: banking d or rolling."""
    if rolls == 3:
        return F(7, 2)
    again = best(rolls + 1)
    return sum(max(F(d), again) for d in range(1, 7)) / 6


def test_values_match_the_whole_game_and_a_recursion():
    want = 3 * best(1)
    by_turns = perfectplay.solve(Dice(), exact=True)
    assert by_turns.exact == want
    assert perfectplay.solve(Dice(turns=False), exact=True).exact == want
    assert by_turns.report["method"] == "turns"
    assert by_turns.report["kept"] == 4
    assert perfectplay.solve(Dice()).value == pytest.approx(float(want), abs=1e-12)


def test_queries_inside_a_turn():
    s = perfectplay.solve(Dice(), exact=True)
    e = s.explain((1, 2, 4))
    assert [b.label for b in e] == ["bank", "roll"]
    assert e[0].exact == 4 + best(1)
    assert e[1].exact == F(7, 2) + best(1)
    assert e[0].chosen
    assert e[0].next == (2,)
    rows = {r.state: r for r in s.strategy()}
    assert rows[(2, 1, 6)].chosen == "bank"
    assert rows[(2, 1, 1)].chosen == "roll"
    d = s.distribution()
    whole = perfectplay.solve(Dice(turns=False), exact=True).distribution()
    assert list(d.support) == list(whole.support)
    assert d.probabilities_exact == whole.probabilities_exact
    assert sum(d.probabilities_exact) == 1
    assert s.simulate(2000, seed=3).mean == pytest.approx(float(3 * best(1)), abs=0.3)


class Leaky(Dice):
    """Turn 1's rolls say they belong to turn 0: the engine refuses, naming a state."""

    def turn_of(self, s):
        if len(s) == 1:
            return None
        return (0,) if s[0] == 1 else (s[0],)


def test_a_state_local_to_another_turn_raises():
    with pytest.raises(ValueError, match=r"local to \(0,\)"):
        perfectplay.solve(Leaky())


class Raising(Dice):
    def turn_of(self, s):
        raise RuntimeError("no turns today")


def test_a_turn_of_that_raises_is_raised():
    with pytest.raises(RuntimeError, match="no turns today"):
        perfectplay.solve(Raising())
