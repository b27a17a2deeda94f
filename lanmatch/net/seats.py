"""The seats a player holds, kept on the player's machine (so they survive the console).

    from lanmatch.net.seats import SeatBook, SavedSeat
    book = SeatBook()                                   # $XDG_CONFIG_HOME/lanmatch/seats.json
    book.keep(SavedSeat("Ann", "Kitchen", "10.0.0.2", 7070, "R", 1, token, now))
    book.find("Ann", "10.0.0.2", 7070, now=now)         # that seat, to say hello with its token
    book.forget("Ann", "10.0.0.2", 7070, "R", now)

How this works. A console that sits at a running game keeps the seat's token
(docs/protocol.md section 7) in `seats.json` in the player's config directory
(`lanmatch.store.paths.config_dir()`, the profile's), mode 0600 in a 0700
directory, one entry per player (the name the console plays as), host (its
name and address) and room, with the last event number and state it saw
(`n`, `step`: what was played meanwhile is what came after). Started again,
`lanmatch join` finds the entry and says `hello` with its token: the host
gives the seat back, its hand and its clock. When its game ends the entry
stays, marked `until` the host's hold of the seat between games runs out
(`lanmatch.table.SEAT_HOLD`): a console killed between games takes the seat
back too; a seat in a room waiting for its first deal is kept the same way.
The console forgets an entry when it leaves the room (or the room is
closed) and when the host says the token is unknown; an entry older than
`KEEP_FOR`, or past its `until`, is dropped when the file is read. (A
host's goodbye keeps it: a host with a store resumes its games, and opens
its rooms between games again, when it starts again.)

The file is small and written whole (`lanmatch.net.jsonfile`: renamed into
place, 0600). A file that cannot be read is taken as empty (and replaced at
the next write); a file that cannot be written is logged, and the console
plays on.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from lanmatch.net.jsonfile import read_json, write_private_json
from lanmatch.store.paths import config_dir

FILE_NAME = "seats.json"
KEEP_FOR = 12 * 3600.0  # seconds: an evening; older entries are forgotten
MAX_SEATS = 32  # entries kept at most (the newest)


@dataclass(frozen=True)
class SavedSeat:
    """One seat held at one room of one host, as the player's machine keeps it."""

    player: str  # the name the console plays as (its profile's)
    host: str  # the host's name, as its `welcome` said ("" when unknown)
    address: str
    port: int
    room: str
    seat: int
    token: str
    saved: float  # time.time() of the last write
    n: int = 0  # the last event number seen
    step: int = 0  # the last state (`view.step`) seen
    until: float = 0.0  # a seat between games: held by the host until about then (time.time()); 0: a game runs

    def key(self) -> tuple[str, str, str, int, str]:
        """What tells two entries apart: the player, the host (name and address), the room."""
        return (self.player.casefold(), self.host, self.address, self.port, self.room)


def _seat(data: Any) -> SavedSeat | None:
    """An entry of the file, or None when it is not one."""
    if not isinstance(data, dict):
        return None
    kinds = {"player": str, "host": str, "address": str, "port": int, "room": str, "seat": int, "token": str,
             "saved": (int, float), "n": int, "step": int, "until": (int, float)}
    values = {}
    for f in fields(SavedSeat):
        v = data.get(f.name, f.default)  # (a file written before a field was added)
        if not isinstance(v, kinds[f.name]) or isinstance(v, bool):
            return None
        values[f.name] = v
    return SavedSeat(**values)


class SeatBook:
    """The file of saved seats (see the module docstring)."""

    def __init__(self, path: str | os.PathLike[str] | None = None):
        self.path = Path(path) if path is not None else config_dir() / FILE_NAME

    def load(self, now: float) -> list[SavedSeat]:
        """Every entry not older than `KEEP_FOR` at `now` (a time.time()), and
        not a finished game's seat whose hold has run out, newest first."""
        data = read_json(self.path, "seats")
        seats = [s for s in map(_seat, data.get("seats", []) if isinstance(data, dict) else []) if s is not None]
        seats = [s for s in seats if now - s.saved <= KEEP_FOR and not (s.until and now > s.until)]
        return sorted(seats, key=lambda s: s.saved, reverse=True)

    def find(self, player: str, address: str, port: int, *, host: str | None = None, now: float) -> SavedSeat | None:
        """The newest seat of `player` at `address:port` (at the host named `host`, when given)."""
        for s in self.load(now):
            if s.player.casefold() == player.casefold() and (s.address, s.port) == (address, port) \
                    and (host is None or not s.host or s.host == host):
                return s
        return None

    def latest(self, player: str, now: float) -> SavedSeat | None:
        """The newest seat of `player` at any host."""
        return next((s for s in self.load(now) if s.player.casefold() == player.casefold()), None)

    def keep(self, seat: SavedSeat) -> None:
        """Save `seat` (replacing the entry of the same player, host and room)."""
        seats = [s for s in self.load(seat.saved) if s.key() != seat.key()]
        self._write([seat, *seats][:MAX_SEATS])

    def forget(self, player: str, address: str, port: int, room: str, now: float) -> None:
        """Forget the seats of `player` at `room` of `address:port`, whatever the
        host's name (nothing when there is none)."""
        gone = (player.casefold(), address, port, room)
        seats = self.load(now)
        kept = [s for s in seats if (s.player.casefold(), s.address, s.port, s.room) != gone]
        if len(kept) != len(seats):
            self._write(kept)

    def _write(self, seats: list[SavedSeat]) -> None:
        write_private_json(self.path, {"seats": [asdict(s) for s in seats]}, "seats")


__all__ = ["FILE_NAME", "KEEP_FOR", "MAX_SEATS", "SavedSeat", "SeatBook"]
