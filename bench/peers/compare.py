"""perfectplay against Storm (stormpy) and OpenSpiel on the same problems, in one run.

Run through ./run.sh, which makes the virtual environment and the release build. Prints a
Markdown table: problem, size, tool, states explored, seconds, ratio to perfectplay, and
whether the answers agree (1e-9 in float, exactly in exact mode).

Timings: perfectplay is timed as a whole process (`perfectplay solve ... --json`), which
includes start-up and output; Storm as model building plus model checking inside Python;
OpenSpiel as its value iteration (state enumeration included).
"""

import argparse
import fractions
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BINARY = os.path.join(ROOT, "target", "release", "perfectplay")

ROWS = []

# Storm's default value iteration stops once an iteration changes values by less than 1e-6
# relative, which bounds the change, not the error: its answers are off by a few 1e-6 (Pig
# G=50: 2.7e-6). They are compared at 1e-5 and marked "~"; the "sound, 1e-12" runs, whose error
# is bounded, are compared at 1e-9 like everything else.
STORM_DEFAULT_PRECISION = 1e-5


def row(problem, size, tool, states, seconds, reference, value, exact=False, note="", tol=1e-9):
    """Records one measurement; `reference` is perfectplay's (seconds, value). Float answers
    agree when within `tol` relative."""
    if value is None:
        agree = "-"
    elif exact:
        agree = "yes" if fractions.Fraction(str(value)) == fractions.Fraction(reference[1]) else "NO"
    else:
        close = abs(float(value) - float(reference[1])) <= tol * max(1.0, abs(float(reference[1])))
        agree = ("yes" if tol <= 1e-9 else "~") if close else "NO"
    ratio = "" if seconds is None or reference[0] is None else f"{seconds / reference[0]:.1f}x"
    ROWS.append((problem, size, tool, states, seconds, ratio, agree, value, note))
    print(f"  {tool:<28} {str(states):>10} {'' if seconds is None else f'{seconds:.3f} s':>11} {ratio:>9} {agree:>4}  {note}", flush=True)


def perfectplay(game, args, exact=False):
    """Solves with the release binary; returns (seconds, value, states)."""
    cmd = [BINARY, "solve", game, *args, "--json", "--quiet"] + (["--exact"] if exact else [])
    t = time.perf_counter()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    seconds = time.perf_counter() - t
    j = json.loads(out)
    value = j["exact"] if exact else j["value"]
    return seconds, value, j["states"]


def storm(model_file, constants, prop, exact=False, precise=False):
    """Builds and checks a PRISM model; returns (seconds, value, states)."""
    import stormpy

    prog = stormpy.parse_prism_program(os.path.join(HERE, model_file))
    props = stormpy.parse_properties(prop, prog)
    prog, props = stormpy.instantiate_constants(prog, constants, props)
    t = time.perf_counter()
    model = stormpy.build_model[stormpy.Rational if exact else float](prog, props)
    if exact:
        env = stormpy.environments.exact()
    elif precise:
        env = stormpy.environments.sound()
        env.solver().min_max().precision = stormpy.Rational("1/1000000000000")
    else:
        env = stormpy.Environment()  # what the storm command uses without options
    result = stormpy.model_checking(model, props[0], only_initial_states=True, environment=env)
    seconds = time.perf_counter() - t
    value = result.get_value(model.initial_states[0])
    return seconds, (str(value) if exact else float(value)), model.nr_states


def openspiel_pig(goal):
    """OpenSpiel's pig with its value iteration; returns (seconds, P(first player wins), states)."""
    import pyspiel
    from open_spiel.python.algorithms import value_iteration

    sys.setrecursionlimit(1_000_000)
    game = pyspiel.load_game("pig", {"winscore": goal})
    t = time.perf_counter()
    values = value_iteration.value_iteration(game, depth_limit=-1, threshold=1e-12, cyclic_game=True)
    seconds = time.perf_counter() - t
    v = values[str(game.new_initial_state())]
    # OpenSpiel's returns are +1 / -1: P(win) = (v + 1) / 2.
    return seconds, (v + 1) / 2, len(values)


# Runs shorter than this are repeated twice more and the fastest of the three is kept, the same
# for every tool, so that small problems are not decided by process start-up or machine noise.
REPEAT_UNDER = 2.0


def best_of(run):
    """`run()` returns (seconds, value, states); see REPEAT_UNDER."""
    first = run()
    if first[0] >= REPEAT_UNDER:
        return first
    return min([first, run(), run()], key=lambda r: r[0])


def section(title):
    print(f"\n{title}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes only (a minute)")
    ap.add_argument("--skip-exact-50", action="store_true", help="skip Storm's exact 50x50 (minutes, ~11 GB)")
    ap.add_argument("--markdown", metavar="FILE", help="also write the table to FILE")
    a = ap.parse_args()

    pm_sizes = [(10, 10), (20, 20), (30, 30)] if a.quick else [(10, 10), (20, 20), (30, 30), (40, 40), (50, 50)]
    pm_exact = [(10, 10), (20, 20)] if a.quick else [(10, 10), (20, 20), (30, 30), (50, 50)]
    pig_hold = [25, 50] if a.quick else [25, 50, 100]
    pig_opt = [10, 20] if a.quick else [10, 20, 30]

    for exact, sizes in [(False, pm_sizes), (True, pm_exact)]:
        for r, c in sizes:
            size = f"{r}x{c}"
            problem = f"PerfectMemory ({'exact' if exact else 'float'})"
            section(f"{problem} {size}")
            ref = best_of(lambda: perfectplay("perfect-memory", ["--rows", str(r), "--cols", str(c)], exact))
            row(problem, size, "perfectplay", ref[2], ref[0], ref[:2], ref[1], exact)
            if exact and r * c == 2500 and a.skip_exact_50:
                row(problem, size, "storm (exact)", None, None, ref[:2], None, exact, "skipped (--skip-exact-50)")
                continue
            s = best_of(lambda: storm("perfect_memory.prism", f"CELLS={r * c}", "Rmin=? [ F u=0 ]", exact=exact))
            row(problem, size, "storm (exact)" if exact else "storm (default)", s[2], s[0], ref[:2], s[1], exact,
                tol=STORM_DEFAULT_PRECISION)
            if not exact:
                s = best_of(lambda: storm("perfect_memory.prism", f"CELLS={r * c}", "Rmin=? [ F u=0 ]", precise=True))
                row(problem, size, "storm (sound, 1e-12)", s[2], s[0], ref[:2], s[1])

    for goal in pig_hold:
        problem = "Pig vs hold-at-20"
        section(f"{problem} G={goal}")
        ref = best_of(lambda: perfectplay("pig", ["--goal", str(goal), "--opponent", "hold-at-20"]))
        row(problem, f"G={goal}", "perfectplay", ref[2], ref[0], ref[:2], ref[1])
        s = best_of(lambda: storm("pig_hold.prism", f"GOAL={goal}", "Pmax=? [ F won=1 ]"))
        row(problem, f"G={goal}", "storm (default)", s[2], s[0], ref[:2], s[1], tol=STORM_DEFAULT_PRECISION)
        s = best_of(lambda: storm("pig_hold.prism", f"GOAL={goal}", "Pmax=? [ F won=1 ]", precise=True))
        row(problem, f"G={goal}", "storm (sound, 1e-12)", s[2], s[0], ref[:2], s[1])

    for goal in pig_opt + [100]:
        problem = "Pig, both optimal"
        section(f"{problem} G={goal}")
        ref = best_of(lambda: perfectplay("pig", ["--goal", str(goal)]))
        row(problem, f"G={goal}", "perfectplay", ref[2], ref[0], ref[:2], ref[1])
        if goal in pig_opt:
            o = best_of(lambda: openspiel_pig(goal))
            row(problem, f"G={goal}", "openspiel (value iteration)", o[2], o[0], ref[:2], o[1])
        else:
            row(problem, f"G={goal}", "openspiel (value iteration)", None, None, ref[:2], None,
                note="not run: too slow at this size (see how the smaller goals grow)")
        row(problem, f"G={goal}", "storm", None, None, ref[:2], None,
            note="cannot solve: Storm builds two-player games but its game checker returns no result")

    lines = ["| problem | size | tool | states | seconds | ratio to perfectplay | agrees | value |",
             "|---|---|---|---:|---:|---:|---|---|"]
    for p, size, tool, states, seconds, ratio, agree, value, note in ROWS:
        v = "" if value is None else (value if isinstance(value, str) and len(value) < 40 else
                                      (f"{len(value)}-char fraction" if isinstance(value, str) else f"{value:.15g}"))
        sec = "" if seconds is None else f"{seconds:.3f}"
        lines.append(f"| {p} | {size} | {tool} | {'' if states is None else states} | {sec} | {ratio} | {agree} | {v or note} |")
    table = "\n".join(lines)
    print("\n" + table)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(table + "\n")
    if any(r[6] == "NO" for r in ROWS):
        print("\nSOME ANSWERS DISAGREE", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
