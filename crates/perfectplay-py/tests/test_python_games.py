"""Games written in Python: values against independent brute force (recursion for games
without cycles, every stationary strategy for small games with cycles), exact against
float, and every query on them."""

import itertools
import random
from fractions import Fraction as F

import pytest

import perfectplay
from perfectplay import Chance, Decision, Move, Terminal


class Race(perfectplay.Game):
    """Reach exactly 4 with a die of faces 1-3; each roll costs 1, overshooting sends you
    back to 0 (a cycle), from 2 on you may pay 2 to finish."""

    def start(self):
        return 0

    def expand(self, n):
        if n in (4, "done"):
            return Terminal(0)
        roll = Move("roll", reward=1,
                    chance=[(F(1, 3), n + f if n + f <= 4 else 0, 0) for f in (1, 2, 3)])
        return Decision("min", [roll] + ([Move("pay", "done", reward=2)] if n >= 2 else []))


def test_a_cyclic_game_solved_exactly():
    s = perfectplay.solve(Race(), exact=True)
    assert s.exact == F(28, 9)
    assert s.report["cyclic_components"] == 1
    e = s.explain(3)
    assert [b.label for b in e] == ["roll", "pay"]
    assert e[1].chosen and e[0].loss_exact == F(29, 27)
    assert [o.next for o in e[0].outcomes] == [4, 0, 0]
    assert e[1].next == "done"
    assert perfectplay.solve(Race()).value == pytest.approx(28 / 9, abs=1e-12)


class Table(perfectplay.Game):
    """A random game given as a table: state -> ("t", payoff) | ("max"/"min", [(reward,
    next)]) | ("c", [(p, reward, next)])."""

    def __init__(self, nodes, key=lambda i: i):
        self.nodes, self.key = nodes, key
        self.back = {key(i): i for i in range(len(nodes))}

    def start(self):
        return self.key(0)

    def expand(self, state):
        kind, data = self.nodes[self.back[state]]
        if kind == "t":
            return Terminal(data)
        if kind == "c":
            return Chance([(p, self.key(n), r) for p, r, n in data])
        return Decision(kind, [Move(f"m{i}", self.key(n), r) for i, (r, n) in enumerate(data)])


def random_dag(rng, n, players=("max", "min")):
    nodes = []
    for i in range(n):
        later = list(range(i + 1, n))
        if not later or rng.random() < 0.15:
            nodes.append(("t", F(rng.randint(-9, 9), rng.choice([1, 2, 3]))))
            continue
        k = rng.randint(1, min(3, len(later)))
        if rng.random() < 0.4:
            weights = [rng.randint(1, 4) for _ in range(k)]
            total = sum(weights)
            nodes.append(("c", [(F(w, total), rng.randint(-2, 2), rng.choice(later))
                                for w in weights]))
        else:
            nodes.append((rng.choice(players),
                          [(rng.randint(-3, 3), rng.choice(later)) for _ in range(k)]))
    return nodes


def brute_force(nodes, i=0, memo=None):
    memo = {} if memo is None else memo
    if i in memo:
        return memo[i]
    kind, data = nodes[i]
    if kind == "t":
        v = data
    elif kind == "c":
        v = sum(p * (r + brute_force(nodes, n, memo)) for p, r, n in data)
    else:
        vals = [r + brute_force(nodes, n, memo) for r, n in data]
        v = max(vals) if kind == "max" else min(vals)
    memo[i] = v
    return v


@pytest.mark.parametrize("seed", range(40))
def test_random_acyclic_games_match_brute_force(seed):
    rng = random.Random(seed)
    nodes = random_dag(rng, rng.randint(2, 25))
    keys = [lambda i: i, lambda i: ("s", i), lambda i: frozenset({i, -1}), lambda i: str(i)]
    game = Table(nodes, key=keys[seed % len(keys)])
    exact = perfectplay.solve(game, exact=True)
    assert exact.exact == brute_force(nodes)
    assert perfectplay.solve(game).value == pytest.approx(float(exact.exact), abs=1e-9)
    # Every decision's chosen move is optimal, and explained values agree with the table.
    for row in exact.strategy():
        assert row.chosen in row.optimal
        i = game.back[row.state]
        assert row.exact == brute_force(nodes, i)


def solve_linear(a, b):
    """Solves a x = b in fractions (Gauss-Jordan); None if singular."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = next((r for r in range(c, n) if m[r][c] != 0), None)
        if p is None:
            return None
        m[c], m[p] = m[p], m[c]
        for r in range(n):
            if r != c and m[r][c] != 0:
                f = m[r][c] / m[c][c]
                m[r] = [x - f * y for x, y in zip(m[r], m[c])]
    return [m[i][n] / m[i][i] for i in range(n)]


def best_over_strategies(nodes, player):
    """The optimal value of a one-player game with cycles: every stationary deterministic
    strategy is evaluated exactly (a linear system), keeping those that end with
    probability one; the best of them."""
    deciding = [i for i, (k, _) in enumerate(nodes) if k == player]
    best = None
    for choice in itertools.product(*[range(len(nodes[i][1])) for i in deciding]):
        pick = dict(zip(deciding, choice))
        n = len(nodes)
        # Reachability of a terminal from every state under this strategy.
        succ = []
        for i, (kind, data) in enumerate(nodes):
            if kind == "t":
                succ.append([])
            elif kind == "c":
                succ.append([nx for _, _, nx in data])
            else:
                succ.append([data[pick[i]][1]])
        ends = {i for i, (k, _) in enumerate(nodes) if k == "t"}
        changed = True
        while changed:
            changed = False
            for i in range(n):
                if i not in ends and any(s in ends for s in succ[i]):
                    ends.add(i)
                    changed = True
        # Only states reachable from the start matter.
        seen, stack = {0}, [0]
        while stack:
            for s in succ[stack.pop()]:
                if s not in seen:
                    seen.add(s)
                    stack.append(s)
        if not seen <= ends:
            continue
        # The system over the reachable states (the start first).
        order = sorted(seen)
        at = {s: j for j, s in enumerate(order)}
        m = len(order)
        a = [[F(0)] * m for _ in range(m)]
        b = [F(0)] * m
        for i in order:
            kind, data = nodes[i]
            j = at[i]
            a[j][j] += 1
            if kind == "t":
                b[j] = data
            elif kind == "c":
                for p, r, nx in data:
                    a[j][at[nx]] -= p
                    b[j] += p * r
            else:
                r, nx = data[pick[i]]
                a[j][at[nx]] -= 1
                b[j] += r
        x = solve_linear(a, b)
        v = x[0]
        if best is None or (v > best if player == "max" else v < best):
            best = v
    return best


def random_cyclic(rng, n, player):
    nodes = []
    for i in range(n):
        if i >= n - 2:
            nodes.append(("t", F(rng.randint(-5, 5))))
            continue
        others = list(range(n))
        if rng.random() < 0.5:
            k = rng.randint(1, 3)
            weights = [rng.randint(1, 3) for _ in range(k)]
            total = sum(weights)
            outs = [(F(w, total), rng.randint(-2, 2), rng.choice(others)) for w in weights]
            # Some chance of ending keeps every strategy's value finite.
            outs.append((F(1, 2), 0, rng.choice([n - 1, n - 2])))
            outs = [(p / 2 if j < k else p, r, nx) for j, (p, r, nx) in enumerate(outs)]
            nodes.append(("c", outs))
        else:
            nodes.append((player, [(rng.randint(-2, 2), rng.choice(others))
                                   for _ in range(rng.randint(1, 2))]))
    return nodes


@pytest.mark.parametrize("seed", range(30))
def test_random_cyclic_one_player_games_match_every_strategy(seed):
    rng = random.Random(1000 + seed)
    player = "max" if seed % 2 else "min"
    nodes = random_cyclic(rng, rng.randint(3, 9), player)
    expected = best_over_strategies(nodes, player)
    game = Table(nodes)
    if expected is None:
        with pytest.raises(perfectplay.SolveError):
            perfectplay.solve(game, exact=True)
        return
    try:
        got = perfectplay.solve(game, exact=True)
    except perfectplay.SolveError as e:
        # A cycle that gains without bound has no finite value, whatever proper strategies
        # give: the engine says so.
        assert "diverges" in str(e)
        return
    assert got.exact == expected
    assert perfectplay.solve(game).value == pytest.approx(float(expected), abs=1e-9)


class Nim(perfectplay.Game):
    """Take 1-3 from a pile; who takes the last wins (+1 for Max, who starts)."""

    def __init__(self, pile):
        self.pile = pile

    def start(self):
        return (self.pile, "max")

    def expand(self, state):
        pile, turn = state
        if pile == 0:
            return Terminal(-1 if turn == "max" else 1)
        other = "min" if turn == "max" else "max"
        return Decision(turn, [Move(f"take {k}", (pile - k, other)) for k in (1, 2, 3)
                               if k <= pile])


@pytest.mark.parametrize("pile", range(1, 13))
def test_a_two_player_game(pile):
    s = perfectplay.solve(Nim(pile), exact=True)
    assert s.exact == (-1 if pile % 4 == 0 else 1)


def test_distribution_and_simulation_of_a_python_game():
    s = perfectplay.solve(Race(), exact=True)
    d = s.distribution()
    assert sum(d.probabilities_exact) == 1 and d.mean_exact == F(28, 9)
    assert list(d.support) == [2.0, 3.0, 4.0]
    assert d.total_name == "total"
    sim = s.simulate(20000, seed=1)
    assert sim.ci95[0] - 0.05 <= 28 / 9 <= sim.ci95[1] + 0.05


def test_states_may_be_any_hashable_value_even_none():
    class G(perfectplay.Game):
        def start(self):
            return None

        def expand(self, s):
            if s is None:
                return Chance([(F(1, 2), (1, "a"), 0), (F(1, 2), frozenset({2}), 0)])
            return Terminal(3 if s == (1, "a") else 5)

    s = perfectplay.solve(G(), exact=True)
    assert s.exact == 4
    e = s.explain()
    assert e.state is None and [b.next for b in e] == [(1, "a"), frozenset({2})]
    assert s.explain((1, "a")).exact == 3


def test_a_random_move_and_labels_of_outcomes():
    class G(perfectplay.Game):
        def start(self):
            return "s"

        def expand(self, s):
            if s != "s":
                return Terminal(s)
            return Decision("max", [
                Move("safe", 2),
                Move("gamble", chance=[(F(1, 3), 9, 0, "win"), (F(2, 3), 0, -1, "lose")],
                     reward=F(1, 2)),
            ])

    s = perfectplay.solve(G(), exact=True)
    assert s.exact == F(1, 2) + F(1, 3) * 9 + F(2, 3) * -1
    gamble = s.explain()[1]
    assert [o.label for o in gamble.outcomes] == ["win", "lose"]
    assert [o.probability for o in gamble.outcomes] == [F(1, 3), F(2, 3)]


def test_floats_only_when_asked_for():
    class G(perfectplay.Game):
        def __init__(self, ps):
            self.ps = ps

        def start(self):
            return 0

        def expand(self, s):
            if s:
                return Terminal(s)
            return Chance([(p, i + 1, 0) for i, p in enumerate(self.ps)])

    with pytest.raises(ValueError, match="accept_floats") as e:
        perfectplay.solve(G([0.5, 0.5]))
    assert "state 0" in str(e.value)
    assert perfectplay.solve(G([0.5, 0.5]), accept_floats=True, exact=True).exact == F(3, 2)
    # 0.1 + 0.2 + 0.7 is not one in binary fractions: never normalised.
    with pytest.raises(ValueError, match="sum"):
        perfectplay.solve(G([0.1, 0.2, 0.7]), accept_floats=True)


def test_numbers_beyond_64_bits_are_kept_exactly():
    # A coin that lands on its edge with probability 3**-50, paying 2**70 then.
    tiny = F(1, 3**50)

    class Edge(perfectplay.Game):
        def start(self):
            return 0

        def expand(self, s):
            if s == 1:
                return Terminal(2**70)
            if s == 2:
                return Terminal(1)
            if s == 3:
                return Terminal(F(1, 2**80))
            return Chance([(tiny, 1, 0), (1 - tiny - tiny, 2, 0), (tiny, 3, 0)])

    want = tiny * 2**70 + (1 - 2 * tiny) + tiny * F(1, 2**80)
    solved = perfectplay.solve(Edge(), exact=True)
    assert solved.exact == want
    assert perfectplay.solve(Edge()).value == pytest.approx(float(want), rel=1e-15)
    assert Terminal(2**70).payoff == 2**70
    assert Terminal(-tiny).payoff == -tiny

    # A float's exact binary fraction, however small.
    class Tiny(perfectplay.Game):
        def start(self):
            return 0

        def expand(self, s):
            return Terminal(self.payoff)

    for payoff in [1e-300, 5e-324, 1e300, -1.5e200]:
        tiny = Tiny()
        tiny.payoff = payoff
        assert perfectplay.solve(tiny, accept_floats=True, exact=True).exact == F(payoff)


def test_a_game_names_its_total():
    class Steps(Race):
        def total_name(self):
            return "steps"

    assert perfectplay.solve(Steps()).distribution().total_name == "steps"

    class Bad(Race):
        def total_name(self):
            return 3

    with pytest.raises(ValueError, match="total_name"):
        perfectplay.solve(Bad())
