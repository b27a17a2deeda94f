"""Bot-played matches recorded into a store, the way the host does it.

A `Referee` with a room bot in every seat plays the match (bots, clocks and
`expire` all go through its one door); after every action the new entries of
`referee.log` are recorded with `record_actions`, and the match is finished
with the referee's outcome. Used by the store tests and by
`_store_crash_writer.py`.
"""

from __future__ import annotations

import random
from typing import Any

from lanmatch.store import MatchRecord, SeatSpec, Store, rebuild_game
from lanmatch.table import Referee

MAX_ACTIONS = 4000  # a bot match longer than this is cut off (the caller decides what that means)


def referee_for(record: MatchRecord, level: str = "medium", engine: Any = None) -> Referee:
    """A referee playing `record` (dealt afresh, or `engine` as rebuilt) with
    room bots in every seat: a bot seat at its own level, people's seats at `level`."""
    return Referee(
        record.game,
        record.table,
        record.players,
        record.seed,
        now=0.0,
        options=record.options,
        bots={s.seat: (s.bot_level if s.kind == "bot" and s.bot_level else level) for s in record.seats},
        first_seat=record.first_seat,
        engine=engine,
        bot_delay=1.0,  # a second a move, so that the 3 s windows at `cards` can run out
    )


def resume(store: Store, record: MatchRecord, level: str = "medium") -> tuple[Referee, int]:
    """What a restarted host does: the engine rebuilt from seed + actions, a referee around it.
    Returns the referee and the number of actions already stored."""
    return referee_for(record, level, engine=rebuild_game(record)), len(record.actions)


def play_on(
    store: Store,
    match_id: int,
    ref: Referee,
    stored: int,
    *,
    now: float = 0.0,
    max_actions: int = MAX_ACTIONS,
    leave: tuple[int, int] | None = None,
    rng: random.Random | None = None,
    finish: bool = True,
) -> Any:
    """Play `ref` on to the end, recording every action (one transaction each).

    `stored` actions were in the store when `ref` was made: a resumed
    referee's log starts empty, so its entry `i` is the match's action
    `stored + i`. `leave=(after, seat)`: the person at `seat` leaves once
    `after` actions are stored. Stops after `max_actions` actions in all.
    Returns the settlement (or None when cut off or `finish` is False).
    """
    base = stored - len(ref.log)
    t = 0.0
    while not ref.over and stored < max_actions:
        t = max(t, ref.next_deadline())
        ref.tick(t)
        while stored < base + len(ref.log):
            _, seat, action, by = ref.log[stored - base]
            store.record_action(match_id, stored, seat, action, by)
            stored += 1
        if leave is not None and stored >= leave[0]:
            store.leave(match_id, leave[1], now)
            leave = None
    if ref.over and finish:
        return store.finish_match(match_id, ref.outcome, now)
    return None


def new_match(
    store: Store,
    seats: list[SeatSpec],
    *,
    game: str = "colormatch",
    table: str | None = "classic",
    seed: int = 1,
    options: dict[str, Any] | None = None,
    kind: str = "practice",
    stake: int = 0,
    now: float = 0.0,
    room: str = "",
) -> tuple[int, Referee]:
    """Begin a match in the store and deal its referee."""
    m = store.begin_match(
        game=game, table=table, seats=seats, seed=seed, now=now, options=options, kind=kind, stake=stake, room=room
    )
    return m, referee_for(store.match(m))


def play_match(store: Store, seats: list[SeatSpec], **kwargs: Any) -> tuple[int, Referee, Any]:
    """Begin, play to the end and finish one match; returns (id, referee, settlement)."""
    leave = kwargs.pop("leave", None)
    max_actions = kwargs.pop("max_actions", MAX_ACTIONS)
    m, ref = new_match(store, seats, **kwargs)
    settlement = play_on(store, m, ref, 0, now=kwargs.get("now", 0.0), leave=leave, max_actions=max_actions)
    return m, ref, settlement
