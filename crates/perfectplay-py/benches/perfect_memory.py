"""What a game written in Python costs: PerfectMemory as a perfectplay.Game, solved by the
engine and by a plain Python dictionary DP that calls the same `expand`, and the built-in game
through Python against the command-line tool.

    python crates/perfectplay-py/benches/perfect_memory.py            # every size
    python crates/perfectplay-py/benches/perfect_memory.py --quick

Prints states per second of each and the engine's overhead per state beyond the calls of
`expand` (the time of the engine's solve minus the time of the expand calls alone, per
state). Needs the package installed (`pip install ./crates/perfectplay-py`) and, for the
built-in row, the command-line tool at target/release/perfectplay.
"""

import argparse
import json
import pathlib
import subprocess
import sys
import time
from fractions import Fraction

import perfectplay
from perfectplay import Chance, Decision, Move, Terminal

ROOT = pathlib.Path(__file__).resolve().parents[3]


class PerfectMemory(perfectplay.Game):
    """The memory game with perfect recall: states (kind, unseen cells, known singles), as
    the built-in game has them."""

    def __init__(self, rows, cols):
        self.cells = rows * cols

    def start(self):
        return ("turn", self.cells, 0)

    def expand(self, state):
        kind, u, k = state
        q = Fraction
        if kind == "turn":
            if u == 0:
                return Terminal(0)
            first = []
            if k > 0:
                first.append((q(k, u), ("matches-known", u, k), 0))
            if u > k:
                first.append((q(u - k, u), ("new-symbol", u, k), 0))
            moves = [Move("flip an unseen cell", chance=first)]
            if k > 0:
                out = [(q(1, u), ("turn", u - 1, k - 1), 1)]
                if k >= 2:
                    out.append((q(k - 1, u), ("turn", u - 1, k - 1), 2))
                if u > k:
                    out.append((q(u - k, u), ("turn", u - 1, k + 1), 1))
                moves.append(Move("flip a known cell, then an unseen one", chance=out))
            return Decision("min", moves)
        if kind == "matches-known":
            moves = [Move("flip its known partner", ("turn", u - 1, k - 1), 1)]
            if u >= 2:
                out = []
                if k >= 2:
                    out.append((q(k - 1, u - 1), ("turn", u - 2, k - 2), 3))
                if u > k:
                    out.append((q(u - k, u - 1), ("turn", u - 2, k), 2))
                moves.append(Move("flip another unseen cell", chance=out))
            if k >= 2:
                moves.append(Move("flip another known cell", ("turn", u - 1, k - 1), 2))
            return Decision("min", moves)
        out = [(q(1, u - 1), ("turn", u - 2, k), 1)]
        if k > 0:
            out.append((q(k, u - 1), ("turn", u - 2, k), 2))
        if u - 2 > k:
            out.append((q(u - 2 - k, u - 1), ("turn", u - 2, k + 2), 1))
        moves = [Move("flip an unseen cell", chance=out)]
        if k > 0:
            moves.append(Move("flip a known cell", ("turn", u - 1, k + 1), 1))
        return Decision("min", moves)


def dict_dp(game):
    """The plain dynamic program: a dictionary of values filled depth first (no recursion)
    from the same `expand`, in floats. Handles acyclic games."""
    value = {}
    start = game.start()
    stack = [(start, None)]
    while stack:
        state, node = stack[-1]
        if state in value:
            stack.pop()
            continue
        if node is None:
            node = game.expand(state)
            stack[-1] = (state, node)
        if isinstance(node, Terminal):
            value[state] = float(node.payoff)
            stack.pop()
            continue
        if isinstance(node, Chance):
            succ = [n for _, n, _ in node.outcomes]
        else:
            succ = []
            for m in node.moves:
                if m.chance is None:
                    succ.append(m.next_state)
                else:
                    succ.extend(n for _, n, _ in m.chance)
        missing = [n for n in succ if n not in value]
        if missing:
            stack.extend((n, None) for n in missing)
            continue
        if isinstance(node, Chance):
            v = sum(float(p) * (float(r) + value[n]) for p, n, r in node.outcomes)
        else:
            vals = []
            for m in node.moves:
                if m.chance is None:
                    vals.append(float(m.reward) + value[m.next_state])
                else:
                    vals.append(float(m.reward) + sum(
                        float(p) * (float(r) + value[n]) for p, n, r in m.chance))
            v = max(vals) if node.player == "max" else min(vals)
        value[state] = v
        stack.pop()
    return value[start], len(value)


def expand_only(game, states):
    """The calls of `expand` alone, on every state once."""
    t = time.perf_counter()
    for s in states:
        game.expand(s)
    return time.perf_counter() - t


def best(f, repeat=3):
    results = [f() for _ in range(repeat)]
    return min(results, key=lambda r: r[0])


def timed(f):
    t = time.perf_counter()
    out = f()
    return (time.perf_counter() - t, out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    sizes = [(10, 10), (20, 20)] if a.quick else [(10, 10), (20, 20), (30, 30), (50, 50)]
    print("| board | states | perfectplay (s) | states/s | dict DP (s) | states/s | ratio DP/perfectplay "
          "| expand alone (s) | engine overhead per state |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r, c in sizes:
        g = PerfectMemory(r, c)
        t_pp, s = best(lambda: timed(lambda: perfectplay.solve(g)))
        t_dp, (v, n_dp) = best(lambda: timed(lambda: dict_dp(g)))
        assert abs(v - s.value) < 1e-9 * max(1.0, abs(v)), (v, s.value)
        n = s.report["states"]
        states = [row.state for row in s.strategy()] + [("turn", 0, 0)]
        t_ex = min(expand_only(g, states) for _ in range(3))
        builtin = perfectplay.solve("perfect-memory", rows=r, cols=c).value
        assert abs(builtin - s.value) < 1e-9 * builtin
        print(f"| {r}x{c} | {n} | {t_pp:.3f} | {n / t_pp:,.0f} | {t_dp:.3f} | {n_dp / t_dp:,.0f} | "
              f"{t_dp / t_pp:.2f} | {t_ex:.3f} | {(t_pp - t_ex) / n * 1e6:.1f} µs |")
        sys.stdout.flush()

    cli = ROOT / "target" / "release" / "perfectplay"
    if not cli.exists():
        print("\n(no target/release/perfectplay: the built-in row is skipped)")
        return
    print("\n| built-in game | through Python (s) | command line, whole process (s) | ratio |")
    print("|---|---:|---:|---:|")
    for name, params, args in [
        ("pig", dict(goal=100), ["--goal", "100"]),
        ("perfect-memory", dict(rows=50, cols=50), ["--rows", "50", "--cols", "50"]),
        ("perfect-memory", dict(rows=50, cols=50, exact=True),
         ["--rows", "50", "--cols", "50", "--exact"]),
        ("yeetzhee", dict(dice=50, faces=50, groups="1,1,1,1,2,2,2,3,4,5,6,9,13"),
         ["--dice", "50", "--faces", "50", "--groups", "1,1,1,1,2,2,2,3,4,5,6,9,13"]),
    ]:
        t_py, _ = best(lambda: timed(lambda: perfectplay.solve(name, **params)), 5)
        t_cli, _ = best(lambda: timed(lambda: subprocess.run(
            [str(cli), "solve", name, *args, "-q", "--json"], check=True, capture_output=True)), 5)
        label = name + " " + " ".join(args)
        print(f"| {label} | {t_py:.3f} | {t_cli:.3f} | {t_py / t_cli:.2f} |")


if __name__ == "__main__":
    main()
