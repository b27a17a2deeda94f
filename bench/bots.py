"""Bot decision time per level and table: p50 and p99 of `choose`.

    /work/venv/bin/python bench/bots.py                     # 4 seats, 40 games per table
    /work/venv/bin/python bench/bots.py --games 100 --players 2 --tables classic siege

Each table plays `--games` seeded games with Hard in seat 0 and Medium in the
other seats (and, with `--easy`, a game of Easy bots too), through
`lanmatch.sim.play_game`, the host loop of `lanmatch sim`. Every `choose`
call is timed twice: its CPU time (`time.thread_time_ns`, what the decision
costs, whatever else the machine runs) and its wall time
(`time.perf_counter_ns`, what a player waits for on this machine now). A
decision with a single legal action counts too, as it does at a table.

Targets (the bots' brief): Medium p99 under 1 ms, Hard p99 under 30 ms.
The Hard bot's work is a fixed count of simulated moves (never a clock), so
its CPU time is steady and its wall time grows with the machine's load.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lanmatch.bots import make_bot  # noqa: E402
from lanmatch.rules import get_game, new_game  # noqa: E402
from lanmatch.sim import game_seed, play_game  # noqa: E402

TABLES = tuple(get_game("colormatch").tables)  # every Color Match table the registry declares


class Timed:
    """A bot whose `choose` calls are timed into `cpu` and `wall` (ns)."""

    def __init__(self, bot, cpu: list[int], wall: list[int]):
        self.bot, self.cpu, self.wall = bot, cpu, wall

    def observe(self, view):
        self.bot.observe(view)

    def declines(self, view, legal):
        return self.bot.declines(view, legal)

    def choose(self, view, legal):
        c0, w0 = time.thread_time_ns(), time.perf_counter_ns()
        action = self.bot.choose(view, legal)
        self.cpu.append(time.thread_time_ns() - c0)
        self.wall.append(time.perf_counter_ns() - w0)
        return action


def quantile(values: list[int], q: float) -> float:
    """The q-quantile in ms (nearest rank)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] / 1e6


def measure(table: str, players: int, games: int, seed: int, easy: bool) -> dict[str, tuple[list[int], list[int]]]:
    times: dict[str, tuple[list[int], list[int]]] = {lv: ([], []) for lv in ("easy", "medium", "hard")}
    lineups = [["hard"] + ["medium"] * (players - 1)]
    if easy:
        lineups.append(["easy"] * players)
    for levels in lineups:
        for i in range(games):
            gs = game_seed(seed, i)
            g = new_game("colormatch", table=table, players=players, seed=gs)
            bots = [
                Timed(make_bot(lv, table=table, seat=s, seed=gs), *times[lv]) for s, lv in enumerate(levels)
            ]
            play_game(g, bots, table)
    return times


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tables", nargs="+", choices=TABLES, default=list(TABLES))
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--games", type=int, default=40, help="games per table (default 40)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--easy", action="store_true", help="also time Easy (a game of Easy bots per game)")
    args = p.parse_args()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"# {args.games} games per table, {args.players} seats (Hard in seat 0, Medium elsewhere); "
        f"nproc {os.cpu_count()}, load average {load:.2f}"
    )
    print("# ms per decision: CPU time (thread) and wall time; n = decisions timed")
    head = f"{'table':<9} {'level':<7} {'n':>6}  {'cpu p50':>8} {'cpu p99':>8} {'cpu max':>8}  {'wall p50':>8} {'wall p99':>8}"
    print(head)
    print("-" * len(head))
    worst = {"medium": 0.0, "hard": 0.0}
    for table in args.tables:
        times = measure(table, args.players, args.games, args.seed, args.easy)
        for level in ("easy", "medium", "hard"):
            cpu, wall = times[level]
            if not cpu:
                continue
            print(
                f"{table:<9} {level:<7} {len(cpu):>6}  {quantile(cpu, .5):>8.3f} {quantile(cpu, .99):>8.3f} "
                f"{max(cpu) / 1e6:>8.2f}  {quantile(wall, .5):>8.3f} {quantile(wall, .99):>8.3f}",
                flush=True,
            )
            if level in worst:
                worst[level] = max(worst[level], quantile(wall, 0.99))
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"# worst wall p99: medium {worst['medium']:.3f} ms (target < 1), hard {worst['hard']:.2f} ms (target < 30); load average now {load:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
