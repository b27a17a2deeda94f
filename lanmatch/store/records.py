"""The store's plain records (frozen dataclasses) and how rows become them.

Nothing here writes: these are the values the `Store` hands out and takes in,
plus `load_match`, which reads one match (seats and, optionally, its actions)
from a connection. Options, settings, actions and outcomes are stored as
canonical JSON (`dumps`: sorted keys, no spaces), so equal values have equal
text and "the same action again" is a string comparison.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any

from lanmatch.rules import mode_of
from lanmatch.store.errors import UnknownMatch

SEAT_KINDS = ("player", "guest", "bot")
BOT_LEVELS = ("easy", "medium", "hard")

#: An account in a transfer: "bank", "house", "pot" (the match's pot) or a profile id.
Account = str | int


def dumps(value: Any) -> str:
    """Canonical JSON: sorted keys, no spaces (equal values, equal text)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def loads(text: str | None) -> Any:
    return None if text is None else json.loads(text)


@dataclass(frozen=True)
class Profile:
    """A player known to this host. `created` is wall-clock seconds (as passed in)."""

    id: int
    name: str
    created: float


@dataclass(frozen=True)
class SeatSpec:
    """Who sits at one seat when a match begins.

    `kind` is "player" (a person with a profile: `profile_id` set), "guest" (a
    person without one: practice rooms only) or "bot" (a room bot or a remote
    bot node; `bot_level` when known). `token` is the seat token the host gave
    the peer, kept so that peers can reconnect to a table resumed after a crash.
    """

    kind: str
    name: str
    profile_id: int | None = None
    bot_level: str | None = None
    token: str | None = None

    @classmethod
    def player(cls, profile: Profile, token: str | None = None) -> SeatSpec:
        return cls("player", profile.name, profile.id, None, token)

    @classmethod
    def guest(cls, name: str, token: str | None = None) -> SeatSpec:
        return cls("guest", name, None, None, token)

    @classmethod
    def bot(cls, level: str | None, name: str | None = None, token: str | None = None) -> SeatSpec:
        return cls("bot", name or f"Bot ({level or 'remote'})", None, level, token)


@dataclass(frozen=True)
class SeatRecord:
    """A seat of a stored match: who sat there, and when they left (None: still seated)."""

    seat: int
    kind: str
    name: str
    profile_id: int | None
    bot_level: str | None
    token: str | None
    left_at: float | None

    @property
    def left(self) -> bool:
        return self.left_at is not None


@dataclass(frozen=True)
class LoggedAction:
    """One recorded engine action: the `index`-th `act(seat, action)` of the match."""

    index: int
    seat: int
    action: dict[str, Any]
    by: str


@dataclass(frozen=True)
class MatchRecord:
    """A stored match: everything needed to deal it again and replay it.

    `table` is None for a game that leaves its only table unnamed (Dominoes;
    `Game.named_tables`), as in `Room` and `Referee`. `options` are
    the engine's options (a room's `mode` included), `settings` whatever the
    host stored to rebuild its room (opaque to the store). `actions` is empty
    when the record was loaded without them.
    """

    id: int
    room: str
    game: str
    table: str | None
    players: int
    options: dict[str, Any]
    seed: int
    first_seat: int | None
    kind: str  # "practice" | "coins"
    stake: int
    settings: dict[str, Any]
    status: str  # "live" | "finished" | "abandoned"
    started: float
    ended: float | None
    outcome: dict[str, Any] | None
    seats: tuple[SeatRecord, ...]
    actions: tuple[LoggedAction, ...] = ()

    @property
    def label(self) -> str:
        """`classic`, `cards`, ... or, for a game that leaves its only table
        unnamed (`table` None), the game's name (`dominoes`): the table as
        stats group it."""
        return self.table or self.game

    @property
    def mode(self) -> str:
        """The engine's mode: "single", "match" (first to N points) or "daily".
        Without a `mode` option, the game's `default_mode` (the registry's:
        Dominoes is always a match; "single" for a game not registered)."""
        return mode_of(self.game, self.options)

    def names(self) -> list[str]:
        return [s.name for s in self.seats]


@dataclass(frozen=True)
class Transfer:
    """One ledger movement: `amount` coins from `src` to `dst`, once per `key`."""

    key: str
    reason: str  # grant | stake | win | odd | refund | fee
    src: Account
    dst: Account
    amount: int
    seat: int | None = None


@dataclass(frozen=True)
class Settlement:
    """What closing a match moved: its transfers (empty for practice) and the outcome."""

    match_id: int
    status: str
    outcome: dict[str, Any] | None
    transfers: tuple[Transfer, ...]

    def paid(self, account: Account) -> int:
        """Coins `account` received in this settlement."""
        return sum(t.amount for t in self.transfers if t.dst == account)


@dataclass(frozen=True)
class LedgerRow:
    id: int
    key: str
    reason: str
    src: Account
    dst: Account
    amount: int
    match_id: int | None
    seat: int | None
    at: float


def load_match(conn: sqlite3.Connection, match_id: int, *, actions: bool = True) -> MatchRecord:
    """Read one match.

    Raises:
        UnknownMatch: no match `match_id`.
    """
    row = conn.execute(
        "SELECT id, room, game, tbl, players, options, seed, first_seat, kind, stake, settings,"
        " status, started, ended, outcome FROM matches WHERE id = ?",
        (match_id,),
    ).fetchone()
    if row is None:
        raise UnknownMatch(f"There is no match {match_id} in this store.")
    seats = tuple(
        SeatRecord(*r)
        for r in conn.execute(
            "SELECT seat, kind, name, profile_id, bot_level, token, left_at FROM match_seats"
            " WHERE match_id = ? ORDER BY seat",
            (match_id,),
        )
    )
    logged: tuple[LoggedAction, ...] = ()
    if actions:
        logged = tuple(
            LoggedAction(i, s, json.loads(a), by)
            for i, s, a, by in conn.execute(
                "SELECT idx, seat, action, by FROM match_actions WHERE match_id = ? ORDER BY idx",
                (match_id,),
            )
        )
    (mid, room, game, tbl, players, options, seed, first_seat, kind, stake, settings,
     status, started, ended, outcome) = row
    return MatchRecord(
        id=mid,
        room=room,
        game=game,
        table=tbl,
        players=players,
        options=json.loads(options),
        seed=int(seed),
        first_seat=first_seat,
        kind=kind,
        stake=stake,
        settings=json.loads(settings),
        status=status,
        started=started,
        ended=ended,
        outcome=loads(outcome),
        seats=seats,
        actions=logged,
    )


__all__ = [
    "BOT_LEVELS",
    "SEAT_KINDS",
    "Account",
    "LedgerRow",
    "LoggedAction",
    "MatchRecord",
    "Profile",
    "SeatRecord",
    "SeatSpec",
    "Settlement",
    "Transfer",
    "dumps",
    "load_match",
    "loads",
]
