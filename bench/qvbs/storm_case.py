#!/usr/bin/env python3
"""One QVBS case in Storm (stormpy), in a process of its own so that its time and memory are
its own: prints one JSON line {"value", "states", "seconds", "peak_mb"}.

Usage: storm_case.py MODEL PROPERTY CONSTANTS MODE
  CONSTANTS as 'N=3,K=2' (or ''); MODE is 'default' (what the storm command does without
  options), 'sound' (sound value iteration, precision 1e-6 relative, as Storm's --sound) or
  'exact' (a model of rationals and Storm's exact environment, as Storm's --exact; the value
  is then also given as the fraction, "exact").
`seconds` is Storm's build and check, without Python's start and stormpy's import.
"""
import json
import re
import resource
import sys
import time


def main():
    model_file, prop, constants, mode = sys.argv[1:5]
    import stormpy

    # filter(op, P, "init") over several initial states: the values at every initial state,
    # aggregated here (Storm gives them all with only_initial_states).
    over = None
    m = re.fullmatch(r'\s*filter\(\s*(max|min|avg)\s*,\s*(.*),\s*"init"\s*\)\s*', prop)
    if m:
        over, prop = m.group(1), m.group(2)
    t = time.perf_counter()
    prog = stormpy.parse_prism_program(model_file)
    props = stormpy.parse_properties(prop, prog)
    prog, props = stormpy.instantiate_constants(prog, constants, props)
    if mode == "exact":
        model = stormpy.build_model[stormpy.Rational](prog, props)
        env = stormpy.environments.exact()
    else:
        model = stormpy.build_model(prog, props)
        env = stormpy.environments.sound() if mode == "sound" else stormpy.Environment()
    result = stormpy.model_checking(model, props[0], only_initial_states=True, environment=env)
    exact = [str(result.get_value(s)) for s in model.initial_states] if mode == "exact" else []
    values = [float(result.get_value(s)) for s in model.initial_states]
    seconds = time.perf_counter() - t
    if over == "max" or (over is None and len(values) == 1):
        value = max(values)
    elif over == "min":
        value = min(values)
    else:
        value = sum(values) / len(values)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    out = {"value": "inf" if value == float("inf") else value, "states": model.nr_states,
           "seconds": seconds, "peak_mb": peak_mb}
    if len(exact) == 1:
        out["exact"] = exact[0]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
