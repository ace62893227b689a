#!/usr/bin/env python3
"""perfectplay against Storm on the QVBS cases, side by side in one run.

Usage: bench/qvbs/storm.sh [--min-states N] [--max-states N] [--timeout S] [--markdown FILE]
(storm.sh makes the virtual environment with stormpy and builds perfectplay first.)

For every case of crates/perfectplay-prism/tests/qvbs/cases.json with between --min-states and
--max-states states (default 0.3 to 2 million), runs
- `perfectplay check` as a whole process (parse, build, analyse, solve, print), and
- Storm through stormpy in a process of its own (storm_case.py): its default sparse engine
  (what the storm command does without options: value iteration with a relative convergence
  threshold of 1e-6, not sound) and its sound mode (sound value iteration), timing Storm's
  build and check only, not Python's start or the import;
and prints seconds, peak memory (MB; Storm's includes the Python interpreter and stormpy, about
100 MB), whether each value is within 1e-6 relative of the reference, and the geometric means
of the time and memory ratios.
"""
import argparse
import json
import math
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
DATA = os.path.join(REPO, "crates", "perfectplay-prism", "tests", "qvbs")
BIN = os.path.join(REPO, "target", "release", "perfectplay")


def run(cmd, timeout):
    """(returncode, stdout, stderr, seconds), or None on a timeout (the process group ends)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return None
    return proc.returncode, out, err, time.perf_counter() - start


def close(value, ref):
    if value == "inf" or ref == "inf":
        return value == ref
    return abs(value - ref) <= 1e-6 * max(abs(ref), 1e-3)


def ours(case, timeout):
    consts = ",".join(f"{k}={json.dumps(v)}" for k, v in case["constants"].items())
    cmd = ["/usr/bin/time", "-f", "%M", BIN, "check", os.path.join(DATA, case["model"]),
           "--prop", case["property"], "--json", "-q"]
    if consts:
        cmd += ["--const", consts]
    r = run(cmd, timeout)
    if r is None or r[0] != 0:
        return None
    value = json.loads(r[1])["results"][0]["value"]
    return r[3], int(r[2].strip().split("\n")[-1]) // 1024, value


def storm(case, mode, timeout):
    consts = ",".join(f"{k}={json.dumps(v)}" for k, v in case["constants"].items())
    cmd = [sys.executable, os.path.join(HERE, "storm_case.py"),
           os.path.join(DATA, case["model"]), case["property"], consts, mode]
    r = run(cmd, timeout)
    if r is None or r[0] != 0:
        return None
    j = json.loads(r[1])
    return j["seconds"], j["peak_mb"], j["value"]


def cell(result, ref):
    if result is None:
        return "timeout/error", "", "?"
    seconds, mb, value = result
    return f"{seconds:.2f}", f"{mb}", "yes" if close(value, ref) else f"NO ({value})"


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--min-states", type=int, default=300_000)
    ap.add_argument("--max-states", type=int, default=2_000_000)
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--markdown")
    args = ap.parse_args()
    cases = json.load(open(os.path.join(DATA, "cases.json")))
    cases = [c for c in cases if args.min_states <= c["states_full"] <= args.max_states]
    cases.sort(key=lambda c: c["states_full"])
    header = ("| case | states | perfectplay s | MB | correct | Storm s | MB | correct "
              "| Storm sound s | correct |")
    lines = [header, "|" + "---|" * 10]
    ratios, sound_ratios, memory = [], [], []
    print(header, flush=True)
    for c in cases:
        ref = c["reference"]
        a = ours(c, args.timeout)
        b = storm(c, "default", args.timeout)
        s = storm(c, "sound", args.timeout)
        ca, cb, cs = cell(a, ref), cell(b, ref), cell(s, ref)
        line = (f"| {c['id']} | {c['states_full']} | {ca[0]} | {ca[1]} | {ca[2]} | {cb[0]} "
                f"| {cb[1]} | {cb[2]} | {cs[0]} | {cs[2]} |")
        lines.append(line)
        print(line, flush=True)
        if a and b:
            ratios.append(a[0] / b[0])
            memory.append(a[1] / b[1])
        if a and s:
            sound_ratios.append(a[0] / s[0])
    summary = (f"\n{len(cases)} cases; geometric mean of perfectplay's time over Storm's: "
               f"{geomean(ratios):.2f} (default, {len(ratios)} cases), "
               f"{geomean(sound_ratios):.2f} (sound, {len(sound_ratios)} cases); "
               f"of peak memory: {geomean(memory):.2f}")
    print(summary)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write("\n".join(lines) + "\n" + summary + "\n")


if __name__ == "__main__":
    main()
