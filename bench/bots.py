"""The bots' benchmark: strength (win shares with 95% intervals) and decision time.

    /work/venv/bin/python bench/bots.py                                 # both, small samples
    /work/venv/bin/python bench/bots.py --only strength --strength-games 4000 --tables classic standard --players 3 4 --jobs 2
    /work/venv/bin/python bench/bots.py --only strength --strength-games 4000 --tables siege --players 4 --seeds 10 --jobs 2
    /work/venv/bin/python bench/bots.py --only times --games 40 --players 2 3 4

**Strength.** For every table and seat count, Hard in seat 0 against Medium
in the other seats (`lanmatch.sim.simulate`, the host's referee on a virtual
clock; the engine draws the first seat from each game's seed), and Medium
against Easy at 4 seats. Each row: games, Hard's (or Medium's) win share, its
95% Wilson interval, the fair share and the target of issue 17 (2 seats 60%,
3 seats 36.3%, 4 seats 28%; Medium against three Easy 35%), and the verdict
in the issue's words, "at least the target, with the lower end of the 95%
interval above the fair share": `sure` when even the interval's lower end
reaches the target, `met` when the share does and the lower end is above the
fair share, `no` otherwise. With `--seeds N` each cell plays the games of
N seeds from `--seed`, a row a seed, then a row of all their games pooled
(the verdict of that row is the one to trust: one seed's 4000 games put a
4-seat share within about a point and a half either way, issue 17's cells
within a point of their targets on one seed and not on the next).
`dominoes` in `--tables` adds the Dominoes rows (matches to 100).

**Decision time.** Each table plays `--games` seeded games per seat count
with Hard in seat 0 and Medium in the other seats (and, with `--easy`, a game
of Easy bots too), through `lanmatch.sim.play_game`, the host loop of
`lanmatch sim`. Every `choose` call is timed twice: its CPU time
(`time.thread_time_ns`, what the decision costs, whatever else the machine
runs) and its wall time (`time.perf_counter_ns`, what a player waits for on
this machine now). A decision with a single legal action counts too, as it
does at a table.

Targets (issue 17): Medium p99 under 1 ms, Hard p99 under 30 ms at 4 seats.
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
from lanmatch.sim import SimConfig, game_seed, play_game, simulate, wilson  # noqa: E402

TABLES = tuple(get_game("colormatch").tables)  # every Color Match table the registry declares
TARGETS = {2: 0.60, 3: 0.363, 4: 0.28}  # Hard against Medium, by seats (issue 17)
EASY_TARGET = 0.35  # Medium against three Easy


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
    game = "dominoes" if table == "dominoes" else "colormatch"
    name = None if game == "dominoes" else table
    for levels in lineups:
        for i in range(games):
            gs = game_seed(seed, i)
            g = new_game(game, table=name, players=players, seed=gs) if name else new_game(game, players=players, seed=gs)
            bots = [
                Timed(make_bot(lv, game=game, table=name, seat=s, seed=gs), *times[lv]) for s, lv in enumerate(levels)
            ]
            play_game(g, bots, name)
    return times


def verdict(lo: float, share: float, target: float, fair: float) -> str:
    """`sure`, `met` or `no` (the module docstring)."""
    if lo >= target:
        return "sure"
    return "met" if share >= target and lo > fair else "no"


def row(table: str, players: int, bots: tuple[str, ...], games: int, share: float, lo: float, hi: float,
        target: float, note: str) -> str:
    return (
        f"{table:<9} {players:>5}  {bots[0] + ' vs ' + bots[1]:<16} {games:>6}  {100 * share:>6.1f}% "
        f"{100 * lo:>6.1f}-{100 * hi:<5.1f} {100 / players:>5.1f}% {100 * target:>6.1f}%  "
        f"{verdict(lo, share, target, 1 / players):<5} {note}"
    )


def strength_rows(table: str, players: int, bots: tuple[str, ...], games: int, seeds: list[int], jobs: int,
                  target: float) -> None:
    """Print a row a seed (its `games` games), then, for several seeds, their
    games pooled (the share of all, its Wilson interval and verdict)."""
    game = "dominoes" if table == "dominoes" else "colormatch"
    wins, played = 0.0, 0
    for seed in seeds:
        config = SimConfig(game=game, table=None if game == "dominoes" else table, players=players, bots=bots,
                           games=games, seed=seed)
        t0 = time.perf_counter()
        res = simulate(config, jobs=jobs)
        s0 = res["seats"][0]
        wins += s0["wins"]
        played += res["games"]
        note = f"{time.perf_counter() - t0:>5.0f}s" + (f"  --seed {seed}" if len(seeds) > 1 else "")
        print(row(table, players, bots, res["games"], s0["win_share"], *s0["ci95"], target, note), flush=True)
    if len(seeds) > 1:
        lo, hi = wilson(wins, played)
        print(row(table, players, bots, played, wins / played, lo, hi, target, f"       {len(seeds)} seeds pooled"),
              flush=True)


def strength(args) -> None:
    seeds = list(range(args.seed, args.seed + args.seeds))
    print(
        f"# strength: {args.strength_games} games per row, --seed {args.seed}"
        + (f" to {seeds[-1]} (then pooled)" if len(seeds) > 1 else "")
        + f", --jobs {args.jobs}; seat 0's win share, 95% Wilson interval, fair share, target"
    )
    head = f"{'table':<9} {'seats':>5}  {'seat 0 vs rest':<16} {'games':>6}  {'share':>7} {'95% CI':<11} {'fair':>6} {'target':>7}  {'':<5} {'time':>6}"
    print(head)
    print("-" * len(head))
    for table in args.tables:
        for players in args.players:
            bots = ("hard",) + ("medium",) * (players - 1)
            strength_rows(table, players, bots, args.strength_games, seeds, args.jobs, TARGETS.get(players, 1 / players))
        if args.easy_rows and 4 in args.players and table != "dominoes":
            bots = ("medium",) + ("easy",) * 3
            strength_rows(table, 4, bots, args.strength_games, seeds, args.jobs, EASY_TARGET)


def times(args) -> None:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"# times: {args.games} games per table and seat count (Hard in seat 0, Medium elsewhere); "
        f"nproc {os.cpu_count()}, load average {load:.2f}"
    )
    print("# ms per decision: CPU time (thread) and wall time; n = decisions timed")
    head = f"{'table':<9} {'seats':>5} {'level':<7} {'n':>6}  {'cpu p50':>8} {'cpu p99':>8} {'cpu max':>8}  {'wall p50':>8} {'wall p99':>8}"
    print(head)
    print("-" * len(head))
    worst: dict[tuple[str, int], float] = {}
    for players in args.players:
        for table in args.tables:
            measured = measure(table, players, args.games, args.seed, args.easy)
            for level in ("easy", "medium", "hard"):
                cpu, wall = measured[level]
                if not cpu:
                    continue
                print(
                    f"{table:<9} {players:>5} {level:<7} {len(cpu):>6}  {quantile(cpu, .5):>8.3f} {quantile(cpu, .99):>8.3f} "
                    f"{max(cpu) / 1e6:>8.2f}  {quantile(wall, .5):>8.3f} {quantile(wall, .99):>8.3f}",
                    flush=True,
                )
                key = (level, players)
                worst[key] = max(worst.get(key, 0.0), quantile(cpu, 0.99))
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    parts = [f"{lv} {p} seats {ms:.3f}" for (lv, p), ms in sorted(worst.items(), key=lambda kv: (kv[0][1], kv[0][0]))]
    print(f"# worst cpu p99 (ms): {'; '.join(parts)} (targets: medium < 1, hard < 30 at 4 seats); load average now {load:.2f}")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tables", nargs="+", choices=TABLES + ("dominoes",), default=list(TABLES))
    p.add_argument("--players", nargs="+", type=int, default=[2, 3, 4], help="seat counts (default 2 3 4)")
    p.add_argument("--only", choices=("strength", "times"), help="print only this part")
    p.add_argument("--games", type=int, default=20, help="timed games per table and seat count (default 20)")
    p.add_argument("--strength-games", type=int, default=200, help="games per strength row (default 200)")
    p.add_argument("--jobs", type=int, default=1, help="worker processes for the strength rows (default 1)")
    p.add_argument("--no-easy-rows", dest="easy_rows", action="store_false", help="skip Medium against three Easy")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--seeds", type=int, default=1,
                   help="strength: this many seeds from --seed, a row each, then their games pooled (default 1)")
    p.add_argument("--easy", action="store_true", help="also time Easy (a game of Easy bots per game)")
    args = p.parse_args()
    if args.only != "times":
        strength(args)
    if args.only != "strength":
        times(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
