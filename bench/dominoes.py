"""Dominoes benchmarks: engine speed beside OpenSpiel, and bot strength.

Speed (random playouts through the public API; a step is one legal_actions
plus one act, the action picked at random among the legal ones):

    /work/venv/bin/python bench/dominoes.py \\
        --openspiel-python /work/bench-venvs/openspiel/bin/python

Rates are per second of the measuring process's own CPU time
(``time.process_time``), so other work on the machine does not skew them; the
two sides alternate, run by run, and the median of the runs is shown.

Each side runs in its own subprocess, since OpenSpiel lives in a throw-away
virtualenv outside the repository (it is never a dependency of lanmatch):
``python3 -m venv /work/bench-venvs/openspiel &&
/work/bench-venvs/openspiel/bin/pip install open-spiel``. Without
``--openspiel-python`` only lanmatch is measured.

OpenSpiel's ``python_block_dominoes`` is the two-player *block* game: no
boneyard, no draws, one hand per game, 7 tiles each. Its step is one
``legal_actions()`` plus one ``apply_action()`` at a player node; the 14 deal
(chance) nodes of each game are timed but not counted as steps. lanmatch's
"game" is one round of the draw game (hands, boneyard draws, passes, scoring);
full matches to 100 are reported apart.

Strength (matches to 100 between bot levels; win share with a 95% CI). Two
players: each seed is played twice, seats swapped. Three or four: one seat of
the stronger level against the weaker level in every other seat, seats
rotated, compared with the fair share 1/n:

    /work/venv/bin/python bench/dominoes.py --strength --matches 4000
    /work/venv/bin/python bench/dominoes.py --strength --players 3 4 --matches 2400
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


# ---------------------------------------------------------------- the two sides


def lanmatch_side(players: list[int], seconds: float, repeats: int) -> dict:
    """Random playouts of full matches; steps, rounds and matches per second."""
    sys.path.insert(0, str(ROOT))
    from lanmatch.rules import new_game

    results = {}
    for n in players:
        runs = []
        for repeat in range(repeats + 1):  # the first run warms up and is dropped
            rng = random.Random(repeat)
            steps = rounds = matches = 0
            start = time.process_time()
            deadline = start + (seconds if repeat else seconds / 4)
            while time.process_time() < deadline:
                g = new_game("dominoes", players=n, seed=matches + 1000 * repeat)
                while g.outcome is None:
                    seat = g.to_act[0]
                    g.act(seat, rng.choice(g.legal_actions(seat)))
                    steps += 1
                rounds += g.view(0)["round"]
                matches += 1
            elapsed = time.process_time() - start
            if repeat:
                runs.append({"steps_per_s": steps / elapsed, "games_per_s": rounds / elapsed,
                             "matches_per_s": matches / elapsed, "steps_per_game": steps / rounds})
        results[str(n)] = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
    return results


def openspiel_side(seconds: float, repeats: int) -> dict:
    """Random playouts of OpenSpiel's python_block_dominoes (2 players, block game)."""
    import pyspiel
    from open_spiel.python.games import block_dominoes  # noqa: F401 - registers the game

    game = pyspiel.load_game("python_block_dominoes")
    runs = []
    for repeat in range(repeats + 1):
        rng = random.Random(repeat)
        steps = nodes = games = 0
        start = time.process_time()
        deadline = start + (seconds if repeat else seconds / 4)
        while time.process_time() < deadline:
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    state.apply_action(rng.choice(state.chance_outcomes())[0])
                else:
                    state.apply_action(rng.choice(state.legal_actions()))
                    steps += 1
                nodes += 1
            games += 1
        elapsed = time.process_time() - start
        if repeat:
            runs.append({"steps_per_s": steps / elapsed, "games_per_s": games / elapsed,
                         "nodes_per_s": nodes / elapsed, "steps_per_game": steps / games})
    version = getattr(pyspiel, "__version__", None)
    try:
        from importlib.metadata import version as dist_version

        version = dist_version("open-spiel")
    except Exception:  # noqa: BLE001 - the version is only informative
        pass
    return {"2": {k: statistics.median(r[k] for r in runs) for k in runs[0]}, "version": version}


def run_side(python: str, side: str, args: argparse.Namespace) -> dict:
    """Run one timed run of one side in a subprocess with `python`; return its JSON result.

    Raises:
        RuntimeError: the subprocess failed (its stderr is included).
    """
    cmd = [python, str(Path(__file__).resolve()), "--side", side,
           "--seconds", str(args.seconds), "--repeats", "1",
           "--players", *map(str, args.players)]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{side} side failed:\n{done.stderr.strip()}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def median_of(results: list[dict], key: str) -> dict:
    """Per-figure medians of one player count's results over several runs."""
    return {k: statistics.median(r[key][k] for r in results) for k in results[0][key]}


def speed(args: argparse.Namespace) -> None:
    print(f"Dominoes engine speed: random playouts; median of {args.repeats} runs of "
          f"{args.seconds:g} CPU-seconds per side, the two sides alternating; rates are per "
          "second of the process's own CPU time (robust when other work shares the machine); "
          "step = one legal_actions + one act.")
    if not args.openspiel_python:
        print("OpenSpiel side skipped: pass --openspiel-python PATH (a python with open-spiel).")
    ours_runs, theirs_runs = [], []
    for _ in range(args.repeats):
        ours_runs.append(run_side(sys.executable, "lanmatch", args))
        if args.openspiel_python:
            theirs_runs.append(run_side(args.openspiel_python, "openspiel", args))
    print()
    print(f"{'engine':<50}{'players':>8}{'steps/s':>11}{'games/s':>10}{'steps/game':>12}"
          f"{'matches/s':>11}")
    ours = {str(n): median_of(ours_runs, str(n)) for n in args.players}
    for n in args.players:
        r = ours[str(n)]
        print(f"{'lanmatch dominoes, draw game (game = 1 round)':<50}{n:>8}"
              f"{r['steps_per_s']:>11,.0f}{r['games_per_s']:>10,.0f}{r['steps_per_game']:>12.1f}"
              f"{r['matches_per_s']:>11,.0f}")
    if theirs_runs:
        r = median_of(theirs_runs, "2")
        label = f"OpenSpiel {theirs_runs[0]['version'] or ''} python_block_dominoes (block game)"
        print(f"{label:<50}{2:>8}{r['steps_per_s']:>11,.0f}{r['games_per_s']:>10,.0f}"
              f"{r['steps_per_game']:>12.1f}{'-':>11}")
        print(f"  (OpenSpiel counting its 14 deal/chance nodes too: {r['nodes_per_s']:,.0f} nodes/s)")
        if "2" in ours:
            ratio = ours["2"]["steps_per_s"] / r["steps_per_s"]
            per_run = [o["2"]["steps_per_s"] / t["2"]["steps_per_s"]
                       for o, t in zip(ours_runs, theirs_runs, strict=True)]
            print(f"\nratio at 2 players, steps/s: lanmatch / OpenSpiel = {ratio:.1f}x "
                  f"(per run: {', '.join(f'{x:.1f}' for x in per_run)}); "
                  "block game beside the draw game, a step is one decision on both sides")


# ---------------------------------------------------------------- strength


def share_ci(points: float, games: int) -> tuple[float, float]:
    """Win share and the half-width of its 95% normal-approximation CI."""
    p = points / games
    return p, 1.96 * math.sqrt(max(p * (1 - p), 1e-12) / games)


def play_match(levels: list[str], seed: int) -> list[int]:
    """One match to 100 between bots at `levels` (by seat); the winners."""
    from lanmatch.bots import make_bot
    from lanmatch.rules import new_game

    g = new_game("dominoes", players=len(levels), seed=seed)
    bots = [make_bot(level, game="dominoes", seat=s, seed=seed) for s, level in enumerate(levels)]
    while g.outcome is None:
        seat = g.to_act[0]
        g.act(seat, bots[seat].choose(g.view(seat), g.legal_actions(seat)))
    return g.outcome["winners"]


def strength(args: argparse.Namespace) -> None:
    sys.path.insert(0, str(ROOT))
    started = time.perf_counter()
    for n in args.players:
        if n == 2:
            print(f"2 players: {args.matches} matches to 100 per pairing, seats swapped "
                  "(each seed played both ways); share = (wins + draws/2) / matches")
            for a, b in (("medium", "easy"), ("hard", "medium"), ("hard", "easy")):
                points = 0.0
                for i in range(args.matches):
                    levels = [a, b] if i % 2 == 0 else [b, a]
                    winners = play_match(levels, seed=args.seed + i // 2)
                    points += 0.5 if not winners else float(levels[winners[0]] == a)
                p, half = share_ci(points, args.matches)
                verdict = "clear" if p - half > 0.5 else "NOT clear"
                print(f"  {a:>6} vs {b:<6}  {a} wins {p:6.1%} ± {half:.1%}  ({verdict})")
        else:
            print(f"{n} players: {args.matches} matches to 100 per pairing, one seat of the "
                  f"first level against {n - 1} of the second, seats rotated; its win share "
                  f"against a fair {1 / n:.1%} (a shared win counts by its share)")
            for a, b in (("medium", "easy"), ("hard", "medium"), ("hard", "easy")):
                points = 0.0
                for i in range(args.matches):
                    levels = [b] * n
                    levels[i % n] = a
                    winners = play_match(levels, seed=args.seed + i)
                    points += sum(1 for w in winners if levels[w] == a) / max(len(winners), 1)
                p, half = share_ci(points, args.matches)
                verdict = "clear" if p - half > 1 / n else "NOT clear"
                print(f"  {a:>6} vs {b:<6}  {a} wins {p:6.1%} ± {half:.1%}  ({verdict})")
    print(f"({time.perf_counter() - started:.0f} s)")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=3.0, help="seconds per timed run")
    p.add_argument("--repeats", type=int, default=3, help="timed runs per figure (median)")
    p.add_argument("--players", type=int, nargs="+", default=None, choices=(2, 3, 4))
    p.add_argument("--openspiel-python", metavar="PATH", help="a python that has open-spiel")
    p.add_argument("--strength", action="store_true", help="bot strength instead of speed")
    p.add_argument("--matches", type=int, default=2000, help="matches per pairing (--strength)")
    p.add_argument("--seed", type=int, default=1, help="first match seed (--strength)")
    p.add_argument("--side", choices=("lanmatch", "openspiel"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.players is None:
        args.players = [2] if args.strength else [2, 3, 4]
    if args.side == "lanmatch":
        print(json.dumps(lanmatch_side(args.players, args.seconds, args.repeats)))
    elif args.side == "openspiel":
        print(json.dumps(openspiel_side(args.seconds, args.repeats)))
    elif args.strength:
        strength(args)
    else:
        speed(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
