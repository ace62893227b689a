#!/usr/bin/env python3
"""Checks perfectplay against the expected results of PRISM's own test suite.

PRISM's sources (and PRISM-games') hold `prism-tests/`: models with properties files whose
comments give each property's expected result (`// RESULT: 1/3`, `// RESULT (K=2): 0.5`,
`// RESULT: Error`), and `.args` files with the options of each run (`-const K=1:3`,
`-exact`). This runs `perfectplay check` on every dtmc, mdp and smg property with an expected
result and sorts the outcomes:

- ok: the value (within 1e-5 relative, or exactly for a fraction) or truth value expected,
  or an error where PRISM expects one;
- WRONG: another value;
- refused: an error that names what is not supported (LTL, `S`, multi-objective, ...);
- error: any other error;
- answered: PRISM expects an error (often a limit of PRISM's) and perfectplay answers;
- unchecked: answered where PRISM gives no number to compare (`?`, a parametric result);
- skipped: a properties file whose every run changes what is computed (`-fair`, `-dtmc`, ...).

Usage (the suite is not part of this repository):

    cargo build --release -p perfectplay-cli
    python3 bench/prism_tests/run.py PATH/TO/prism/prism-tests [--bin target/release/perfectplay]

Each property is checked with the whole properties file, so that named properties and the
file's constants resolve; where the file does not parse as a whole (a property of a kind not
supported), with the file's constants, labels and formulas and the one property alone.
"""

import argparse
import fractions
import json
import math
import os
import re
import subprocess
import sys
import tempfile

MODEL_EXTENSIONS = ('.pm', '.nm', '.prism', '.smg')
# Model kinds of the suite that perfectplay does not take, by folder.
SKIPPED_FOLDERS = ('/idtmcs/', '/imdps/', '/param/', '/pomdps/', '/ptas/', '/poptas/',
                   '/csgs/', '/tptgs/', '/smgs-multi/', '/export/', '/import/')
CHANGED = {'-fair', '-dtmc', '-ctmc', '-mdp', '-noprobchecks', '-param'}
REFUSED = ('not supported', 'LTL', 'multi-objective', 'co-safe')


def units(text):
    """The properties of a properties file in order, each with its expected results: a list
    of (property text, [(constants or None, expected text)])."""
    found, pending, current = [], [], None
    for raw in text.split('\n'):
        line = raw.strip()
        m = re.match(r'//\s*RESULT\s*(\(([^)]*)\))?\s*:\s*(.*)$', line)
        if m:
            pending.append((m.group(2), m.group(3).strip()))
            continue
        if line.startswith('//') and ('=?' in line or '[' in line):
            pending = []  # a property commented out takes its results with it
        if line.startswith('//') or not line:
            continue
        code = line.split('//')[0].strip()
        if current is None:
            if re.match(r'^(const|label|formula)\b', code):
                continue
            current, pending = [code, pending], []
        else:
            current[0] += ' ' + code
        open_brackets = sum(current[0].count(c) for c in '([') - sum(
            current[0].count(c) for c in ')]')
        if current[0].endswith(';') or open_brackets == 0:
            found.append(current)
            current = None
    if current:
        found.append(current)
    return found


def definitions(text):
    """The constants, labels and formulas of a properties file."""
    text = re.sub(r'//.*', '', text)
    return '\n'.join(s.strip() + ';' for s in text.split(';')
                     if re.match(r'^(const|label|formula)\b', s.strip()))


def model_kind(path):
    text = re.sub(r'//.*', '', open(path).read())
    m = re.search(r'\b(dtmc|mdp|smg|ctmc|pta|probabilistic|nondeterministic|stochastic|ctmdp|'
                  r'pomdp|popta|csg|tptg|lts)\b', text)
    return m.group(1) if m else None


def runs(path):
    """The option lines of an `.args` file (one run each)."""
    if not os.path.exists(path):
        return [[]]
    lines = [l.split('#')[0].split() for l in open(path)]
    return [l for l in lines if l] or [[]]


def constants(args):
    """The `-const` values of one run, by name."""
    values = {}
    for i, a in enumerate(args[:-1]):
        if a in ('-const', '--const'):
            for kv in args[i + 1].split(','):
                if '=' in kv:
                    k, v = kv.split('=', 1)
                    values[k] = v
    return values


def number(text):
    t = text.strip().split()[0] if text.strip() else ''
    low = t.lower()
    if low in ('true', 'false'):
        return low == 'true'
    if low in ('infinity', 'inf'):
        return math.inf
    if low in ('-infinity', '-inf'):
        return -math.inf
    try:
        return fractions.Fraction(t)
    except (ValueError, ZeroDivisionError):
        return None


def agrees(want, result):
    got = result.get('holds')
    if got is None:
        got = result.get('value')
    if isinstance(want, bool) or isinstance(got, bool):
        return want == got
    if result.get('exact'):
        got = fractions.Fraction(result['exact'])
    if isinstance(got, str) or got is None:
        return str(got).lower() in ('inf', 'infinity') and want == math.inf
    x, g = float(want), float(got)
    if math.isinf(x) or math.isinf(g):
        return x == g
    return abs(g - x) <= 1e-5 * max(1.0, abs(x)) + 1e-9


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('suite', help="a prism-tests folder (or one beneath it)")
    ap.add_argument('--bin', default='target/release/perfectplay')
    ap.add_argument('--timeout', type=float, default=60)
    opts = ap.parse_args()
    outcomes = {}
    scratch = tempfile.mkdtemp()
    for folder, _, files in sorted(os.walk(opts.suite)):
        for name in sorted(f for f in files if f.endswith('props')):
            props = os.path.join(folder, name)
            if any(s in props + '/' for s in SKIPPED_FOLDERS):
                continue
            model = next((os.path.join(folder, f) for f in sorted(files, key=len, reverse=True)
                          if f.endswith(MODEL_EXTENSIONS) and name.startswith(f + '.')), None)
            if model is None or model_kind(model) not in (
                    'dtmc', 'mdp', 'smg', 'probabilistic', 'nondeterministic'):
                continue
            all_runs = runs(props + '.args')
            # Options that change what is computed: fairness, another model type, no check
            # that probabilities sum to one.
            if all(set(r) & CHANGED for r in all_runs):
                outcomes.setdefault('skipped', []).append(props)
                continue
            exact = all({'-exact', '--exact'} & set(r) for r in all_runs)
            defined = set(re.findall(r'const\s+(?:int|double|bool)?\s*(\w+)\s*=',
                                     open(model).read() + open(props).read()))
            given = constants(next(r for r in all_runs if not set(r) & CHANGED))
            text = open(props).read()
            alone = os.path.join(scratch, 'one.props')
            for i, (prop, results) in enumerate(units(text), 1):
                for spec, want in results:
                    values = dict(given)
                    if spec:
                        values.update(constants(['-const', spec.replace(' ', '')]))
                    # A result's constants may name those the files define, to match on.
                    values = {k: v for k, v in values.items() if k not in defined}
                    tail = ['--json', '-q'] + (['--exact'] if exact else [])
                    for k, v in values.items():
                        tail += ['--const', f'{k}={v}']
                    key = f'{os.path.relpath(props, opts.suite)}#{i} [{spec or ""}] {prop[:80]}'
                    try:
                        r = subprocess.run([opts.bin, 'check', model, props, '--prop', str(i)]
                                           + tail, capture_output=True, text=True,
                                           timeout=opts.timeout)
                        if r.returncode != 0:
                            with open(alone, 'w') as f:
                                f.write(definitions(text) + '\n' + prop + '\n')
                            r = subprocess.run([opts.bin, 'check', model, alone, '--prop', '1']
                                               + tail, capture_output=True, text=True,
                                               timeout=opts.timeout)
                    except subprocess.TimeoutExpired:
                        outcomes.setdefault('timeout', []).append(key)
                        continue
                    expects_error = want.lower().startswith(('error', 'exception'))
                    if r.returncode != 0:
                        err = (r.stderr.strip().split('\n') or [''])[0][:200]
                        kind = ('ok' if expects_error else
                                'refused' if any(w in err for w in REFUSED) else 'error')
                        outcomes.setdefault(kind, []).append(f'{key} :: {err}')
                        continue
                    if expects_error:
                        outcomes.setdefault('answered', []).append(key)
                        continue
                    expected = number(want)
                    if want.startswith('?') or expected is None:
                        # Any value (`?`), or one PRISM gives as a function of parameters.
                        outcomes.setdefault('unchecked', []).append(key)
                        continue
                    result = json.loads(r.stdout.strip().split('\n')[-1])['results'][0]
                    ok = agrees(expected, result)
                    shown = result.get('holds', result.get('exact') or result.get('value'))
                    outcomes.setdefault('ok' if ok else 'WRONG', []).append(
                        key + ('' if ok else f' :: expected {want}, got {shown}'))
    for kind in ('ok', 'WRONG', 'error', 'refused', 'answered', 'timeout', 'unchecked',
                 'skipped'):
        print(f'{kind}: {len(outcomes.get(kind, []))}')
    for kind in ('WRONG', 'error', 'timeout', 'answered', 'refused'):
        for line in outcomes.get(kind, []):
            print(f'  {kind}: {line}')
    return 1 if outcomes.get('WRONG') else 0


if __name__ == '__main__':
    sys.exit(main())
