"""Engine benchmark: random Color Match playouts, side by side with RLCard's UNO.

What it measures
    lanmatch: random playouts through the public engine API only (SPEC section
    3), for each of the six tables (standard, toll, classic, daynight, siege,
    cards) at 2 and 4 players. A game is `new_game("colormatch", table=T,
    players=P, seed=S)` played to its outcome; one step is one `g.act(seat,
    action)`. The acting seat is the first seat of `g.to_act` that holds a
    legal play (type "play"), else `g.to_act[0]` (so a step costs one
    `legal_actions` call, a few more only while a last-card window lets
    several seats act). The policy plays a random playable card when it has
    one, else a random legal action; its RNG is seeded, and game i of a cell
    uses seed `--seed + i`, so every round replays the same games.

    RLCard (the established Python reference, UNO), in its own virtualenv and
    so in a subprocess of that venv's python (this same file, run with
    `--rlcard-worker`):
      env   `rlcard.make("uno", config={"game_num_players": P, "seed": S})`
            with `env.set_agents([RandomAgent(num_actions=env.num_actions)] * P)`,
            stepped by hand: `env.reset()`, then `state, player =
            env.step(agents[player].step(state))` until `env.is_over()`.
      bare  the game engine alone: `UnoGame(num_players=P)`, `init_game()`,
            then `step(random.choice(get_legal_actions()))` until `is_over()`.
    RLCard 1.2 applies `game_*` config keys only to blackjack and the hold'em
    games: `rlcard.make("uno", ...)` silently seats 2 players whatever
    `game_num_players` says. The worker therefore calls
    `env.game.configure({"game_num_players": P})` (and sets `env.num_players`)
    and checks the dealt game really seats P players.

    Each cell runs whole games until `--seconds` have passed or `--max-games`
    games are done (both per cell and round); the time includes dealing
    (`new_game` / `env.reset()` / `init_game()`) and the random policy. All
    cells are repeated `--rounds` times (default 3) in interleaved order, and
    the medians are reported, because the machine is shared and noisy. The
    headline trio (lanmatch standard 4p, RLCard env 4p, RLCard bare 4p) runs
    back to back in every round, in alternating order, and the ratio printed
    is the median of the per-round ratios.

How to run (from the repo root)
    # once: RLCard in a throw-away venv outside the repo (never a lanmatch dependency)
    python3 -m venv /work/bench-venvs/rlcard
    /work/bench-venvs/rlcard/bin/pip install rlcard      # pulls numpy and termcolor

    /work/venv/bin/python bench/engine.py --rlcard-python /work/bench-venvs/rlcard/bin/python
    /work/venv/bin/python bench/engine.py                 # lanmatch only, RLCard skipped
    /work/venv/bin/python bench/engine.py --seconds 1 --rounds 1 --tables standard --players 4
    /work/venv/bin/python bench/engine.py --profile       # pyinstrument, standard 4p

What it prints (stdout; progress goes to stderr unless --quiet)
    A header (date, Python, nproc, lanmatch git revision, RLCard and numpy
    versions, the 1-minute load average at the start and the end), then one
    row per cell: engine, table, players, steps/s, games/s, steps/game and
    spread ((max - min) / median of steps/s over the rounds); then the RLCard env and bare rows; then the ratios of lanmatch
    `standard` 4p steps/s over RLCard env and over RLCard bare steps/s, with
    the target (>= 6x the env, issue 19; 4x before it). Games differ in length because the rules
    differ, so steps/s is the comparable figure, not games/s.

    With --profile it instead runs pyinstrument over `--seconds` of standard
    4-player playouts and prints the functions with the most own time, then
    the top `--profile-lines` lines of the call tree.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

TABLES = ("standard", "toll", "classic", "daynight", "siege", "cards")
PLAYERS = (2, 4)
RLCARD_KINDS = ("env", "bare")
TARGET_RATIO = 6.0  # lanmatch standard 4p steps/s over RLCard env steps/s (issue 19; 4x before it)
HEADLINE = ("standard", 4)


# --------------------------------------------------------------- lanmatch side


def lanmatch_cell(
    table: str, players: int, seconds: float, max_games: int, seed: int, max_steps: int
) -> dict:
    """Random playouts of one lanmatch cell; returns steps, games, elapsed, capped."""
    from lanmatch.rules import new_game

    rng = random.Random(seed)
    choice = rng.choice
    steps = games = capped = 0
    start = time.perf_counter()
    deadline = start + seconds
    now = start
    while games < max_games and now < deadline:
        game_seed = seed + games
        g = new_game("colormatch", table=table, players=players, seed=game_seed)
        n = 0
        try:
            while g.outcome is None:
                seats = g.to_act
                seat = None
                for s in seats:
                    acts = g.legal_actions(s)
                    plays = [a for a in acts if a["type"] == "play"]
                    if plays:
                        seat, action = s, choice(plays)
                        break
                if seat is None:
                    seat = seats[0]
                    action = choice(g.legal_actions(seat))
                g.act(seat, action)
                n += 1
                if n >= max_steps:
                    capped += 1
                    break
        except Exception as e:
            raise RuntimeError(
                f"lanmatch {table} {players}p, game seed {game_seed}, step {n}: {e!r}"
            ) from e
        steps += n
        games += 1
        now = time.perf_counter()
    return {"steps": steps, "games": games, "elapsed": now - start, "capped": capped}


def warm_up() -> None:
    """Import (and compile) the engine before any timing: one deal per table."""
    from lanmatch.rules import new_game

    for t in TABLES:
        new_game("colormatch", table=t, players=2, seed=0)


# ------------------------------------------------------------ RLCard worker side


def rlcard_cell(
    kind: str, players: int, seconds: float, max_games: int, seed: int, max_steps: int
) -> dict:
    """Random playouts of RLCard UNO (`kind` "env" or "bare"); runs in the RLCard venv."""
    import numpy as np

    steps = games = capped = aborted = 0
    if kind == "env":
        import rlcard
        from rlcard.agents import RandomAgent

        env = rlcard.make("uno", config={"game_num_players": players, "seed": seed})
        if env.num_players != players:  # RLCard 1.2 ignores game_num_players for UNO
            env.game.configure({"game_num_players": players})
            env.num_players = players
        np.random.seed(seed)  # RandomAgent draws from the global numpy generator
        agents = [RandomAgent(num_actions=env.num_actions)] * players
        env.set_agents(agents)
        start = time.perf_counter()
        deadline = start + seconds
        now = start
        while games < max_games and now < deadline:
            n = 0
            try:
                state, player = env.reset()
                while not env.is_over():
                    state, player = env.step(agents[player].step(state))
                    n += 1
                    if n >= max_steps:
                        capped += 1
                        break
                games += 1
            except IndexError:  # UNO: drawing with both piles empty
                aborted += 1
            steps += n
            now = time.perf_counter()
        seated = len(env.game.players)
    elif kind == "bare":
        from rlcard.games.uno.game import UnoGame

        game = UnoGame(num_players=players)
        game.np_random = np.random.RandomState(seed)
        choice = random.Random(seed).choice
        start = time.perf_counter()
        deadline = start + seconds
        now = start
        while games < max_games and now < deadline:
            n = 0
            try:
                game.init_game()
                while not game.is_over():
                    game.step(choice(game.get_legal_actions()))
                    n += 1
                    if n >= max_steps:
                        capped += 1
                        break
                games += 1
            except IndexError:
                aborted += 1
            steps += n
            now = time.perf_counter()
        seated = len(game.players)
    else:
        raise ValueError(f"unknown RLCard kind {kind!r}")
    if seated != players:
        raise RuntimeError(f"RLCard {kind} seated {seated} players, not {players}")
    return {
        "steps": steps,
        "games": games,
        "elapsed": now - start,
        "capped": capped,
        "aborted": aborted,
    }


def rlcard_worker() -> int:
    """Serve measurement requests as JSON lines on stdin/stdout (RLCard venv)."""
    out = sys.stdout
    sys.stdout = sys.stderr  # nothing but the protocol goes to the real stdout
    try:
        import numpy
        import rlcard

        hello = {
            "ok": True,
            "rlcard": getattr(rlcard, "__version__", "?"),
            "numpy": numpy.__version__,
            "python": platform.python_version(),
        }
    except Exception as e:
        hello = {"ok": False, "error": f"{type(e).__name__}: {e}"}
    out.write(json.dumps(hello) + "\n")
    out.flush()
    if not hello["ok"]:
        return 1
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        try:
            res = rlcard_cell(
                req["kind"],
                req["players"],
                req["seconds"],
                req["max_games"],
                req["seed"],
                req["max_steps"],
            )
        except Exception as e:
            res = {"error": f"{type(e).__name__}: {e}"}
        out.write(json.dumps(res) + "\n")
        out.flush()
    return 0


class RLCardWorker:
    """This file run by the RLCard venv's python, answering one request per line."""

    def __init__(self, python: str):
        self.proc = subprocess.Popen(
            [python, str(Path(__file__).resolve()), "--rlcard-worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,  # its stderr is ours, so nothing can clog
            text=True,
            cwd="/",  # keep the repo (and lanmatch) off the worker's path
        )
        self.info = self._read()
        if not self.info.get("ok"):
            self.close()
            raise RuntimeError(self.info.get("error", "the RLCard worker failed to start"))

    def _read(self) -> dict:
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("the RLCard worker died (its error, if any, is printed above)")
        return json.loads(line)

    def measure(self, **req) -> dict:
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        res = self._read()
        if "error" in res:
            raise RuntimeError(f"RLCard {req['kind']} {req['players']}p: {res['error']}")
        return res

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


# -------------------------------------------------------------------- report


def machine_header(worker: RLCardWorker | None) -> str:
    try:
        rev = subprocess.run(
            ["git", "describe", "--always", "--dirty"],
            cwd=Path(__file__).resolve().parent,
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        rev = ""
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    now = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    parts = [
        f"date {now}",
        f"Python {platform.python_version()}",
        f"nproc {usable}",
        f"lanmatch {rev or 'unknown revision'}",
    ]
    if worker is not None:
        i = worker.info
        parts.append(f"RLCard {i['rlcard']} (numpy {i['numpy']}, Python {i['python']})")
    return ", ".join(parts)


def load_average() -> str:
    try:
        return f"{os.getloadavg()[0]:.2f}"
    except OSError:
        return "unknown"


def summarize(runs: list[dict]) -> dict:
    rates = [r["steps"] / r["elapsed"] for r in runs]
    grates = [r["games"] / r["elapsed"] for r in runs]
    steps = sum(r["steps"] for r in runs)
    games = sum(r["games"] for r in runs)
    med = statistics.median(rates)
    return {
        "steps_s": med,
        "games_s": statistics.median(grates),
        "steps_game": steps / games if games else float("nan"),
        "spread": (max(rates) - min(rates)) / med if med else float("nan"),
        "games": games,
        "capped": sum(r.get("capped", 0) for r in runs),
        "aborted": sum(r.get("aborted", 0) for r in runs),
    }


def row(engine: str, table: str, players: int, s: dict) -> str:
    return (
        f"{engine:<16} {table:<9} {players:>7} {s['steps_s']:>11,.0f} {s['games_s']:>9,.1f}"
        f" {s['steps_game']:>10.1f} {s['spread'] * 100:>6.0f}%"
    )


def run_benchmark(args: argparse.Namespace) -> int:
    warm_up()
    worker = None
    skipped = ""
    if not args.rlcard_python:
        skipped = (
            "RLCard: skipped (no --rlcard-python given). Set it up outside the repo with\n"
            "  python3 -m venv /work/bench-venvs/rlcard && "
            "/work/bench-venvs/rlcard/bin/pip install rlcard\n"
            "and pass --rlcard-python /work/bench-venvs/rlcard/bin/python."
        )
    else:
        try:
            worker = RLCardWorker(args.rlcard_python)
        except (OSError, RuntimeError) as e:
            skipped = f"RLCard: skipped, its worker could not start with {args.rlcard_python}: {e}"
    if skipped:
        print(skipped, file=sys.stderr)

    cells = [(t, p) for t in args.tables for p in args.players]
    others = [c for c in cells if c != HEADLINE]
    headline_in = HEADLINE in cells
    rl_cells = [(k, p) for p in args.rlcard_players for k in RLCARD_KINDS]
    lan: dict[tuple, list[dict]] = {c: [] for c in cells}
    rl: dict[tuple, list[dict]] = {c: [] for c in rl_cells}
    ratios: dict[str, list[float]] = {k: [] for k in RLCARD_KINDS}
    common = {"seconds": args.seconds, "max_games": args.max_games, "max_steps": args.max_steps}

    def log(msg: str) -> None:
        if not args.quiet:
            print(msg, file=sys.stderr, flush=True)

    def do_lan(r: int, cell: tuple) -> dict:
        res = lanmatch_cell(cell[0], cell[1], seed=args.seed, **common)
        lan[cell].append(res)
        log(
            f"round {r + 1}/{args.rounds} lanmatch {cell[0]} {cell[1]}p: "
            f"{res['steps'] / res['elapsed']:,.0f} steps/s, {res['games']} games"
        )
        return res

    def do_rl(r: int, cell: tuple) -> dict:
        res = worker.measure(kind=cell[0], players=cell[1], seed=args.seed, **common)
        rl[cell].append(res)
        log(
            f"round {r + 1}/{args.rounds} RLCard {cell[0]} {cell[1]}p: "
            f"{res['steps'] / res['elapsed']:,.0f} steps/s, {res['games']} games"
        )
        return res

    header = machine_header(worker)
    load_start = load_average()
    # RLCard's 4-player cells run right beside lanmatch standard 4p (the ratio's
    # numerator); the other RLCard cells are spread among the other lanmatch cells.
    rl_trio = [c for c in rl_cells if c[1] == 4] if (worker and headline_in) else []
    trio = [("rl", c) for c in rl_trio[:1]]
    trio += [("lan", HEADLINE)] if headline_in else []
    trio += [("rl", c) for c in rl_trio[1:]]
    extra = [("rl", c) for c in rl_cells if c not in rl_trio] if worker else []
    rest = [("lan", c) for c in others]
    gap = max(1, len(rest) // (len(extra) + 1))
    for i, item in enumerate(extra):
        rest.insert(min(len(rest), (i + 1) * gap + i), item)
    try:
        for r in range(args.rounds):
            order = trio[::-1] if r % 2 else trio  # flip the trio every other round
            got = {}
            for side, cell in order + rest:
                got[cell] = do_lan(r, cell) if side == "lan" else do_rl(r, cell)
            if HEADLINE in got:
                lan_rate = got[HEADLINE]["steps"] / got[HEADLINE]["elapsed"]
                for c in rl_trio:
                    ratios[c[0]].append(lan_rate / (got[c]["steps"] / got[c]["elapsed"]))
    finally:
        if worker is not None:
            worker.close()

    print(header)
    print(
        f"{args.rounds} round(s) x {args.seconds:g} s per cell (at most {args.max_games} games"
        f" per cell and round); medians over rounds; spread = (max - min) / median of steps/s"
    )
    print(f"1-minute load average: {load_start} at the start, {load_average()} at the end")
    print()
    print(
        f"{'engine':<16} {'table':<9} {'players':>7} {'steps/s':>11} {'games/s':>9}"
        f" {'steps/game':>10} {'spread':>7}"
    )
    notes = []
    for t, p in cells:
        s = summarize(lan[(t, p)])
        print(row("lanmatch", t, p, s))
        if s["capped"]:
            notes.append(f"lanmatch {t} {p}p: {s['capped']} game(s) cut at {args.max_steps} steps")
    if worker is None:
        print()
        print(skipped)
        for n in notes:
            print("note:", n)
        return 1 if args.rlcard_python else 0  # RLCard was asked for and failed
    for kind, p in sorted(rl_cells, key=lambda c: (RLCARD_KINDS.index(c[0]), c[1])):
        s = summarize(rl[(kind, p)])
        print(row(f"RLCard UNO {kind}", "uno", p, s))
        if s["capped"]:
            notes.append(f"RLCard {kind} {p}p: {s['capped']} game(s) cut at {args.max_steps} steps")
        if s["aborted"]:
            notes.append(
                f"RLCard {kind} {p}p: {s['aborted']} game(s) crashed (both piles empty): their steps count, not as games"
            )
    print()
    if ratios["env"] or ratios["bare"]:
        for k in RLCARD_KINDS:
            if not ratios[k]:
                continue
            med = statistics.median(ratios[k])
            per = ", ".join(f"{x:.2f}" for x in ratios[k])
            line = f"lanmatch standard 4p / RLCard {k} 4p steps/s: {med:.2f}x (rounds: {per})"
            if k == "env":
                met = "met" if med >= TARGET_RATIO else "NOT met"
                line += f"; target >= {TARGET_RATIO:g}x: {met}"
            print(line)
    else:
        print("ratio: needs lanmatch standard 4p and RLCard at 4 players in the run")
    for n in notes:
        print("note:", n)
    return 0


# ------------------------------------------------------------------- profile


def own_time_table(root, top: int) -> list[str]:
    """The `top` functions with the most own (self) time in a pyinstrument tree.

    pyinstrument's own flat view lumps the self time of a whole file into one
    "[self]" row, so the tree is walked here instead.
    """
    own: dict[tuple, float] = {}
    stack = [root]
    while stack:
        f = stack.pop()
        stack.extend(f.children)
        if f.is_synthetic:
            continue
        t = f.time - sum(c.time for c in f.children if not c.is_synthetic)
        name = f"{f.class_name}.{f.function}" if f.class_name else f.function
        key = (name, f"{f.file_path_short}:{f.line_no}")
        own[key] = own.get(key, 0.0) + t
    total = root.time or 1.0
    ranked = sorted(own.items(), key=lambda kv: -kv[1])[:top]
    return [f"{t:8.3f} s {100 * t / total:5.1f}%  {name}  {where}" for (name, where), t in ranked]


def run_profile(args: argparse.Namespace) -> int:
    try:
        from pyinstrument import Profiler
    except ImportError:
        print("--profile needs pyinstrument (it is in the dev venv /work/venv)", file=sys.stderr)
        return 2
    warm_up()
    table, players = HEADLINE
    profiler = Profiler(interval=0.0005)
    profiler.start()
    res = lanmatch_cell(table, players, args.seconds, args.max_games, args.seed, args.max_steps)
    profiler.stop()
    rate = res["steps"] / res["elapsed"]
    print(f"{machine_header(None)}")
    print(
        f"profile: lanmatch {table} {players}p, {res['games']} games, {res['steps']} steps,"
        f" {rate:,.0f} steps/s under the profiler"
    )
    print()
    print("Own time per function (top 25):")
    for line in own_time_table(profiler.last_session.root_frame(), 25):
        print(line)
    print()
    tree = profiler.output_text(unicode=False, color=False).splitlines()
    print(f"Call tree (first {args.profile_lines} lines):")
    print("\n".join(tree[: args.profile_lines]))
    return 0


# ---------------------------------------------------------------------- main


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        description="Random-playout benchmark of the Color Match engine, beside RLCard's UNO."
    )
    ap.add_argument("--seconds", type=float, default=2.0, help="time per cell and round (2)")
    ap.add_argument("--max-games", type=int, default=5000, help="games per cell and round (5000)")
    ap.add_argument("--rounds", type=int, default=3, help="repetitions of every cell (3)")
    ap.add_argument("--seed", type=int, default=1, help="first game seed and policy seed (1)")
    ap.add_argument(
        "--max-steps", type=int, default=100_000, help="cut a game after this many steps"
    )
    ap.add_argument(
        "--tables",
        type=lambda s: s.split(","),
        default=list(TABLES),
        help="comma-separated tables (all six)",
    )
    ap.add_argument(
        "--players",
        type=lambda s: [int(x) for x in s.split(",")],
        default=list(PLAYERS),
        help="comma-separated player counts (2,4)",
    )
    ap.add_argument(
        "--rlcard-python",
        metavar="PATH",
        help="python of a venv with rlcard installed; RLCard is skipped without it",
    )
    ap.add_argument(
        "--rlcard-players",
        type=lambda s: [int(x) for x in s.split(",")],
        default=[4, 2],
        help="RLCard player counts (4,2); the ratio uses 4",
    )
    ap.add_argument(
        "--profile",
        action="store_true",
        help="profile standard 4p playouts with pyinstrument instead",
    )
    ap.add_argument("--profile-lines", type=int, default=60, help="call-tree lines shown (60)")
    ap.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    ap.add_argument("--rlcard-worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    bad = [t for t in args.tables if t not in TABLES]
    if bad:
        ap.error(f"unknown table(s) {', '.join(bad)}; expected some of {', '.join(TABLES)}")
    if args.seconds <= 0 or args.max_games < 1 or args.rounds < 1 or args.max_steps < 1:
        ap.error("--seconds, --max-games, --rounds and --max-steps must be positive")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.rlcard_worker:
        return rlcard_worker()
    if args.profile:
        return run_profile(args)
    return run_benchmark(args)


if __name__ == "__main__":
    sys.exit(main())
