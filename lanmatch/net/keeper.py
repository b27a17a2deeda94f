"""The host's store wiring: every call the host makes to its store, in one class.

How this works. The room sessions (`lanmatch.table.session`) and the lobby
call a `StoreKeeper` (their `Keeper`) synchronously, on the host's thread:
each call is one short sqlite transaction, ordered with the room's other
work (an action is recorded before any view of the state it made is sent).
This class is the only place where the store's failures are caught, and it
holds the host's policy for them (docs/store.md, "Host wiring", "Failure
policy"):

| failed call | what the host does |
|---|---|
| `profile` at hello | `error` `store_failed`; the peer plays without a profile |
| a balance (joining, creating, a deal) | the join, create or start is refused (`store_failed`) |
| `begin_match` | the start is refused (`store_failed`); nothing is dealt |
| `record_actions`, coin game | `abandon_match` (stakes back), the room closes with a sentence |
| `record_actions`, practice game | `abandon_match`, the game goes on unrecorded (logged) |
| `leave` | refused (`store_failed`): the person keeps the seat |
| `finish_match` | logged; the match stays live with its pot, settled at the next start |
| `abandon_match` | logged; the match stays live with its pot, resumed at the next start |
| a `coins` message's balance | logged; that message is not sent |
| resuming a match | a match that cannot be replayed or seated again is abandoned |
| keeping or forgetting an open room | logged; the room plays on (a restart may then not open it again, or open a closed one) |
| reading the open rooms at start | logged; none is opened again |

Refusals and bad arguments (`StoreError`, `ValueError`: bugs of ours, e.g.
a `LogMismatch`) are raised again when the host is `strict` (tests);
sqlite's own failures never are (`_failed`).

The store is given wall-clock times (`time.time()`), never the host's
monotonic clock.
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import time
from collections.abc import Callable, Iterable
from typing import Any

from lanmatch.store import (
    BadName,
    InsufficientCoins,
    MatchRecord,
    Profile,
    ReplayError,
    SeatSpec,
    Settlement,
    Store,
    StoreError,
    WrongKey,
    rebuild_game,
)
from lanmatch.table.room import Room, RoomError
from lanmatch.table.session import Halt, Match

log = logging.getLogger("lanmatch.host")

STORE_FAILED = "The host's store failed (logged)"


class StoreKeeper:
    """The host's side of its `Store` (see the module docstring)."""

    def __init__(self, store: Store, *, strict: bool = False, clock: Callable[[], float] = time.time):
        self.store = store
        self.strict = strict
        self.clock = clock
        self._ratings: dict[tuple[int, str], int | None] = {}  # (profile id, game) -> shown rating

    def _failed(self, what: str, e: BaseException) -> None:
        """Log a failed store call; a refusal or a bad argument (our bug, not
        sqlite's failure) is raised again when the host is `strict` (tests)."""
        log.error("store: could not %s: %s: %s", what, type(e).__name__, e)
        if self.strict and not isinstance(e, sqlite3.Error):
            raise e

    # ------------------------------------------------------------ profiles and balances

    def profile(self, name: str, key: str) -> tuple[Profile | None, int, tuple[str, str] | None]:
        """Recognise (or make) the profile a peer brought at hello:
        `(profile, balance, None)`, or `(None, 0, (code, sentence))` when it is refused."""
        return self._profile(lambda: self.store.profile(name, key, self.clock()))

    def _profile(self, make: Callable[[], Profile]) -> tuple[Profile | None, int, tuple[str, str] | None]:
        try:
            profile = make()
            balance = self.store.balance(profile.id)
        except WrongKey as e:
            return None, 0, ("wrong_key", str(e))
        except (BadName, ValueError) as e:
            return None, 0, ("bad_profile", f"That profile cannot be used here: {e}")
        except (StoreError, sqlite3.Error) as e:
            self._failed("make or find a profile", e)
            return None, 0, ("store_failed", f"{STORE_FAILED}: your profile is not recognised now; practice rooms still work.")
        return profile, balance, None

    def names(self) -> list[str]:
        """Every profile's name (a guest's name and a new profile's are checked
        against them); [] when the store cannot be read (logged)."""
        try:
            return [p.name for p in self.store.profiles()]
        except (StoreError, sqlite3.Error) as e:
            self._failed("list the profiles", e)
            return []

    def verifier(self, name: str) -> tuple[Profile | None, str | None, int, tuple[str, str] | None]:
        """The stored profile called `name` with its verifier (the key's hash,
        which protocol 2's proofs are checked against) and balance:
        `(profile, verifier, balance, None)`; `(None, None, 0, None)` for an
        unknown name; `(None, None, 0, (code, sentence))` when the store failed."""
        try:
            found = self.store.verifier_of(name)
            if found is None:
                return None, None, 0, None
            return found[0], found[1], self.store.balance(found[0].id), None
        except (StoreError, sqlite3.Error) as e:
            self._failed("find a profile", e)
            return None, None, 0, ("store_failed", f"{STORE_FAILED}: your profile is not recognised now; practice rooms still work.")

    def register(self, name: str, verifier: str) -> tuple[Profile | None, int, tuple[str, str] | None]:
        """Make the profile a protocol-2 peer registers from its verifier (as `profile` does from a key)."""
        return self._profile(lambda: self.store.profile_from_verifier(name, verifier, self.clock()))

    def rekey(self, profile: Profile, old: str, new: str) -> tuple[int, tuple[str, str] | None]:
        """Move `profile` from verifier `old` to `new` (protocol 3's per-host
        key): `(balance, None)`, or `(0, (code, sentence))`."""
        try:
            if not self.store.rekey(profile.id, old, new):
                return 0, ("wrong_key", "That profile's key changed meanwhile; try again.")
            return self.store.balance(profile.id), None
        except (StoreError, sqlite3.Error) as e:
            self._failed("move a profile to its new key", e)
            return 0, ("store_failed", f"{STORE_FAILED}: your profile is not recognised now; practice rooms still work.")

    def begin_tournament(self, name: str, matches: int, rooms: list[str]) -> int | None:
        """Keep a new tournament; its id, or None (logged) when the store failed:
        the tournament is played, not kept."""
        try:
            return self.store.begin_tournament(name, matches, rooms, self.clock())
        except (StoreError, sqlite3.Error) as e:
            self._failed("keep a tournament", e)
            return None

    def tournament_result(self, tournament_id: int | None, result: dict[str, Any]) -> None:
        """Keep one match's result of a kept tournament (a failure is logged)."""
        if tournament_id is None:
            return
        try:
            self.store.tournament_result(tournament_id, result)
        except (StoreError, sqlite3.Error) as e:
            self._failed("keep a tournament's result", e)

    # ------------------------------------------------------------ open rooms

    def keep_room(self, name: str, data: dict[str, Any]) -> None:
        """Keep an open room's `data` for a restart (a failure is logged)."""
        try:
            self.store.keep_room(name, data, self.clock())
        except (StoreError, sqlite3.Error, ValueError, TypeError) as e:
            self._failed(f"keep room {name!r}", e)

    def forget_room(self, name: str) -> None:
        """The room closed (a failure is logged: a restart opens it again, held
        for its people a minute, and it closes then as an empty room does)."""
        try:
            self.store.forget_room(name)
        except (StoreError, sqlite3.Error) as e:
            self._failed(f"forget room {name!r}", e)

    def open_rooms(self) -> list[tuple[str, dict[str, Any], float]]:
        """The rooms kept by the host before it stopped (none when the store failed)."""
        try:
            return self.store.open_rooms()
        except (StoreError, sqlite3.Error) as e:
            self._failed("read the open rooms (none opened again)", e)
            return []

    def profile_by_id(self, profile_id: int) -> Profile:
        """A stored profile (resuming a match).

        Raises: the store's errors (the match cannot be resumed: `resume` abandons it).
        """
        return self.store.get_profile(profile_id)

    def balance(self, profile: Profile, *, failed: str) -> int:
        """The coins `profile` holds.

        Raises:
            RoomError: `store_failed`, its sentence ending with `failed`.
        """
        try:
            return self.store.balance(profile.id)
        except (StoreError, sqlite3.Error) as e:
            self._failed("read a balance", e)
            raise RoomError("store_failed", f"{STORE_FAILED}: {failed}") from None

    def coins(self, profile: Profile, change: int, reason: str, room: str, match: int | None) -> dict[str, Any] | None:
        """The `coins` message telling `profile` its balance after `change`
        (None when the balance cannot be read: logged, nothing is sent)."""
        try:
            balance = self.store.balance(profile.id)
        except (StoreError, sqlite3.Error) as e:
            self._failed("read a balance", e)
            return None
        return {"type": "coins", "profile": profile.name, "balance": balance, "change": change, "reason": reason,
                "room": room, "match": match}

    # ------------------------------------------------------------ matches

    def begin(self, room: Room, profile_of: dict[int, Profile], seed: int, settings: dict[str, Any]) -> Match:
        """Store the match `room` is about to deal from `seed` (a coin room's
        stakes posted in the same transaction). Seats: a profile → `player`, a
        bot node without one → `bot` (the house posts), another person →
        `guest`, an empty seat → a room bot at the room's level.

        Raises:
            RoomError: `insufficient_coins`, `store_failed` (nothing was stored).
        """
        specs = []
        for s, x in enumerate(room.seats):
            profile = profile_of.get(s)
            if x is None:
                specs.append(SeatSpec.bot(room.bot_level, name=f"Bot {s} ({room.bot_level})"))
            elif profile is not None:
                specs.append(SeatSpec.player(profile, token=x.token))
            elif x.agent == "bot":
                specs.append(SeatSpec.bot(None, name=x.name, token=x.token))
            else:
                specs.append(SeatSpec.guest(x.name, token=x.token))
        try:
            match_id = self.store.begin_match(
                game=room.game, table=room.table, seats=specs, seed=seed, options=room.options,
                kind="coins" if room.stake else "practice", stake=room.stake, room=room.name,
                now=self.clock(), settings=settings,
            )
        except InsufficientCoins as e:
            raise RoomError("insufficient_coins", str(e)) from None
        except (StoreError, sqlite3.Error, ValueError) as e:
            self._failed(f"begin a match in room {room.name!r}", e)
            raise RoomError("store_failed", f"{STORE_FAILED}: the game did not start.") from None
        return Match(match_id, [x.kind for x in specs])

    def record(self, match: Match, entries: list[Any], room: Room) -> Halt | None:
        """Store the referee's new log `entries` (`(time, seat, action, by)`)
        as the match's actions from `match.stored` on. None when they are
        stored; after a failure, the match is abandoned and the `Halt` says
        what the room does: a coin game stops (the room closes), a practice
        game goes on unrecorded."""
        try:
            self.store.record_actions(match.id, match.stored, [entry[1:] for entry in entries])
        except (StoreError, sqlite3.Error, ValueError) as e:
            self._failed(f"record action {match.stored} of match {match.id}", e)
        else:
            match.stored += len(entries)
            return None
        refunds = self.abandon(match, room.name)
        if not room.stake:
            log.warning("room %s: the practice game goes on unrecorded", room.name)
            return Halt(refunds)
        return Halt(refunds, close=(
            "The host's store failed, so this coin game was stopped"
            + (" and every stake returned" if refunds is not None
               else "; its pot is kept and the game resumes when the host restarts")
            + " (logged); sorry."
        ))

    def leave(self, match: Match, seat: int) -> int | None:
        """A person leaves the running game at `seat`: its stake forfeited, the
        fee charged (a coin game); returns the fee.

        Raises:
            RoomError: `store_failed` (nothing changed: the person keeps the seat).
        """
        try:
            return self.store.leave(match.id, seat, self.clock())
        except (StoreError, sqlite3.Error, ValueError) as e:
            self._failed(f"record that seat {seat} of match {match.id} left", e)
            raise RoomError("store_failed", f"{STORE_FAILED}: your leaving could not be recorded; you keep your seat.") from None

    def finish(self, match: Match, outcome: dict[str, Any], room: str) -> Settlement | None:
        """The game ended: the actions replayed and checked, the pot paid, the
        stats written (one transaction). None when that failed (logged): the
        match stays live with its pot, and the next host start settles it."""
        self._ratings.clear()  # the match moves its players' ratings
        try:
            return self.store.finish_match(match.id, outcome, self.clock())
        except (StoreError, sqlite3.Error, ValueError) as e:
            self._failed(f"settle match {match.id}", e)
            log.error("room %s: match %d stays live in the store (its pot too); it is settled at the next start",
                      room, match.id)
            return None

    def rating(self, profile: Profile, game: str) -> int | None:
        """The profile's rating at `game` as seat rows show it (a whole number),
        or None: no rated match of that game yet, or the store failed (logged).
        Cached until the next match ends."""
        key = (profile.id, game)
        if key not in self._ratings:
            try:
                stored = self.store.rating(profile.id, game)
            except (StoreError, sqlite3.Error, ValueError) as e:
                self._failed(f"read the rating of {profile.name!r}", e)
                return None
            self._ratings[key] = stored.shown if stored is not None else None
        return self._ratings[key]

    def abandon(self, match: Match, room: str) -> Settlement | None:
        """Abandon the match: every stake goes back. None when the store
        refused too (logged): the match stays live with its pot and resumes
        at the next start."""
        try:
            settlement = self.store.abandon_match(match.id, self.clock())
        except (StoreError, sqlite3.Error) as e:
            log.error("room %s: match %d could not be abandoned (%s): it stays live with its pot and "
                      "resumes at the next start", room, match.id, e)
            return None
        log.warning("room %s: match %d abandoned, every stake returned", room, match.id)
        return settlement

    # ------------------------------------------------------------ resuming

    def resume(self, build: Callable[[MatchRecord, Any], Any]) -> Iterable[Any]:
        """Every match the store holds unfinished, dealt again and replayed:
        `build(record, game)` makes its room, and what it returns is yielded.
        A match whose actions already end the game is settled instead; one
        that cannot be replayed, or that `build` fails on, is abandoned (its
        stakes returned)."""
        try:
            records = self.store.unfinished()
        except (StoreError, sqlite3.Error) as e:
            self._failed("read the unfinished matches (none resumed)", e)
            return
        for record in records:
            try:
                try:
                    g = rebuild_game(record)
                except ReplayError as e:
                    log.warning("%s: abandoned, its stakes returned", e)
                    self.store.abandon_match(record.id, self.clock())
                    continue
                if g.outcome is not None:  # killed between its last action and its payout
                    self.store.finish_match(record.id, g.outcome, self.clock())
                    log.info("match %d (room %r) had ended before the restart: settled now", record.id, record.room)
                    continue
                built = build(record, g)
            except Exception:
                log.exception("match %d (room %r) cannot be resumed: abandoned, its stakes returned",
                              record.id, record.room)
                if self.strict:
                    raise
                with contextlib.suppress(StoreError, sqlite3.Error):
                    self.store.abandon_match(record.id, self.clock())
                continue
            yield built
