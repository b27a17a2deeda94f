"""A room: the seats around one table, their tokens, and its games (pure).

How this works. A `Room` holds the settings a creator picked (game, table,
options, seats, clock, mode, password, bot level), who sits where (`Seat`,
each with a secret token), and the `Referee` of the game being played. The
host's trio task for the room calls these methods and sends what changed;
nothing here does I/O or reads a clock (`now` is an argument) and tokens come
from the `rng` the caller passes (the host passes `random.SystemRandom()`).

Lifecycle: `open` (seats taken and left) -> `start` -> `playing` -> the game
ends -> `over` -> `rematch` -> `playing` ... Empty seats are filled with room
bots at `start`; a person who leaves a running game is replaced by a room bot;
a dropped peer keeps its seat (only `connected` changes) and comes back with
its token (between games for `SEAT_HOLD` seconds: the session's hold).
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from typing import Any

from lanmatch.rules import get_game, mode_of, new_game
from lanmatch.rules import teams as T
from lanmatch.table.referee import Referee

GUEST_MAX_SEATS = 4  # the most any game lets a guest's room seat (each game declares its own cap)
MAX_STAKE = 1_000_000
SEAT_HOLD = 60.0
"""Seconds a person's seat waits for them between games after their connection
dropped (as long as a console tries to reconnect before it says the host is
gone): their token, or their profile's `join`, takes it back. The next deal
does not wait: it frees the seats still held, and room bots play them."""


class RoomError(Exception):
    """A room operation refused. `code` is machine-readable, `reason` a sentence."""

    def __init__(self, code: str, reason: str):
        super().__init__(reason)
        self.code = code
        self.reason = reason


@dataclass
class Seat:
    name: str
    token: str
    agent: str = "person"  # "person" or "bot" (a remote bot node)
    connected: bool = True


def default_clock(game: str, table: str | None) -> int:
    """The move clock the table declares (seconds), for a room that names none.

    Raises:
        ValueError: unknown game or table.
    """
    return get_game(game).table(table).default_clock


def new_token(rng: Any) -> str:
    """128 random bits as 32 hex digits, from `rng` (a `random.Random`-like object)."""
    return f"{rng.getrandbits(128):032x}"


class Room:
    """One room. See the module docstring."""

    def __init__(
        self,
        name: str,
        game: str = "colormatch",
        table: str | None = None,
        seats: int = 4,
        *,
        options: dict[str, Any] | None = None,
        clock: float | None = None,
        mode: str = "single",
        password: str = "",
        bot_level: str = "medium",
        bot_delay: float = 0.0,
        owner: Any = None,
        stake: int = 0,
    ):
        """Check the settings by dealing a trial game. `stake` > 0 makes a coin
        room (every seat posts it at each start; the host's store keeps the coins).

        Raises:
            RoomError: `bad_room` with the engine's sentence (unknown table,
                seat count, option or mode), or a bad stake.
        """
        try:
            declared = get_game(game)
            table = declared.table_name(table)
        except ValueError as e:
            raise RoomError("bad_room", f"{e}.") from None
        opts = dict(options or {})
        if mode != "single":
            opts["mode"] = mode
        if bot_level not in ("easy", "medium", "hard"):
            raise RoomError("bad_room", f"Unknown bot level {bot_level!r}.")
        if type(stake) is not int or not 0 <= stake <= MAX_STAKE:
            raise RoomError("bad_room", f"A stake is a whole number of coins from 0 to {MAX_STAKE}, not {stake!r}.")
        cap = getattr(declared.table(table), "max_target", None)
        target = opts.get("target")
        if cap is not None and type(target) is int and not 1 <= target <= cap:
            raise RoomError("bad_room", f"A match target at this table is 1 to {cap} points, not {target}.")
        try:
            new_game(game, table=table, players=seats, seed=0, options=opts)
        except ValueError as e:
            raise RoomError("bad_room", str(e)) from None
        self.name = name
        self.game = game
        self.table = table
        self.n = seats
        self.options = opts
        self.mode = mode
        self.clock = float(clock if clock is not None else default_clock(game, table))
        self.password = password
        self.bot_level = bot_level
        self.bot_delay = bot_delay
        self.owner = owner  # whoever may start, rematch and kick (the host's business)
        self.stake = stake  # 0: a practice room
        self.seats: list[Seat | None] = [None] * seats
        self.state = "open"
        self.referee: Referee | None = None
        self.games = 0
        self.tally = {"wins": [0.0] * seats, "points": [0] * seats}
        self.fresh: set[int] = set()  # seats taken since the last game ended: it does not count for them

    # ------------------------------------------------------------ seats

    def free_seats(self) -> list[int]:
        return [s for s, x in enumerate(self.seats) if x is None]

    def _check_password(self, password: str | None) -> None:
        if self.password and not hmac.compare_digest(self.password.encode(), (password or "").encode()):
            raise RoomError("bad_password", f"Room {self.name!r} needs its password.")

    def join(
        self, name: str, rng: Any, *, agent: str = "person", seat: int | None = None, password: str | None = None
    ) -> tuple[int, str]:
        """Take `seat` (or the first free one); returns `(seat, token)`.

        Raises:
            RoomError: `bad_password`, `started` (the game is under way),
                `bad_seat` (no such seat), `seat_taken`, `room_full`.
        """
        self._check_password(password)
        if self.state == "playing":
            raise RoomError("started", f"Room {self.name!r} is playing; seats open again after the game.")
        if seat is not None:
            if not 0 <= seat < self.n:
                raise RoomError("bad_seat", f"Room {self.name!r} has seats 0-{self.n - 1}, not {seat}.")
            if self.seats[seat] is not None:
                raise RoomError("seat_taken", f"Seat {seat} of {self.name!r} is taken.")
        else:
            free = self.free_seats()
            if not free:
                raise RoomError("room_full", f"Room {self.name!r} has no free seat.")
            seat = free[0]
        token = new_token(rng)
        self.seats[seat] = Seat(name, token, agent)
        if self.games:  # a newcomer's seat starts its standing afresh: the games before were another's
            self.tally["wins"][seat], self.tally["points"][seat] = 0.0, 0
            self.fresh.add(seat)
        return seat, token

    def check_watch(self, password: str | None) -> None:
        """Raises: RoomError `bad_password`."""
        self._check_password(password)

    def seat_of_token(self, token: str) -> int | None:
        """The seat this token was given for, or None (compared in constant time)."""
        for s, x in enumerate(self.seats):
            if x is not None and hmac.compare_digest(x.token.encode(), token.encode()):
                return s
        return None

    def leave(self, seat: int, now: float) -> None:
        """The person at `seat` leaves (or is kicked): the seat is freed, and in a
        running game a room bot plays it from now on."""
        self.seats[seat] = None
        if self.referee is not None and not self.referee.over:
            self.referee.set_room_bot(seat, self.bot_level, now)

    def set_connected(self, seat: int, connected: bool) -> None:
        x = self.seats[seat]
        if x is not None:
            x.connected = connected

    def is_full(self) -> bool:
        return not self.free_seats()

    # ------------------------------------------------------------ games

    def start(self, now: float, seed: int) -> Referee:
        """Deal a game: room bots in the empty seats. Also the rematch (from `over`).

        Raises:
            RoomError: `wrong_state` when a game is already being played.
        """
        if self.state == "playing":
            raise RoomError("wrong_state", f"Room {self.name!r} is already playing.")
        self.tally = self.next_tally()
        self.fresh.clear()
        bots = {s: self.bot_level for s, x in enumerate(self.seats) if x is None}
        agents = {s: x.agent for s, x in enumerate(self.seats) if x is not None}
        self.referee = Referee(
            self.game,
            self.table,
            self.n,
            seed,
            now=now,
            options=self.options,
            clock=self.clock,
            bots=bots,
            agents=agents,
            bot_delay=self.bot_delay,
        )
        self.state = "playing"
        self.games += 1
        return self.referee

    def rematch(self, now: float, seed: int) -> Referee:
        """Same seats, a new deal; the room's running score keeps the last game.

        Raises:
            RoomError: `wrong_state` unless the last game is over.
        """
        if self.state != "over":
            raise RoomError("wrong_state", f"Room {self.name!r} has no finished game to rematch.")
        return self.start(now, seed)

    def game_ended(self) -> bool:
        """Move to `over` if the referee's game just ended; True when it did."""
        if self.state == "playing" and self.referee is not None and self.referee.over:
            self.state = "over"
            return True
        return False

    def next_tally(self) -> dict[str, list[Any]]:
        """The running score as the next `start` will set it: the last game
        counted once it is over (a copy; nothing changes)."""
        tally = {"wins": list(self.tally["wins"]), "points": list(self.tally["points"])}
        outcome = self.referee.outcome if self.state == "over" and self.referee is not None else None
        if outcome:
            winners = outcome["winners"]
            share = T.win_share(winners, self.options.get("teams") is True)  # (a team's win: whole for each partner)
            for s in winners:
                if s not in self.fresh:
                    tally["wins"][s] += share
            for s, p in enumerate(outcome["points"]):
                if s not in self.fresh:
                    tally["points"][s] += p
        return tally

    def resume(self, referee: Referee, *, games: int = 1, tally: dict[str, list[Any]] | None = None) -> None:
        """Take over a game already under way (a host restarted after a crash
        rebuilds `referee` from the stored deal and actions): the room is
        `playing` it as its game number `games`, with the running score `tally`.

        Raises:
            RoomError: `wrong_state` unless the room is open and fresh, or the
                referee seats another number of players.
        """
        if self.state != "open" or self.referee is not None or referee.n != self.n:
            raise RoomError("wrong_state", f"Room {self.name!r} cannot take over that game.")
        self.referee = referee
        self.state = "playing"
        self.games = max(1, int(games))
        if tally and len(tally.get("wins", ())) == self.n and len(tally.get("points", ())) == self.n:
            self.tally = {"wins": list(tally["wins"]), "points": list(tally["points"])}

    # ------------------------------------------------------------ telling

    def summary(self) -> dict[str, Any]:
        """One line of the room list."""
        open_seats = self.free_seats() if self.state != "playing" else []
        return {
            "name": self.name,
            "game": self.game,
            "table": self.table,
            "seats": self.n,
            "free": len(open_seats),
            "open_seats": open_seats,
            "state": self.state,
            "clock": int(self.clock) if float(self.clock).is_integer() else self.clock,  # (60, as `create` says it)
            "mode": mode_of(self.game, self.options),  # (Dominoes: "match", as its history says)
            "password": bool(self.password),
            "bots": self.bot_level,
            "kind": "coins" if self.stake else "practice",
            "stake": self.stake,
            **({"teams": True} if self.options.get("teams") is True else {}),  # partners (docs/protocol.md)
            "options": {k: v for k, v in self.options.items() if k != "mode"},  # the house options, before sitting
        }

    def public(self, spectators: int = 0) -> dict[str, Any]:
        """The room as every member sees it (no tokens, no password)."""
        seats = []
        ref = self.referee
        for s in range(self.n):
            x = self.seats[s]
            if x is not None:  # (a person may sit, between games, where a bot played the last one)
                seats.append({"seat": s, "name": x.name, "kind": x.agent, "connected": x.connected})
            elif ref is not None and s in ref.bots and self.state != "open":
                seats.append({"seat": s, "name": f"Bot {s} ({self.bot_level})", "kind": "bot", "connected": True})
            else:
                seats.append({"seat": s, "name": None, "kind": "empty", "connected": False})
        info = self.summary()
        info.update(
            seats=seats,
            options={k: v for k, v in self.options.items() if k != "mode"},
            spectators=spectators,
            games=self.games,
            pot=self.stake * self.n if self.stake and self.state == "playing" else 0,
            tally={"wins": list(self.tally["wins"]), "points": list(self.tally["points"])},
        )
        return info
