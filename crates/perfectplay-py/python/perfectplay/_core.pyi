"""Type hints of the compiled module `perfectplay._core` (its public face is `perfectplay`)."""

from fractions import Fraction
from typing import Any, Dict, Hashable, Iterable, List, Optional, Sequence, Tuple, Union

__version__: str

Number = Union[int, Fraction]
Outcome = Union[
    Tuple[Number, Hashable],
    Tuple[Number, Hashable, Number],
    Tuple[Number, Hashable, Number, str],
]

class SolveError(RuntimeError):
    """The engine could not solve the game: its value is undefined, a state limit was
    reached, or it is too large."""

class NonStoppingError(SolveError):
    """Two players together can keep a play going for ever, and the game does not say
    who loses such a play."""

def fraction(text: str) -> Fraction:
    """The ``Fraction`` written ``p/q``, of any length."""
    ...

class Terminal:
    """The end of a play, worth ``payoff``."""

    def __init__(self, payoff: Number) -> None: ...
    @property
    def payoff(self) -> Number: ...

class Move:
    """A move of a decision: to ``next_state``, or a random move with ``chance=`` outcomes;
    ``reward`` is collected when it is played."""

    def __init__(
        self,
        label: Any,
        next_state: Hashable = None,
        reward: Optional[Number] = None,
        *,
        chance: Optional[Iterable[Outcome]] = None,
    ) -> None: ...
    @property
    def label(self) -> str: ...
    @property
    def next_state(self) -> Optional[Hashable]: ...
    @property
    def reward(self) -> Number: ...
    @property
    def chance(self) -> Optional[List[Tuple[Number, Hashable, Number]]]: ...

class Decision:
    """A decision of ``player`` ("max" or "min") among ``moves``."""

    def __init__(self, player: str, moves: Iterable[Move]) -> None: ...
    @property
    def player(self) -> str: ...
    @property
    def moves(self) -> List[Move]: ...

class Chance:
    """A chance node over ``(probability, next_state, reward)`` outcomes summing to one."""

    def __init__(self, outcomes: Iterable[Outcome]) -> None: ...
    @property
    def outcomes(self) -> List[Tuple[Number, Hashable, Number]]: ...

class Solution:
    @property
    def value(self) -> float: ...
    @property
    def exact(self) -> Optional[Fraction]: ...
    def report(self) -> Dict[str, Any]: ...
    def serve(
        self, name: str, params: List[Tuple[str, str]], host: str = ..., port: int = ...
    ) -> str: ...
    def stop_serving(self) -> None: ...
    def explain_html(
        self, name: str, params: List[Tuple[str, str]], state: Any = ...
    ) -> str: ...
    def explain(self, state: Any = None) -> Dict[str, Any]: ...
    def strategy(self) -> List[Tuple[Any, float, Optional[Fraction], List[str], str]]: ...
    def distribution(self, tail: float = 1e-12, max_steps: int = 1000000) -> Dict[str, Any]: ...
    def simulate(self, games: int, seed: int = 0) -> Dict[str, Any]: ...
    def states(self) -> int: ...

class PrismModel:
    def check(self, prop: str, exact: bool = False) -> Dict[str, Any]: ...
    def properties(self) -> List[str]: ...
    @property
    def states(self) -> int: ...
    @property
    def build_seconds(self) -> float: ...

def games() -> List[Dict[str, Any]]: ...
def solve_builtin(
    name: str,
    params: Sequence[Tuple[str, str]],
    exact: bool = False,
    threads: Optional[int] = None,
    max_states: Optional[int] = None,
) -> Solution: ...
def solve_game(
    game: Any, exact: bool = False, max_states: Optional[int] = None, accept_floats: bool = False
) -> Solution: ...
def load_prism(
    path: str,
    constants: Sequence[Tuple[str, str]],
    props: Optional[str] = None,
    max_states: Optional[int] = None,
) -> PrismModel: ...
