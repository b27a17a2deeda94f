"""The room bots' fixed ratings, measured: heads-up `lanmatch sim` runs between
the levels, turned into Glicko-scale rating gaps and fitted with medium at 1500.

    nice -n 10 python bench/bot_ratings.py --games 400

For each game (Color Match at `classic`, Dominoes at double-six) and each
pair of levels, `lanmatch sim --players 2 --bots A,B --games N --json` gives
B's win share p (a shared win counts half); the gap is 400 * log10(p / (1 - p))
(Glicko-2's expected score with a small deviation). The three gaps of a game
are fitted by least squares with medium at 1500; the figures of both games
are averaged into `lanmatch.store.rating.BOT_RATINGS` (docs/store.md).
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys

PAIRS = [("easy", "medium"), ("medium", "hard"), ("easy", "hard")]
GAMES = [("colormatch", "classic"), ("dominoes", None)]


def share(game: str, table: str | None, a: str, b: str, games: int, seed: int) -> float:
    cmd = [sys.executable, "-m", "lanmatch", "sim", "--game", game, "--players", "2", "--bots", f"{a},{b}",
           "--games", str(games), "--seed", str(seed), "--json"]
    if table:
        cmd += ["--table", table]
    out = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    wins = [s["wins"] for s in out["seats"]]
    return wins[1] / max(1e-9, sum(wins))


def gap(p: float) -> float:
    p = min(max(p, 0.005), 0.995)
    return 400 * math.log10(p / (1 - p))


def fit(d_em: float, d_mh: float, d_eh: float) -> tuple[float, float]:
    """Least squares for e, h with m = 1500: m - e = d_em, h - m = d_mh, h - e = d_eh."""
    # unknowns x = 1500 - e, y = h - 1500: x = d_em, y = d_mh, x + y = d_eh
    x = (2 * d_em - d_mh + d_eh) / 3
    y = (2 * d_mh - d_em + d_eh) / 3
    return 1500 - x, 1500 + y


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    fits = []
    for game, table in GAMES:
        shares = {pair: share(game, table, *pair, args.games, args.seed) for pair in PAIRS}
        e, h = fit(*(gap(shares[p]) for p in PAIRS))
        fits.append((e, h))
        print(f"{game:<10} " + "  ".join(f"{b} beats {a} {shares[(a, b)]:.3f}" for a, b in PAIRS)
              + f"  -> easy {e:.0f}, medium 1500, hard {h:.0f}")
    e = sum(f[0] for f in fits) / len(fits)
    h = sum(f[1] for f in fits) / len(fits)
    print(f"average    easy {e:.0f}, medium 1500, hard {h:.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
