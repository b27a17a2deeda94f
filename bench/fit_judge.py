"""Fit the Hard bot's two-seat judge to playouts (`HardBot.duel_weights`).

    /work/venv/bin/python bench/fit_judge.py                       # classic, 30000 deals
    /work/venv/bin/python bench/fit_judge.py --table siege --deals 30000 --seed 5

With two seats, Hard cuts each rollout of its look-ahead after a few moves
and judges the position it reached: the chance that it goes on to win. This
script measures that chance. It deals random two-seat games into the
look-ahead's own simulator (`lanmatch.bots.lookahead.World`), plays each a
random 2-39 moves with the rollout policy (Medium's play) for both seats,
notes the judge's features (`colormatch.duel_features`) for a random seat,
plays on to the end and notes whether that seat won (a shared win counts
half). A logistic regression (Newton's method, no libraries) of the outcome
on the features gives the weights; it prints them with the log loss of the
fit, of the weights in use, and of a coin toss (0.693).

The weights in `HardBot.duel_weights` came from the first command, on
`classic`; the other tables gave close figures (bench/README.md, "Bots").
Day & Night is not dealt here (its two-sided cards need the dealer of a real
view) and uses the same weights.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lanmatch.bots import colormatch as CM  # noqa: E402
from lanmatch.bots import lookahead as L  # noqa: E402
from lanmatch.rules import cards as C  # noqa: E402

TABLES = ("classic", "standard", "toll", "siege", "cards")


def deal(table: str, rng: random.Random) -> L.World:
    """A fresh two-seat game: 7 cards each, a number turned up, a random first seat."""
    w = L.World(table)
    w.n = 2
    deck = L.full_deck(table)
    rng.shuffle(deck)
    w.hands = [deck[:7], deck[7:14]]
    rest = deck[14:]
    while L.COLOR[rest[-1]] is None or L.SYM[rest[-1]] not in C.NUMBERS:
        rest.insert(0, rest.pop())
    w.disc = [rest.pop()]
    w.pile = rest
    w.color = L.COLOR[w.disc[0]]
    w.cur = rng.randrange(2)
    w.greedy = frozenset({0, 1})
    w.rng = random.Random(rng.random())
    return w


def samples(table: str, deals: int, seed: int) -> tuple[list[tuple[int, ...]], list[float]]:
    rng = random.Random(seed)
    xs: list[tuple[int, ...]] = []
    ys: list[float] = []
    for _ in range(deals):
        w = deal(table, rng)
        L.rollout(w, rng.randrange(2, 40))
        if w.over:
            continue
        me = rng.randrange(2)
        features = CM.duel_features(w, me)
        L.rollout(w, 2000)
        if not w.over or not w.winners:
            continue
        xs.append(features)
        ys.append((1.0 / len(w.winners)) if me in w.winners else 0.0)
    return xs, ys


def log_loss(weights: tuple[float, ...], xs, ys) -> float:
    total = 0.0
    for x, y in zip(xs, ys, strict=True):
        z = sum(k * f for k, f in zip(weights, x, strict=True))
        p = min(max(1.0 / (1.0 + math.exp(-z)), 1e-9), 1 - 1e-9)
        total -= y * math.log(p) + (1 - y) * math.log(1 - p)
    return total / len(xs)


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (a small dense system)."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(n):
            if r != c:
                f = m[r][c] / m[c][c]
                for j in range(c, n + 1):
                    m[r][j] -= f * m[c][j]
    return [m[i][n] / m[i][i] for i in range(n)]


def fit(xs, ys, rounds: int = 12) -> tuple[float, ...]:
    """Logistic regression without an intercept (the features are differences
    between the two seats, so a position and its mirror sum to one)."""
    k = len(xs[0])
    w = [0.0] * k
    for _ in range(rounds):
        grad = [0.0] * k
        hess = [[1e-6 if i == j else 0.0 for j in range(k)] for i in range(k)]
        for x, y in zip(xs, ys, strict=True):
            p = 1.0 / (1.0 + math.exp(-sum(a * b for a, b in zip(w, x, strict=True))))
            q = p * (1 - p)
            for i in range(k):
                grad[i] += (p - y) * x[i]
                for j in range(k):
                    hess[i][j] += q * x[i] * x[j]
        step = _solve(hess, grad)
        w = [a - s for a, s in zip(w, step, strict=True)]
    return tuple(w)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--table", default="classic", choices=TABLES)
    ap.add_argument("--deals", type=int, default=30000)
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args()
    xs, ys = samples(args.table, args.deals, args.seed)
    weights = fit(xs, ys)
    names = ("cards", "wilds", "specials", "to move", "pile")
    print(f"{args.table}: {len(xs)} positions from {args.deals} deals (seed {args.seed})")
    print("fitted  " + "  ".join(f"{n} {k:.3f}" for n, k in zip(names, weights, strict=True)))
    print(f"log loss: fitted {log_loss(weights, xs, ys):.4f}, in use {log_loss(CM.HardBot.duel_weights, xs, ys):.4f}, "
          f"a coin toss {math.log(2):.4f}")


if __name__ == "__main__":
    main()
