#!/usr/bin/env python3
"""Random small PRISM models and properties, checked by perfectplay against Storm.

Each seed writes one model (a dtmc or an mdp of 2 to 40 values of `s`, a second variable `t`,
sometimes a second module synchronised on an action and, in an mdp, a renamed copy of it; a
reward structure of state and transition rewards; no deadlocks, where Storm's semantics and
PRISM's differ) and asks it some twenty properties: P and R of `F`, `U`, `X`, `G`, step bounds
`<=k` and `[a,b]`, reward bounds (`F^{rew{"r"}<=k}`, `>=`, `U^{rew{"r"}<b}`), nested `P`
bounds, `C`, `C<=k` and `I=k`. For each property:

- perfectplay `--exact` against Storm's exact mode (`stormpy.environments.exact()` on a model
  of rationals): the two fractions must be equal;
- the same in every state Storm builds (perfectplay's `filter(printall, …)`; Storm checks a
  reward bound at the initial states only);
- perfectplay in floats against its own exact value: the distance must be within the
  reported `error_bound`.

A property that one tool refuses and the other answers is listed (LTL such as `X X φ`, and
`I=k` without state rewards in Storm); the exit code is 1 when any value differs.

    bench/peers/.venv/bin/python bench/peers/random_models.py target/release/perfectplay 1 100

(`bench/peers/run.sh` makes that virtual environment with stormpy.)
"""
import json
import os
import random
import subprocess
import sys
from fractions import Fraction

ACTIONS = ["a", "b", "c"]


def model(rng, kind):
    """The source of a random model of `kind`."""
    n = rng.randint(2, 7) if rng.random() < 0.5 else rng.randint(8, 40)
    lines = [kind, "", "module m", f"  s : [0..{n - 1}] init 0;", "  t : [0..2] init 0;"]
    for i in range(n):
        for c in range(rng.randint(1, 3 if kind == "mdp" else 1)):
            weights = [rng.randint(1, 4) for _ in range(rng.randint(1, 3))]
            total = sum(weights)
            updates = " + ".join(
                f"{w}/{total} : (s'={rng.randrange(n)}) & (t'={rng.randrange(3)})" for w in weights
            )
            # The first command of each value of s has no other guard: no deadlocks.
            guard = f"s={i}" + (f" & t<={rng.randrange(3)}" if c > 0 and rng.random() < 0.3 else "")
            action = rng.choice(ACTIONS) if rng.random() < 0.5 else ""
            lines.append(f"  [{action}] {guard} -> {updates};")
    lines.append("endmodule")
    if rng.random() < 0.5:
        q = rng.randint(1, 4)
        lines += [
            "module n",
            "  u : [0..1] init 0;",
            f"  [a] u=0 -> {q}/5 : (u'=1) + {5 - q}/5 : (u'=0);",
            "  [a] u=1 -> (u'=0);",
            "  [b] true -> (u'=1-u);",
            "endmodule",
        ]
        if kind == "mdp" and rng.random() < 0.5:
            lines.append("module o = n [ u=w ] endmodule")
    goal = rng.sample(range(n), rng.randint(1, max(1, n // 2)))
    lines.append('label "goal" = ' + " | ".join(f"s={g}" for g in goal) + ";")
    some = rng.sample(range(n), rng.randint(1, n))
    lines.append('label "a" = ' + " | ".join(f"s={g}" for g in some) + ";")
    lines.append('rewards "r"')
    items = [f"  s={i} : {rng.randint(0, 3)};" for i in range(n) if rng.random() < 0.6]
    text = "\n".join(lines)
    # Storm refuses a reward item whose action no command has.
    for action in (a for a in ACTIONS if f"[{a}]" in text):
        if rng.random() < 0.3:
            items.append(f"  [{action}] s={rng.randrange(n)} : {rng.randint(1, 3)};")
        if rng.random() < 0.5:
            items.append(f"  [{action}] true : {rng.randint(1, 2)};")
    lines += items or ["  s=0 : 1;"]
    lines.append("endrewards")
    return "\n".join(lines) + "\n"


def properties(rng, kind):
    """Random properties of every kind both tools answer."""
    ps = ["Pmax=?", "Pmin=?"] if kind == "mdp" else ["P=?"]
    rs = ["Rmax=?", "Rmin=?"] if kind == "mdp" else ["R=?"]
    k = rng.randint(0, 6)
    lo = rng.randint(0, 3)
    out = []
    for o in ps:
        out += [
            f'{o} [ F "goal" ]',
            f'{o} [ F<={k} "goal" ]',
            f'{o} [ F[{lo},{lo + k}] "goal" ]',
            f'{o} [ "a" U "goal" ]',
            f'{o} [ !"a" U "goal" ]',
            f'{o} [ "a" U<={k} "goal" ]',
            f'{o} [ X "goal" ]',
            f'{o} [ G "a" ]',
            f'{o} [ F (t=2 & "goal") ]',
            f'{o} [ F (P>=0.5 [ X "goal" ]) ]',
            f'{o} [ "a" U (P<0.3 [ F "goal" ]) ]',
            f'{o} [ F^{{rew{{"r"}}<={k}}} "goal" ]',
            f'{o} [ F^{{rew{{"r"}}>={lo + 1}}} "goal" ]',
            # Storm 2.0 answers 1 where the start is outside ψ (it must be 0): ψ holds there.
            f'{o} [ (s=0 | "a") U^{{rew{{"r"}}<{k + 1}/2}} "goal" ]',
        ]
    for o in rs:
        out += [f'{o} [ F "goal" ]', f"{o} [ C ]", f"{o} [ C<={k} ]", f"{o} [ I={k} ]"]
    return out


STORM = """
import json, sys, stormpy
path, plist = sys.argv[1], json.loads(sys.argv[2])
prog = stormpy.parse_prism_program(path)
out = []
for prop in plist:
    try:
        props = stormpy.parse_properties(prop, prog)
        options = stormpy.BuilderOptions(props)
        options.set_build_state_valuations()
        m = stormpy.build_model[stormpy.Rational](prog, options=options)
        # Storm checks a reward bound at the initial states only.
        bounded = "rew{" in prop
        r = stormpy.model_checking(m, props[0], only_initial_states=bounded,
                                   environment=stormpy.environments.exact())
        every = {} if bounded else {
            m.state_valuations.to_string(i): str(r.get_value(i)) for i in range(m.nr_states)}
        out.append(["ok", str(r.get_value(m.initial_states[0])), every])
    except Exception as e:
        out.append(["error", (str(e).strip().splitlines() or ["?"])[-1]])
print(json.dumps(out))
"""


def storm(path, plist):
    """Storm's exact answers, one process per model."""
    p = subprocess.run(
        [sys.executable, "-c", STORM, path, json.dumps(plist)],
        capture_output=True, text=True, timeout=300,
    )
    if p.returncode != 0:
        # Storm 2.0 crashes on some properties (a lower reward bound on some chains): each
        # property again in a process of its own, so that only the one that crashes fails.
        if len(plist) > 1:
            return [answer for prop in plist for answer in storm(path, [prop])]
        return [("error", p.stderr.strip()[-200:] or f"Storm exited with {p.returncode}")]
    return [tuple(x) for x in json.loads(p.stdout.strip().splitlines()[-1])]


def state_key(text):
    """A state as its sorted `var=value` pairs, from Storm's `[s=0 & t=1]` or perfectplay's
    `(s=0,t=1)`."""
    pairs = text.strip("[]()").replace("&", ",").replace("\t", "").split(",")
    return tuple(sorted(p.strip() for p in pairs if p.strip()))


def every_state(pp, path, prop):
    """perfectplay's exact value of `prop` in every reachable state, by `filter(printall, …)`."""
    mine = ours(pp, path, f"filter(printall, {prop})", True)
    if mine[0] != "ok":
        return None
    return {state_key(s["state"]): s.get("exact") or s["value"] for s in mine[1]["listed"]["states"]}


def ours(pp, path, prop, exact):
    """perfectplay's result for `prop`, or an error line."""
    args = [pp, "check", path, "--prop", prop, "--json"] + (["--exact"] if exact else [])
    p = subprocess.run(args, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        return ("error", p.stderr.strip().splitlines()[0])
    return ("ok", json.loads(p.stdout)["results"][0])


def fraction(v):
    """A value as a fraction (None for +∞)."""
    if v in ("inf", "Infinity", float("inf")):
        return None
    return Fraction(str(v))


def main():
    # Exact values may have hundreds of thousands of digits.
    sys.set_int_max_str_digits(0)
    pp, first, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    folder = os.environ.get("TMPDIR", "/tmp")
    differ = 0
    for seed in range(first, first + count):
        rng = random.Random(seed)
        kind = rng.choice(["mdp", "dtmc"])
        path = os.path.join(folder, f"perfectplay-random-{seed}.prism")
        with open(path, "w") as f:
            f.write(model(rng, kind))
        plist = properties(rng, kind)
        for prop, theirs in zip(plist, storm(path, plist)):
            mine = ours(pp, path, prop, True)
            if mine[0] != theirs[0]:
                shown = mine[1] if mine[0] == "error" else mine[1].get("exact") or mine[1]["value"]
                print(f"seed {seed} {prop}: perfectplay {shown}, Storm {theirs[1]}")
                continue
            if mine[0] == "error":
                continue
            exact = fraction(mine[1].get("exact") or mine[1]["value"])
            try:
                storm_value = fraction(theirs[1])
            except (ValueError, ZeroDivisionError):
                # Storm 2.0's exact mode can print a fraction over zero (a reward bound).
                print(f"seed {seed} {prop}: perfectplay {exact}, Storm no number ({theirs[1][:40]}…)")
                continue
            if exact != storm_value:
                differ += 1
                print(f"DIFFER seed {seed} {prop}: perfectplay {exact}, Storm {theirs[1]}")
            # Every state Storm built (it leaves the states where the property is decided
            # unexpanded, so it may build fewer).
            mine_all = every_state(pp, path, prop)
            if mine_all is not None and prop.startswith(("P", "R")):
                for state, value in theirs[2].items():
                    key = state_key(state)
                    if key in mine_all and fraction(mine_all[key]) != fraction(value):
                        differ += 1
                        print(f"DIFFER seed {seed} {prop} in {state}: perfectplay "
                              f"{mine_all[key]}, Storm {value}")
                        break
            floats = ours(pp, path, prop, False)
            if floats[0] == "ok" and exact is not None:
                value, bound = floats[1]["value"], floats[1]["error_bound"] or 0
                if fraction(value) is None or abs(fraction(value) - exact) > Fraction(bound):
                    differ += 1
                    print(f"BOUND seed {seed} {prop}: {value} ± {bound}, exactly {exact}")
        os.remove(path)
    print(f"{count} models, {differ} differences")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
