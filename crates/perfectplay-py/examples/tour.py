# A tour of perfectplay from Python, in notebook cells (`# %%`): run it whole with
#   python crates/perfectplay-py/examples/tour.py
# or cell by cell in an editor that knows the cells (VS Code, Spyder, Jupytext).
# Needs `pip install ./crates/perfectplay-py`; pandas, matplotlib and open_spiel are used
# where they are installed.

# %% A built-in game: Pig to 100, both players optimal.
from fractions import Fraction

import perfectplay

for g in perfectplay.games():
    print(f"{g['name']:20} {g['summary']}")

pig = perfectplay.solve("pig", goal=100)
print("P(first player wins) =", pig.value)
print(pig.report)

# %% Why: every move at a position, what it is worth and what it loses.
print(pig.explain("A 60 B 80, A to move, turn 15"))

# %% Exact values: the same game to 20 in fractions.
exact = perfectplay.solve("pig", goal=20, exact=True)
print(exact.exact, "=", float(exact.exact))

# %% The whole strategy, as a table.
memory = perfectplay.solve("perfect-memory", rows=4, cols=4, exact=True)
rows = memory.strategy()
print(len(rows), "decision states; the first:", rows[0])
try:
    print(rows.to_pandas().head())
except ImportError:
    print("(pandas is not installed)")

# %% The distribution of the number of moves, and simulated play.
d = memory.distribution()
print("mean", d.mean_exact, "std", round(d.std, 4), "median", d.quantiles[0.5])
print(memory.simulate(10_000, seed=1))
try:
    import matplotlib

    matplotlib.use("Agg")
    d.plot(title="PerfectMemory 4x4: moves").figure.savefig("perfect_memory_moves.png")
    print("wrote perfect_memory_moves.png")
except ImportError:
    print("(matplotlib is not installed)")


# %% A game written in Python: race to exactly 10 with a die of faces 1-4. Each roll costs
# 1; overshooting sends you back to 0 (a cycle); from 6 on you may pay 3 to finish at once.
class Race(perfectplay.Game):
    def start(self):
        return 0

    def expand(self, n):
        if n in (10, "done"):
            return perfectplay.Terminal(0)
        faces = [(Fraction(1, 4), n + f if n + f <= 10 else 0, 0, f"rolled {f}")
                 for f in range(1, 5)]
        moves = [perfectplay.Move("roll", chance=faces, reward=1)]
        if n >= 6:
            moves.append(perfectplay.Move("pay", "done", reward=3))
        return perfectplay.Decision("min", moves)


race = perfectplay.solve(Race(), exact=True)
print("expected cost", race.exact, "≈", race.value)
for row in race.strategy():
    print(row.state, row.chosen, row.exact)


# %% Two players: Nim with piles of 1-3 taken, last to take wins.
class Nim(perfectplay.Game):
    def start(self):
        return (10, "max")

    def expand(self, state):
        pile, turn = state
        if pile == 0:
            return perfectplay.Terminal(-1 if turn == "max" else 1)
        other = "min" if turn == "max" else "max"
        return perfectplay.Decision(
            turn, [perfectplay.Move(f"take {k}", (pile - k, other)) for k in (1, 2, 3) if k <= pile])


nim = perfectplay.solve(Nim(), exact=True)
print("Nim 10:", nim.exact, "; best first move:", nim.explain().best.label)

# %% OpenSpiel's games, solved exactly.
try:
    from perfectplay import openspiel

    ttt = openspiel.solve("tic_tac_toe", exact=True)
    print("tic-tac-toe:", ttt.exact, "over", ttt.report["states"], "states")
    os_pig = openspiel.solve("pig", winscore=20, endless_play_loser="max", exact=True)
    print("OpenSpiel's Pig to 20:", os_pig.exact, "= 2·P(win) - 1 with P(win) =",
          perfectplay.solve("pig", goal=20, exact=True).exact)
except ImportError:
    print("(open_spiel is not installed)")
