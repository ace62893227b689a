"""OpenSpiel's games solved exactly.

:func:`solve` takes a ``pyspiel`` game (or its name and parameters) that is
sequential, of perfect information, with one player or two in a zero-sum (or
constant-sum) game, and with explicit chance outcomes, and solves it with the
perfectplay engine: the value is player 0's optimal expected return, player 0
maximising it and player 1 minimising it, chance averaging.

How positions are identified: **by the state's string** (``str(state)``, or
the ``key`` function given). Two histories with the same key are taken to be
the same position, which is what
makes cycles (Pig's turns that score nothing) finite. A game whose string does
not identify its position (one that shows the history, or hides part of the
position) would be solved wrongly, so the bridge checks, each time a string is
met again, that the player to move and the legal moves (or the returns at the
end) are those seen before, and raises ``ValueError`` if they differ.

Numbers: OpenSpiel gives probabilities and returns as floats. Each is read as the
simplest fraction within a few units of the float's last place (0.1666… becomes
1/6); the probabilities of each chance node must then sum to exactly one, or the
solve stops with a ``ValueError`` naming the state. A game whose numbers are not
such short fractions is not for exact solving.

Games with a move limit (OpenSpiel's ``pig`` has ``horizon``, 1000 moves by
default, which its state string does not show) are solved without the limit:
the limit changes the value by less than the chance of a game lasting that
long.

Plays that never end. Where the two players together could keep a play going
for ever (in OpenSpiel's ``pig`` both may keep stopping with a turn total of
zero), OpenSpiel ends it at the move limit with the outcome the game gives
there (a draw in ``pig``). By default the bridge solves such a game twice,
with the endless play lost by player 0 and then by player 1: every outcome
OpenSpiel could give lies between those two, so where the two values agree
(neither player gains by dragging the play on, as in ``pig``) that is the
game's value as OpenSpiel defines it, and the solve returns it. Where they
differ, the value depends on that outcome, and ``NonStoppingError`` says so
and names ``endless_play_loser``, which then decides.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable, Dict, Hashable, Optional

from . import Chance, Decision, Game, Move, NonStoppingError, Solution, Terminal
from . import solve as _solve

__all__ = ["OpenSpielGame", "solve"]


def _short(x: Any, width: int = 70) -> str:
    text = repr(x)
    return text if len(text) <= width else text[: width - 3] + "..."


def _exact(x: float, what: str, where: str) -> Fraction:
    """The simplest fraction within a few ulps of ``x``."""
    f = Fraction(x).limit_denominator(1 << 32)
    if abs(float(f) - x) > 4 * abs(x) * 2.0**-52:
        f = Fraction(x)  # not a short fraction: the float's own value
        if f.denominator >= 1 << 62:
            raise ValueError(
                f"{what} {x!r} at OpenSpiel state {where!r} is no short fraction; the game "
                "cannot be solved exactly"
            )
    return f


class OpenSpielGame(Game):
    """A ``pyspiel`` game as a perfectplay :class:`~perfectplay.Game`, its states keyed by
    their strings (see the module's documentation)."""

    def __init__(
        self,
        game: Any,
        endless_play_loser: Optional[str] = None,
        key: Optional[Callable[[Any], Hashable]] = None,
    ) -> None:
        import pyspiel

        t = game.get_type()
        problems = []
        if t.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
            problems.append("its moves are not sequential")
        if t.information != pyspiel.GameType.Information.PERFECT_INFORMATION:
            problems.append("it is not of perfect information")
        if t.chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC:
            problems.append("its chance is sampled, not explicit")
        players = game.num_players()
        if players > 2:
            problems.append(f"it has {players} players")
        if players == 2 and t.utility not in (
            pyspiel.GameType.Utility.ZERO_SUM,
            pyspiel.GameType.Utility.CONSTANT_SUM,
        ):
            problems.append("its two players' returns are not zero-sum or constant-sum")
        if problems:
            raise ValueError(
                f"OpenSpiel game {t.short_name!r} cannot be solved: " + "; ".join(problems)
            )
        if endless_play_loser not in (None, "max", "min"):
            raise ValueError(
                f'endless_play_loser is "max", "min" or None, not {endless_play_loser!r}'
            )
        self.game = game
        self._endless = endless_play_loser
        self._key_of = key if key is not None else str
        self._rewards = t.reward_model == pyspiel.GameType.RewardModel.REWARDS
        self._states: Dict[str, Any] = {}
        # Each distinct float is read once (games repeat a few: 1/6, +1, -1).
        self._numbers: Dict[float, Fraction] = {}
        self._signature: Dict[str, Any] = {}

    def _key(self, state: Any) -> Hashable:
        """The key of ``state``, kept for ``expand`` when new, checked against the position
        seen before under the same key otherwise."""
        key = self._key_of(state)
        sig = self._signature_of(state)
        seen = self._signature.get(key)
        if seen is None:
            self._signature[key] = sig
            self._states[key] = state
        elif seen != sig:
            raise ValueError(
                f"the key {_short(key)} stands for two different OpenSpiel positions "
                f"({_short(seen)} and {_short(sig)}): keys must identify positions. Pass a "
                "key that does, such as key=lambda s: (str(s), s.current_player())"
            )
        return key

    def _signature_of(self, state: Any) -> Any:
        """What must agree between two states under one key: who moves and how, or the
        returns at the end (which, in a game with rewards on the way, depend on the path
        and are not asked for)."""
        if state.is_terminal():
            return ("terminal",) if self._rewards else ("terminal", tuple(state.returns()))
        if state.is_chance_node():
            return ("chance", tuple(state.chance_outcomes()))
        return (f"player {state.current_player()}", tuple(state.legal_actions()))

    def _exact(self, x: float, what: str, state: Any) -> Fraction:
        f = self._numbers.get(x)
        if f is None:
            f = self._numbers[x] = _exact(x, what, str(state))
        return f

    def endless_play_loser(self) -> Optional[str]:
        return self._endless

    def start(self) -> Hashable:
        return self._key(self.game.new_initial_state())

    def _child(self, state: Any, action: int):
        child = state.child(action)
        reward = self._exact(child.rewards()[0], "reward", state) if self._rewards else 0
        return self._key(child), reward

    def expand(self, key: str):
        state = self._states[key]
        if state.is_terminal():
            if self._rewards:
                return Terminal(0)
            return Terminal(self._exact(state.returns()[0], "return", state))
        if state.is_chance_node():
            outcomes = []
            for action, p in state.chance_outcomes():
                child, reward = self._child(state, action)
                label = state.action_to_string(state.current_player(), action)
                outcomes.append((self._exact(p, "probability", state), child, reward, label))
            return Chance(outcomes)
        player = state.current_player()
        moves = []
        for action in state.legal_actions():
            child, reward = self._child(state, action)
            moves.append(Move(state.action_to_string(player, action), child, reward))
        return Decision("max" if player == 0 else "min", moves)


def solve(
    game_or_name: Any,
    *,
    exact: bool = False,
    max_states: Optional[int] = None,
    endless_play_loser: Optional[str] = None,
    key: Optional[Callable[[Any], Hashable]] = None,
    **params: Any,
) -> Solution:
    """Solves an OpenSpiel game exactly: a ``pyspiel`` game, or a name for
    ``pyspiel.load_game`` with ``params`` as its parameters
    (``solve("pig", winscore=20)``). The value is player 0's optimal expected
    return; states in :meth:`~perfectplay.Solution.explain` and the strategy are
    OpenSpiel's state strings.

    ``endless_play_loser`` ("max" or "min") says who loses a play that never ends,
    for games whose players can keep passing (OpenSpiel's Pig lets a player stop
    with a turn total of zero); see :meth:`perfectplay.Game.endless_play_loser`.
    Left out, such a game is solved as OpenSpiel defines it where the outcome of an
    endless play cannot change the value (see the module's documentation), and
    ``NonStoppingError`` names this option where it can.

    ``key`` maps an OpenSpiel state to the hashable key that identifies its
    position (by default ``str``); 2048, whose string does not say whether chance
    or the player moves next, needs ``key=lambda s: (str(s), s.current_player())``."""
    import pyspiel

    if isinstance(game_or_name, str):
        game = pyspiel.load_game(game_or_name, params)
    else:
        if params:
            raise ValueError("parameters go with a game's name, not with a loaded game")
        game = game_or_name

    def run(loser: Optional[str]) -> Solution:
        return _solve(OpenSpielGame(game, loser, key), exact=exact, max_states=max_states)

    if endless_play_loser is not None:
        return run(endless_play_loser)
    try:
        return run(None)
    except NonStoppingError as endless:
        cycle = endless
    # Player 0 losing an endless play is the least it can be worth, player 1 losing it the
    # most: OpenSpiel's outcome at its move limit lies between.
    values = []
    for loser in ("max", "min"):
        try:
            values.append(run(loser))
        except NonStoppingError:
            values.append(None)
    low, high = values
    if low is not None and high is not None and _same(low, high, exact):
        return low
    shown = ", ".join(
        f"{v.value!r} if player {i} loses it" if v is not None else f"undefined if player {i} loses it"
        for i, v in enumerate(values)
    )
    raise NonStoppingError(
        f"{cycle}; the value depends on who loses a play that never ends ({shown}): "
        'say which with endless_play_loser="max" (player 0) or "min" (player 1)'
    ) from cycle


def _same(a: Solution, b: Solution, exact: bool) -> bool:
    """Whether two solves of one game give one value: equal fractions, or floats within the
    rounding of the two solves."""
    if exact:
        return a.exact == b.exact
    return abs(a.value - b.value) <= 1e-12 * max(1.0, abs(a.value))
