"""Fit the Hard bot's judge of 3 seats or more (`HardBot.table_weights`, `trio_weights`).

    /work/venv/bin/python bench/fit_table_judge.py --players 4       # classic, 20000 deals
    /work/venv/bin/python bench/fit_table_judge.py --players 3 --table standard

With 3 seats or more Hard cuts its rollouts after `HardBot.horizon` moves and
judges where they stopped: each seat's chance to win is its share of
`exp(weights . table_features(seat))` (a conditional logit). This script
deals random games into the look-ahead's simulator (`lookahead.World`),
plays each 2-59 moves with the rollout policy (Medium's play) for every
seat, notes every seat's features, plays on to the end and notes the winner
(positions with a shared win are dropped). Newton's method (no libraries)
fits the weights; it prints them with the log loss of the fit, of the
weights in use, of the hand-size judge used before (0.55 a card, a wild 0.4
of a card off, 0.6 off for the seat to move with a play) and of knowing
nothing (log of the seat count).
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fit_judge import _solve  # noqa: E402  (bench/ is this script's directory: the two-seat fit's solver)

from lanmatch.bots import colormatch as CM  # noqa: E402
from lanmatch.bots import lookahead as L  # noqa: E402
from lanmatch.rules import cards as C  # noqa: E402

TABLES = ("classic", "standard", "toll", "siege", "cards")
HAND_SIZE = (0.55, 0.22, 0.0, 0.33, 0.0)  # the hand-size judge in these terms


def deal(table: str, n: int, rng: random.Random) -> L.World:
    """A fresh game of `n` seats: 7 cards each, a number turned up, a random first seat."""
    w = L.World(table)
    w.n = n
    deck = L.full_deck(table)
    rng.shuffle(deck)
    w.hands = [deck[7 * i:7 * i + 7] for i in range(n)]
    rest = deck[7 * n:]
    while L.COLOR[rest[-1]] is None or L.SYM[rest[-1]] not in C.NUMBERS:
        rest.insert(0, rest.pop())
    w.disc = [rest.pop()]
    w.pile = rest
    w.color = L.COLOR[w.disc[0]]
    w.cur = rng.randrange(n)
    w.greedy = frozenset(range(n))
    w.rng = random.Random(rng.random())
    return w


def samples(table: str, n: int, deals: int, seed: int) -> list[tuple[list[tuple[int, ...]], int]]:
    rng = random.Random(seed)
    data = []
    for _ in range(deals):
        w = deal(table, n, rng)
        L.rollout(w, rng.randrange(2, 60))
        if w.over:
            continue
        features = [CM.table_features(w, s) for s in range(n)]
        L.rollout(w, 3000)
        if w.over and len(w.winners) == 1:
            data.append((features, w.winners[0]))
    return data


def log_loss(weights, data) -> float:
    total = 0.0
    for features, y in data:
        zs = [sum(a * b for a, b in zip(weights, x, strict=True)) for x in features]
        top = max(zs)
        total -= zs[y] - (top + math.log(sum(math.exp(z - top) for z in zs)))
    return total / len(data)


def fit(data, rounds: int = 10) -> tuple[float, ...]:
    k = len(data[0][0][0])
    w = [0.0] * k
    for _ in range(rounds):
        grad = [0.0] * k
        hess = [[1e-6 if i == j else 0.0 for j in range(k)] for i in range(k)]
        for features, y in data:
            zs = [sum(a * b for a, b in zip(w, x, strict=True)) for x in features]
            top = max(zs)
            es = [math.exp(z - top) for z in zs]
            total = sum(es)
            ps = [e / total for e in es]
            mean = [sum(p * x[i] for p, x in zip(ps, features, strict=True)) for i in range(k)]
            for i in range(k):
                grad[i] += features[y][i] - mean[i]
                for j in range(k):
                    hess[i][j] += sum(p * x[i] * x[j] for p, x in zip(ps, features, strict=True)) - mean[i] * mean[j]
        step = _solve(hess, grad)
        w = [a + s for a, s in zip(w, step, strict=True)]
    return tuple(w)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--table", default="classic", choices=TABLES)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--deals", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args()
    data = samples(args.table, args.players, args.deals, args.seed)
    weights = fit(data)
    in_use = CM.HardBot.trio_weights if args.players == 3 else CM.HardBot.table_weights
    names = ("cards", "wilds", "specials", "to move", "pile")
    print(f"{args.table}, {args.players} seats: {len(data)} positions from {args.deals} deals (seed {args.seed})")
    print("fitted  " + "  ".join(f"{n} {k:.3f}" for n, k in zip(names, weights, strict=True)))
    print(f"log loss: fitted {log_loss(weights, data):.4f}, in use {log_loss(in_use, data):.4f}, "
          f"hand-size judge {log_loss(HAND_SIZE, data):.4f}, knowing nothing {math.log(args.players):.4f}")


if __name__ == "__main__":
    main()
