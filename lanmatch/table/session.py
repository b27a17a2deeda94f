"""One room's session on the host, sans-I/O: its members, its games, its match in the store.

How this works. A `RoomSession` owns one `Room` (seats, tokens, the
`Referee` of the game being played) and the peers in it: who sits where,
who watches, who directs the room. The host's task for the room
(`lanmatch.net.host.RoomActor`) feeds it, and it answers with effects
(`effects.py`) instead of doing anything itself:

- `handle(type, peer, msg, now)`: one message from the room's inbox (`join`,
  `watch`, `resume`, `leave`, `gone`, `resync`, `start`, `rematch`, `kick`,
  `act`, `chat`: relayed to every member, docs/protocol.md "Chat"; `pause`:
  honoured for a person alone with bots, docs/protocol.md "Pause");
- `deadline()`: when the room next has work without a message (the
  referee's next clock, a headless room's start); then `wake(now)` for the
  start timer and, while `timer_due(now)`, `due(now)` / `resolve(job,
  action, now)` / `played(result, now)` for the referee's clocks (the task
  runs a Hard bot's `Due.choose` on a worker thread between the two);
  `tick(now)` does all of that inline (tests);
- `flush_rest()`: after an `act`, the acting peer's view goes out first
  (`Views` of that peer alone); the others' views follow when the task has
  let the first one be written;
- `fail()`: the referee failed (a bug of ours): the match is abandoned, the
  room closed.

A refused operation is answered (`error`, `rejected`) and changes nothing.
With a store, every call to it goes through the lobby's `Keeper` (the host
gives it `lanmatch.net.keeper.StoreKeeper`): the match is begun before a
deal is sent, every action recorded before any view of the state it made,
a leave charged before the seat is freed, the pot paid when the game ends.
What happens when the store fails is the keeper's policy; the session does
what its answers say (a `RoomError` refuses, a `Halt` stops the game).

Nothing here reads a clock or does I/O: `now` is an argument (the host's
`trio.current_time()`), tokens and seeds come from the lobby's `rng`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from lanmatch.protocol import view_to_wire
from lanmatch.table.bucket import TokenBucket
from lanmatch.table.effects import INFO, WARNING, StopRoom, Views, error_message
from lanmatch.table.referee import Due, Rejected
from lanmatch.table.room import Room, RoomError
from lanmatch.table.tournament import Tournament

if TYPE_CHECKING:
    from lanmatch.table.lobby import Lobby, Peer

REMATCH_WAIT = 60.0
"""Seconds a finished room waits for its director's rematch; then any seated person may deal it."""
PEOPLE_PAUSE = 10.0
"""A room that deals by itself (`auto_start`): the least pause between games while
a person sits there, to read the scores (its director may deal sooner)."""


@dataclass
class Match:
    """The stored match of the game a room is playing (a host with a store)."""

    id: int
    kinds: list[str]  # each seat's kind in the store: player, guest, bot
    stored: int = 0  # its actions in the store
    base: int = 0  # the store index of referee.log[0] (a resumed referee's log starts empty)


@dataclass(frozen=True)
class Halt:
    """The keeper's verdict after the store failed under a running game: the
    match was abandoned (`refunds`: its settlement, each player is told; None
    when even that failed), and the room closes with the sentence `close`, or
    (None) the game goes on unrecorded."""

    refunds: Any = None
    close: str | None = None


class Keeper(Protocol):
    """What a session asks of the host's store (`lanmatch.net.keeper.StoreKeeper`).

    Every method is one short transaction. Failures never escape as the
    store's errors: a refusal is a `RoomError` with a sentence (nothing
    changed), and a failure the host lives with is logged and answered with
    None (or a `Halt`), as the keeper's policy says.
    """

    def profile(self, name: str, key: str) -> tuple[Any, int, tuple[str, str] | None]: ...
    def verifier(self, name: str) -> tuple[Any, str | None, int, tuple[str, str] | None]: ...
    def register(self, name: str, verifier: str) -> tuple[Any, int, tuple[str, str] | None]: ...

    def rekey(self, profile: Any, old: str, new: str) -> tuple[int, tuple[str, str] | None]: ...

    def begin_tournament(self, name: str, matches: int, rooms: list[str]) -> int | None: ...

    def tournament_result(self, tournament_id: int | None, result: dict[str, Any]) -> None: ...
    def profile_by_id(self, profile_id: int) -> Any: ...
    def names(self) -> list[str]: ...
    def balance(self, profile: Any, *, failed: str) -> int: ...
    def begin(self, room: Room, profile_of: dict[int, Any], seed: int, settings: dict[str, Any]) -> Match: ...
    def record(self, match: Match, entries: list[Any], room: Room) -> Halt | None: ...
    def leave(self, match: Match, seat: int) -> int | None: ...
    def finish(self, match: Match, outcome: dict[str, Any], room: str) -> Any: ...
    def abandon(self, match: Match, room: str) -> Any: ...
    def coins(self, profile: Any, change: int, reason: str, room: str, match: int | None) -> dict[str, Any] | None: ...
    def rating(self, profile: Any, game: str) -> int | None: ...
    def keep_room(self, name: str, data: dict[str, Any]) -> None: ...
    def forget_room(self, name: str) -> None: ...


class RoomSession:
    """One room on the host. See the module docstring."""

    def __init__(
        self,
        lobby: Lobby,
        room: Room,
        *,
        auto_start: bool = False,
        start_after: float | None = None,
        rematch_after: float = 2.0,
        seed: int | None = None,
    ):
        self.lobby = lobby
        self.out = lobby.out
        self.keeper: Keeper | None = lobby.keeper
        self.tournament: Tournament | None = None  # the tournament this room's games count for
        self.room = room
        self.seed = seed  # None: every deal from the lobby's rng; else game k is dealt from seed + k - 1
        self.owner: Peer | None = None
        self.made_by: tuple[int, str] | None = None  # the creating connection's id and address (the room caps)
        self.first_directs = False  # the first peer to sit becomes the creator
        self.auto_start = auto_start
        self.start_after = start_after
        self.rematch_after = rematch_after  # auto rooms: the pause between games
        self._start_at: float | None = None
        self._clock = 0.0  # the `now` of the latest call from the room's task (for `public`'s `deals_in`)
        self.seated: dict[int, Peer] = {}
        self.spectators: set[Peer] = set()
        self.closed = False
        self.actions = 0  # applied (for benchmarks and logs)
        self._rest: Peer | None = None  # the others' views wait until this peer's went out
        self.match: Match | None = None  # the store's side: the match being played
        self.profile_of: dict[int, Any] = {}  # seat -> the profile sitting there
        self.awaited: set[int] = set()  # a resumed table: seats whose peers have not come back yet
        self.held: dict[int, float] = {}  # between games: a dropped peer's seat -> when it is freed (SEAT_HOLD)
        self._wrong: Any = None  # this room's wrong-password budget (made at the first password)
        self.departed: dict[int, str] = {}  # seat -> the name of the person who left the running game
        self._rematch_at: float | None = None  # a finished room: when any seated person may deal the rematch
        self.open_rematch = False  # ... and it is that time
        self.link: Any = None  # the I/O layer's handle on this room (the host's task); never used here
        self._kept: dict[str, Any] | None = None  # what the store keeps of this room (`kept`), as last written
        self.creator_seat: int | None = None  # a room opened again after a restart: its creator's seat
        self._ended_names: list[Any] | None = None  # between games: the seats' names when the game ended
        self.grace_until: float | None = None  # a resumed game: its clocks wait for its people until then

    # ------------------------------------------------------------ the clocks

    def opened(self, now: float) -> list[Any]:
        """The room's task has started: a headless room's start timer runs from
        `now` (a room opened again after a restart waits for its held seats)."""
        self._clock = now
        if self.auto_start and self.start_after is not None and not self.held:
            self._start_at = now + self.start_after
        return self.out.drain()

    def deadline(self) -> float:
        """When the room has work to do without a message (`math.inf`: none)."""
        ref = self.room.referee
        d = ref.next_deadline() if ref is not None and self.room.state == "playing" else None
        if self._start_at is not None and self.room.state != "playing":
            d = self._start_at if d is None else min(d, self._start_at)
        if self._rematch_at is not None and self.room.state == "over":
            d = self._rematch_at if d is None else min(d, self._rematch_at)
        if self.held and self.room.state != "playing":
            d = min(self.held.values()) if d is None else min(d, *self.held.values())
        if self.grace_until is not None:
            d = self.grace_until if d is None else min(d, self.grace_until)
        return math.inf if d is None else d

    def wake(self, now: float) -> list[Any]:
        """The start timer of a headless room, if due at `now`; the end of a
        finished room's wait for its director's rematch."""
        self._clock = now
        if self.grace_until is not None and now >= self.grace_until:
            self._end_grace(now)
        if self.held and self.room.state != "playing":
            self._let_go(now, [s for s, until in self.held.items() if until <= now])
            if self.closed:
                return self.out.drain()
            self._time_after_hold(now)
        if self._rematch_at is not None and now >= self._rematch_at:
            self._rematch_at = None
            if self.room.state == "over":
                self.open_rematch = True
                self._send_room()
        if self._start_at is not None and now >= self._start_at and self.room.state != "playing":
            if self.held:  # a person's seat is held: the deal waits for them, or their minute's end
                self._start_at = None  # (`_time_after_hold` times it again)
            elif self.seated and (self.room.is_full() or self.start_after is not None):
                self._auto_start(now)
            elif self.start_after is not None:  # nobody to play with yet: look again later
                self._start_at = now + self.start_after
            else:  # wait until the seats are full (`_join` starts it)
                self._start_at = None
        return self.out.drain()

    def timer_due(self, now: float) -> bool:
        """True while one of the referee's clocks is due at `now`."""
        ref = self.room.referee
        if ref is None or self.room.state != "playing" or self.closed:
            return False
        d = ref.next_deadline()
        return d is not None and d <= now

    def due(self, now: float) -> Due | None:
        """The referee's earliest due decision (see `Referee.due`)."""
        return self.room.referee.due(now)

    def resolve(self, job: Due | None, action: dict[str, Any] | None, now: float) -> tuple[int, dict[str, Any], str] | None:
        """Apply what `job` decided at `now` (when it fell due; see `Referee.resolve`).

        Raises: what the referee raises (our bug: the task calls `fail`).
        """
        if job is None:
            return None
        return self.room.referee.resolve(job, action, now)

    def played(self, played: tuple[int, dict[str, Any], str] | None, now: float) -> list[Any]:
        """After a `resolve`: the referee's notes logged and, if it played
        something, the action stored and the new state sent."""
        self._clock = now
        ref = self.room.referee
        while ref.notes:
            self.out.log(WARNING, "room %s: %s", self.room.name, ref.notes.pop(0))
        if played is not None:
            self.actions += 1
            self._changed(now)
        return self.out.drain()

    def tick(self, now: float) -> list[Any]:
        """Everything due at `now`, with every bot's decision made inline
        (what the host's task does, without the worker thread)."""
        effects = self.wake(now)
        while self.timer_due(now):
            job = self.due(now)
            effects += self.played(self.resolve(job, job.choose() if job is not None else None, now), now)
        return effects

    def fail(self) -> list[Any]:
        """The referee failed (a bug of ours): the stored match is abandoned
        (the stakes go back), the members told, the room closed."""
        self._abandon()
        self._close("This table failed (a host bug, logged); sorry.")
        return self.out.drain()

    def flush_rest(self) -> list[Any]:
        """The views held back after an `act` (everyone's but the actor's)."""
        first, self._rest = self._rest, None
        if first is not None:
            self._views(skip=first)
        return self.out.drain()

    @property
    def rest_pending(self) -> bool:
        return self._rest is not None

    @property
    def rest_after(self) -> Peer | None:
        """The peer whose view the others' wait for (None: nothing held back)."""
        return self._rest

    # ------------------------------------------------------------ messages

    def handle(self, typ: str, peer: Peer, msg: Any, now: float) -> list[Any]:
        """One message from the room's inbox. A refusal is answered with an
        `error` (or `rejected`) and changes nothing.

        Raises: anything else is a bug of ours (the task logs it and answers
        `internal`); the effects decided before it are in the lobby's outbox.
        """
        self._clock = now
        room = self.room
        if typ in ("join", "watch") and room.password and self._slow_down(peer, typ, now):
            return self.out.drain()
        try:
            if typ == "act":
                self._act(peer, msg, now)
            elif typ == "chat":
                self._chat(peer, msg, now)
            elif typ == "join":
                self._join(peer, msg, now)
            elif typ == "watch":
                room.check_watch(msg.get("password"))
                if peer.seat is not None:
                    raise RoomError("in_room", "You have a seat here; leave it to watch.")
                peer.room, peer.watching = self, True
                self.spectators.add(peer)
                self.out.tell(peer, "watching", room=room.name)
                self._send_room()
                self._views([peer])
            elif typ == "resume":
                self._resume(peer, msg["token"], now)
            elif typ == "leave":
                self._leave(peer, "You left the room.", now)
            elif typ == "gone":
                self._gone(peer, now)
            elif typ == "resync":
                self._snapshot(peer, now)
            elif typ == "pause":
                self._pause(peer, bool(msg["on"]), now)
            elif typ in ("start", "rematch"):
                self._may_direct(peer, typ)
                if typ == "rematch" and room.state != "over":
                    raise RoomError("wrong_state", "There is no finished game to rematch.")
                self._start(now)
            elif typ == "kick":
                self._may_direct(peer, "kick")
                target = self.seated.get(msg["seat"])
                if room.seats[msg["seat"]] is None:
                    raise RoomError("bad_seat", f"Nobody sits at seat {msg['seat']}.")
                if target is peer:
                    raise RoomError("bad_seat", "Use leave to leave your own seat.")
                if room.stake and room.state == "playing":
                    raise RoomError("wrong_state", "Nobody is kicked out of a running coin game; wait for its end.")
                self._free(msg["seat"], now)
                if target is not None:
                    self._detach(target)
                    self.out.tell(target, "left", room=room.name, reason="The room's creator kicked you.")
                self._send_room()
        except RoomError as e:
            if e.code == "bad_password":  # a wrong answer costs from both budgets
                self.lobby.password_bucket(peer, now).take(now)
                self._password_bucket(now).take(now)
            self.out.error(peer, e.code, e.reason, ref=typ)
        return self.out.drain()

    def _chat(self, peer: Peer, msg: dict[str, Any], now: float) -> None:
        """A member's chat line or emote, relayed to every member (seated and
        watching) with the sender's seat and name; the sender gets it too.

        Raises:
            RoomError: `not_in_room` (the peer is no member of this room now),
                `bad_chat` (neither or both of `text` and `emote`, or a text
                without a visible character), `chat_too_fast` (over the
                peer's chat budget, `Limits.chat_rate`/`chat_burst`).
        """
        if peer.room is not self or (peer not in self.spectators and self.seated.get(peer.seat) is not peer):
            raise RoomError("not_in_room", f"You are not in room {self.room.name!r}: nothing was relayed.")
        text, emote = msg.get("text"), msg.get("emote")
        if (text is None) == (emote is None):
            raise RoomError("bad_chat", "A chat carries either a text or an emote.")
        if text is not None and not text.strip():
            raise RoomError("bad_chat", "A chat text needs a visible character.")
        limits = self.lobby.limits
        bucket = peer.tags.get("chat")
        if bucket is None:
            bucket = peer.tags["chat"] = TokenBucket(limits.chat_rate, limits.chat_burst, now)
        if not bucket.take(now):
            wait = bucket.wait(now)
            err = error_message("chat_too_fast", f"Chat at most {limits.chat_rate:g} a second (bursts of "
                                f"{limits.chat_burst:g}); try again in {wait:.1f} s.", ref="chat")
            err["retry_after"] = round(max(wait, 0.001), 3)
            self.out.send(peer, err)
            return
        seat = peer.seat
        x = self.room.seats[seat] if seat is not None else None
        name = x.name if x is not None else (peer.name or "?")
        out: dict[str, Any] = {"type": "chat", "room": self.room.name, "seat": seat, "name": name}
        if text is not None:
            out["text"] = text.strip()
        else:
            out["emote"] = emote
        for p in self.members():
            if not p.closed:
                self.out.send(p, out)

    def _password_bucket(self, now: float) -> Any:
        if self._wrong is None:
            rate = self.lobby.limits.wrong_passwords
            self._wrong = TokenBucket(rate, rate, now)
        return self._wrong

    def _slow_down(self, peer: Peer, typ: str, now: float) -> bool:
        """Over the wrong-password budget of its address or of this room: the
        peer is told to wait (`slow_down`, `retry_after`), the password unchecked."""
        wait = max(self.lobby.password_bucket(peer, now).wait(now), self._password_bucket(now).wait(now))
        if wait <= 0.0:
            return False
        msg = error_message("slow_down", f"Too many wrong passwords; try again in {wait:.2f} s.", ref=typ)
        msg["retry_after"] = round(wait, 3)
        self.out.send(peer, msg)
        return True

    def director(self) -> Peer | None:
        """Who directs the room: the creator while connected, else (at once)
        the seated connected person at the lowest seat (a bot node if no person)."""
        owner = self.owner
        if owner is not None and not owner.closed and owner.room is self:
            return owner
        here = [p for _, p in sorted(self.seated.items()) if not p.closed]
        people = [p for p in here if p.agent == "person"] or here
        return people[0] if people else None

    def _may_direct(self, peer: Peer, what: str) -> None:
        """The director directs the room; a finished room whose director has
        not dealt the rematch in `REMATCH_WAIT` seconds, any seated peer."""
        d = self.director()
        if d is peer:  # the director (a creator who watches, too)
            return
        if peer.seat is None:
            raise RoomError("not_creator", f"Take a seat to {what}.")
        if d is None or (what == "rematch" and self.open_rematch):
            return
        if d is self.owner:
            raise RoomError("not_creator", f"Only the room's creator may {what}.")
        raise RoomError("not_creator", f"Only {d.name}, who directs this room now, may {what}.")

    def _join(self, peer: Peer, msg: dict[str, Any], now: float) -> None:
        if peer.seat is not None:
            raise RoomError("in_room", f"You already sit at seat {peer.seat}.")
        p = peer.profile
        mine = None if p is None else next(
            (s for s, q in sorted(self.profile_of.items()) if q.id == p.id and self.room.seats[s] is not None), None)
        if mine is not None:  # the same profile from another console or machine: its seat back
            self._reseat(peer, mine, self.room.seats[mine].token, now)
            return
        if self.room.options.get("mode") == "daily" and any(x is not None for x in self.room.seats):
            raise RoomError("room_full", "A daily deal seats one person beside its bots; make your own daily room.")
        if self.room.stake:
            self.room.check_watch(msg.get("password"))  # a wrong password says so first
            self.lobby.check_stake(peer, self.room.stake)
        seat, token = self.room.join(
            self._unique_name(peer.name or "?"), self.lobby.rng, agent=peer.agent, seat=msg.get("seat"), password=msg.get("password")
        )
        if p is not None:
            self.profile_of[seat] = p
        self.spectators.discard(peer)
        peer.room, peer.seat, peer.watching = self, seat, False
        self.seated[seat] = peer
        if self.first_directs:
            self.owner, self.first_directs = peer, False
        self.lobby.tokens[token] = self
        self.out.tell(peer, "seated", room=self.room.name, seat=seat, token=token)
        if peer.agent == "person":
            self._no_pause(now)
        if self.auto_start and self.start_after is not None and self.room.games == 0 and len(self.seated) == 1:
            # the first to sit gives friends `start_after` seconds to come (the timer
            # ran from the host's start, and dealt a second after a person sat)
            self._start_at = now + self.start_after
        self._send_room()
        self.lobby.notify()
        self._deal_if_full(now)

    def _deal_if_full(self, now: float) -> None:
        """A headless room deals as soon as every seat is taken by someone
        present (a held seat waits for its person, or for the deal that frees it)."""
        if self.auto_start and self.room.is_full() and not self.held and self.room.state != "playing":
            self._auto_start(now)

    def _unique_name(self, name: str) -> str:
        """`name`, or "name (2)", "name (3)"... if someone at this table (seated,
        or who left the running game) has it already, without regard to case.
        Between games a name of the game that ended is free again (a person
        who left it and sits again is no "name (2)")."""
        taken = {x.name.casefold() for x in self.room.seats if x is not None}
        if self.room.state == "playing":
            taken |= {n.casefold() for n in self.departed.values()}
        k, out = 1, name
        while out.casefold() in taken and k < 64:
            k += 1
            tail = f" ({k})"
            out = name[: 32 - len(tail)] + tail
        return out

    def _resume(self, peer: Peer, token: str, now: float) -> None:
        seat = self.room.seat_of_token(token)
        if seat is None or peer.room is not None:
            self.out.error(peer, "bad_token", "That seat token is not known here (wrong, or the seat was freed).",
                           ref="hello")
            return
        self._reseat(peer, seat, token, now)

    def _reseat(self, peer: Peer, seat: int, token: str, now: float) -> None:
        """`peer` takes `seat` back (by its token, or by the profile that sits
        there): the connection that held it, if any, is told `replaced`."""
        if peer.room is self:
            self._detach(peer)  # a watcher of this room sits down
        old = self.seated.get(seat)
        if old is not None and old is not peer:
            old.room, old.seat = None, None
            self.out.error(old, "replaced", "Your seat was taken over by a newer connection of yours.", fatal=True)
        owner = self.owner
        if (owner is None and seat == self.creator_seat) or (
                owner is not None and owner is not peer and owner.closed and owner.seat == seat):
            self.owner = peer  # the creator, back at their seat, directs again
            self.creator_seat = None
        peer.room, peer.seat = self, seat
        self.seated[seat] = peer
        self.awaited.discard(seat)
        held = self.held.pop(seat, None) is not None
        self.room.set_connected(seat, True)
        x = self.room.seats[seat]
        if x is not None:
            x.agent = peer.agent
        self.out.tell(peer, "seated", room=self.room.name, seat=seat, token=token)
        if held:
            self._time_after_hold(now)  # (before the summary: it says when the room deals)
        self._send_room()
        self._views([peer])
        if self.grace_until is not None and not self._awaited_people():
            self._end_grace(now)  # the last person of a resumed game is back: its clocks run

    def _awaited_people(self) -> list[int]:
        """The seats of a resumed game whose people have not come back yet."""
        return [s for s in self.awaited if (x := self.room.seats[s]) is not None and x.agent == "person"]

    def _end_grace(self, now: float) -> None:
        """A resumed game's clocks, stopped while its people came back, run again."""
        self.grace_until = None
        ref = self.room.referee
        if ref is not None and self.room.state == "playing" and ref.paused:
            ref.resume(now)
            self._views()

    def _idle_out(self, now: float) -> None:
        """At a coin game's end, a person whose seat the autopilot was playing
        (three moves missed in a row, nothing sent since) is not dealt into
        the next game: their seat is freed, so no stake is posted for them,
        and they are told why (`left`). A play-test saw a person who walked
        away pay a stake every game of a room that deals itself."""
        for s in self.room.referee.autopilot():
            peer, x = self.seated.get(s), self.room.seats[s]
            if peer is None or x is None or x.agent != "person":
                continue  # (one whose connection is gone: `_away` holds the seat)
            self._free(s, now)
            self._detach(peer)
            self.out.tell(peer, "left", room=self.room.name,
                          reason="The autopilot played your seat to the end of the game, so it was given up: no "
                                 "stake is taken for the next game. Sit again to play.")
            if self.owner is peer:
                self.owner = None

    def _away(self, seat: int, now: float) -> None:
        """Between games, `seat`'s peer is not connected: a person's seat is
        held for them; a bot node's is freed at once, as before there was a
        hold (a bot that comes back after its game, as a node that plays one
        game a run does, looks for a game to play, not for the end of the
        last one; one dropped by a restart of the host is held, `Lobby.reopen`)."""
        x = self.room.seats[seat]
        if x is not None and x.agent == "person":
            self._hold(seat, now)
        else:
            self._free(seat, now)

    def _hold(self, seat: int, now: float) -> None:
        """Between games: keep `seat` for its person, whose connection is gone,
        for `Limits.seat_hold` seconds (`SEAT_HOLD`)."""
        self.room.set_connected(seat, False)
        self.held[seat] = now + self.lobby.limits.seat_hold

    def _time_after_hold(self, now: float) -> None:
        """A headless room with no deal timed (one opened again after a
        restart, or waiting to be full) whose held seats are all back or let
        go: its deal is timed as when its first person sits (`start_after`),
        or dealt now if full. A pause before the next deal runs its course."""
        if not self.auto_start or self.held or self._start_at is not None or self.room.state == "playing":
            return
        if self.start_after is not None:
            if self.seated:
                self._start_at = now + self.start_after
        else:
            self._deal_if_full(now)

    def _let_go(self, now: float, seats: list[int]) -> None:
        """Free the held `seats` (their hold ran out, or a game is being
        dealt); a room left with nobody then closes."""
        if not seats:
            return
        for s in seats:
            self.held.pop(s, None)
            if self.room.seats[s] is not None and s not in self.seated:
                self.out.log(INFO, "room %s: seat %d freed (its person did not come back)", self.room.name, s)
                self._free(s, now)
        self._send_room()
        self._maybe_close()

    def _detach(self, peer: Peer) -> None:
        if peer.seat is not None and self.seated.get(peer.seat) is peer:
            del self.seated[peer.seat]
        self.spectators.discard(peer)
        peer.room, peer.seat, peer.watching = None, None, False

    def _free(self, seat: int, now: float) -> None:
        """Free a seat; a person leaving a running game leaves the stored match
        first (in a coin game: the stake forfeited, the fee charged, told).

        Raises:
            RoomError: `store_failed` (nothing changed: the seat is kept).
        """
        room = self.room
        self._no_pause(now)  # whoever leaves, the clocks run again
        self.held.pop(seat, None)
        x = room.seats[seat]
        fee = None
        if x is not None and room.state == "playing" and self.match is not None and self.match.kinds[seat] != "bot":
            fee = self.keeper.leave(self.match, seat)
        if x is not None:
            self.lobby.tokens.pop(x.token, None)
            if room.state == "playing":  # a bot plays the seat: it keeps the name, as left
                self.departed[seat] = x.name
        profile = self.profile_of.pop(seat, None)
        if fee is not None and room.stake and profile is not None:
            self._tell_coins(profile, -fee, "fee", self.match.id)
        room.leave(seat, now)
        self.lobby.notify()

    def _leave(self, peer: Peer, reason: str, now: float) -> None:
        if peer.seat is not None:
            self._free(peer.seat, now)
        self._detach(peer)
        self.out.tell(peer, "left", room=self.room.name, reason=reason)
        if self.owner is peer:
            self.owner = None
        self._send_room()
        self._maybe_close()

    def _gone(self, peer: Peer, now: float) -> None:
        """The peer's connection ended: it keeps its seat (in a game the clock
        plays for it; between games a person's seat is held, `_away`)."""
        if peer.seat is not None and self.seated.get(peer.seat) is peer:
            seat = peer.seat
            del self.seated[seat]
            if self.room.state == "playing":
                self.room.set_connected(seat, False)
            else:
                self._away(seat, now)
        self.spectators.discard(peer)
        peer.room = None
        self._send_room()
        self._maybe_close()

    def _act(self, peer: Peer, msg: dict[str, Any], now: float) -> None:
        room = self.room
        ref = room.referee
        if peer.seat is None:
            self.out.tell(peer, "rejected", code="not_seated", reason="Spectators cannot act; join a seat.", state_id=None)
            return
        if "seat" in msg and msg["seat"] != peer.seat:
            self.out.tell(
                peer,
                "rejected",
                code="not_your_seat",
                reason=f"You sit at seat {peer.seat}; you cannot act for seat {msg['seat']}.",
                state_id=ref.state_id if ref else None,
            )
            return
        if ref is None or room.state != "playing":
            self.out.tell(peer, "rejected", code="no_game", reason="No game is being played here.",
                          state_id=ref.state_id if ref else None)
            return
        try:
            ref.act(peer.seat, msg["action"], msg["state_id"], now)
        except Rejected as e:
            if e.code == "stale" and msg["state_id"] < ref.state_id and peer.tags.get("stale") != msg["state_id"]:
                # a race the host opened (a window closed meanwhile): free, as an
                # accepted action is, once per state answered (never a cut-off)
                peer.tags["stale"] = msg["state_id"]
                peer.bucket.refund()
            self.out.tell(peer, "rejected", code=e.code, reason=e.reason, state_id=ref.state_id)
            return
        peer.bucket.refund()
        self.actions += 1
        self._changed(now, first=peer)

    def _pause(self, peer: Peer, on: bool, now: float) -> None:
        """`pause` (docs/protocol.md): the clocks stop, or start again, at a
        table whose only person is `peer`; the views tell it (`paused`)."""
        room, ref = self.room, self.room.referee
        if ref is None or room.state != "playing":
            raise RoomError("no_game", "No game is being played here.")
        if not on:
            if ref.resume(now):
                self._views()
            return
        others = [x for s, x in enumerate(room.seats) if x is not None and x.agent == "person" and s != peer.seat]
        if peer.seat is None or others or room.seats[peer.seat].agent != "person":  # (a bot node waits for nobody)
            raise RoomError("not_alone", "Only a person alone at a table of bots may pause it; "
                                         "with other people the clocks run on.")
        if ref.pause(now):
            self._views()

    def _no_pause(self, now: float) -> None:
        """A person sat down: a pause of the table ends (the clocks run for everyone)."""
        ref = self.room.referee
        if ref is not None and ref.paused:
            ref.resume(now)

    # ------------------------------------------------------------ closing

    def _close(self, reason: str) -> None:
        """Tell the members why, and close the room."""
        for p in [*self.seated.values(), *self.spectators]:
            self.out.tell(p, "left", room=self.room.name, reason=reason)
            self._detach(p)
        self._stop()

    def _maybe_close(self) -> None:
        """A room with nobody in it (no peer seated and connected, no spectator)
        goes away, unless it was made by the host itself (auto rooms stay):
        between games at once, or when the last held seat is let go; a running game whose people all left is
        abandoned at once (the stakes go back); one where a dropped peer may
        still come back with its token plays on, and the room closes when it
        ends and its seats' hold runs out (`_changed`). docs/protocol.md, "Limits and abuse"."""
        if self.auto_start or self.seated or self.spectators or self.held or self.closed:
            return
        if self.room.state == "playing":
            if any(x is not None for x in self.room.seats):
                return
            self.out.log(INFO, "room %s: everybody left game %d: abandoned", self.room.name, self.room.games)
            self._abandon()
        self._stop()

    def _stop(self) -> None:
        self.closed = True
        if self._kept is not None:
            self.keeper.forget_room(self.room.name)
            self._kept = None
        self.lobby.drop_room(self)
        self.out.add(StopRoom(self))

    # ------------------------------------------------------------ games

    def _auto_start(self, now: float) -> None:
        """A headless room's start: a refusal is logged and tried again later.
        A room of a tournament with no match left deals nothing by itself."""
        if self.tournament is not None and not self.tournament.may_deal(self.room.name):
            self._start_at = None
            return
        try:
            self._start(now)
        except RoomError as e:
            self.out.log(WARNING, "room %s: cannot start: %s", self.room.name, e.reason)
            self._start_at = now + max(1.0, self.rematch_after)

    def _start(self, now: float) -> None:
        """Raises: RoomError `wrong_state`, or (a host with a store) the refusals of `_begin`."""
        room = self.room
        if room.state == "playing":
            raise RoomError("wrong_state", f"Room {room.name!r} is already playing.")
        if self.tournament is not None and self.tournament.over:
            raise RoomError("wrong_state", f"The tournament {self.tournament.name} is over: {room.name} deals no "
                                           "more games.")
        # the people whose seats are held have not come back: room bots play
        # them (nothing is staked for them)
        self._let_go(now, list(self.held))
        seed = self.lobby.rng.getrandbits(63) if self.seed is None else self.seed + room.games
        if self.keeper is not None:
            self._begin(seed, now)
        room.start(now, seed)
        for seat, x in enumerate(room.seats):
            peer = self.seated.get(seat)
            if x is not None and (peer is None or peer.closed):
                # its peer is gone (dropped between games): played at once, not
                # after its full clock; the person takes it back with the token
                x.connected = False
                room.referee.set_autopilot(seat, now)
        self._start_at = None
        self._rematch_at, self.open_rematch = None, False
        self.departed.clear()
        self._ended_names = None
        if self.tournament is not None:
            self.tournament.deal(room.name)
        self.out.log(INFO, "room %s: game %d started (%s%s)", room.name, room.games, room.table or room.game,
                     f", match {self.match.id}" if self.match is not None else "")
        self._send_room()
        self._views()
        self.lobby.notify()
        if room.stake and self.match is not None:
            for s, kind in enumerate(self.match.kinds):
                profile = self.profile_of.get(s)
                if kind == "player" and profile is not None:
                    self._tell_coins(profile, -room.stake, "stake", self.match.id)

    def _begin(self, seed: int, now: float) -> None:
        """Store the match about to be dealt from `seed` (the stakes of a coin
        room posted in the same transaction). A player who no longer holds the
        stake (they played elsewhere meanwhile) loses the seat first.

        Raises:
            RoomError: `insufficient_coins` (those seats were freed), or
                `store_failed` (nothing was stored; the game does not start).
        """
        keeper, room = self.keeper, self.room
        if room.stake:
            short = []
            for s, p in sorted(self.profile_of.items()):
                held = keeper.balance(p, failed="the game did not start.")
                if held < room.stake and room.seats[s] is not None:
                    short.append((s, p, held))
            for s, _, held in short:
                peer = self.seated.get(s)
                self._free(s, now)  # not playing: nothing to store
                if peer is not None:
                    self._detach(peer)
                    self.out.tell(peer, "left", room=room.name,
                                  reason=f"You hold {held} coins, less than the stake of {room.stake}, so you lost your seat.")
            if short:
                self._send_room()
                names = ", ".join(p.name for _, p, _ in short)
                raise RoomError("insufficient_coins", f"{names} no longer held the stake of {room.stake}: seat(s) freed.")
        settings = {
            "clock": room.clock,
            "bot_level": room.bot_level,
            "bot_delay": room.bot_delay,
            "password": room.password,
            "auto_start": self.auto_start,
            "start_after": self.start_after,
            "rematch_after": self.rematch_after,
            "room_seed": self.seed,
            "games": room.games + 1,
            "tally": room.next_tally(),
        }
        self.match = keeper.begin(room, self.profile_of, seed, settings)

    def _changed(self, now: float, first: Peer | None = None) -> None:
        """After every applied action: the store records it, then every member
        gets the new state. The peer who acted gets it first; the others' views
        follow from `flush_rest` before anything else happens in the room."""
        if not self._record():
            return
        room = self.room
        ended = room.game_ended()
        if first is not None and first.seat is not None:
            self._views([first])
            if ended:  # every seat sees the last move before what the end tells it (its coins)
                self._views(skip=first)
            else:
                self._rest = first
        else:
            self._views()
        if ended:
            self.out.log(INFO, "room %s: game %d over: %s", room.name, room.games, room.referee.outcome["winners"])
            self._ended_names = self._names(self.room.public()["seats"])  # (before anyone gives a seat up or sits)
            match_id = self.match.id if self.match is not None else None
            self._finish()
            self._tournament_game(match_id)
            if not self.auto_start:
                self._rematch_at = now + REMATCH_WAIT
            if room.stake:
                self._idle_out(now)
            # a seat whose person is not connected now waits for them (SEAT_HOLD)
            # until the next deal (a resumed table's too); a bot node's is freed
            for s in range(room.n):
                if room.seats[s] is not None and s not in self.seated:
                    self._away(s, now)
            self.awaited.clear()
            if self.auto_start:
                # the next game: when the seats are full again (those who stay,
                # and newcomers), or after start_after with bots; with a person
                # seated, not before they could read the scores
                pause = self.rematch_after if self.start_after is None else max(self.rematch_after, self.start_after)
                if any(p.agent == "person" for p in self.seated.values()):
                    pause = max(pause, PEOPLE_PAUSE)
                over = self.tournament is not None and self.tournament.over
                self._start_at = None if over else now + pause  # (a finished tournament deals no more)
            else:
                self._maybe_close()  # (a room nobody is in closes; a held seat keeps it open)
                if self.closed:
                    return
            self._send_room()
            self.lobby.notify()

    # ------------------------------------------------------------ the store

    def _record(self) -> bool:
        """Store the referee's new actions (before anyone is sent the state
        they made). False when a store failure closed the room."""
        m, ref = self.match, self.room.referee
        if m is None or ref is None:
            return True
        new = ref.log[m.stored - m.base:]
        if not new:
            return True
        halt = self.keeper.record(m, new, self.room)
        if halt is None:
            return True
        self.match = None
        self._refunds(m, halt.refunds)
        if halt.close is None:  # the game goes on unrecorded
            return True
        self._close(halt.close)
        return False

    def _abandon(self) -> None:
        """Abandon the stored match of the game being played: every stake goes
        back (each player told: `coins`, reason `refund`), unless the store
        refused too: the match stays live with its pot, resumed at the next start."""
        m, self.match = self.match, None
        if self.tournament is not None:
            self.tournament.abandoned(self.room.name)
        if m is not None:
            self._refunds(m, self.keeper.abandon(m, self.room.name))

    def _refunds(self, m: Match, settlement: Any) -> None:
        if settlement is not None and self.room.stake:
            for s, kind in enumerate(m.kinds):
                profile = self.profile_of.get(s)
                if kind == "player" and profile is not None:
                    self._tell_coins(profile, settlement.paid(profile.id), "refund", m.id)

    def _tournament_game(self, match_id: int | None) -> None:
        """A game ended in a room of a tournament: its result counts (kept in
        the store); every room of the tournament is told the standings."""
        t = self.tournament
        if t is None:
            return
        result = t.record(self.room.name, self.public()["names"], self.room.referee.outcome, match_id)
        if result is None:
            return
        if self.keeper is not None:
            self.keeper.tournament_result(t.id, result)
        self.out.log(INFO, "tournament %s: match %d of %d played in room %s", t.name, t.played, t.matches,
                     self.room.name)
        for other in self.lobby.rooms.values():
            if other.tournament is t and other is not self:
                other._send_room()

    def _finish(self) -> None:
        """The game ended: settle the stored match (the pot paid, the stats
        written, one transaction) and tell each player of a coin game."""
        m, ref = self.match, self.room.referee
        if m is None or ref is None:
            return
        self.match = None
        settlement = self.keeper.finish(m, ref.outcome, self.room.name)
        if settlement is None or not self.room.stake:
            return
        winners = ref.outcome.get("winners") or []
        for s, kind in enumerate(m.kinds):
            profile = self.profile_of.get(s)
            if kind == "player" and profile is not None:
                reason = "win" if s in winners else ("loss" if winners else "draw")
                self._tell_coins(profile, settlement.paid(profile.id), reason, m.id)

    def _tell_coins(self, profile: Any, change: int, reason: str, match: int | None) -> None:
        """A `coins` message to every open connection of `profile`, wherever
        it is (this room, the lobby, another room): a seat the clock plays for
        a person who came back in the lobby still tells them. Only peers that
        brought a profile get one (others may not know the type)."""
        peers = [p for p in self.lobby.peers
                 if p.profile is not None and p.profile.id == profile.id and not p.closed]
        if not peers:
            return
        msg = self.keeper.coins(profile, change, reason, self.room.name, match)
        if msg is not None:
            for p in sorted(peers, key=lambda p: p.id):
                self.out.send(p, msg)

    # ------------------------------------------------------------ telling

    def members(self) -> list[Peer]:
        return [*self.seated.values(), *self.spectators]

    WATCHERS_SHOWN = 16  # names in a room's `watchers` (its `spectators` counts them all)

    def watchers(self) -> list[str]:
        """The names of those who watch, in the order of their connections (at most
        `WATCHERS_SHOWN`; docs/protocol.md, the room's `watchers`)."""
        here = sorted((p for p in self.spectators if not p.closed), key=lambda p: p.id)
        return [p.name or "?" for p in here[: self.WATCHERS_SHOWN]]

    def _views(self, only: list[Peer] | None = None, skip: Peer | None = None) -> None:
        if self.room.referee is None:
            return
        targets = only if only is not None else [p for p in (*self.seated.values(), *self.spectators) if p is not skip]
        if targets:
            self.out.add(Views(self, targets))

    def view_message(self, seat: int | None, now: float) -> dict[str, Any]:
        """The `view` message of `seat` (None: a spectator's) for the current
        state, with the time left on each clock at `now`."""
        return self.view_messages([seat], now)[seat]

    def view_messages(self, seats: list[int | None], now: float) -> dict[int | None, dict[str, Any]]:
        """The `view` message of each of `seats` (None: the spectators'), with
        the time left on each clock at `now`. What every seat is told alike
        (the clocks, the autopilot, the pause) is built once and shared by
        the messages (nobody changes a message once built); each seat's own
        view and legal actions are built for it alone (the referee builds
        each engine view once per state)."""
        ref = self.room.referee
        assert ref is not None
        common = {
            "type": "view",
            "room": self.room.name,
            "state_id": ref.state_id,
            "timers": ref.timers(now),
            "autopilot": ref.autopilot(),
        }
        if ref.paused:
            common["paused"] = True
        out: dict[int | None, dict[str, Any]] = {}
        for seat in seats:
            if seat in out:
                continue
            if seat is None:
                view, legal = ref.spectator_view(), []
            else:
                view, legal = ref.view(seat), ref.legal(seat)
            out[seat] = {**common, "view": view_to_wire(view), "legal": legal}
        return out

    def _send_room(self) -> None:
        msg = {"type": "room", "room": self.public()}
        for p in [*self.seated.values(), *self.spectators]:
            self.out.send(p, msg)
        self._keep()

    def _keep(self) -> None:
        """With a store, keep what changed of the room (`kept`) for a restart
        of the host; a room of a tournament is not kept (nor reopened)."""
        if self.keeper is None or self.closed:
            return
        form = self.kept() if self.tournament is None else None
        if form != self._kept:
            if form is None:
                self.keeper.forget_room(self.room.name)
            else:
                self.keeper.keep_room(self.room.name, form)
            self._kept = form

    def kept(self) -> dict[str, Any]:
        """What a restarted host needs to open this room again between games
        (`Lobby.reopen`): its settings, who sits where (names, tokens, agents,
        profiles: the host's own file keeps them, as it keeps a match's), the
        games played and the running score, the creator's seat."""
        room = self.room
        seats = []
        for s, x in enumerate(room.seats):
            profile = self.profile_of.get(s)
            seats.append(None if x is None else {"name": x.name, "token": x.token, "agent": x.agent,
                                                 "profile": profile.id if profile is not None else None})
        owner = self.owner
        # (a creator who dropped still holds the seat; one reopened and not back yet is `creator_seat`)
        creator = owner.seat if owner is not None and owner.seat is not None and room.seats[owner.seat] is not None \
            else self.creator_seat
        return {
            "game": room.game, "table": room.table, "players": room.n,
            "options": {k: v for k, v in room.options.items() if k != "mode"}, "mode": room.mode,
            "clock": room.clock, "password": room.password, "bot_level": room.bot_level,
            "bot_delay": room.bot_delay, "stake": room.stake, "auto_start": self.auto_start,
            "start_after": self.start_after, "rematch_after": self.rematch_after, "seed": self.seed,
            "games": room.games, "tally": room.next_tally(), "seats": seats, "creator": creator,
        }

    def public(self) -> dict[str, Any]:
        info = self.room.public(len(self.spectators))
        owner = self.owner
        info["creator"] = owner.seat if owner is not None and owner.room is self else None
        d = self.director()
        info["director"] = d.seat if d is not None else None
        info["open_rematch"] = self.open_rematch  # any seated person may deal the rematch now
        if self._start_at is not None and self.room.state != "playing":  # it deals by itself then
            info["deals_in"] = round(max(0.0, self._start_at - self._clock), 1)
        info["names"] = self._names(info["seats"])  # the outcome's and the tally's seats, by name
        if self._ended_names is not None and self.room.state == "over":
            info["ended_names"] = list(self._ended_names)  # ... as they were when the game ended
        if self.tournament is not None:
            info["tournament"] = self.tournament.public()
        info["watchers"] = self.watchers()
        rating = getattr(self.keeper, "rating", None)  # a seated profile's rating (docs/protocol.md)
        if rating is not None:
            for s, p in self.profile_of.items():
                shown = rating(p, self.room.game) if self.room.seats[s] is not None else None
                if shown is not None:
                    info["seats"][s]["rating"] = shown
        return info

    def _names(self, seats: list[dict[str, Any]]) -> list[Any]:
        """Each seat's name, from the room's seat lines (`Room.public`), which
        it marks where a bot plays for a person who left the running game:
        that person's name, `left`."""
        for s, name in self.departed.items():
            seat = seats[s]
            if seat["kind"] == "bot":
                seat.update(name=name, left=True)
        return [x["name"] for x in seats]

    def _snapshot(self, peer: Peer, now: float) -> None:
        view = None
        if self.room.referee is not None:
            view = self.view_message(peer.seat, now)
            del view["type"]
        self.out.tell(peer, "snapshot", room=self.public(), seat=peer.seat, view=view)


__all__ = ["Halt", "Keeper", "Match", "RoomSession"]
