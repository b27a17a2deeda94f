"""Bot-vs-bot simulation through the host's referee (`lanmatch sim`, SPEC section 7).

    from lanmatch.sim import SimConfig, Runner, summarize
    config = SimConfig(table="classic", players=4, bots=("hard", "medium", "medium", "medium"),
                       games=2000, seed=1)
    with Runner(config, jobs=2) as runner:
        for done in runner.progress():   # games finished so far, as chunks end
            ...
    result = summarize(config, runner.tally)

How this works. Game `i` of a run is fully determined by the run's seed and
`i`: it is dealt from `game_seed(seed, i)`, and the referee derives every
bot's seed from that (so the first seat, drawn by the engine from its seed,
rotates at random over the run). Games are split into ranges of indices; each
range is played by one worker process and returns integer totals (wins are
counted in sixtieths so that shared wins, 1/k each for k winners, stay exact).
The sum of integers does not depend on how the ranges were split, so the
results are the same for any number of jobs.

The host's part is the host's own: each game is a `lanmatch.table.Referee`,
the object a host's room task drives, with a room bot in every seat. Only the
clock differs: it is virtual. `now` starts at 0 and jumps to
`referee.next_deadline()`, where `tick(now)` fires the timer that fell due:
a bot's move, an out-of-turn chance (a call, a catch, a jump-in; a bot may let
it pass with `Bot.declines`) or the end of a timed window (`expire`). Bots
move at once (`bot_delay` 0) and a timed last-card window ends as soon as
every seat has had its chance at it (`call_window` 0): the referee orders
timers that fall due together as a window owner's call, other chances, window
ends, then the turn.
`SimConfig.bot_delay` and `call_window` give the clock other figures (the
host's 3 s windows: `call_window=3.0`); no real time passes either way.

Nothing here prints or reads files: the CLI renders what `summarize` returns.
"""

from __future__ import annotations

import hashlib
import math
import multiprocessing
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from lanmatch.bots import LEVELS
from lanmatch.rules import get_game
from lanmatch.table.referee import Referee

SHARE = 60  # wins are counted in sixtieths: 1/k of a win for k <= 6 sharers is exact
MAX_STEPS = 5000  # a game still running after this many actions is cut off (counted, no winner)


@dataclass(frozen=True)
class SimConfig:
    """What to simulate. `bots` holds one level per seat."""

    game: str = "colormatch"
    table: str | None = "classic"  # None: the game's default table
    players: int = 4
    bots: tuple[str, ...] = ("medium",) * 4
    games: int = 100
    seed: int = 1
    options: dict[str, Any] = field(default_factory=dict)
    bot_delay: float = 0.0  # virtual seconds before a bot's move or chance
    call_window: float = 0.0  # virtual seconds of a timed last-card window

    def check(self) -> None:
        """Raises:
        ValueError: an unknown game or table, a bot level, player count or
            game count that cannot run.
        """
        game = get_game(self.game)
        if game.picks_tables:
            game.table(self.table)
        if self.games < 1:
            raise ValueError(f"--games must be at least 1, not {self.games}")
        if len(self.bots) != self.players:
            raise ValueError(f"{len(self.bots)} bot levels given for {self.players} players")
        for level in self.bots:
            if level not in LEVELS:
                raise ValueError(f"unknown bot level {level!r}; expected one of {', '.join(LEVELS)}")
        if not game.seats_ok(self.players, self.table if game.picks_tables else None):
            low, high = game.seat_range(self.table if game.picks_tables else None)
            raise ValueError(f"{game.title_of(self.table)} seats {low} to {high} players, not {self.players}")

    @property
    def table_name(self) -> str | None:
        """The table as the referee (and a room) names it: None for a game
        whose only table is unnamed (its `table` is not read)."""
        game = get_game(self.game)
        return game.table_name(self.table if game.picks_tables else None)


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


def run_referee(referee: Referee, max_steps: int = MAX_STEPS, now: float = 0.0) -> int:
    """Play `referee`'s game on a virtual clock; returns the actions applied.

    `now` jumps to `referee.next_deadline()` and `tick(now)` fires what fell
    due, until the game has an outcome, `max_steps` actions were applied, or
    no timer is left (a seat nobody plays: every seat should be a room bot).
    """
    start = len(referee.log)
    # each tick applies an action or lets one seat's chance pass (once per state)
    for _ in range((max_steps + 1) * (referee.n + 2)):
        if referee.over or len(referee.log) - start >= max_steps:
            break
        due = referee.next_deadline()
        if due is None or due == math.inf:
            break
        now = max(now, due)
        referee.tick(now)
    return len(referee.log) - start


def play_game(g, bots: Sequence[Any], table: str | None = None, max_steps: int = MAX_STEPS) -> int:
    """Play the dealt game `g` to its end with these bot objects, one per
    seat, through a `Referee` (as `play_one` does with bots it makes);
    returns the actions applied. Stops after `max_steps` actions even if the
    game has no outcome yet. (`table` is read from `g`; the argument stays
    for old callers.)
    """
    v = g.view(0)
    referee = Referee(v["game"], v.get("table"), len(bots), 0, now=0.0, engine=g, bots=dict(enumerate(bots)))
    return run_referee(referee, max_steps)


def referee_for(config: SimConfig, index: int) -> Referee:
    """The referee of game `index` of the run, dealt, a room bot in every seat."""
    return Referee(
        config.game, config.table_name, config.players, game_seed(config.seed, index), now=0.0,
        options=dict(config.options) or None, bots=dict(enumerate(config.bots)),
        bot_delay=config.bot_delay, call_window=config.call_window,
    )


def play_one(config: SimConfig, index: int) -> dict[str, Any]:
    """Play game `index` of the run; returns its outcome, steps and turns."""
    referee = referee_for(config, index)
    steps = run_referee(referee)
    out = referee.outcome
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
    counted_turns: int = 0  # games whose outcome counts turns (Color Match's does)

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
        self.counted_turns += bool(result["turns"])

    def merge(self, other: Tally) -> None:
        self.games += other.games
        for name in ("wins", "points", "turns"):
            mine, theirs = getattr(self, name), getattr(other, name)
            for s in range(self.players):
                mine[s] += theirs[s]
        self.steps += other.steps
        self.drawn += other.drawn
        self.cut += other.cut
        self.counted_turns += other.counted_turns


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
            "avg_turns": round(tally.turns[s] / n, 2) if tally.counted_turns else None,
        })
    return {
        "games": tally.games,
        "game": config.game,
        "table": get_game(config.game).table(config.table_name).name,
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
