#!/usr/bin/env python3
"""Runs every QVBS case (crates/perfectplay-prism/tests/qvbs/cases.json) through
`perfectplay check` and compares the value with the reference.

Usage: bench/qvbs/run_all.py [--timeout SECONDS] [--max-states N] [--exact] [--only TEXT]...
                             [--kind KIND] [--processes N] [--bounds]
Build first: cargo build --release -p perfectplay-cli

Prints one line per case (OK/BAD/TIMEOUT/ERR, id, states, seconds, peak memory, value,
reference) by increasing state count, then the counts. Floats must agree within 1e-6 relative;
with --exact, the fraction must equal the exact reference where there is one. --kind keeps the
cases of one kind (prob-reach, prob-until, exp-reward); --processes N checks across N
processes (`check --processes N`), where the value must lie within its error bound (plus 1e-9
relative) of the reference, and the memory is the largest process's. --bounds keeps the cases
with a finite exact reference and checks the float answer's `error_bound` against it exactly:
a case is OK if |value - exact| <= error_bound, and the line adds the true error, the bound and
their ratio; the summary gives the ratios' median and largest.
"""
import argparse
import json
import math
import os
import signal
import subprocess
import time
from fractions import Fraction

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
DATA = os.path.join(REPO, "crates", "perfectplay-prism", "tests", "qvbs")
BIN = os.path.join(REPO, "target", "release", "perfectplay")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--max-states", type=int, default=10**9)
    ap.add_argument("--exact", action="store_true")
    ap.add_argument("--only", action="append", default=[],
                    help="run only the cases whose id contains TEXT (repeatable)")
    ap.add_argument("--kind", help="run only the cases of this kind")
    ap.add_argument("--processes", type=int, help="check across this many processes")
    ap.add_argument("--bounds", action="store_true",
                    help="check each float answer's error bound against the exact reference")
    args = ap.parse_args()
    cases = json.load(open(os.path.join(DATA, "cases.json")))
    counts = {"OK": 0, "BAD": 0, "TIMEOUT": 0, "ERR": 0}
    times = []
    ratios = []
    for c in sorted(cases, key=lambda c: c["states_full"]):
        if c["states_full"] > args.max_states:
            continue
        if args.only and not any(t in c["id"] for t in args.only):
            continue
        if args.kind and c["kind"] != args.kind:
            continue
        if args.bounds and c["reference_exact"] in (None, "", "inf", "Infinity"):
            continue
        cmd = ["/usr/bin/time", "-f", "%M", BIN, "check", os.path.join(DATA, c["model"]),
               "--prop", c["property"], "--json", "-q"]
        if args.exact:
            cmd.append("--exact")
        if args.processes:
            cmd += ["--processes", str(args.processes)]
        consts = ",".join(f"{k}={json.dumps(v)}" for k, v in c["constants"].items())
        if consts:
            cmd += ["--const", consts]
        start = time.time()
        # A session of its own, so that a timeout ends the checker too, not only `time`.
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                start_new_session=True)
        try:
            out, err = proc.communicate(timeout=args.timeout)
            r = subprocess.CompletedProcess(cmd, proc.returncode, out, err)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            counts["TIMEOUT"] += 1
            print("TIMEOUT", c["id"], c["states_full"], flush=True)
            continue
        seconds = time.time() - start
        if r.returncode != 0:
            counts["ERR"] += 1
            print("ERR", c["id"], c["states_full"], r.stderr.strip().replace("\n", " ")[:200], flush=True)
            continue
        memory_mb = int(r.stderr.strip().split("\n")[-1]) // 1024
        answer = json.loads(r.stdout)
        # The answer is the first of the `results` (one process or across processes).
        res = answer["results"][0]
        if "peak_memory" in res:
            memory_mb = max(res["peak_memory"]) // (1 << 20)
        value, ref = res["value"], c["reference"]
        extra = []
        if args.bounds:
            error = abs(Fraction(value) - Fraction(c["reference_exact"])) if value != "inf" else math.inf
            bound = res.get("error_bound")
            bound = math.inf if bound is None else bound
            good = error <= bound
            if error > 0 and math.isfinite(bound):
                ratios.append(bound / float(error))
            extra = [f"error {float(error):.2e}", f"bound {bound:.2e}",
                     f"ratio {bound / float(error):.3g}" if error > 0 else "ratio -"]
        elif args.processes and value != "inf" and ref != "inf":
            good = abs(value - ref) <= res["error_bound"] + 1e-9 * max(abs(ref), 1)
        elif args.exact and c["reference_exact"]:
            good = res["exact"] is not None and Fraction(res["exact"]) == Fraction(c["reference_exact"])
        elif ref == "inf" or value == "inf":
            good = value == ref
        else:
            good = abs(value - ref) <= 1e-6 * max(abs(ref), 1e-3)
        tag = "OK" if good else "BAD"
        counts[tag] += 1
        times.append((c["states_full"], seconds))
        print(tag, c["id"], c["states_full"], f"{seconds:.2f}s", f"{memory_mb}MB", value, ref, *extra,
              flush=True)
    big = [s for n, s in times if 300_000 <= n <= 2_000_000]
    print(" ".join(f"{k.lower()} {v}" for k, v in counts.items()))
    if ratios:
        ratios.sort()
        print(f"bound / true error over {len(ratios)} cases with an error: median "
              f"{ratios[len(ratios) // 2]:.3g}, largest {ratios[-1]:.3g}")
    if big:
        gm = math.exp(sum(math.log(s) for s in big) / len(big))
        print(f"geometric mean over {len(big)} cases of 0.3 to 2 million states: {gm:.2f} s")


if __name__ == "__main__":
    main()
