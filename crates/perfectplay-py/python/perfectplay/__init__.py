"""perfectplay: finite games of chance and strategy, solved exactly.

Solve a built-in game by name, with its parameters as keyword arguments::

    >>> import perfectplay
    >>> s = perfectplay.solve("pig", goal=20)
    >>> round(s.value, 6)
    0.615559

or a game written in Python: subclass :class:`Game` with ``start()`` and
``expand(state)``, where ``expand`` returns a :class:`Terminal`, a
:class:`Decision` among :class:`Move` objects, or a :class:`Chance` node::

    >>> from fractions import Fraction
    >>> class Coin(perfectplay.Game):
    ...     # Flip up to 3 times: heads scores 1, tails ends the game.
    ...     def start(self):
    ...         return 0
    ...     def expand(self, flips):
    ...         if flips in (3, "done"):
    ...             return perfectplay.Terminal(0)
    ...         half = Fraction(1, 2)
    ...         return perfectplay.Decision("max", [
    ...             perfectplay.Move("stop", "done"),
    ...             perfectplay.Move("flip", chance=[(half, flips + 1, 1), (half, "done", 0)]),
    ...         ])
    >>> perfectplay.solve(Coin(), exact=True).exact
    Fraction(7, 8)

Values are floats by default and exact fractions with ``exact=True``; every
probability a game gives must be exact (an int or a ``Fraction``) and those of
each node must sum to exactly one.

The result (:class:`Solution`) answers the questions after the value: the best
move anywhere and what every other move loses (:meth:`Solution.explain`), the
whole strategy (:meth:`Solution.strategy`), the distribution of the total
(:meth:`Solution.distribution`) and simulated play (:meth:`Solution.simulate`).

See also :mod:`perfectplay.openspiel` (OpenSpiel's games solved exactly) and
:mod:`perfectplay.prism` (models in the PRISM language).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Dict, Hashable, Iterator, List, Optional, Sequence, Tuple, Union

from . import _core
from ._core import Chance, Decision, Move, NonStoppingError, SolveError, Terminal

__version__ = _core.__version__

__all__ = [
    "Branch",
    "Chance",
    "Decision",
    "Distribution",
    "Explanation",
    "Game",
    "Move",
    "NonStoppingError",
    "Simulation",
    "SolveError",
    "Solution",
    "Strategy",
    "StrategyRow",
    "Terminal",
    "games",
    "solve",
]

Node = Union[Terminal, Decision, Chance]


class Game:
    """A game written in Python. Subclass it and define :meth:`start` and :meth:`expand`.

    States are any hashable values (ints, strings, tuples, frozensets, frozen
    dataclasses); two equal states must have the same future. ``expand`` must
    be a pure function of the state: the engine may call it more than once.
    """

    def start(self) -> Hashable:
        """The start state."""
        raise NotImplementedError("a Game defines start()")

    def expand(self, state: Any) -> Node:
        """What happens at ``state``: ``Terminal(payoff)``, ``Decision("max" | "min",
        moves)`` or ``Chance(outcomes)``, where outcomes are ``(probability, next_state,
        reward)`` tuples."""
        raise NotImplementedError("a Game defines expand(state)")

    def total_name(self) -> Optional[str]:
        """What the total counts, in a few words ("moves", "points"), for
        :attr:`Distribution.total_name` and its plot. The default, None, says "total"."""
        return None

    def has_turns(self) -> bool:
        """Whether :meth:`turn_of` marks turn-local states. The default, False, keeps
        every state; True lets the engine store values for kept states only and solve each
        turn in scratch storage (see ``Model::turn_of`` in the Rust documentation)."""
        return False

    def turn_of(self, state: Any) -> Optional[Hashable]:
        """For a state inside a turn, the kept state that starts that turn; None (the
        default) for a kept state. A local state must be reached only inside its own turn,
        and the start state is kept. Used only where :meth:`has_turns` is True."""
        return None

    def endless_play_loser(self) -> Optional[str]:
        """Who loses a play that never ends, in a game where the two players together
        could keep a play going for ever: ``"max"`` or ``"min"``. The default, None,
        allows no such cycle (the solve then raises :class:`SolveError`). With ``"max"``
        the value is the best Max can guarantee while ending the play (as in a
        reachability game, where never reaching the goal is worth nothing)."""
        return None


def games() -> List[Dict[str, Any]]:
    """The built-in games: for each a dict with its ``name``, ``summary``, ``notation``
    (how its states are written for :meth:`Solution.explain`), an ``example`` and its
    ``params`` (name, help, kind, default, required, and min, max or choices)."""
    return _core.games()


def _param_text(name: str, value: Any) -> str:
    """A keyword argument as the parameter text the command line would take."""
    if isinstance(value, bool):
        raise ValueError(f"parameter '{name}': expected a number or text, not {value!r}")
    if isinstance(value, (int, str)):
        return str(value)
    if isinstance(value, (list, tuple)):
        if all(isinstance(v, (list, tuple)) for v in value):
            # A grid: rows of numbers.
            return "; ".join(" ".join(str(x) for x in row) for row in value)
        return ",".join(str(v) for v in value)
    raise ValueError(
        f"parameter '{name}': expected an int, a string or a list, not {type(value).__name__}"
    )


def solve(
    game: Union[str, Game, Any],
    *,
    exact: bool = False,
    threads: Optional[int] = None,
    max_states: Optional[int] = None,
    accept_floats: bool = False,
    **params: Any,
) -> "Solution":
    """Solves a game and returns its :class:`Solution`.

    ``game`` is the name of a built-in game (see :func:`games`; its parameters go
    in ``params``: ``solve("pig", goal=100)``), or a :class:`Game` written in
    Python (or any object with ``start()`` and ``expand(state)``).

    - ``exact``: compute in exact rationals (:attr:`Solution.exact` is then a
      ``Fraction``).
    - ``threads``: threads for the built-in games' methods that use them (the
      default: every core up to 8 where it pays).
    - ``max_states``: stop with :class:`SolveError` beyond this many states.
    - ``accept_floats``: read floats a Python game gives as the exact binary
      fractions they store (``0.1`` is then 3602879701896397/2**55, and three
      outcomes of probability 0.1, 0.2 and 0.7 do not sum to one); without it a
      float probability, reward or payoff raises ``ValueError``.

    A bad parameter raises ``ValueError`` naming it; an exception in a game's
    ``expand`` reaches the caller with the state named; Ctrl-C stops a long solve
    with ``KeyboardInterrupt``. Solving a built-in game releases the GIL.
    """
    if isinstance(game, str):
        if accept_floats:
            raise ValueError("accept_floats applies to games written in Python")
        core = _core.solve_builtin(
            game,
            [(k, _param_text(k, v)) for k, v in params.items()],
            exact=bool(exact),
            threads=_count("threads", threads),
            max_states=_count("max_states", max_states),
        )
        named = [(k, _param_text(k, v)) for k, v in params.items()]
        return Solution(core, builtin=True, name=game, params=named)
    if params:
        raise ValueError(
            f"parameters {sorted(params)} apply to built-in games; a Python game takes its own"
        )
    if threads is not None:
        _count("threads", threads)
    core = _core.solve_game(
        game,
        exact=bool(exact),
        max_states=_count("max_states", max_states),
        accept_floats=bool(accept_floats),
    )
    return Solution(core, builtin=False)


def _count(name: str, value: Optional[int]) -> Optional[int]:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive int or None, not {value!r}")
    return value


def _fraction(text: Optional[str]) -> Optional[Fraction]:
    # Not Fraction(text): Python's limit on converting long digit strings to int would
    # refuse a value of more than 4,300 digits.
    return None if text is None else _core.fraction(text)


def _number_text(x: Any) -> str:
    """``x`` as text; a ``Fraction`` too long for Python's own ``str`` (beyond 4,300
    digits) as its float and its length."""
    try:
        return str(x)
    except ValueError:
        digits = [int(b.bit_length() * 0.30103) + 1 for b in (x.numerator, x.denominator)]
        return f"{float(x)!r} (exact: a fraction of about {digits[0]} / {digits[1]} digits)"


@dataclass(frozen=True)
class Branch:
    """A move of a decision or an outcome of chance, with its value.

    For a move: ``loss`` (what it gives up against the best move, never negative
    for the deciding player), ``optimal`` and ``chosen`` (the move the computed
    strategy plays); for an outcome, and the outcomes of a random move:
    ``probability``. ``next`` is the state it leads to (``None`` for a random
    move: see ``outcomes``). Exact fields are ``Fraction`` in exact mode and
    ``None`` otherwise.
    """

    label: str
    value: float
    exact: Optional[Fraction]
    reward: Fraction
    next: Any
    probability: Optional[Fraction] = None
    loss: Optional[float] = None
    loss_exact: Optional[Fraction] = None
    optimal: bool = False
    chosen: bool = False
    outcomes: List["Branch"] = field(default_factory=list)

    @staticmethod
    def _of(d: Dict[str, Any]) -> "Branch":
        return Branch(
            label=d["label"],
            value=d["value"],
            exact=d["value_exact"],
            reward=d["reward"],
            next=d["next"],
            probability=d.get("probability"),
            loss=d.get("loss"),
            loss_exact=d.get("loss_exact"),
            optimal=d.get("optimal", False),
            chosen=d.get("chosen", False),
            outcomes=[Branch._of(o) for o in d["outcomes"]],
        )


@dataclass(frozen=True)
class Explanation:
    """A state with the value of every move (a decision) or outcome (chance).

    Iterating over it gives the :class:`Branch` objects in the game's order.
    """

    state: Any
    kind: str
    player: Optional[str]
    value: float
    exact: Optional[Fraction]
    branches: List[Branch]

    def __iter__(self) -> Iterator[Branch]:
        return iter(self.branches)

    def __len__(self) -> int:
        return len(self.branches)

    def __getitem__(self, i: int) -> Branch:
        return self.branches[i]

    @property
    def best(self) -> Optional[Branch]:
        """The move the computed strategy plays here (``None`` away from a decision)."""
        return next((b for b in self.branches if b.chosen), None)

    def __str__(self) -> str:
        lines = [f"{self.state!r}: {self.kind}" + (f" of {self.player}" if self.player else "")
                 + f", value {self.exact if self.exact is not None else self.value}"]
        for b in self.branches:
            v = b.exact if b.exact is not None else b.value
            if self.kind == "decision":
                loss = b.loss_exact if b.loss_exact is not None else b.loss
                mark = "*" if b.chosen else ("=" if b.optimal else " ")
                lines.append(f" {mark} {b.label}: value {v}, loss {loss}")
            else:
                lines.append(f"   {b.label}: probability {b.probability}, value {v}")
        return "\n".join(lines)


@dataclass(frozen=True)
class StrategyRow:
    """A decision state: its value, every optimal move, and the move played."""

    state: Any
    value: float
    exact: Optional[Fraction]
    optimal: List[str]
    chosen: str


class Strategy(List[StrategyRow]):
    """The rows of :meth:`Solution.strategy`, a list with :meth:`to_pandas`."""

    def to_pandas(self) -> Any:
        """A ``pandas.DataFrame`` with columns state, value, exact, optimal, chosen
        (needs pandas)."""
        try:
            import pandas
        except ImportError as e:  # pragma: no cover - depends on the environment
            raise ImportError("Strategy.to_pandas needs pandas: pip install pandas") from e
        return pandas.DataFrame(
            {
                "state": [r.state for r in self],
                "value": [r.value for r in self],
                "exact": [r.exact for r in self],
                "optimal": [r.optimal for r in self],
                "chosen": [r.chosen for r in self],
            }
        )


@dataclass(frozen=True)
class Distribution:
    """The distribution of the total under the computed strategy.

    ``support`` (the totals, increasing), ``probabilities`` and ``cdf`` are numpy
    arrays; in exact mode ``probabilities_exact`` lists them as ``Fraction``
    objects. ``tail`` is the probability still in play when the computation
    stopped (zero for a game without cycles); ``quantiles`` maps 0.01, 0.05,
    0.25, 0.5, 0.75, 0.95 and 0.99 to totals (``None`` beyond the tail).
    ``total_name`` says what the total counts, as the game names it ("moves",
    "rolls"; "total" when it does not say).
    """

    support: Any
    probabilities: Any
    cdf: Any
    mean: float
    mean_exact: Optional[Fraction]
    std: float
    tail: float
    tail_exact: Optional[Fraction]
    quantiles: Dict[float, Optional[float]]
    probabilities_exact: Optional[List[Fraction]] = None
    support_exact: Optional[List[Fraction]] = None
    total_name: str = "total"

    def quantile(self, q: float) -> Optional[float]:
        """The least total whose cumulative probability reaches ``q`` (``None`` if the
        listed totals do not reach it)."""
        import numpy

        i = int(numpy.searchsorted(self.cdf, q - 1e-12))
        return float(self.support[i]) if i < len(self.support) else None

    def plot(self, ax: Any = None, cdf: bool = False, title: Optional[str] = None) -> Any:
        """Draws the probabilities (or, with ``cdf=True``, the cumulative distribution)
        with matplotlib, marks the mean, and returns the axes."""
        try:
            import matplotlib.pyplot as plt
        except ImportError as e:  # pragma: no cover - depends on the environment
            raise ImportError("Distribution.plot needs matplotlib: pip install matplotlib") from e
        if ax is None:
            _, ax = plt.subplots()
        if cdf:
            ax.step(self.support, self.cdf, where="post")
            ax.set_ylabel(f"P({self.total_name} ≤ x)")
        else:
            width = 0.8 * float(min(1.0, *(b - a for a, b in zip(self.support, self.support[1:])))) \
                if len(self.support) > 1 else 0.8
            ax.bar(self.support, self.probabilities, width=width)
            ax.set_ylabel("probability")
        ax.axvline(self.mean, color="black", linestyle="--", label=f"mean {self.mean:.6g}")
        ax.set_xlabel(self.total_name)
        ax.legend()
        if title:
            ax.set_title(title)
        return ax


@dataclass(frozen=True)
class Simulation:
    """Games played with the computed strategy: their mean total, its standard
    deviation and a 95% confidence interval of the mean (``interval`` says how it
    was made: "wilson" for win/lose totals, "normal" otherwise)."""

    games: int
    mean: float
    std: float
    ci95: Optional[tuple]
    interval: str


class Solution:
    """A solved game: :attr:`value` (and :attr:`exact`), :attr:`report`, and the
    queries :meth:`explain`, :meth:`strategy`, :meth:`distribution` and
    :meth:`simulate`.

    For a built-in game the value comes from the engine's fastest method (as the
    command line's ``solve``); the first query explores the game once more and
    keeps it.
    """

    def __init__(
        self,
        core: Any,
        builtin: bool,
        name: Optional[str] = None,
        params: Optional[List[Tuple[str, str]]] = None,
    ) -> None:
        self._core = core
        self._builtin = builtin
        self._name = name or "game"
        self._params = list(params or [])

    def serve(self, host: str = "127.0.0.1", port: int = 0, open_browser: bool = False) -> str:
        """Serves the explorer of this game (the page of ``perfectplay serve``: every
        move's value and loss, play against the strategy, the distribution) from a
        thread of this process, and returns the page's address. ``port`` 0 takes any
        free port; the server stops with the process or :meth:`stop_serving`.
        """
        url = self._core.serve(self._name, self._params, host, port)
        if open_browser:
            import webbrowser

            webbrowser.open(url)
        return url

    def stop_serving(self) -> None:
        """Stops the explorers :meth:`serve` started."""
        self._core.stop_serving()

    def explain_html(self, state: Any = None) -> str:
        """The position ``state`` (the start for None) as HTML: every move with its
        value and loss, as the explorer shows it."""
        return self._core.explain_html(self._name, self._params, state)

    def _repr_html_(self) -> str:
        """The start position in a notebook."""
        return self.explain_html()

    @property
    def value(self) -> float:
        """The value of the start state (optimal expected total) as a float."""
        return self._core.value

    @property
    def exact(self) -> Optional[Fraction]:
        """The exact value as a ``Fraction`` when solved with ``exact=True``, else None."""
        return self._core.exact

    @property
    def error_bound(self) -> float:
        """A bound on the distance between every float value of the solve and the exact
        value of the game as given, every rounding included: 0 where nothing rounded (and
        for ``exact=True``)."""
        return self.report["error_bound"]

    @property
    def report(self) -> Dict[str, Any]:
        """How the value was computed: value, exact (a ``Fraction`` or None), states,
        components, method, seconds, error_bound and the method's own figures."""
        r = self._core.report()
        r["exact"] = _fraction(r.get("exact"))
        return r

    def explain(self, state: Any = None) -> Explanation:
        """Every move (or chance outcome) of ``state`` with its value; for moves also
        what each loses against the best and which one the strategy plays.

        ``state`` is the start for None; for a built-in game a string in its
        notation (see ``games()``), for a Python game the state itself.
        """
        d = self._core.explain(state)
        return Explanation(
            state=d["state"],
            kind=d["kind"],
            player=d["player"],
            value=d["value"],
            exact=d["value_exact"],
            branches=[Branch._of(b) for b in d["branches"]],
        )

    def strategy(self) -> Strategy:
        """Every decision state with its value, its optimal moves and the move played."""
        return Strategy(StrategyRow(*row) for row in self._core.strategy())

    def distribution(self, tail: float = 1e-12, max_steps: int = 1_000_000) -> Distribution:
        """The distribution of the total under the computed strategy. In a game with
        cycles it stops once at most ``tail`` probability is still in play (or after
        ``max_steps`` rounds of a cycle)."""
        import numpy

        d = self._core.distribution(tail, max_steps)
        return Distribution(
            support=numpy.asarray(d["support"], dtype=float),
            probabilities=numpy.asarray(d["probabilities"], dtype=float),
            cdf=numpy.asarray(d["cdf"], dtype=float),
            mean=d["mean"],
            mean_exact=d["mean_exact"],
            std=d["std"],
            tail=d["tail"],
            tail_exact=d["tail_exact"],
            quantiles=d["quantiles"],
            probabilities_exact=d.get("probabilities_exact"),
            support_exact=d.get("support_exact"),
            total_name=d["total_name"],
        )

    def simulate(self, n: int = 10_000, seed: int = 0) -> Simulation:
        """Plays ``n`` games with the computed strategy (chance drawn from ``seed``)."""
        _count("n", n)
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise ValueError(f"seed must be a non-negative int, not {seed!r}")
        d = self._core.simulate(n, seed)
        return Simulation(d["games"], d["mean"], d["std"],
                          tuple(d["ci95"]) if d["ci95"] is not None else None, d["interval"])

    @property
    def states(self) -> int:
        """The number of states explored."""
        return self._core.states()

    def __repr__(self) -> str:
        v = _number_text(self.exact if self.exact is not None else self.value)
        r = self._core.report()
        return f"<perfectplay.Solution value={v} states={r.get('states')} method={r.get('method')}>"
