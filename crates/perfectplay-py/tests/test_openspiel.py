"""OpenSpiel's games solved exactly: Pig as our own Pig, tic-tac-toe a draw, Catch as
OpenSpiel's value iteration says, and a game whose state strings do not identify positions
refused."""

import sys

import pytest

import perfectplay

pyspiel = pytest.importorskip("pyspiel", reason="open_spiel is not installed")
from perfectplay import openspiel  # noqa: E402


@pytest.mark.parametrize("goal", [5, 10, 20])
@pytest.mark.parametrize("loser", ["max", "min"])
def test_pig_is_our_pig(goal, loser):
    # OpenSpiel scores a win +1 and a loss -1; ours is the probability of winning.
    theirs = openspiel.solve("pig", winscore=goal, endless_play_loser=loser, exact=True)
    ours = perfectplay.solve("pig", goal=goal, exact=True)
    assert theirs.exact == 2 * ours.exact - 1


@pytest.mark.parametrize("goal", [5, 20])
def test_pig_solves_as_openspiel_defines_it(goal):
    # Both players may keep stopping with nothing, and OpenSpiel ends such a play at its move
    # limit as a draw; neither gains by it, so whoever is said to lose it, the value is one.
    default = openspiel.solve("pig", winscore=goal, exact=True)
    ours = perfectplay.solve("pig", goal=goal, exact=True)
    assert default.exact == 2 * ours.exact - 1
    assert openspiel.solve("pig", winscore=goal).value == pytest.approx(float(default.exact))


class _Type:
    """What the bridge asks of a game's type: a two-player zero-sum game with terminal
    returns."""

    dynamics = pyspiel.GameType.Dynamics.SEQUENTIAL
    information = pyspiel.GameType.Information.PERFECT_INFORMATION
    chance_mode = pyspiel.GameType.ChanceMode.DETERMINISTIC
    utility = pyspiel.GameType.Utility.ZERO_SUM
    reward_model = pyspiel.GameType.RewardModel.TERMINAL
    short_name = "stand_off"


class _StandOff:
    """Each player in turn may pass or give up (and lose): both would rather pass for ever, so
    the value is whatever an endless play is worth."""

    def __init__(self, mover=0, ended=False):
        self.mover, self.ended = mover, ended

    def __str__(self):
        return f"player {self.mover} gave up" if self.ended else f"player {self.mover} to move"

    def is_terminal(self):
        return self.ended

    def returns(self):
        return [-1.0, 1.0] if self.mover == 0 else [1.0, -1.0]

    def is_chance_node(self):
        return False

    def current_player(self):
        return self.mover

    def legal_actions(self):
        return [0, 1]

    def child(self, action):
        if action == 0:
            return _StandOff(1 - self.mover)
        return _StandOff(self.mover, ended=True)

    def action_to_string(self, player, action):
        return ["pass", "give up"][action]


class _StandOffGame:
    def get_type(self):
        return _Type()

    def num_players(self):
        return 2

    def new_initial_state(self):
        return _StandOff()


def test_a_value_that_depends_on_endless_play_names_the_option():
    with pytest.raises(perfectplay.NonStoppingError, match='endless_play_loser="max"'):
        openspiel.solve(_StandOffGame())
    assert openspiel.solve(_StandOffGame(), endless_play_loser="max", exact=True).exact == -1
    assert openspiel.solve(_StandOffGame(), endless_play_loser="min", exact=True).exact == 1


def test_tic_tac_toe_is_a_draw():
    s = openspiel.solve("tic_tac_toe", exact=True)
    assert s.exact == 0
    assert s.report["states"] == 5478
    start = s.explain()
    assert start.player == "max" and len(start) == 9
    # Every opening move draws with best play.
    assert all(b.exact == 0 for b in start)


def value_iteration_value(game, cyclic=False):
    vi = pytest.importorskip("open_spiel.python.algorithms.value_iteration",
                             reason="OpenSpiel's value iteration needs cvxpy")
    values = vi.value_iteration(game, depth_limit=-1, threshold=1e-12, cyclic_game=cyclic)

    def value(state):
        if state.is_chance_node():
            return sum(p * value(state.child(a)) for a, p in state.chance_outcomes())
        return values[str(state)]

    return value(game.new_initial_state())


@pytest.mark.parametrize("rows,columns", [(3, 5), (4, 9), (5, 11), (6, 13)])
def test_catch_matches_openspiels_value_iteration(rows, columns):
    game = pyspiel.load_game("catch", {"rows": rows, "columns": columns})
    s = openspiel.solve(game, exact=True)
    assert float(s.exact) == pytest.approx(value_iteration_value(game), abs=1e-9)
    # The ball falls in one of the columns, uniformly.
    assert s.exact.denominator in (1, columns) or columns % s.exact.denominator == 0


def test_pig_matches_openspiels_value_iteration():
    # OpenSpiel's search of the states recurses once per move.
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 100_000))
    game = pyspiel.load_game("pig", {"winscore": 8})
    s = openspiel.solve(game, endless_play_loser="max")
    assert s.value == pytest.approx(value_iteration_value(game, cyclic=True), abs=1e-9)


def test_keys_that_do_not_identify_positions_are_refused():
    with pytest.raises(ValueError, match="two different OpenSpiel positions"):
        openspiel.solve("2048", max_tile=8)


def test_games_outside_the_bridge_are_refused():
    with pytest.raises(ValueError, match="perfect information"):
        openspiel.solve("kuhn_poker")
    with pytest.raises(ValueError, match="sequential"):
        openspiel.solve("matrix_rps")
