#!/usr/bin/env python3
"""PRISM's example models (`prism-examples/` in PRISM's sources, not part of this repository)
checked by perfectplay and by Storm, property by property.

For every `auto` script under `dtmcs/`, `mdps/` and `simple/`, each `prism MODEL PROPS -const
…` line it runs (a `foreach` list gives its first value, a range `a:b:c` its first) is one
case: perfectplay checks every property of PROPS (`check MODEL PROPS --json`), and Storm's
default engine checks each of them again, from the text perfectplay prints for it, with the
constants, labels and formulas of PROPS. Values must agree within 1e-5, relative; truth
values exactly. Each case prints one line:

- ok: every property both answer agrees;
- DIFFERS: some value differs (listed above the line);
- ours refused: perfectplay's error (a model type it does not take, a state limit, ...);
- Storm refused: Storm's error for the whole case (a model or property it does not parse).

A filter over states other than the initial ones is not compared (Storm gives the value in
each state; this script reads the initial state's). The exit code is 1 when any value differs.

    bench/peers/.venv/bin/python bench/peers/prism_examples.py target/release/perfectplay \\
        PATH/TO/prism/prism-examples [--max-states 2000000]

(`bench/peers/run.sh` makes that virtual environment with stormpy.)
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import time

# Storm, in a process of its own per case: argv is the model, the properties file, the
# constants and the JSON list of property texts; prints {"values": [...], "states": n}.
STORM = r'''
import json, re, sys
import stormpy
model, props, consts, texts = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
given = dict(kv.split("=") for kv in consts.split(",") if kv)
header, labels = [], {}
for line in open(props).read().splitlines():
    # Storm's formula parser takes no comments, and no label definitions: a label of the
    # properties file stands in the property texts as its expression.
    line = line.split("//")[0]
    m = re.match(r'\s*label\s+"(\w+)"\s*=\s*(.*);', line)
    if m:
        labels['"' + m.group(1) + '"'] = "(" + m.group(2) + ")"
        continue
    if not re.match(r"\s*(const|formula)\b", line):
        continue
    m = re.match(r"\s*const\s+(\w+\s+)?(\w+)\s*;", line)
    if m and m.group(2) in given:
        line = line.replace(";", " = " + given.pop(m.group(2)) + ";")
    header.append(line)
for name, definition in labels.items():
    texts = [t.replace(name, definition) for t in texts]
consts = ",".join(k + "=" + v for k, v in given.items())
# A filter over the initial states, aggregated here over Storm's values in each of them.
FILTERS = {
    "max": max, "min": min, "sum": sum, "avg": lambda v: sum(v) / len(v),
    "count": lambda v: sum(1 for x in v if x), "forall": all, "exists": any,
}
out, states = [], 0
for text in texts:
    try:
        f = re.fullmatch(r'filter\((\w+), (.*), "init"\)', text)
        if f and f.group(1) not in FILTERS:
            raise ValueError("filter(" + f.group(1) + ", ...) is not compared")
        prog = stormpy.parse_prism_program(model)
        ps = stormpy.parse_properties("\n".join(header + [f.group(2) if f else text]), prog)
        prog, ps = stormpy.instantiate_constants(prog, consts, ps)
        m = stormpy.build_model(prog, ps)
        states = m.nr_states
        r = stormpy.model_checking(m, ps[-1], only_initial_states=True)
        value = lambda s: (bool(r.get_truth_values_vector()[s]) if r.is_qualitative()
                           else float(r.get_value(s)))
        each = [value(s) for s in m.initial_states]
        if f:
            out.append(FILTERS[f.group(1)](each))
        elif len(each) == 1:
            out.append(each[0])
        else:
            raise ValueError("several initial states without a filter are not compared")
    except Exception as e:
        out.append("error: " + (str(e).strip().splitlines() or ["?"])[-1][:100])
print(json.dumps({"values": out, "states": states}))
'''


def cases(root):
    """(directory, model, properties, constants) of every `prism` line of every `auto`."""
    found = []
    for auto in sorted(glob.glob(os.path.join(root, "**", "auto"), recursive=True)):
        rel = os.path.relpath(auto, root)
        if not rel.startswith(("dtmcs", "mdps", "simple")):
            continue
        first = {}
        for line in open(auto):
            line = line.strip()
            m = re.match(r"foreach (\w+) \((.*)\)", line)
            if m:
                first[m.group(1)] = m.group(2).split()[0]
                continue
            if not line.startswith("prism "):
                continue
            toks = line.split()
            model, props = toks[1], toks[2]
            consts = toks[toks.index("-const") + 1] if "-const" in toks else ""
            for name, value in first.items():
                consts = consts.replace("$" + name, value)
                model = model.replace("$" + name, value)
                props = props.replace("$" + name, value)
            consts = ",".join(kv.split("=")[0] + "=" + kv.split("=")[1].split(":")[0]
                              for kv in consts.split(",") if "=" in kv)
            case = (os.path.dirname(auto), model, props, consts)
            if case not in found:
                found.append(case)
    return found


def number(v):
    """A value of perfectplay's JSON as a float."""
    return float(str(v).replace("Infinity", "inf")) if isinstance(v, str) else float(v)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("perfectplay")
    ap.add_argument("examples", help="prism-examples/ of PRISM's sources")
    ap.add_argument("--max-states", default="2000000")
    args = ap.parse_args()
    differ = 0
    tally = {}
    for d, model, props, consts in cases(args.examples):
        mp, pp = os.path.join(d, model), os.path.join(d, props)
        if not (os.path.exists(mp) and os.path.exists(pp)):
            continue
        name = f"{os.path.relpath(mp, args.examples)} {consts}".strip()
        cmd = [args.perfectplay, "check", mp, pp, "--json", "-q", "--max-states", args.max_states]
        t = time.perf_counter()
        r = subprocess.run(cmd + (["--const", consts] if consts else []), capture_output=True,
                           text=True)
        ours_seconds = time.perf_counter() - t
        try:
            ours = json.loads(r.stdout)["results"]
        except (json.JSONDecodeError, KeyError):
            print(f"ours refused: {name}: {r.stderr.strip().splitlines()[0]}")
            tally["ours refused"] = tally.get("ours refused", 0) + 1
            continue
        texts = json.dumps([o["property"] for o in ours])
        s = subprocess.run(["timeout", "600", sys.executable, "-c", STORM, mp, pp, consts, texts],
                           capture_output=True, text=True)
        try:
            storm = json.loads(s.stdout.strip().splitlines()[-1])
        except (json.JSONDecodeError, IndexError):
            print(f"Storm refused: {name}: {(s.stderr.strip().splitlines() or ['?'])[-1][:120]}")
            tally["Storm refused"] = tally.get("Storm refused", 0) + 1
            continue
        compared = bad = 0
        for o, v in zip(ours, storm["values"]):
            text = o["property"]
            if "value" not in o or isinstance(v, str):
                continue
            if text.startswith("filter(") and not text.endswith(', "init")'):
                continue
            ov = o["value"]
            if isinstance(v, bool) or isinstance(ov, bool):
                same = v == ov
            else:
                ov = number(ov)
                same = ov == v or abs(ov - v) <= 1e-5 * max(abs(v), 1e-12)
            compared += 1
            if not same:
                bad += 1
                print(f"  {name}: {text}: perfectplay {o['value']}, Storm {v}")
        differ += bad
        verdict = "DIFFERS" if bad else "ok" if compared else "not compared"
        tally[verdict] = tally.get(verdict, 0) + 1
        print(f"{verdict}: {name}: {compared} of {len(ours)} properties compared, "
              f"{storm['states']} states, perfectplay {ours_seconds:.2f} s", flush=True)
    print(", ".join(f"{k}: {v}" for k, v in sorted(tally.items())) + " (cases)")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
