"""What goes wrong in a Python game reaches the caller clearly: its own exceptions with the
state named, bad nodes as ValueError naming the state, Ctrl-C as KeyboardInterrupt."""

import _thread
import signal
import sys
import threading
from fractions import Fraction as F

import pytest

import perfectplay
from perfectplay import Chance, Decision, Move, Terminal


class Faulty(perfectplay.Game):
    """A chain 0 -> 1 -> ... whose state `bad` gives `node()`."""

    def __init__(self, bad, node):
        self.bad, self.node = bad, node

    def start(self):
        return 0

    def expand(self, s):
        if s == self.bad:
            return self.node()
        if s > 5:
            return Terminal(0)
        return Decision("max", [Move("next", s + 1)])


def broken():
    raise KeyError("no such thing")


def test_an_exception_in_expand_reaches_the_caller_with_the_state_named():
    with pytest.raises(KeyError, match="no such thing") as e:
        perfectplay.solve(Faulty(3, broken))
    # The traceback reaches into the game's code.
    assert any(entry.name == "broken" for entry in e.traceback)
    if sys.version_info >= (3, 11):
        assert "while expanding state 3" in e.value.__notes__


@pytest.mark.parametrize("node,words", [
    (lambda: Chance([(F(1, 2), 9, 0), (F(1, 3), 9, 0)]), ["state 3", "sum"]),
    (lambda: Chance([(F(3, 2), 9, 0), (F(-1, 2), 9, 0)]), ["state 3", "probability"]),
    (lambda: Decision("max", []), ["state 3", "no moves"]),
    (lambda: Chance([]), ["state 3", "no outcomes"]),
    (lambda: 42, ["state 3", "42", "Terminal, Decision or Chance"]),
    (lambda: Decision("max", [Move("x", [1, 2])]), ["state 3", "[1, 2]", "hashable"]),
    (lambda: Chance([(F(1, 2), 9, 0), (F(1, 2), {}, 0)]), ["state 3", "{}", "hashable"]),
    (lambda: Terminal(0.25), ["state 3", "float", "accept_floats"]),
])
def test_a_bad_node_raises_a_value_error_naming_the_state(node, words):
    with pytest.raises(ValueError) as e:
        perfectplay.solve(Faulty(3, node))
    for w in words:
        assert w in str(e.value)


@pytest.mark.parametrize("make,words", [
    (lambda: Decision("maybe", []), ['"max" or "min"']),
    (lambda: Move("x", 1, chance=[(1, 2, 0)]), ["both"]),
    (lambda: Chance([(F(1, 2),)]), ["tuple"]),
    (lambda: Chance([(None, 1, 0)]), ["probability", "None"]),
    (lambda: Terminal(2**20000), ["digits"]),
    (lambda: Decision("max", ["a move"]), ["perfectplay.Move"]),
])
def test_bad_arguments_of_a_node_raise_where_it_is_made(make, words):
    with pytest.raises((TypeError, ValueError)) as e:
        make()
    for w in words:
        assert w in str(e.value)


def test_a_game_without_expand_is_refused():
    with pytest.raises(TypeError, match="no game"):
        perfectplay.solve(object())


def test_an_unhashable_start_is_refused():
    class G(perfectplay.Game):
        def start(self):
            return [0]

    with pytest.raises(ValueError, match="start state"):
        perfectplay.solve(G())


def test_a_cycle_no_strategy_leaves_has_no_value():
    class Loop(perfectplay.Game):
        def start(self):
            return 0

        def expand(self, s):
            return Decision("min", [Move("again", 1 - s, reward=1)])

    with pytest.raises(perfectplay.SolveError, match="undefined"):
        perfectplay.solve(Loop())


def test_a_state_limit_stops_an_endless_game():
    class Count(perfectplay.Game):
        def start(self):
            return 0

        def expand(self, s):
            return Decision("max", [Move("on", s + 1)])

    with pytest.raises(perfectplay.SolveError, match="state limit"):
        perfectplay.solve(Count(), max_states=500)


@pytest.fixture(autouse=True)
def python_handles_ctrl_c():
    # A process started in the background by a shell without job control (`cmd &`, nohup)
    # inherits SIGINT ignored, and then Python installs no handler for it and
    # `_thread.interrupt_main` does nothing: these tests install Python's own handler.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def interrupt_after(seconds):
    timer = threading.Timer(seconds, _thread.interrupt_main)
    timer.start()
    return timer


def test_ctrl_c_stops_a_python_game():
    class Count(perfectplay.Game):
        def start(self):
            return 0

        def expand(self, s):
            return Decision("max", [Move("on", s + 1)])

    for _ in range(5):
        timer = interrupt_after(0.2)
        try:
            # Without the interrupt this ends at the state limit, after some seconds.
            with pytest.raises(KeyboardInterrupt):
                perfectplay.solve(Count(), max_states=5_000_000)
        finally:
            timer.cancel()


def test_ctrl_c_stops_a_built_in_game():
    timer = interrupt_after(0.3)
    try:
        with pytest.raises(KeyboardInterrupt):
            # Without the interrupt this ends at the state limit, after some seconds.
            perfectplay.solve("pig", goal=300, max_states=5_000_000)
    finally:
        timer.cancel()
    # The package still works afterwards.
    assert perfectplay.solve("pig", goal=5).value > 0.5
