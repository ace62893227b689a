"""Models in the PRISM language (dtmc, mdp and smg), checked by the perfectplay engine.

    >>> from perfectplay import prism
    >>> m = prism.load("brp.prism", const={"N": 16, "MAX": 2})  # doctest: +SKIP
    >>> m.check('P=? [ F s=5 ]').value                          # doctest: +SKIP
    0.0004233334437734...

The language and the properties are those of the command line's ``perfectplay
check`` (see ``perfectplay check --help``): ``P=?``, ``Pmin=?``, ``Pmax=?`` of
``F φ``, ``ψ U φ``, ``G φ``, ``ψ W φ``, ``ψ R φ`` and ``X φ`` (and step bounds, ``F<=k φ``,
``F>=k φ``, ``F=k φ``, ``F[a,b] φ``, ``G<=k φ``, ``ψ W<=k φ``); ``R=?``, ``Rmin=?``,
``Rmax=?`` of ``F φ``, ``Fc φ`` and ``F0 φ`` (a play that misses φ earns its total,
or counts zero: ``error_bound`` says how close a value is where it is bounded rather
than solved), ``C``, ``C<=k`` and ``I=k``; ``<<p1>>`` for games; bounds such as
``P>=0.5 [ … ]``, also nested inside paths (``P=? [ F P>=0.5 [ X "goal" ] ]``); CTL's
``E [ … ]`` and ``A [ … ]``; filters (``filter(forall, P>=1 [ F "done" ])``, ``max``,
``min``, ``avg``, ``sum``, ``count``, ``exists``, ``first``, ``state``, ``print``,
``printall``, ``argmin``, ``argmax``, ``range``, over any set of states: the last five
give :attr:`Result.listed`); arithmetic over queries. :meth:`Model.solve` gives the game a property optimises as a
:class:`perfectplay.Solution`.
"""

from __future__ import annotations

import json

from dataclasses import dataclass
from fractions import Fraction
from os import PathLike, fspath
from typing import TYPE_CHECKING, Any, List, Mapping, Optional, Union

if TYPE_CHECKING:
    from . import Solution

from . import _core

__all__ = ["Model", "Result", "StateValue", "load"]


@dataclass(frozen=True)
class Result:
    """The answer to one property: ``value`` (a float; ``inf`` for an infinite expected
    reward), ``exact`` (a ``Fraction`` when solved exactly or decided by the graph
    alone), ``holds`` (for a property with a bound), and how it was computed. ``listed``
    is what a filter that lists states gives: ``print``, ``printall``, ``argmin`` and
    ``argmax`` a list of :class:`StateValue` (``value`` is then the count of states printed,
    or the least or greatest value); ``range`` a pair ``(min, max)`` of them; ``None`` for
    every other property."""

    property: str
    value: float
    exact: Optional[Fraction]
    holds: Optional[bool]
    method: str
    states: int
    error_bound: float
    listed: Union[None, List["StateValue"], "tuple[StateValue, StateValue]"] = None


@dataclass(frozen=True)
class StateValue:
    """A state, as PRISM prints it (``"(x=1,b=true)"``), and a property's value there:
    ``value`` (a float), ``exact`` (a ``Fraction`` where known) and ``holds`` (for true or
    false)."""

    state: str
    value: float
    exact: Optional[Fraction]
    holds: Optional[bool]


def _number(v: Any) -> float:
    """A value of the answer's JSON as a float: 1.0 or 0.0 for true or false, ``inf``."""
    if isinstance(v, bool):
        return 1.0 if v else 0.0
    return float(v)


def _state_value(d: Mapping[str, Any]) -> StateValue:
    v = d["value"]
    return StateValue(
        state=d["state"],
        value=_number(v),
        exact=None if d["exact"] is None else _core.fraction(d["exact"]),
        holds=v if isinstance(v, bool) else None,
    )


def _listed(d: Optional[Mapping[str, Any]]) -> Any:
    if d is None:
        return None
    if "states" in d:
        return [_state_value(v) for v in d["states"]]
    return (_state_value(d["min"]), _state_value(d["max"]))


def _const_text(name: str, value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, Fraction, str)):
        return str(value)
    raise ValueError(f"constant '{name}': expected a bool, a number or text, not {value!r}")


class Model:
    """A PRISM model, parsed, checked and built once; :meth:`check` answers its
    properties."""

    def __init__(self, core: Any, path: str, constants: Optional[List[Any]] = None) -> None:
        self._core = core
        self.path = path
        self._constants = list(constants or [])

    def check(self, prop: str, exact: bool = False) -> Result:
        """Checks ``prop``: a property's text (``'Pmax=? [ F "goal" ]'``), or the name or
        the number (from 1, as PRISM's ``-prop``) of a property in the properties file
        given to :func:`load`; anything else raises ``ValueError`` saying why. ``exact``
        solves in rationals."""
        d = self._core.check(prop, exact=bool(exact))
        # The answer as ``perfectplay check --json`` gives it.
        a = json.loads(d["answer"])
        v = a["value"]
        return Result(
            property=d["property"],
            value=_number(v),
            exact=None if a["exact"] is None else _core.fraction(a["exact"]),
            holds=v if isinstance(v, bool) else None,
            method=a["method"],
            states=a["states"],
            error_bound=a["error_bound"],
            listed=_listed(a.get("listed")),
        )

    def solve(self, prop: str, exact: bool = False) -> "Solution":
        """Solves the game that ``prop`` optimises (found as :meth:`check` finds it: a
        property's text, name or number) and returns its :class:`perfectplay.Solution`:
        the value, and ``explain``, ``strategy``, ``distribution``, ``simulate`` and
        ``serve`` on the model's states, written as PRISM prints them
        (``"(x=1,b=true)"``). Ctrl-C stops a long solve with ``KeyboardInterrupt``."""
        from . import Solution

        core = self._core.solve(prop, exact=bool(exact))
        params = [("prop", prop)] + list(self._constants)
        return Solution(core, builtin=False, name="prism", params=params)

    def properties(self) -> List[str]:
        """The properties of the properties file: names, or texts of unnamed ones."""
        return self._core.properties()

    @property
    def states(self) -> int:
        """The number of reachable states."""
        return self._core.states

    @property
    def build_seconds(self) -> float:
        """Seconds spent parsing, checking and building."""
        return self._core.build_seconds

    def __repr__(self) -> str:
        return f"<perfectplay.prism.Model {self.path!r} states={self.states}>"


def load(
    path: Union[str, "PathLike[str]"],
    const: Optional[Mapping[str, Any]] = None,
    props: Union[str, "PathLike[str]", None] = None,
    max_states: Optional[int] = None,
) -> Model:
    """Reads, checks and builds the model in ``path`` with the values of its undefined
    constants in ``const`` (``{"N": 16, "MAX": 2}``); ``props`` is a properties file
    whose properties :meth:`Model.check` may then name. A syntax or type error raises
    ``ValueError`` with its place; ``max_states`` stops a build that grows beyond it."""
    path = _path("path", path)
    props = None if props is None else _path("props", props)
    constants = [(k, _const_text(k, v)) for k, v in (const or {}).items()]
    if max_states is not None and (isinstance(max_states, bool) or max_states < 1):
        raise ValueError(f"max_states must be a positive int or None, not {max_states!r}")
    core = _core.load_prism(path, constants, props, max_states)
    return Model(core, path, constants)


def _path(name: str, value: Any) -> str:
    """A file path given as ``str`` or ``os.PathLike``; anything else is a ``TypeError``
    naming the argument and what was given."""
    if isinstance(value, (str, PathLike)):
        path = fspath(value)
        if isinstance(path, str):
            return path
    raise TypeError(f"{name} must be a file path (str or os.PathLike), not {value!r}")
