"""The referee of one table: the engine, the clocks, the bots (pure).

How this works. A `Referee` wraps one engine game and everything the host
adds to it: the move clock, the timed windows, bots in empty seats, stand-ins
for timed-out people and the autopilot. It never reads a clock: every method
that can change something takes `now` (seconds, any monotonic origin), and
`next_deadline()` says when `tick(now)` has work to do. The host's trio task
waits until that deadline (or a message) and calls `tick` with
`trio.current_time()`; tests pass plain numbers.

Every change goes through `_apply(seat, action, now)`, people's actions
(`act`) and the referee's own (`tick`: bots, timeouts, window ends) alike, so a
bot walks through the same door as a person and every action is checked by
the engine.

Timers (recomputed after every change by `_rearm`):

- the *decision* of the seat whose turn it is starts when the turn reaches it
  or when that seat has just acted (a draw starts a new decision). It ends at
  `start + clock` for a person (kind `move`), `start + min(keep, clock)` in
  phase `drawn` at a keep table (kind `keep`, the 6 s PLAY/KEEP: the engine's
  `expire` plays the card), `start + pace` for a seat on autopilot and
  `start + bot_delay` for a room bot.
- a timed-out `move` is played by the Hard stand-in "on the merits" and
  counts a miss; three misses in a row put the seat on autopilot (Hard at
  `pace`, about 0.67 s a turn) until the person sends anything (`touch`).
- `cards` last-card windows: `call` time is `call_window` (3 s) from the
  opening; then `expire` with `penalty` true for a person, false for a bot
  (room bot or a remote peer that said it is a bot), which opens `catch` time
  for `call_window` more; then a second `expire` closes it.
- out-of-turn chances of room bots and autopilot seats (a call, a catch, a
  jump-in) are offered once per state, `bot_delay` after it arose; a room bot
  may let it pass (`declines`).
- human pace (`lanmatch/bots/pace.py`): where a person sits and `bot_delay`
  is above 0, a room bot's move or chance takes a varied natural time drawn
  from the referee's seeded pace rng (about 0.6-1.5 s, less when forced, a
  quick one for its own last-card call); rooms of bots alone, `--fast` and the
  simulator keep `bot_delay` as it is.
- a bot the referee plays chooses from the legal actions without the
  play-and-call variants (`bot_legal`), unless it says `calls_with_play`.
- the call's grace: no seat the referee plays catches a *person* who forgot
  a last-card call before its reaction time (`pace.reaction`: Medium 1.5-3 s,
  Hard 1-2 s, Easy slower), counted from the window's opening, whatever
  `bot_delay` is (`call_window` 0, the virtual clock of the simulator and the
  line mode, has no grace: there each seat's chance comes in order); at
  `standard` the next player's move waits for it too when that move may be
  the catch. A person who calls within a second is never caught.
- timers due together fire in this order: a window owner's call (its chance,
  or its move when it holds the turn: the move is its chance to call), the
  other chances in seat order, the ends of timed windows, then the turn.

A pause (`pause(now)`, `resume(now)`: the host honours it at a table whose
only person asks, docs/protocol.md "pause") freezes every clock: while paused
no timer is due (`next_deadline` is None) and `timers` tell the time left as
it was at the pause; `resume` shifts every start the timers count from (the
decision's, the windows', the chances', the reactions' openings) by the time
paused, so each deadline moves by exactly that much. An action of a person
ends the pause first.

The host's room task drives a referee in real time; `lanmatch sim`
(`lanmatch/sim.py`) and the line mode (`lanmatch/console/quick.py`) drive
the same class on a virtual clock, with `bot_delay` and `call_window` 0.

Raises `Rejected(code, reason)` for refused actions; the state is unchanged.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass
from typing import Any

from lanmatch.bots import Bot, make_bot, pace
from lanmatch.rules import IllegalAction, get_game, new_game

KEEP_WINDOW = 6.0
CALL_WINDOW = 3.0
AUTOPILOT_PACE = 0.67
MISSES_TO_AUTOPILOT = 3

BY_WORDS = {
    "move": "time ran out: the host played it",
    "autopilot": "autopilot",
    "keep": "PLAY/KEEP time ran out",
    "call": "call time ran out",
    "catch": "catch time ran out",
    "bot": "room bot",
    "chance": "room bot, out of turn",
}
"""Who made a recorded action when it was not the seat's own choice (the
referee's timer kinds, as the store's `by` keeps them), in words for a replay."""


class Rejected(Exception):
    """An action refused by the referee. `code` is machine-readable, `reason` a sentence."""

    def __init__(self, code: str, reason: str):
        super().__init__(reason)
        self.code = code
        self.reason = reason


@dataclass
class SeatClock:
    agent: str = "person"  # who sits there: "person" or "bot" (a remote bot node)
    room_bot: bool = False  # played by the referee itself
    misses: int = 0
    autopilot: bool = False


@dataclass(frozen=True)
class Timer:
    due: float
    order: int  # among timers due together: a window owner's call, other chances, window ends, the turn
    kind: str  # move | keep | autopilot | bot | call | catch | chance
    seat: int

    def public(self, now: float) -> dict[str, Any]:
        return {"seat": self.seat, "kind": self.kind, "left": round(max(0.0, self.due - now), 3)}


@dataclass
class Due:
    """A timer that is due: the decision to make before `Referee.resolve`.

    `action` is set when the referee knows it (an `expire`); otherwise `bot`
    chooses from `view` and `legal` (`choose`). `choose` reads only the bot,
    the view and the legal actions, never the referee: the host may run it on
    a worker thread while the room waits (`heavy`: a Hard bot's look-ahead).
    """

    timer: Timer
    state_id: int
    action: dict[str, Any] | None = None
    bot: Any = None
    view: dict[str, Any] | None = None
    legal: list[dict[str, Any]] | None = None
    may_decline: bool = False  # a room bot's out-of-turn chance: it may let it pass

    @property
    def heavy(self) -> bool:
        return self.action is None and getattr(self.bot, "level", "") == "hard"

    def choose(self) -> dict[str, Any] | None:
        """The action to play, or None: a chance let pass."""
        if self.action is not None:
            return self.action
        if self.may_decline and self.bot.declines(self.view, self.legal):
            return None
        return self.bot.choose(self.view, self.legal)


def sub_seed(seed: int, what: str) -> int:
    return int.from_bytes(hashlib.sha256(f"lanmatch-referee:{seed}:{what}".encode()).digest()[:8], "big")


class Referee:
    """One table's game with its clocks and bots. See the module docstring."""

    def __init__(
        self,
        game: str,
        table: str | None,
        players: int,
        seed: int,
        *,
        now: float,
        options: dict[str, Any] | None = None,
        clock: float = 30.0,
        bots: dict[int, Any] | None = None,
        agents: dict[int, str] | None = None,
        bot_delay: float = 0.0,
        pace: float = AUTOPILOT_PACE,
        keep_window: float = KEEP_WINDOW,
        call_window: float = CALL_WINDOW,
        deck: list[str] | None = None,
        first_seat: int | None = None,
        engine: Any = None,
    ):
        """Deal a game (or take over `engine`, a game already dealt: a resumed
        or rigged one).

        `bots` maps the seats played by the referee to their level (or to a
        bot object, see `set_room_bot`); `agents` says which other seats are
        remote bots ("bot") rather than people.

        Raises:
            ValueError: the engine refused the game (table, players, options, deck).
        """
        declared = get_game(game)
        self.spec = declared.table(table)  # the table's declaration: what the host times
        self.game = game
        self.table = declared.table_name(table)
        self.g = engine if engine is not None else new_game(
            game, table=self.spec.name, players=players, seed=seed, options=options or {}, deck=deck,
            first_seat=first_seat,
        )
        self.n = players
        self.seed = seed
        self.clock = float(clock)
        self.bot_delay = float(bot_delay)
        self.pace = float(pace)
        self.keep_window = float(keep_window)
        self.call_window = float(call_window)
        self.seats = [SeatClock() for _ in range(players)]
        self.bots: dict[int, Any] = {}
        self.standins: dict[int, Any] = {}
        self._views: dict[int | None, dict[str, Any]] = {}
        # the engine's views for a reader that changes nothing (`shared_view`, an
        # optional engine member: docs/adding-a-game.md), else its own copies
        self._view_of = getattr(self.g, "shared_view", None) or self._engine_view
        # what differs between two of them (`shared_view_changes`, optional with `shared_view`)
        self._view_changes = getattr(self.g, "shared_view_changes", None) if self._view_of is not self._engine_view else None
        self._lead = 0  # the seat whose view `_public` builds when it must build one
        for s in range(players):
            if agents and s in agents:
                self.seats[s].agent = agents[s]
            if bots and s in bots:
                self.set_room_bot(s, bots[s])
        self._decision: tuple[int, int] | None = None  # (seat, step it began at)
        self._decision_start = now
        self._windows_seen: dict[int, tuple[tuple[bool, bool], float]] = {}
        self._chances: dict[int, float] = {}  # seat -> when its current chance arose
        self._asked: set[tuple[int, int]] = set()  # (seat, step) chances already offered
        self._timers: list[Timer] = []
        # human pace and the call's grace (module docstring), drawn in order from one seeded rng
        self._pace_rng = random.Random(sub_seed(seed, "pace"))
        self._delays: dict[tuple[str, int, int], float] = {}  # (kind, seat, step) -> seconds
        self._reactions: dict[tuple[int, int, float], float] = {}  # (catcher, window owner, opened) -> seconds
        self.log: list[tuple[float, int, dict[str, Any], str]] = []  # (time, seat, action, by)
        self.notes: list[str] = []  # bots' illegal choices replaced by a legal action (their bugs)
        self._paused_at: float | None = None  # paused since then (module docstring)
        self._changed(now)

    # ------------------------------------------------------------ seats

    def set_room_bot(self, seat: int, level: Any, now: float | None = None) -> None:
        """From now on the referee plays `seat` with a bot of `level` (its
        current decision, if any, restarts at `now`). `level` may also be a
        bot itself (`observe`, `declines`, `choose`: `lanmatch.sim.play_game`
        hands in wrapped bots), played as it is.

        Raises:
            ValueError: unknown level.
        """
        if isinstance(level, str):
            bot = make_bot(level, game=self.game, table=self.table, seat=seat, seed=sub_seed(self.seed, f"bot{seat}"))
        else:
            bot = level
        self.bots[seat] = bot
        self.seats[seat].room_bot = True
        self.seats[seat].agent = "bot"
        bot.observe(self.view(seat))
        if now is not None:
            self._restart(seat, now)

    def _restart(self, seat: int, now: float) -> None:
        if self._decision is not None and self._decision[0] == seat:
            self._decision_start = now
        self._rearm(now)

    def set_agent(self, seat: int, agent: str, now: float | None = None) -> None:
        """A remote peer ("person" or "bot") sits at `seat` (no longer a room bot)."""
        self.bots.pop(seat, None)
        self.seats[seat].room_bot = False
        self.seats[seat].agent = agent
        if now is not None:
            self._restart(seat, now)

    def set_autopilot(self, seat: int, now: float) -> None:
        """Put `seat` on autopilot at once (its peer is gone at the deal): the
        Hard stand-in plays it at the autopilot's pace until the person sends
        something (`touch`)."""
        self.seats[seat].autopilot = True
        self._restart(seat, now)

    def _standin(self, seat: int) -> Any:
        bot = self.standins.get(seat)
        if bot is None:
            bot = make_bot("hard", game=self.game, table=self.table, seat=seat, seed=sub_seed(self.seed, f"hard{seat}"))
            bot.observe(self.view(seat))
            self.standins[seat] = bot
        return bot

    # ------------------------------------------------------------ queries

    @property
    def over(self) -> bool:
        return self.g.outcome is not None

    @property
    def outcome(self) -> dict[str, Any] | None:
        return self.g.outcome

    @property
    def state_id(self) -> int:
        """The engine's `step`: actions applied so far; actions must answer it."""
        return self._public()["step"]

    def view(self, seat: int | None) -> dict[str, Any]:
        """The engine view of `seat` (None: a watcher's) for the current state
        (built once per state; do not mutate)."""
        v = self._views.get(seat)
        if v is None:
            v = self._views[seat] = self._view_of(seat)
        return v

    def view_changes(self, old: dict[str, Any], new: dict[str, Any]) -> tuple[dict[str, Any], tuple[str, ...]] | None:
        """What may differ (besides `events`) between `old`, one seat's view
        of an earlier state, and `new`, its view of the current state (both
        this referee's, as `view` gave them): the keys that changed alike for
        every seat with their new values, and the keys that are the seat's
        own (to compare); None when not known (any key may differ). From the
        engine's `shared_view_changes` (docs/adding-a-game.md); `DeltaSender` reads it."""
        f = self._view_changes
        return f(old.get("step"), new.get("step")) if f is not None else None

    def _engine_view(self, seat: int | None) -> dict[str, Any]:
        return self.g.view(seat) if seat is not None else self.g.watch_view()

    def _public(self) -> dict[str, Any]:
        """A view of the current state, read only for what every seat sees
        alike (`step`, `turn`, `to_act`, `windows`, `phase`): whichever view
        this state already has, else the lead seat's (the last actor's, whose
        view goes out first), so that no view is built only to be read here."""
        for v in self._views.values():
            return v
        return self.view(self._lead)

    def spectator_view(self) -> dict[str, Any]:
        """What a spectator sees: the engine's watcher view (`watch_view()`),
        redacted at the source like a seat's (built once per state; do not mutate)."""
        return self.view(None)

    def legal(self, seat: int) -> list[dict[str, Any]]:
        return self.g.legal_actions(seat)

    def next_deadline(self) -> float | None:
        """When `tick` next has work to do, or None (game over, no timer, or paused)."""
        return self._timers[0].due if self._timers and self._paused_at is None else None

    def timers(self, now: float) -> list[dict[str, Any]]:
        """The public timers with the time left: `[{"seat", "kind", "left"}]`
        (while paused, the time left at the pause)."""
        at = now if self._paused_at is None else self._paused_at
        return [t.public(at) for t in self._timers if t.kind not in ("bot", "chance")]

    # ------------------------------------------------------------ pausing

    @property
    def paused(self) -> bool:
        return self._paused_at is not None

    def pause(self, now: float) -> bool:
        """Stop every clock at `now` (nothing is due until `resume`). False
        when there is nothing to pause (the game is over, or already paused)."""
        if self.over or self._paused_at is not None:
            return False
        self._paused_at = now
        return True

    def resume(self, now: float) -> float:
        """Start the clocks again: every deadline moves by the time paused,
        which is returned (0.0 when not paused)."""
        if self._paused_at is None:
            return 0.0
        shift = max(0.0, now - self._paused_at)
        self._paused_at = None
        self._decision_start += shift
        self._windows_seen = {s: (state, since + shift) for s, (state, since) in self._windows_seen.items()}
        self._chances = {s: since + shift for s, since in self._chances.items()}
        self._reactions = {(c, o, opened + shift): r for (c, o, opened), r in self._reactions.items()}
        self._rearm(now)
        return shift

    def autopilot(self) -> list[int]:
        return [s for s, c in enumerate(self.seats) if c.autopilot]

    # ------------------------------------------------------------ acting

    def touch(self, seat: int, now: float) -> None:
        """The person at `seat` sent something: any input ends the autopilot and
        restores the full clock (SPEC section 8)."""
        c = self.seats[seat]
        c.misses = 0
        if c.autopilot:
            c.autopilot = False
            if self._decision is not None and self._decision[0] == seat:
                self._decision_start = now
            self._rearm(now)

    def act(self, seat: int, action: dict[str, Any], state_id: int, now: float) -> list[dict[str, Any]]:
        """A peer's action for its own `seat`, answering state `state_id`.

        Returns the engine's events.

        Raises:
            Rejected: `over` (the game has ended), `host_only` (an `expire`),
                `stale` (the state moved on since `state_id`), `not_your_turn`
                (the seat may not act now), `illegal` (the engine refused it;
                the reason is its sentence).
        """
        self.resume(now)  # a person's move ends a pause
        self.touch(seat, now)
        if self.over:
            raise Rejected("over", "The game is over.")
        if not isinstance(action, dict) or action.get("type") == "expire":
            raise Rejected("host_only", "Only the host ends timed windows (expire).")
        if state_id != self.state_id:
            raise Rejected("stale", f"That answered state {state_id}; the table is at state {self.state_id} now.")
        if seat not in self.g.to_act:
            raise Rejected("not_your_turn", f"Seat {seat} may not act now.")
        try:
            return self._apply(seat, action, now, "seat")
        except IllegalAction as e:
            raise Rejected("illegal", e.reason) from None

    def _apply(self, seat: int, action: dict[str, Any], now: float, by: str) -> list[dict[str, Any]]:
        events = self.g.act(seat, action)
        self.log.append((now, seat, dict(action), by))
        self._changed(now, actor=seat)
        return events

    def tick(self, now: float) -> tuple[int, dict[str, Any], str] | None:
        """Fire the earliest timer due at `now`, if any: one action at most.

        Returns `(seat, action, kind)` of what was played, or None when
        nothing was due (or a due chance was let pass). Call again while
        `next_deadline() <= now`. The same as `due`, `Due.choose` and
        `resolve` in a row (the host runs a Hard bot's `choose` on a worker
        thread between the two).
        """
        job = self.due(now)
        if job is None:
            return None
        return self.resolve(job, job.choose(), now)

    def due(self, now: float) -> Due | None:
        """The earliest timer due at `now` as a `Due`: what must be decided
        (by a bot, or already known: an `expire`). None when nothing is due,
        or a due chance had nothing to offer (its timer is gone then), or paused."""
        if not self._timers or self._timers[0].due > now or self._paused_at is not None:
            return None
        t = self._timers[0]
        seat = t.seat
        if t.kind in ("call", "catch"):
            c = self.seats[seat]
            penalty = t.kind == "call" and c.agent == "person" and not c.room_bot
            return Due(t, self.state_id, action={"type": "expire", "penalty": penalty})
        if t.kind == "keep":
            return Due(t, self.state_id, action={"type": "expire", "penalty": False})
        if t.kind == "chance":
            self._asked.add((seat, self.state_id))
            bot = self.bots.get(seat) or self._standin(seat)
            legal = self.bot_legal(seat, bot)
            if not legal:
                self._rearm(now)
                return None
            return Due(t, self.state_id, bot=bot, view=self.view(seat), legal=legal, may_decline=seat in self.bots)
        # move (timed out), autopilot, bot
        bot = self.bots.get(seat) if t.kind == "bot" else self._standin(seat)
        return Due(t, self.state_id, bot=bot, view=self.view(seat), legal=self.bot_legal(seat, bot))

    def bot_legal(self, seat: int, bot: Any) -> list[dict[str, Any]]:
        """The legal actions a bot the referee plays chooses from: play-and-call
        variants (`"call": true`) only for a bot that says it knows them
        (`calls_with_play`); the others call as they always did, after the
        play, so their play and every seeded game stay as they were."""
        legal = self.legal(seat)
        if getattr(bot, "calls_with_play", False) or not any("call" in a for a in legal):
            return legal
        return [a for a in legal if "call" not in a]

    def resolve(self, job: Due, action: dict[str, Any] | None, now: float) -> tuple[int, dict[str, Any], str] | None:
        """Apply what `job` decided (`action`, None: a chance let pass).
        Returns `(seat, action, kind)` as `tick` does; None, changing
        nothing, when the state moved on since `due` (a stale job)."""
        t, seat = job.timer, job.timer.seat
        if job.state_id != self.state_id or not self._timers or self._timers[0] != t:
            return None
        if action is None:
            self._rearm(now)
            return None
        if t.kind == "move":
            c = self.seats[seat]
            c.misses += 1
            if c.misses >= MISSES_TO_AUTOPILOT:
                c.autopilot = True
        try:
            self._apply(seat, action, now, t.kind)
        except IllegalAction as e:
            if t.kind in ("call", "catch", "keep"):
                raise  # the referee's own expire refused: our bug
            # a bot's bug must not stall the table: note it, play the first legal action
            self.notes.append(f"seat {seat} ({t.kind}) chose an illegal {action!r}: {e.reason}")
            action = self.legal(seat)[0]
            self._apply(seat, action, now, t.kind)
        return seat, action, t.kind

    # ------------------------------------------------------------ timers

    def _person(self, seat: int) -> bool:
        c = self.seats[seat]
        return c.agent == "person" and not c.room_bot

    def _delay(self, kind: str, seat: int, step: int, base: float, own_call: bool = False) -> float:
        """A referee-played seat's time for this move or chance (`pace.move_delay`),
        drawn once per state."""
        if base <= 0 or not any(self._person(s) for s in range(self.n)):
            return base  # a room of bots, the simulator, --fast: as the room says
        key = (kind, seat, step)
        d = self._delays.get(key)
        if d is None:
            if len(self._delays) > 64:  # forget the states gone by (never the current decision's)
                keep = min(step, self._decision[1]) if self._decision else step
                self._delays = {k: v for k, v in self._delays.items() if k[2] >= keep}
            forced = kind == "bot" and len(self.bot_legal(seat, self.bots.get(seat))) == 1
            d = self._delays[key] = pace.move_delay(self._pace_rng, base, True, forced=forced, own_call=own_call)
        return d

    def _grace(self, seat: int, windows: dict[int, tuple[bool, bool]], seen: dict) -> float | None:
        """When `seat` (played by the referee) may first catch a person who
        forgot their call, or None: no person's window is catchable by it."""
        if self.call_window <= 0:
            return None  # windows on a virtual clock (sim, line mode): each seat's chance comes in order
        latest = None
        for owner, (_, catchable) in windows.items():
            if owner == seat or not catchable or not self._person(owner):
                continue
            opened = seen[owner][1]
            key = (seat, owner, opened)
            r = self._reactions.get(key)
            if r is None:
                if len(self._reactions) > 64:  # forget the windows gone by
                    now_open = {(o, seen[o][1]) for o in windows}
                    self._reactions = {k: v for k, v in self._reactions.items() if k[1:] in now_open}
                bot = self.bots.get(seat)
                level = getattr(bot, "level", "medium") if bot is not None else "hard"
                r = self._reactions[key] = pace.reaction(self._pace_rng, level)
            due = opened + r
            latest = due if latest is None or due > latest else latest
        return latest

    def _changed(self, now: float, actor: int | None = None) -> None:
        self._views = {}
        if actor is not None:
            self._lead = actor
        step = self.state_id
        for seat, bot in self.bots.items():
            if type(bot).observe is not Bot.observe:  # the base bot (Easy) keeps nothing: no view to build
                bot.observe(self.view(seat))
        for seat, bot in self.standins.items():
            if seat not in self.bots:
                bot.observe(self.view(seat))
        turn = self._turn()
        if turn is None:
            self._decision = None
        elif self._decision is None or self._decision[0] != turn or actor == turn:
            self._decision = (turn, step)
            self._decision_start = now
        self._rearm(now)

    def _turn(self) -> int | None:
        if self.over:
            return None
        v = self._public()
        t = v.get("turn")
        if t is None:
            to_act = v["to_act"]
            t = to_act[0] if to_act else None
        return t

    def _rearm(self, now: float) -> None:
        timers: list[Timer] = []
        if self.over:
            self._timers = timers
            return
        v = self._public()
        step = v["step"]
        turn = self._decision[0] if self._decision else None
        windows = {w["seat"]: (w["call"], w["catch"]) for w in v.get("windows") or []}
        # last-card windows, since when each is as it is; the host times them at `cards`
        seen: dict[int, tuple[tuple[bool, bool], float]] = {}
        for s, state in windows.items():
            old = self._windows_seen.get(s)
            since = old[1] if old is not None and old[0] == state else now
            seen[s] = (state, since)
            if self.spec.timed_calls:
                timers.append(Timer(since + self.call_window, 2, "call" if state[0] else "catch", s))
        self._windows_seen = seen
        # the decision of the seat whose turn it is (with the owners' calls
        # when it may call its own last card: its move is its chance to)
        if turn is not None:
            c = self.seats[turn]
            start = self._decision_start
            own_call = windows.get(turn, (False, False))[0]
            order = 0 if own_call else 3
            if c.room_bot or c.autopilot:
                kind = "bot" if c.room_bot else "autopilot"
                due = start + (self._delay(kind, turn, self._decision[1], self.bot_delay, own_call)
                               if c.room_bot else self.pace)  # autopilot: at its own steady pace
                grace = self._grace(turn, windows, seen) if windows else None
                timers.append(Timer(due if grace is None or grace < due else grace, order, kind, turn))
            elif v.get("phase") == "drawn" and self.spec.timed_keep:
                timers.append(Timer(start + min(self.keep_window, self.clock), order, "keep", turn))
            else:
                timers.append(Timer(start + self.clock, order, "move", turn))
        # out-of-turn chances of the seats the referee plays
        to_act = v["to_act"]
        chances: dict[int, float] = {}
        for s in to_act:
            if s == turn or (s, step) in self._asked:
                continue
            c = self.seats[s]
            if not (c.room_bot or c.autopilot):
                continue
            since = self._chances.get(s, now)
            chances[s] = since
            # a window's owner has the first chance at its own call, then the catchers
            own_call = windows.get(s, (False, False))[0]
            first = 0 if own_call else 1
            due = since + (self._delay("chance", s, step, self.bot_delay, own_call) if c.room_bot else self.pace)
            grace = self._grace(s, windows, seen)
            timers.append(Timer(due if grace is None or grace < due else grace, first, "chance", s))
        self._chances = chances
        timers.sort(key=lambda t: (t.due, t.order, t.seat))
        self._timers = timers
