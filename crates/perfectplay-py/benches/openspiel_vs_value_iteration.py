"""perfectplay's OpenSpiel bridge against OpenSpiel's own value iteration, on Pig, tic-tac-toe
and Catch: one markdown row per game with states, seconds (float and exact), value iteration's
seconds and states, the ratio, the difference of the values, and our built-in Pig's time.

    python crates/perfectplay-py/benches/openspiel_vs_value_iteration.py

Needs the package installed with open_spiel and cvxpy (OpenSpiel's value iteration imports it).
"""
import sys, time
sys.setrecursionlimit(1_000_000)
import pyspiel, perfectplay
from perfectplay import openspiel
from open_spiel.python.algorithms import value_iteration
def vi(game, cyclic):
    t=time.perf_counter()
    v = value_iteration.value_iteration(game, depth_limit=-1, threshold=1e-12, cyclic_game=cyclic)
    s = game.new_initial_state()
    def val(s):
        if s.is_chance_node():
            return sum(p*val(s.child(a)) for a,p in s.chance_outcomes())
        return v[str(s)]
    return time.perf_counter()-t, val(s), len(v)
def pp(f):
    t=time.perf_counter(); s=f(); return time.perf_counter()-t, s
rows=[]
for goal in [10, 20, 30]:
    g = pyspiel.load_game("pig", {"winscore": goal})
    tb, sb = pp(lambda: openspiel.solve(g, endless_play_loser="max"))
    te, se = pp(lambda: openspiel.solve(g, endless_play_loser="max", exact=True))
    tv, vv, nv = vi(g, True)
    tn, sn = pp(lambda: perfectplay.solve("pig", goal=goal))
    print(f"| Pig, winscore {goal} | {sb.report['states']} | {tb:.3f} | {te:.3f} | {tv:.3f} ({nv} states) | {tv/tb:.0f}x | {abs(vv-sb.value):.1e} | {tn:.3f} |", flush=True)
g = pyspiel.load_game("tic_tac_toe")
tb, sb = pp(lambda: openspiel.solve(g))
te, se = pp(lambda: openspiel.solve(g, exact=True))
tv, vv, nv = vi(g, False)
print(f"| tic-tac-toe | {sb.report['states']} | {tb:.3f} | {te:.3f} | {tv:.3f} ({nv} states) | {tv/tb:.0f}x | {abs(vv-sb.value):.1e} | — |", flush=True)
for r,c in [(5,11),(10,21)]:
    g = pyspiel.load_game("catch", {"rows": r, "columns": c})
    tb, sb = pp(lambda: openspiel.solve(g))
    te, se = pp(lambda: openspiel.solve(g, exact=True))
    tv, vv, nv = vi(g, False)
    print(f"| catch {r}x{c} | {sb.report['states']} | {tb:.3f} | {te:.3f} | {tv:.3f} ({nv} states) | {tv/tb:.1f}x | {abs(vv-sb.value):.1e} | — |", flush=True)
