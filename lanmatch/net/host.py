"""The host node's I/O: connections, one task per room, the effects carried out (trio).

How this works. What the host decides lives beside the referee, sans-I/O:
the lobby (`lanmatch.table.lobby.Lobby`: hello, the room list, making rooms,
the rate limit) and one session per room (`lanmatch.table.session.RoomSession`:
seats, games, views, the store's calls through `keeper.py`). They take a
message and `now` and return effects (`lanmatch.table.effects`); this module
feeds them and carries the effects out, in order, before it awaits anything.

`Host.serve_stream(stream)` serves one peer: a `Connection` (reader, writer,
heartbeat; `conn.py`) whose reader hands every message to `Lobby.receive`,
synchronously. A message about a room becomes a `Post`: it goes to the
room's inbox (a bounded memory channel).

Each room has one task (`RoomActor.run`), the only one that touches its
session: it takes messages from the inbox, waits with
`trio.move_on_at(session.deadline())` for the clocks, runs a Hard bot's
decision on a worker thread (the room waits, the others go on), and sends
what the session says (`Views`: each seat its own view, built as it is
sent). Sending never waits (see `conn.py`).

With a store (`Host(store=...)`, docs/store.md "Host wiring"), `Host.run`
first resumes every match the store holds unfinished (a host killed at any
instant carries on where its tables stood).

`Host.listen(port, bind)` serves TCP; `Host.advertise` is `discovery.py`'s.
"""

from __future__ import annotations

import datetime
import logging
import random
from typing import Any

import trio

from lanmatch.net.conn import Connection
from lanmatch.net.keeper import StoreKeeper
from lanmatch.protocol import RemoteProtocolError, check_outgoing_host
from lanmatch.store import Store
from lanmatch.table import AUTOPILOT_PACE
from lanmatch.table.effects import (
    Close,
    Log,
    Notify,
    Post,
    Send,
    StartRoom,
    StopRoom,
    Views,
    error_message,
)
from lanmatch.table.lobby import Limits, Lobby, Peer
from lanmatch.table.session import RoomSession

log = logging.getLogger("lanmatch.host")

RATE = Limits.rate  # messages a second a peer may send on average (accepted actions are free) ...
BURST = Limits.burst  # ... in bursts of up to this many
INBOX = 1024

__all__ = ["Host", "Peer", "RoomActor"]


def _today() -> str:
    return datetime.datetime.now(datetime.UTC).date().isoformat()


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
        store: Store | None = None,
    ):
        self.name = name
        self.store = store  # None: nothing is kept (no profiles, no coin rooms, no resume)
        self.heartbeat = heartbeat
        self.dead_after = dead_after
        self.outbox = outbox
        self.strict = strict  # check every outgoing message, raise our bugs (tests)
        self.keeper = StoreKeeper(store, strict=strict) if store is not None else None
        self.lobby = Lobby(
            name,
            rng=rng if rng is not None else random.SystemRandom(),
            today=_today,
            keeper=self.keeper,
            limits=Limits(rate=rate, burst=burst),
            bot_delay=bot_delay,
            person_bot_delay=person_bot_delay,
            nonces=random.SystemRandom(),
        )
        self._nursery: trio.Nursery | None = None
        self.changed = trio.Event()  # set when the room list changes (the advertiser waits on it)
        self.port: int | None = None
        self.bye_reason = f"{name} closed the table: the host stopped."  # every peer's `bye` when the host stops
        self.on_wire = None  # tests: a callable (peer, msg) seeing every message sent

    @property
    def rooms(self) -> dict[str, RoomActor]:
        """The rooms by name, each as its task."""
        return {name: s.link for name, s in self.lobby.rooms.items()}

    @property
    def peers(self) -> set[Peer]:
        return self.lobby.peers

    @property
    def rng(self) -> Any:
        return self.lobby.rng

    # ------------------------------------------------------------ running

    async def run(self, *, task_status=trio.TASK_STATUS_IGNORED) -> None:
        """Own the rooms' tasks until cancelled. With a store, first resume every
        match it holds unfinished (before `task_status.started`, so that the
        rooms exist when peers come back)."""
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            if self.store is not None:
                self.resume_matches()
            task_status.started(self)
            await trio.sleep_forever()

    async def listen(self, port: int = 0, bind: str | None = None, *, listeners: list | None = None,
                     task_status=trio.TASK_STATUS_IGNORED) -> None:
        """Serve TCP on `bind` (default every interface) and `port` (0: any free one),
        or on `listeners` already opened (`lanmatch host` opens them before its store)."""
        if listeners is None:
            listeners = await trio.open_tcp_listeners(port, host=bind)
        self.port = listeners[0].socket.getsockname()[1]
        task_status.started(self.port)
        await trio.serve_listeners(self.serve_stream, listeners)

    def _notify(self) -> None:
        self.changed.set()
        self.changed = trio.Event()

    def summary(self) -> dict[str, Any]:
        """What the mDNS TXT record tells: open rooms, free seats, games, passwords."""
        return self.lobby.summary()

    def execute(self, effects: list[Any]) -> None:
        """Carry out what the lobby or a room session decided, in order."""
        for e in effects:
            t = type(e)
            if t is Send:
                e.peer.link.send(e.msg)
            elif t is Views:
                e.room.link._send_views(only=e.peers)
            elif t is Post:
                e.room.link.post(e.item)
            elif t is Close:
                e.peer.link.close(e.code, e.msg)
            elif t is Notify:
                self._notify()
            elif t is Log:
                log.log(e.level, e.fmt, *e.args)
            elif t is StartRoom:
                assert self._nursery is not None, "Host.run is not running"
                actor = RoomActor(self, e.room)
                e.room.link = actor
                self._nursery.start_soon(actor.run)
            elif t is StopRoom:
                e.room.link.stop()
            else:
                raise TypeError(f"not an effect: {e!r}")

    # ------------------------------------------------------------ rooms

    def create_room(self, name: str, **settings: Any) -> RoomActor:
        """Create a room and start its task: see `Lobby.create_room` for the
        settings (`auto_start`, `start_after`, `rematch_after`, `seed`,
        `first_directs` and the `Room`'s).

        Raises:
            RoomError: `room_exists`, `too_many_rooms`, or `bad_room` (settings).
        """
        assert self._nursery is not None, "Host.run is not running"
        session = self.lobby.create_room(name, **settings)
        self.execute(self.lobby.drain())
        return session.link

    def resume_matches(self) -> list[RoomActor]:
        """Rebuild a room for every match the store holds unfinished (called by
        `run`): the deal and the stored actions replayed into a new referee,
        people's seats waiting for their peers' tokens, bots playing on, every
        seat's clock started in full now. A match whose actions already end
        the game is settled instead; one that cannot be replayed (or rebuilt)
        is abandoned, its stakes returned. Returns the resumed rooms."""
        assert self.keeper is not None and self._nursery is not None
        actors = []
        for session in self.keeper.resume(lambda record, g: self.lobby.resume(record, g, trio.current_time())):
            self.execute(self.lobby.drain())
            actors.append(session.link)
        return actors

    # ------------------------------------------------------------ peers

    async def serve_stream(self, stream: trio.abc.Stream) -> None:
        """Serve one peer on `stream` until it goes."""
        conn = Connection(stream, numbered=True, outbox=self.outbox, heartbeat=self.heartbeat, dead_after=self.dead_after)
        peer = self.lobby.connect(conn.id, conn.label, trio.current_time(), conn)

        def closed() -> None:
            peer.closed = True

        conn.on_close = closed
        conn.farewell = lambda: {"type": "bye", "reason": self.bye_reason, "host": self.name}
        conn.strict = self.strict
        if self.strict or self.on_wire is not None:
            conn.on_frame_sent = lambda m: self._watch(peer, m)
        self.execute(self.lobby.greet(peer))
        try:
            await conn.run(lambda msg: self._guarded(peer, msg))
        finally:
            self.execute(self.lobby.gone(peer))
            # a liveness probe (discovery's check: nothing, or a hello, then close) is not news
            log.log(logging.DEBUG if conn.recv_frames <= 1 else logging.INFO,
                    "%s (%s) gone: %s", conn.label, peer.name, conn.close_reason)

    def _watch(self, peer: Peer, msg: dict[str, Any]) -> None:
        if self.strict:
            check_outgoing_host(msg)
        if self.on_wire is not None:
            self.on_wire(peer, msg)

    def _guarded(self, peer: Peer, msg: dict[str, Any]) -> None:
        """`Lobby.receive`, where a bug of ours costs this peer its connection,
        loudly in the log, and never the host (unless `strict`: tests)."""
        try:
            self.execute(self.lobby.receive(peer, msg, trio.current_time()))
        except RemoteProtocolError:
            raise
        except Exception:
            log.exception("bug while serving %s: message %.200r", peer.label, msg)
            self.execute(self.lobby.drain())  # what was decided before the failure
            if self.strict:
                raise
            self.lobby.out.error(peer, "internal", "The host failed on that message (its bug, logged).", fatal=True)
            self.execute(self.lobby.drain())
        finally:
            peer.link.label = peer.label


class RoomActor:
    """The one task that owns a room's session (see the module docstring)."""

    def __init__(self, host: Host, session: RoomSession):
        self.host = host
        self.session = session
        self._send, self._recv = trio.open_memory_channel[Any](INBOX)

    # what tests and tools read of the room
    room = property(lambda self: self.session.room)
    seated = property(lambda self: self.session.seated)
    spectators = property(lambda self: self.session.spectators)
    awaited = property(lambda self: self.session.awaited)
    actions = property(lambda self: self.session.actions)
    closed = property(lambda self: self.session.closed)

    def public(self) -> dict[str, Any]:
        return self.session.public()

    def post(self, item: tuple[str, Peer, Any]) -> None:
        """Hand a message to the room's task (never waits)."""
        try:
            self._send.send_nowait(item)
        except trio.WouldBlock:
            item[1].link.send(error_message("busy", f"Room {self.room.name!r} is busy; try again.", ref=item[0]))
        except trio.ClosedResourceError:  # the room has just closed
            if item[0] != "gone":
                item[1].link.send(error_message("no_room", f"Room {self.room.name!r} has closed.", ref=item[0]))

    def stop(self) -> None:
        """The room closed: nothing more is posted to it."""
        self._send.close()

    # ------------------------------------------------------------ the task

    async def run(self) -> None:
        s, execute = self.session, self.host.execute
        execute(s.opened(trio.current_time()))
        while not s.closed:
            with trio.move_on_at(s.deadline()):
                try:
                    item = await self._recv.receive()
                    self._handle(*item)
                    while not s.closed:  # whatever else queued up, without waiting
                        try:
                            item = self._recv.receive_nowait()
                        except trio.WouldBlock:
                            break
                        execute(s.flush_rest())
                        self._handle(*item)
                except (trio.EndOfChannel, trio.ClosedResourceError):
                    return
            if s.rest_pending:
                # the actor's own view goes out first: two checkpoints let its
                # writer send before the others' views are built and sent
                await trio.sleep(0)
                await trio.sleep(0)
                execute(s.flush_rest())
            if not s.closed:
                await self._timers()

    async def _timers(self) -> None:
        s, execute = self.session, self.host.execute
        now = trio.current_time()
        execute(s.wake(now))
        fired = 0
        while s.timer_due(now):
            try:
                job = s.due(now)
                if job is None:
                    played = None
                elif job.heavy:
                    # a Hard look-ahead takes milliseconds: it runs on a worker
                    # thread so that the other rooms go on meanwhile; this room
                    # waits for it (its messages queue in its inbox), so nothing
                    # changes the referee under the bot's feet
                    # (the move counts as made when it fell due: `now`)
                    action = await trio.to_thread.run_sync(job.choose)
                    played = s.resolve(job, action, now)
                else:
                    played = s.resolve(job, job.choose(), now)
            except Exception:
                log.exception("room %s: the referee failed; the room is closed", s.room.name)
                if self.host.strict:
                    raise
                execute(s.fail())
                return
            execute(s.played(played, trio.current_time()))
            fired += 1
            if fired % 32 == 0:
                await trio.sleep(0)
                now = trio.current_time()

    def _handle(self, typ: str, peer: Peer, msg: Any) -> None:
        """One message; a bug of ours is logged and answered, and the room goes on
        (unless the host is `strict`: tests)."""
        s, execute = self.session, self.host.execute
        try:
            execute(s.handle(typ, peer, msg, trio.current_time()))
        except Exception:
            log.exception("room %s: bug while handling %s from %s", s.room.name, typ, peer.label)
            execute(s.out.drain())  # what was decided before the failure
            if self.host.strict:
                raise
            s.out.error(peer, "internal", "The host failed on that message (its bug, logged).", ref=typ)
            execute(s.out.drain())

    # ------------------------------------------------------------ telling

    def _send_views(self, only: list[Peer] | None = None, skip: Peer | None = None) -> None:
        """Send each of `only` (default: every member but `skip`) its view of
        the current state (the session's `Views` effect)."""
        s = self.session
        if s.room.referee is None:
            return
        targets = only if only is not None else [p for p in s.members() if p is not skip]
        now = trio.current_time()
        spectator_msg = None
        for p in targets:
            if p.seat is not None:
                p.link.send(s.view_message(p.seat, now))
            else:
                if spectator_msg is None:
                    spectator_msg = s.view_message(None, now)
                p.link.send(spectator_msg)
