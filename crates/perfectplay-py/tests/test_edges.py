"""What a careless or hostile input does from Python: a clear exception, never a crash of the
interpreter, a panic, a call that ignores Ctrl-C or a value that cannot be read."""

import _thread
import signal
import threading
import time
from fractions import Fraction

import pytest

import perfectplay
from perfectplay import Chance, Decision, Move, Terminal, prism

from conftest import QVBS, ROOT


@pytest.fixture(autouse=True)
def python_handles_ctrl_c():
    # As in test_errors.py: a background process may have SIGINT ignored.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def interrupted_within(seconds, call, after=0.3):
    """Runs ``call`` with a Ctrl-C ``after`` seconds in, and asserts that it raised
    KeyboardInterrupt within ``seconds``."""
    timer = threading.Timer(after, _thread.interrupt_main)
    started = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            call()
    finally:
        timer.cancel()
    took = time.monotonic() - started
    assert took < seconds, f"Ctrl-C took {took:.1f} s to stop the call"


def test_the_overflowing_remainder_is_no_panic(tmp_path):
    path = tmp_path / "mod.prism"
    path.write_text(
        "dtmc\nconst int c = mod(-9223372036854775807-1, -1);\n"
        "module m\n  x : [0..1] init 0;\n  [] x=c -> (x'=1);\nendmodule\n"
    )
    m = prism.load(path)
    assert m.check("P=? [ F x=1 ]").value == 1


def test_ctrl_c_stops_a_prism_check():
    # Checking Pig to 60 exactly takes seconds (thousands of components, fractions of
    # hundreds of digits); the build, a fraction of a second.
    m = prism.load(ROOT / "crates/perfectplay-prism/examples/pig.prism", const={"GOAL": 60})
    prop = '<<first>> Pmax=? [ F "first_wins" ]'
    interrupted_within(2.0, lambda: m.check(prop, exact=True))
    # The model still answers.
    assert 0.5 < m.check(prop).value < 0.6


def test_ctrl_c_stops_a_prism_build():
    # About 10 million states: a build of seconds, stopped at its next progress report.
    model = QVBS / "models/consensus/consensus.6.prism"
    interrupted_within(2.0, lambda: prism.load(model, const={"K": 64}))


def test_ctrl_c_stops_a_simulation_of_a_built_in_game():
    s = perfectplay.solve("pig", goal=20)
    interrupted_within(2.0, lambda: s.simulate(10**10))
    assert s.simulate(100, seed=1).games == 100


class Walk(perfectplay.Game):
    """A walk on 0..n that chance moves up or down until it leaves at either end: many states,
    each expanded in Python again by ``simulate`` and ``distribution``."""

    def __init__(self, n):
        self.n = n

    def start(self):
        return self.n // 2

    def expand(self, s):
        if s in (0, self.n):
            return Terminal(1 if s == self.n else 0)
        return Chance([(Fraction(1, 2), s - 1, 1), (Fraction(1, 2), s + 1, 1)])


def test_ctrl_c_stops_simulate_and_distribution_of_a_python_game():
    s = perfectplay.solve(Walk(400))
    # Each game takes some 40,000 steps, each a call of expand.
    interrupted_within(2.0, lambda: s.simulate(10**6), after=0.2)
    interrupted_within(2.0, lambda: s.distribution(tail=1e-300, max_steps=10**9), after=0.2)
    # The solution still answers.
    assert s.simulate(2, seed=3).games == 2


class Thirds(perfectplay.Game):
    """Win with probability (1/3)^n: a denominator of 0.477 n digits."""

    def __init__(self, n):
        self.n = n

    def start(self):
        return 0

    def expand(self, s):
        if s == "lost":
            return Terminal(0)
        if s == self.n:
            return Terminal(1)
        return Chance([(Fraction(1, 3), s + 1), (Fraction(2, 3), "lost")])


def test_exact_values_beyond_pythons_digit_limit_are_read():
    n = 12_000  # 3^n has 5,726 digits, beyond Python's 4,300
    s = perfectplay.solve(Thirds(n), exact=True)
    assert s.exact == Fraction(1, 3**n)
    assert "exact: a fraction of about 1 / 5726 digits" in repr(s)
    e = s.explain()
    assert e.exact == Fraction(1, 3**n)
    sevens = sum(int("7" * 3000) * 10 ** (3000 * k) for k in range(3))
    assert perfectplay._core.fraction("-" + "7" * 9000 + "/3") == Fraction(-sevens, 3)


def test_a_path_that_is_no_path_is_named():
    with pytest.raises(TypeError, match="path must be a file path .* not None"):
        prism.load(None)
    with pytest.raises(TypeError, match="props must be a file path .* not 3"):
        prism.load(QVBS / "models/herman/herman.3.prism", props=3)


def test_an_endless_input_is_refused(tmp_path):
    with pytest.raises(ValueError, match="larger than 64 MiB"):
        prism.load("/dev/zero")


def test_a_build_beyond_the_memory_limit_is_an_exception():
    # In a process of its own, limited to 400 MB of address space: the build stops with
    # SolveError, and the interpreter lives on.
    import resource
    import subprocess
    import sys

    script = (
        "import perfectplay\nfrom perfectplay import prism\n"
        "try:\n"
        f"    prism.load({str(QVBS / 'models/consensus/consensus.6.prism')!r}, const={{'K': 4}})\n"
        "except perfectplay.SolveError as e:\n"
        "    print('stopped:', e)\n"
    )

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (400 << 20, resource.RLIM_INFINITY))

    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, preexec_fn=limit
    )
    assert out.returncode == 0, out.stderr
    assert "stopped: too large: the game needs more memory than is left" in out.stdout
