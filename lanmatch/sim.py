"""Bot-vs-bot simulation on the engine alone (`lanmatch sim`, SPEC section 7).

    from lanmatch.sim import SimConfig, Runner, summarize
    config = SimConfig(table="classic", players=4, bots=("hard", "medium", "medium", "medium"),
                       games=2000, seed=1)
    with Runner(config, jobs=2) as runner:
        for done in runner.progress():   # games finished so far, as chunks end
            ...
    result = summarize(config, runner.tally)

How this works. Game `i` of a run is fully determined by the run's seed and
`i`: the engine's seed and every bot's seed are derived from them, and the
engine picks the first seat from its seed (so the first seat rotates at
random over the run). Games are split into ranges of indices; each range is
played by one worker process and returns integer totals (wins are counted in
sixtieths so that shared wins, 1/k each for k winners, stay exact). The sum of
integers does not depend on how the ranges were split, so the results are the
same for any number of jobs.

The host's part is played here too: when several seats may act (a last-card
window, a jump-in), the window's owner is asked first, then the other seats
in turn order, then the seat whose turn it is; a bot may let an out-of-turn
chance pass (`Bot.declines`). At `cards`, a call left unmade is expired for the
bot without penalty and opens the catch window, which is expired when nobody
catches (SPEC section 5: bots that forget are not penalised by themselves).

Nothing here prints or reads files: the CLI renders what `summarize` returns.
"""

from __future__ import annotations

import hashlib
import math
import multiprocessing
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from lanmatch.bots import LEVELS, Bot, make_bot
from lanmatch.rules import new_game

SHARE = 60  # wins are counted in sixtieths: 1/k of a win for k <= 6 sharers is exact
MAX_STEPS = 5000  # a game still running after this many actions is cut off (counted, no winner)


@dataclass(frozen=True)
class SimConfig:
    """What to simulate. `bots` holds one level per seat."""

    game: str = "colormatch"
    table: str = "classic"
    players: int = 4
    bots: tuple[str, ...] = ("medium",) * 4
    games: int = 100
    seed: int = 1
    options: dict[str, Any] = field(default_factory=dict)

    def check(self) -> None:
        """Raises:
        ValueError: a bot level, player count or game count that cannot run.
        """
        if self.games < 1:
            raise ValueError(f"--games must be at least 1, not {self.games}")
        if len(self.bots) != self.players:
            raise ValueError(f"{len(self.bots)} bot levels given for {self.players} players")
        for level in self.bots:
            if level not in LEVELS:
                raise ValueError(f"unknown bot level {level!r}; expected one of {', '.join(LEVELS)}")
        low, high = (2, 4) if self.game == "dominoes" else (2, 6)
        if not low <= self.players <= high:
            raise ValueError(f"{self.game} seats {low} to {high} players, not {self.players}")


def parse_bots(text: str, players: int) -> tuple[str, ...]:
    """`hard,medium,medium,medium` (one per seat) or one level for every seat.

    Raises:
        ValueError: an unknown level, or a count that is neither 1 nor `players`.
    """
    levels = tuple(s.strip().lower() for s in text.split(",") if s.strip())
    for level in levels:
        if level not in LEVELS:
            raise ValueError(f"unknown bot level {level!r}; expected one of {', '.join(LEVELS)}")
    if len(levels) == 1:
        return levels * players
    if len(levels) != players:
        raise ValueError(f"--bots lists {len(levels)} levels for {players} players (give 1 or {players})")
    return levels


def game_seed(seed: int, index: int) -> int:
    """The engine seed of game `index` of a run seeded `seed`."""
    digest = hashlib.sha256(f"lanmatch-sim:{seed}:{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


# ------------------------------------------------------------------ one game


def play_game(g, bots: Sequence[Any], table: str | None = None, max_steps: int = MAX_STEPS) -> int:
    """Play `g` to its end with one bot per seat; returns the actions applied.

    Every bot observes its seat's view after every change. Stops after
    `max_steps` actions even if the game has no outcome yet.
    """
    steps = 0
    n = len(bots)
    # bots that remember something (the base bot's observe does nothing)
    watchers = [s for s in range(n) if type(bots[s]).observe is not Bot.observe]
    asked: set[int] = set()
    while g.outcome is None and steps < max_steps:
        to_act = g.to_act
        if len(to_act) == 1:
            seat = to_act[0]
            view = g.view(seat)
            action = bots[seat].choose(view, g.legal_actions(seat))
        else:
            seat, action = _several(g, bots, to_act, table, asked)
        g.act(seat, action)
        steps += 1
        asked.clear()
        for s in watchers:
            bots[s].observe(g.view(s))
    return steps


def _several(g, bots, to_act: list[int], table: str | None, asked: set[int]) -> tuple[int, dict[str, Any]]:
    """Several seats may act: owners of windows, then catchers and jumpers, then the turn."""
    v = g.view(to_act[0])
    turn, n = v["turn"], v["players"]
    owners = [w["seat"] for w in v["windows"] if w["call"]]
    order = owners + [(turn + k) % n for k in range(1, n)]
    for seat in order:
        if seat not in to_act or seat == turn or seat in asked:
            continue
        asked.add(seat)
        view = g.view(seat)
        legal = g.legal_actions(seat)
        if not bots[seat].declines(view, legal):
            return seat, bots[seat].choose(view, legal)
    if table == "cards" and v["windows"]:
        # the host's clock: a call left unmade opens the catch window (no penalty
        # for a bot), a catch window nobody used closes
        asked.clear()
        return v["windows"][0]["seat"], {"type": "expire", "penalty": False}
    view = g.view(turn)
    return turn, bots[turn].choose(view, g.legal_actions(turn))


def play_one(config: SimConfig, index: int) -> dict[str, Any]:
    """Play game `index` of the run; returns its outcome, steps and turns."""
    seed = game_seed(config.seed, index)
    if config.game == "dominoes":
        g = new_game("dominoes", players=config.players, seed=seed, options=dict(config.options) or None)
        bots = [make_bot(level, game="dominoes", seat=s, seed=seed) for s, level in enumerate(config.bots)]
    else:
        g = new_game(
            "colormatch", table=config.table, players=config.players, seed=seed,
            options=dict(config.options) or None,
        )
        bots = [
            make_bot(level, game="colormatch", table=config.table, seat=s, seed=seed)
            for s, level in enumerate(config.bots)
        ]
    steps = play_game(g, bots, config.table if config.game == "colormatch" else None)
    out = g.outcome
    return {
        "winners": list(out["winners"]) if out else [],
        "points": list(out["points"]) if out else [0] * config.players,
        "turns": list(out.get("turns", [])) if out else [],
        "steps": steps,
        "cut": out is None,
    }


# ------------------------------------------------------------------ totals


@dataclass
class Tally:
    """Integer totals over a set of games (order-free, so jobs do not matter)."""

    players: int
    games: int = 0
    wins: list[int] = field(default_factory=list)  # in sixtieths of a win
    points: list[int] = field(default_factory=list)
    turns: list[int] = field(default_factory=list)
    steps: int = 0
    drawn: int = 0  # games with no winner
    cut: int = 0  # games stopped at MAX_STEPS

    def __post_init__(self) -> None:
        for name in ("wins", "points", "turns"):
            if not getattr(self, name):
                setattr(self, name, [0] * self.players)

    def add(self, result: dict[str, Any]) -> None:
        self.games += 1
        winners = result["winners"]
        for s in winners:
            self.wins[s] += SHARE // len(winners)
        if not winners:
            self.drawn += 1
        for s, p in enumerate(result["points"]):
            self.points[s] += p
        for s, t in enumerate(result["turns"]):
            self.turns[s] += t
        self.steps += result["steps"]
        self.cut += bool(result["cut"])

    def merge(self, other: Tally) -> None:
        self.games += other.games
        for name in ("wins", "points", "turns"):
            mine, theirs = getattr(self, name), getattr(other, name)
            for s in range(self.players):
                mine[s] += theirs[s]
        self.steps += other.steps
        self.drawn += other.drawn
        self.cut += other.cut


def play_range(config: SimConfig, start: int, stop: int) -> Tally:
    """Play games `start` .. `stop - 1` of the run."""
    tally = Tally(config.players)
    for i in range(start, stop):
        tally.add(play_one(config, i))
    return tally


def _work(job: tuple[SimConfig, int, int]) -> Tally:
    return play_range(*job)


def chunks(games: int, jobs: int) -> list[tuple[int, int]]:
    """Ranges of game indices, small enough for a smooth progress bar."""
    size = max(1, min(25, games // max(1, jobs * 8)))
    return [(i, min(i + size, games)) for i in range(0, games, size)]


class Runner:
    """Runs a simulation in `jobs` processes; use as a context manager.

    The worker processes start on entering (before any progress display
    starts its own thread) and are shut down on leaving.
    """

    def __init__(self, config: SimConfig, jobs: int = 1):
        config.check()
        if jobs < 1:
            raise ValueError(f"--jobs must be at least 1, not {jobs}")
        self.config = config
        self.jobs = min(jobs, config.games)
        self.tally = Tally(config.players)
        self._pool = None

    def __enter__(self) -> Runner:
        if self.jobs > 1:
            methods = multiprocessing.get_all_start_methods()
            ctx = multiprocessing.get_context("fork" if "fork" in methods else None)
            self._pool = ctx.Pool(self.jobs)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = None

    def progress(self) -> Iterator[int]:
        """Play every game; yields the number of games done after each range."""
        config = self.config
        ranges = chunks(config.games, self.jobs)
        done = 0
        if self._pool is None:
            results: Iterator[Tally] = (play_range(config, a, b) for a, b in ranges)
        else:
            results = self._pool.imap_unordered(_work, [(config, a, b) for a, b in ranges])
        for part in results:
            self.tally.merge(part)
            done += part.games
            yield done

    def run(self) -> Tally:
        for _ in self.progress():
            pass
        return self.tally


def simulate(config: SimConfig, jobs: int = 1) -> dict[str, Any]:
    """Run `config` and return its summary (see `summarize`)."""
    with Runner(config, jobs) as runner:
        runner.run()
    return summarize(config, runner.tally)


# ------------------------------------------------------------------ summary


def wilson(successes: float, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% by default)."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def summarize(config: SimConfig, tally: Tally) -> dict[str, Any]:
    """The run as plain data: the JSON that `lanmatch sim --json` prints."""
    n = max(1, tally.games)
    seats = []
    for s in range(config.players):
        wins = tally.wins[s] / SHARE
        lo, hi = wilson(wins, tally.games)
        seats.append({
            "seat": s,
            "bot": config.bots[s],
            "wins": round(wins, 4),
            "win_share": round(wins / n, 4),
            "ci95": [round(lo, 4), round(hi, 4)],
            "avg_score": round(tally.points[s] / n, 2),
            "avg_turns": round(tally.turns[s] / n, 2) if config.game == "colormatch" else None,
        })
    return {
        "games": tally.games,
        "game": config.game,
        "table": config.table if config.game == "colormatch" else "dominoes",
        "players": config.players,
        "options": dict(config.options),
        "seed": config.seed,
        "seats": seats,
        "avg_steps": round(tally.steps / n, 2),
        "no_winner": tally.drawn,
        "cut_off": tally.cut,
    }


def format_table(summary: dict[str, Any]) -> str:
    """The summary as a text table, one row per seat."""
    head = f"{summary['games']} games, {summary['table']}, {summary['players']} players"
    if summary.get("options"):
        head += ", options " + ",".join(sorted(summary["options"]))
    head += f", seed {summary['seed']}"
    rows = [("seat", "bot", "wins", "win share", "95% CI", "avg score", "avg turns")]
    for s in summary["seats"]:
        lo, hi = s["ci95"]
        wins = s["wins"]
        rows.append((
            str(s["seat"]),
            s["bot"],
            f"{wins:g}" if wins == int(wins) else f"{wins:.2f}",
            f"{100 * s['win_share']:.1f}%",
            f"{100 * lo:.1f}-{100 * hi:.1f}%",
            f"{s['avg_score']:.1f}",
            "-" if s["avg_turns"] is None else f"{s['avg_turns']:.1f}",
        ))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = [head, ""]
    for k, r in enumerate(rows):
        cells = [r[0].rjust(widths[0]), r[1].ljust(widths[1])] + [c.rjust(w) for c, w in zip(r[2:], widths[2:], strict=True)]
        lines.append("  ".join(cells).rstrip())
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    tail = f"average game length: {summary['avg_steps']:.1f} steps"
    if summary["no_winner"]:
        tail += f"; {summary['no_winner']} games without a winner"
    if summary["cut_off"]:
        tail += f" ({summary['cut_off']} cut off at {MAX_STEPS} steps)"
    lines += ["", tail, "Shared wins count 1/k each for k winners."]
    return "\n".join(lines)
