"""The host node: connections, the lobby, one task per room (trio).

How this works. `Host.serve_stream(stream)` serves one peer: a `Connection`
(reader, writer, heartbeat) whose reader hands every message to
`Host._on_message`, synchronously. That handler checks the message against the
catalogue, applies the per-peer rate limit, answers the lobby itself (`hello`,
`list`, `create`, `ping`) and posts everything about a room (`join`, `watch`,
`leave`, `start`, `rematch`, `kick`, `act`, `resync`) to that room's inbox.

Each room has one task (`RoomActor.run`) that owns its `Room` and `Referee`
(`lanmatch.table`): it takes messages from the inbox, waits with
`trio.move_on_at(referee.next_deadline())` for the clocks, applies what comes,
runs a Hard bot's decision on a worker thread (the room waits, the others
go on), and sends each member what changed: every seat its own view (with its legal
actions, the timers and the time left), spectators a view without a hand,
everyone the room when seats change. Sending never waits (see `conn.py`).

`Host.listen(port, bind)` serves TCP; `Host.advertise` is `discovery.py`'s.
"""

from __future__ import annotations

import datetime
import logging
import math
import random
from dataclasses import dataclass, field
from typing import Any

import trio

from lanmatch import __version__
from lanmatch.net.conn import Connection, TokenBucket
from lanmatch.protocol import (
    CLOCKS,
    PROTOCOL_VERSION,
    RemoteProtocolError,
    check_outgoing_host,
    check_peer_message,
    view_to_wire,
)
from lanmatch.table import AUTOPILOT_PACE, GUEST_MAX_SEATS, Rejected, Room, RoomError

log = logging.getLogger("lanmatch.host")

RATE = 50.0  # messages a second a peer may send on average (accepted actions are free) ...
BURST = 100.0  # ... in bursts of up to this many
MAX_ERRORS = 10  # bad messages before a peer is cut off
MAX_ROOMS = 256
INBOX = 1024
LOBBY_TYPES = ("hello", "ping", "list", "create")


@dataclass(eq=False)
class Peer:
    """What the host knows about one connection."""

    conn: Connection
    bucket: TokenBucket
    name: str | None = None
    agent: str = "person"
    room: RoomActor | None = None
    seat: int | None = None  # None: not seated (lobby or spectator)
    watching: bool = False
    errors: int = 0
    tags: dict[str, Any] = field(default_factory=dict)

    def send(self, typ: str, **fields: Any) -> bool:
        return self.conn.send({"type": typ, **fields})

    def error(self, code: str, message: str, *, fatal: bool = False, ref: str | None = None) -> None:
        msg = {"type": "error", "code": code, "message": message[:400], "fatal": fatal, "ref": ref}
        if fatal:
            self.conn.close(code, msg)
        else:
            self.conn.send(msg)


class Host:
    """A host node. Create it, then `await host.run(task_status=...)` in a nursery
    (it serves `serve_stream` calls and the rooms' tasks)."""

    def __init__(
        self,
        name: str = "lanmatch",
        *,
        rng: Any = None,
        rate: float = RATE,
        burst: float = BURST,
        heartbeat: float = 1.0,
        dead_after: float = 4.0,
        outbox: int = 256,
        strict: bool = False,
        bot_delay: float = 0.0,
        person_bot_delay: float = AUTOPILOT_PACE,
    ):
        self.name = name
        self.rng = rng if rng is not None else random.SystemRandom()
        self.rate = rate
        self.burst = burst
        self.heartbeat = heartbeat
        self.dead_after = dead_after
        self.outbox = outbox
        self.strict = strict  # check every outgoing message (tests)
        self.bot_delay = bot_delay  # room bots' pause before a move, in rooms the host made
        self.person_bot_delay = person_bot_delay  # ... in rooms a person made (so they can follow)
        self.rooms: dict[str, RoomActor] = {}
        self.tokens: dict[str, RoomActor] = {}
        self.peers: set[Peer] = set()
        self._nursery: trio.Nursery | None = None
        self.changed = trio.Event()  # set when the room list changes (the advertiser waits on it)
        self.port: int | None = None
        self.on_wire = None  # tests: a callable (peer, msg) seeing every message sent

    # ------------------------------------------------------------ running

    async def run(self, *, task_status=trio.TASK_STATUS_IGNORED) -> None:
        """Own the rooms' tasks until cancelled."""
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            task_status.started(self)
            await trio.sleep_forever()

    async def listen(self, port: int = 0, bind: str | None = None, *, task_status=trio.TASK_STATUS_IGNORED) -> None:
        """Serve TCP on `bind` (default every interface) and `port` (0: any free one)."""
        listeners = await trio.open_tcp_listeners(port, host=bind)
        self.port = listeners[0].socket.getsockname()[1]
        task_status.started(self.port)
        await trio.serve_listeners(self.serve_stream, listeners)

    def _notify(self) -> None:
        self.changed.set()
        self.changed = trio.Event()

    def summary(self) -> dict[str, Any]:
        """What the mDNS TXT record tells: open rooms, free seats, games, passwords."""
        open_rooms = [a.room for a in self.rooms.values() if a.room.state != "playing"]
        return {
            "rooms": len(open_rooms),
            "free": sum(len(r.free_seats()) for r in open_rooms),
            "games": sorted({a.room.game for a in self.rooms.values()}) or ["colormatch", "dominoes"],
            "password": any(a.room.password for a in self.rooms.values()),
        }

    # ------------------------------------------------------------ rooms

    def create_room(
        self,
        name: str,
        *,
        owner: Peer | None = None,
        auto_start: bool = False,
        start_after: float | None = None,
        rematch_after: float = 2.0,
        seed: int | None = None,
        **settings: Any,
    ) -> RoomActor:
        """Create a room and start its task. `seed` fixes the deals (game k of
        the room is dealt from `seed + k - 1`; default: random).

        Raises:
            RoomError: `room_exists`, `too_many_rooms`, or `bad_room` (settings).
        """
        if name in self.rooms:
            raise RoomError("room_exists", f"There is already a room {name!r}.")
        if len(self.rooms) >= MAX_ROOMS:
            raise RoomError("too_many_rooms", f"This host holds {MAX_ROOMS} rooms at most.")
        settings.setdefault("bot_delay", self.bot_delay)
        if settings.get("mode") == "daily":
            opts = dict(settings.get("options") or {})
            opts.setdefault("date", datetime.datetime.now(datetime.UTC).date().isoformat())
            settings["options"] = opts
        room = Room(name, owner=owner.conn.id if owner else None, **settings)
        actor = RoomActor(self, room, auto_start=auto_start, start_after=start_after, rematch_after=rematch_after, seed=seed)
        actor.owner = owner
        self.rooms[name] = actor
        assert self._nursery is not None, "Host.run is not running"
        self._nursery.start_soon(actor.run)
        self._notify()
        return actor

    def drop_room(self, actor: RoomActor) -> None:
        if self.rooms.get(actor.room.name) is actor:
            del self.rooms[actor.room.name]
            for t in [t for t, a in self.tokens.items() if a is actor]:
                del self.tokens[t]
            self._notify()

    # ------------------------------------------------------------ peers

    async def serve_stream(self, stream: trio.abc.Stream) -> None:
        """Serve one peer on `stream` until it goes."""
        conn = Connection(stream, numbered=True, outbox=self.outbox, heartbeat=self.heartbeat, dead_after=self.dead_after)
        peer = Peer(conn, TokenBucket(self.rate, self.burst, trio.current_time()))
        conn.strict = self.strict
        if self.strict or self.on_wire is not None:
            conn.on_frame_sent = lambda m: self._watch(peer, m)
        self.peers.add(peer)
        try:
            await conn.run(lambda msg: self._guarded(peer, msg))
        finally:
            self.peers.discard(peer)
            if peer.room is not None:
                peer.room.post(("gone", peer, None))
            log.info("%s (%s) gone: %s", conn.label, peer.name, conn.close_reason)

    def _watch(self, peer: Peer, msg: dict[str, Any]) -> None:
        if self.strict:
            check_outgoing_host(msg)
        if self.on_wire is not None:
            self.on_wire(peer, msg)

    def _guarded(self, peer: Peer, msg: dict[str, Any]) -> None:
        """`_on_message`, where a bug of ours costs this peer its connection,
        loudly in the log, and never the host (unless `strict`: tests)."""
        try:
            self._on_message(peer, msg)
        except RemoteProtocolError:
            raise
        except Exception:
            log.exception("bug while serving %s: message %.200r", peer.conn.label, msg)
            if self.strict:
                raise
            peer.error("internal", "The host failed on that message (its bug, logged).", fatal=True)

    def _on_message(self, peer: Peer, msg: dict[str, Any]) -> None:
        now = trio.current_time()
        if not peer.bucket.take(now):
            peer.error("rate_limited", f"More than {self.rate:g} messages a second: cut off.", fatal=True)
            return
        try:
            check_peer_message(msg)
        except RemoteProtocolError as e:
            self._bad(peer, e.code, e.message, msg.get("type") if isinstance(msg.get("type"), str) else None)
            return
        typ = msg["type"]
        if peer.name is None and typ != "hello":
            self._bad(peer, "hello_first", "Say hello first: {type: hello, protocol, name}.", typ)
            return
        if typ == "ping":
            return
        if typ == "hello":
            self._hello(peer, msg)
        elif typ == "list":
            peer.send("rooms", rooms=[a.room.summary() for a in self.rooms.values()])
        elif typ == "create":
            self._create(peer, msg)
        elif typ in ("join", "watch"):
            actor = self.rooms.get(msg["room"])
            if actor is None:
                peer.error("no_room", f"There is no room {msg['room']!r}; send list to see them.", ref=typ)
            elif peer.room is not None and peer.room is not actor:
                peer.error("in_room", f"Leave room {peer.room.room.name!r} first.", ref=typ)
            else:
                actor.post((typ, peer, msg))
        elif peer.room is None:
            if typ == "resync":
                peer.send("snapshot", room=None, seat=None, view=None)
            else:
                peer.error("not_in_room", "Join or watch a room first.", ref=typ)
        else:
            peer.room.post((typ, peer, msg))

    def _bad(self, peer: Peer, code: str, message: str, ref: str | None) -> None:
        peer.errors += 1
        if peer.errors >= MAX_ERRORS:
            peer.error("too_many_errors", f"{message} ({peer.errors} bad messages: cut off)", fatal=True, ref=ref)
        else:
            peer.error(code, message, ref=ref)

    def _hello(self, peer: Peer, msg: dict[str, Any]) -> None:
        if msg["protocol"] != PROTOCOL_VERSION:
            peer.error(
                "protocol_version",
                f"This host speaks lanmatch protocol {PROTOCOL_VERSION} and you sent {msg['protocol']}: "
                "update lanmatch on the older side.",
                fatal=True,
                ref="hello",
            )
            return
        if peer.name is not None:
            peer.error("hello_twice", "Hello was already said on this connection.", ref="hello")
            return
        peer.name = msg["name"]
        peer.agent = msg.get("agent", "person")
        peer.conn.label = f"{peer.conn.label}:{peer.name}"
        peer.send("welcome", protocol=PROTOCOL_VERSION, host=self.name, server=f"lanmatch {__version__}")
        token = msg.get("token")
        if token is not None:
            actor = self.tokens.get(token)
            if actor is None:
                peer.error("bad_token", "That seat token is not known here (wrong, or the seat was freed).", ref="hello")
            else:
                actor.post(("resume", peer, msg))

    def _create(self, peer: Peer, msg: dict[str, Any]) -> None:
        if peer.room is not None:
            peer.error("in_room", f"Leave room {peer.room.room.name!r} first.", ref="create")
            return
        seats = msg.get("seats", 4)
        if seats > GUEST_MAX_SEATS:
            peer.error("bad_room", f"A guest's room seats up to {GUEST_MAX_SEATS}.", ref="create")
            return
        clock = msg.get("clock")
        if clock is not None and clock not in CLOCKS:
            peer.error("bad_room", f"The move clock is one of {', '.join(map(str, CLOCKS))} seconds.", ref="create")
            return
        try:
            actor = self.create_room(
                msg["room"],
                owner=peer,
                game=msg["game"],
                table=msg.get("table"),
                seats=seats,
                options=msg.get("options"),
                clock=clock,
                mode=msg.get("mode", "single"),
                password=msg.get("password", ""),
                bot_level=msg.get("bots", "medium"),
                bot_delay=self.person_bot_delay if peer.agent == "person" else self.bot_delay,
            )
        except RoomError as e:
            peer.error(e.code, e.reason, ref="create")
            return
        if msg.get("sit", True):
            actor.post(("join", peer, {"type": "join", "room": msg["room"], "password": msg.get("password", "")}))
        else:
            actor.post(("watch", peer, {"type": "watch", "room": msg["room"], "password": msg.get("password", "")}))


class RoomActor:
    """The one task that owns a room (see the module docstring)."""

    def __init__(
        self,
        host: Host,
        room: Room,
        *,
        auto_start: bool = False,
        start_after: float | None = None,
        rematch_after: float = 2.0,
        seed: int | None = None,
    ):
        self.host = host
        self.seed = seed  # None: every deal from the host's rng
        self.room = room
        self.owner: Peer | None = None
        self.auto_start = auto_start
        self.start_after = start_after
        self.rematch_after = rematch_after  # auto rooms: the pause between games
        self._start_at: float | None = None
        self.seated: dict[int, Peer] = {}
        self.spectators: set[Peer] = set()
        self._send, self._recv = trio.open_memory_channel[Any](INBOX)
        self.closed = False
        self.actions = 0  # applied (for benchmarks and logs)
        self._rest: Peer | None = None  # the others' views wait until this actor's went out

    def post(self, item: tuple[str, Peer, Any]) -> None:
        """Hand a message to the room's task (never waits)."""
        try:
            self._send.send_nowait(item)
        except trio.WouldBlock:
            item[1].error("busy", f"Room {self.room.name!r} is busy; try again.", ref=item[0])
        except trio.ClosedResourceError:  # the room has just closed
            if item[0] != "gone":
                item[1].error("no_room", f"Room {self.room.name!r} has closed.", ref=item[0])

    # ------------------------------------------------------------ the task

    async def run(self) -> None:
        now = trio.current_time()
        if self.auto_start and self.start_after is not None:
            self._start_at = now + self.start_after
        while not self.closed:
            deadline = self._deadline()
            with trio.move_on_at(deadline):
                try:
                    item = await self._recv.receive()
                    self._handle(*item)
                    while not self.closed:  # whatever else queued up, without waiting
                        try:
                            item = self._recv.receive_nowait()
                        except trio.WouldBlock:
                            break
                        self._flush_rest()
                        self._handle(*item)
                except (trio.EndOfChannel, trio.ClosedResourceError):
                    return
            if self._rest is not None:
                # the actor's own view goes out first: two checkpoints let its
                # writer send before the others' views are built and sent
                await trio.sleep(0)
                await trio.sleep(0)
                self._flush_rest()
            if not self.closed:
                await self._timers()

    def _flush_rest(self) -> None:
        first, self._rest = self._rest, None
        if first is not None:
            self._send_views(skip=first)

    def _deadline(self) -> float:
        ref = self.room.referee
        d = ref.next_deadline() if ref is not None and self.room.state == "playing" else None
        if self._start_at is not None and self.room.state != "playing":
            d = self._start_at if d is None else min(d, self._start_at)
        return math.inf if d is None else d

    async def _timers(self) -> None:
        now = trio.current_time()
        if self._start_at is not None and now >= self._start_at and self.room.state != "playing":
            if self.room.is_full() or (self.start_after is not None and self.seated):
                self._start(now)
            elif self.start_after is not None:  # nobody to play with yet: look again later
                self._start_at = now + self.start_after
            else:  # wait until the seats are full (`_join` starts it)
                self._start_at = None
        ref = self.room.referee
        fired = 0
        while ref is not None and self.room.state == "playing":
            d = ref.next_deadline()
            if d is None or d > now:
                break
            try:
                job = ref.due(now)
                if job is None:
                    played = None
                elif job.heavy:
                    # a Hard look-ahead takes milliseconds: it runs on a worker
                    # thread so that the other rooms go on meanwhile; this room
                    # waits for it (its messages queue in its inbox), so nothing
                    # changes the referee under the bot's feet
                    # (the move counts as made when it fell due: `now`)
                    action = await trio.to_thread.run_sync(job.choose)
                    played = ref.resolve(job, action, now)
                else:
                    played = ref.resolve(job, job.choose(), now)
            except Exception:
                log.exception("room %s: the referee failed; the room is closed", self.room.name)
                if self.host.strict:
                    raise
                self._fail()
                return
            while ref.notes:
                log.warning("room %s: %s", self.room.name, ref.notes.pop(0))
            if played is not None:
                self.actions += 1
                self._changed()
            fired += 1
            if fired % 32 == 0:
                await trio.sleep(0)
                now = trio.current_time()

    # ------------------------------------------------------------ messages

    def _handle(self, typ: str, peer: Peer, msg: Any) -> None:
        """One message; a bug of ours is logged and answered, and the room goes on
        (unless the host is `strict`: tests)."""
        try:
            self._handle_one(typ, peer, msg)
        except Exception:
            log.exception("room %s: bug while handling %s from %s", self.room.name, typ, peer.conn.label)
            if self.host.strict:
                raise
            peer.error("internal", "The host failed on that message (its bug, logged).", ref=typ)

    def _handle_one(self, typ: str, peer: Peer, msg: Any) -> None:
        now = trio.current_time()
        room = self.room
        try:
            if typ == "act":
                self._act(peer, msg, now)
            elif typ == "join":
                self._join(peer, msg)
            elif typ == "watch":
                room.check_watch(msg.get("password"))
                if peer.seat is not None:
                    raise RoomError("in_room", "You have a seat here; leave it to watch.")
                peer.room, peer.watching = self, True
                self.spectators.add(peer)
                peer.send("watching", room=room.name)
                self._send_room()
                self._send_views([peer])
            elif typ == "resume":
                self._resume(peer, msg["token"])
            elif typ == "leave":
                self._leave(peer, "You left the room.", now)
            elif typ == "gone":
                self._gone(peer, now)
            elif typ == "resync":
                self._snapshot(peer)
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
                self._free(msg["seat"], now)
                if target is not None:
                    self._detach(target)
                    target.send("left", room=room.name, reason="The room's creator kicked you.")
                self._send_room()
        except RoomError as e:
            peer.error(e.code, e.reason, ref=typ)

    def _may_direct(self, peer: Peer, what: str) -> None:
        """The creator directs the room while connected; else any seated peer may."""
        owner = self.owner
        if owner is not None and not owner.conn.closed and owner.room is self:
            if owner is not peer:
                raise RoomError("not_creator", f"Only the room's creator may {what}.")
            return
        if peer.seat is None:
            raise RoomError("not_creator", f"Take a seat to {what}.")

    def _join(self, peer: Peer, msg: dict[str, Any]) -> None:
        if peer.seat is not None:
            raise RoomError("in_room", f"You already sit at seat {peer.seat}.")
        seat, token = self.room.join(
            peer.name or "?", self.host.rng, agent=peer.agent, seat=msg.get("seat"), password=msg.get("password")
        )
        self.spectators.discard(peer)
        peer.room, peer.seat, peer.watching = self, seat, False
        self.seated[seat] = peer
        self.host.tokens[token] = self
        peer.send("seated", room=self.room.name, seat=seat, token=token)
        self._send_room()
        self.host._notify()
        if self.auto_start and self.room.is_full() and self.room.state != "playing":
            self._start(trio.current_time())

    def _resume(self, peer: Peer, token: str) -> None:
        seat = self.room.seat_of_token(token)
        if seat is None or peer.room is not None:
            peer.error("bad_token", "That seat token is not known here (wrong, or the seat was freed).", ref="hello")
            return
        old = self.seated.get(seat)
        if old is not None and old is not peer:
            old.room, old.seat = None, None
            old.error("replaced", "Your seat was taken over by a newer connection with its token.", fatal=True)
        peer.room, peer.seat = self, seat
        self.seated[seat] = peer
        self.room.set_connected(seat, True)
        x = self.room.seats[seat]
        if x is not None:
            x.agent = peer.agent
        peer.send("seated", room=self.room.name, seat=seat, token=token)
        self._send_room()
        self._send_views([peer])

    def _detach(self, peer: Peer) -> None:
        if peer.seat is not None and self.seated.get(peer.seat) is peer:
            del self.seated[peer.seat]
        self.spectators.discard(peer)
        peer.room, peer.seat, peer.watching = None, None, False

    def _free(self, seat: int, now: float) -> None:
        x = self.room.seats[seat]
        if x is not None:
            self.host.tokens.pop(x.token, None)
        self.room.leave(seat, now)
        self.host._notify()

    def _leave(self, peer: Peer, reason: str, now: float) -> None:
        if peer.seat is not None:
            self._free(peer.seat, now)
        self._detach(peer)
        peer.send("left", room=self.room.name, reason=reason)
        if self.owner is peer:
            self.owner = None
        self._send_room()
        self._maybe_close()

    def _gone(self, peer: Peer, now: float) -> None:
        """The peer's connection ended: it keeps its seat (the clock plays for it)."""
        if peer.seat is not None and self.seated.get(peer.seat) is peer:
            seat = peer.seat
            del self.seated[seat]
            if self.room.state == "playing":
                self.room.set_connected(seat, False)
            else:  # nothing to keep between games
                self._free(seat, now)
        self.spectators.discard(peer)
        peer.room = None
        self._send_room()
        self._maybe_close()

    def _fail(self) -> None:
        """A bug of ours broke this table: tell its members, close the room."""
        for p in [*self.seated.values(), *self.spectators]:
            p.send("left", room=self.room.name, reason="This table failed (a host bug, logged); sorry.")
            self._detach(p)
        self.closed = True
        self.host.drop_room(self)
        self._send.close()

    def _maybe_close(self) -> None:
        """A room nobody uses any more (no person seated, no spectator) goes away,
        unless it was made by the host itself (auto rooms stay)."""
        if self.auto_start or self.seated or self.spectators or self.room.state == "playing":
            return
        if any(x is not None for x in self.room.seats):
            return
        self.closed = True
        self.host.drop_room(self)
        self._send.close()

    def _start(self, now: float) -> None:
        room = self.room
        if room.state == "playing":
            raise RoomError("wrong_state", f"Room {room.name!r} is already playing.")
        seed = self.host.rng.getrandbits(63) if self.seed is None else self.seed + room.games
        room.start(now, seed)
        self._start_at = None
        log.info("room %s: game %d started (%s)", room.name, room.games, room.table or room.game)
        self._send_room()
        self._send_views()
        self.host._notify()

    def _act(self, peer: Peer, msg: dict[str, Any], now: float) -> None:
        room = self.room
        ref = room.referee
        if peer.seat is None:
            peer.send("rejected", code="not_seated", reason="Spectators cannot act; join a seat.", state_id=None)
            return
        if "seat" in msg and msg["seat"] != peer.seat:
            peer.send(
                "rejected",
                code="not_your_seat",
                reason=f"You sit at seat {peer.seat}; you cannot act for seat {msg['seat']}.",
                state_id=ref.state_id if ref else None,
            )
            return
        if ref is None or room.state != "playing":
            peer.send("rejected", code="no_game", reason="No game is being played here.", state_id=ref.state_id if ref else None)
            return
        try:
            ref.act(peer.seat, msg["action"], msg["state_id"], now)
        except Rejected as e:
            peer.send("rejected", code=e.code, reason=e.reason, state_id=ref.state_id)
            return
        peer.bucket.refund()
        self.actions += 1
        self._changed(first=peer)

    # ------------------------------------------------------------ telling

    def _changed(self, first: Peer | None = None) -> None:
        """After every applied action: every member gets the new state. The
        peer who acted gets it first; the others' views follow from `run`
        (`_flush_rest`) before anything else happens in the room."""
        if first is not None and first.seat is not None:
            self._send_views(only=[first])
            self._rest = first
        else:
            self._send_views()
        if self.room.game_ended():
            log.info("room %s: game %d over: %s", self.room.name, self.room.games, self.room.referee.outcome["winners"])
            if self.auto_start:
                for s in list(range(self.room.n)):
                    x = self.room.seats[s]
                    if x is not None and s not in self.seated:
                        self._free(s, trio.current_time())
                # the next game: when the seats are full again (those who stay,
                # and newcomers), or after start_after with bots
                self._start_at = trio.current_time() + (
                    self.rematch_after if self.start_after is None else max(self.rematch_after, self.start_after)
                )
            self._send_room()
            self.host._notify()

    def _view_msg(self, seat: int | None) -> dict[str, Any]:
        ref = self.room.referee
        assert ref is not None
        now = trio.current_time()
        if seat is None:
            view, legal = ref.spectator_view(), []
        else:
            view, legal = ref.view(seat), ref.legal(seat)
        return {
            "type": "view",
            "room": self.room.name,
            "state_id": ref.state_id,
            "view": view_to_wire(view),
            "legal": legal,
            "timers": ref.timers(now),
            "autopilot": ref.autopilot(),
        }

    def _send_views(self, only: list[Peer] | None = None, skip: Peer | None = None) -> None:
        ref = self.room.referee
        if ref is None:
            return
        targets = only if only is not None else [p for p in (*self.seated.values(), *self.spectators) if p is not skip]
        spectator_msg = None
        for p in targets:
            if p.seat is not None:
                p.conn.send(self._view_msg(p.seat))
            else:
                if spectator_msg is None:
                    spectator_msg = self._view_msg(None)
                p.conn.send(spectator_msg)

    def _send_room(self) -> None:
        msg = {"type": "room", "room": self.public()}
        for p in [*self.seated.values(), *self.spectators]:
            p.conn.send(msg)

    def public(self) -> dict[str, Any]:
        info = self.room.public(len(self.spectators))
        owner = self.owner
        info["creator"] = owner.seat if owner is not None and owner.room is self else None
        return info

    def _snapshot(self, peer: Peer) -> None:
        view = None
        if self.room.referee is not None:
            view = self._view_msg(peer.seat)
            del view["type"]
        peer.send("snapshot", room=self.public(), seat=peer.seat, view=view)
