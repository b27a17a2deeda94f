"""Before/after trace check of the Color Match engine: `python bench/trace.py [SEEDS]`.

Plays SEEDS (default 200) seeds x the six tables x 2, 3 and 4 players, plus a
few option sets (stacking, jump-in, 7-0, strict +4, partners), with random
legal play from a fixed `random.Random` (a play four times in five when
there is one), and hashes everything the public API
(SPEC section 3) shows along the way: at every step `to_act`, the
`legal_actions` of every seat, `view(seat)` of every seat and the watcher's
view, the events `act` returns and `outcome`. Every seventh step it also sends
one action that is usually illegal (an unknown card, a wrong verb, an
`expire`, a bad seat) and hashes the `IllegalAction` sentence. It prints one
SHA-256 per cell group and one over all of them.

Run it on two trees to check that an engine change altered nothing:

    PYTHONPATH=/path/to/other/tree python bench/trace.py
    python bench/trace.py

The two last lines must be the same. Values are hashed through `repr`, so key
order and int/bool types count too.
"""

from __future__ import annotations

import hashlib
import random
import sys

from lanmatch.rules import IllegalAction, new_game

TABLES = ("standard", "toll", "classic", "daynight", "siege", "cards")
PLAYERS = (2, 3, 4)
# (table, players, options): rules the plain tables never reach
EXTRA = (
    ("standard", 4, {"stacking": True, "jump_in": True, "seven_o": True}),
    ("standard", 3, {"jump_in": True}),
    ("standard", 2, {"seven_o": True}),
    ("cards", 4, {"strict_wild4": True, "stacking": True}),
    ("classic", 4, {"teams": True}),
    ("standard", 4, {"teams": True, "mode": "match", "target": 150}),
    ("siege", 3, {"teams": False}),
)
ODD = (
    {"type": "play", "card": "R5"},
    {"type": "play", "card": "X9"},
    {"type": "play", "card": "W", "color": "Q"},
    {"type": "draw"},
    {"type": "pass"},
    {"type": "keep"},
    {"type": "call"},
    {"type": "catch", "seat": 1},
    {"type": "catch", "seat": True},
    {"type": "challenge"},
    {"type": "expire"},
    {"type": "expire", "penalty": True},
    {"type": "color", "color": "R"},
    {"type": "bogus"},
    {"type": "play", "card": "G7", "swap_with": 0},
    {"type": "play", "card": "B2", "call": True},
)


def play(h, table: str, players: int, seed: int, options: dict | None, rng: random.Random) -> int:
    g = new_game("colormatch", table=table, players=players, seed=seed, options=options)
    up = h.update
    steps = tries = 0
    while True:
        up(repr(g.outcome).encode())
        seats = g.to_act
        up(repr(seats).encode())
        legal = [g.legal_actions(s) for s in range(players)]
        up(repr(legal).encode())
        for s in range(players):
            up(repr(g.view(s)).encode())
        up(repr(g.watch_view()).encode())
        if g.outcome is not None or steps > 5000:
            return steps
        tries += 1
        if tries % 7 == 3:
            odd = dict(rng.choice(ODD))
            seat = rng.randrange(-1, players + 1)
            try:
                up(repr(g.act(seat, odd)).encode())
            except IllegalAction as e:
                up(str(e).encode())
            up(repr(g.to_act).encode())
            continue
        seats = [s for s in seats if legal[s]]
        seat = rng.choice(seats)
        plays = [a for a in legal[seat] if a["type"] == "play"]
        action = rng.choice(plays if plays and rng.random() < 0.8 else legal[seat])
        up(repr(g.act(seat, action)).encode())
        steps += 1


def main() -> int:
    seeds = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    cells = [(t, p, None) for t in TABLES for p in PLAYERS] + list(EXTRA)
    total = hashlib.sha256()
    steps = 0
    for table, players, options in cells:
        h = hashlib.sha256()
        rng = random.Random(f"{table}-{players}-{options}")
        for seed in range(seeds):
            steps += play(h, table, players, seed, options, rng)
        digest = h.hexdigest()
        total.update(digest.encode())
        print(f"{table:9} {players}p {options or ''} {digest[:16]}")
    print(f"{steps} steps; all: {total.hexdigest()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
