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
room's inbox (a bounded memory channel). When the room's task is waiting on
an empty inbox, the message is handled at once instead, in the reader's task,
once the lobby's effects are carried out (`RoomActor.handle_now`): the room's
session is still touched by one task at a time, in the order its messages
came, and an action's round trip saves a trip through the scheduler. The
room's task is then woken only if something falls due at once; its wait
takes the session's new deadline.

Each room has one task (`RoomActor.run`); it, or a reader it handed its
turn to (above), is the only one touching its session at any moment. The
task takes messages from the inbox, waits with
`trio.move_on_at(session.deadline())` for the clocks, runs a Hard bot's
decision on a worker thread (the room waits, the others go on), and sends
what the session says (`Views`: each seat its own view, built as it is
sent; the referee builds each seat's engine view once per state). A peer
whose `hello` asked for deltas gets, after its first full view, only what
changed (`lanmatch.protocol.delta.DeltaSender`, kept in `peer.tags["deltas"]`;
a snapshot renumbers it, `left` and `bad_token` reset it: `_numbered`).
Sending never waits (see `conn.py`).

With a store (`Host(store=...)`, docs/store.md "Host wiring"), `Host.run`
first resumes every match the store holds unfinished (a host killed at any
instant carries on where its tables stood).

`Host.listen(port, bind)` serves TCP; `Host.advertise` is `discovery.py`'s.

Connections are capped (docs/protocol.md "Connections and frames"): in total
(`max_connections`, default the soft RLIMIT_NOFILE less 64, at most 4096;
`Host.run` first raises the soft limit towards the hard one) and per address
(`max_per_address`). A newcomer over the total evicts the oldest connection
that has not said `hello`, or is refused `host_full`; one over its address's
cap is refused `too_many_connections`. `hello_timeout` and `frame_timeout`
are `conn.py`'s deadlines, kept for every connection by one task (`Sweeper`).
A connection from an address that had one cut off for its messages
(`rate_limited`, `too_many_errors`) in the last `CUT_OFF_MEMORY` seconds
starts with `CUT_OFF_START` messages in its rate bucket, not a fresh burst. Every log line the host writes shows peer text
escaped (`escape`): no peer can forge a line of the log.
"""

from __future__ import annotations

import datetime
import logging
import random
import resource
from typing import Any

import trio

from lanmatch.net.conn import FRAME_TIMEOUT, HELLO_TIMEOUT, Connection, Sweeper, escape, refuse
from lanmatch.net.keeper import StoreKeeper
from lanmatch.net.tls import Identity
from lanmatch.protocol import DeltaSender, RemoteProtocolError, check_outgoing_host
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
MAX_CONNECTIONS = 4096  # the total cap's ceiling (default: the soft open-file limit less FD_SPARE)
FD_SPARE = 64  # file descriptors kept for the store, the listeners, mDNS and the log
MAX_PER_ADDRESS = 64  # connections from one address
CUT_OFF_MEMORY = 10.0  # seconds a cut-off (`rate_limited`, `too_many_errors`) weighs on its address's new connections
CUT_OFF_START = 5.0  # ... which start with this many messages in their rate bucket (not its full burst)
CUT_OFF_CODES = frozenset({"rate_limited", "too_many_errors"})

__all__ = ["Host", "Peer", "RoomActor"]


def raise_nofile_limit() -> int:
    """Raise the soft RLIMIT_NOFILE towards the hard one; the soft limit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)
    if want > soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
            soft = want
        except (ValueError, OSError):
            pass
    return soft


def default_max_connections(soft: int) -> int:
    return max(1, min(MAX_CONNECTIONS, soft - FD_SPARE))


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
        max_connections: int | None = None,
        max_per_address: int = MAX_PER_ADDRESS,
        hello_timeout: float = HELLO_TIMEOUT,
        frame_timeout: float = FRAME_TIMEOUT,
        rooms_per_peer: int = Limits.rooms_per_peer,
        rooms_per_address: int = Limits.rooms_per_address,
        wrong_passwords: float = Limits.wrong_passwords,
        new_profiles: int = Limits.new_profiles,
        page: int = Limits.page,
        seat_hold: float = Limits.seat_hold,
        tls: Identity | bool = True,
    ):
        self.name = name
        # every connection is TLS 1.3 (docs/protocol.md section 1): this identity's, or the process's
        # own (True); False serves plain TCP, for the benchmark that sets the two side by side only
        self.identity = Identity.ephemeral() if tls is True else (tls or None)
        self.fingerprint = self.identity.fingerprint if self.identity is not None else None
        self.max_connections = max_connections  # None: set by `run` from the open-file limit
        self.max_per_address = max_per_address
        self.hello_timeout = hello_timeout
        self.frame_timeout = frame_timeout
        self._conns: dict[int, Connection] = {}  # served connections, oldest first
        self._ungreeted: dict[int, Connection] = {}  # those that have not said hello yet, oldest first
        self.sweeper: Sweeper | None = None  # every connection's clocks, one task (set by `run`)
        self._per_address: dict[str, int] = {}
        self._cut_off: dict[str, float] = {}  # address -> when a connection from it was last cut off for its messages
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
            limits=Limits(rate=rate, burst=burst, rooms_per_peer=rooms_per_peer, rooms_per_address=rooms_per_address,
                          wrong_passwords=wrong_passwords, new_profiles=new_profiles, page=page,
                          seat_hold=seat_hold),
            bot_delay=bot_delay,
            person_bot_delay=person_bot_delay,
            nonces=random.SystemRandom(),
            fingerprint=self.fingerprint,
        )
        self._nursery: trio.Nursery | None = None
        self._handoffs: list[tuple[RoomActor, tuple[str, Peer, Any]]] | None = None  # posts to rooms handled after the lobby's effects
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
        soft = raise_nofile_limit()
        if self.max_connections is None:
            self.max_connections = default_max_connections(soft)
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            self.sweeper = await nursery.start(Sweeper(min(self.heartbeat, self.dead_after) / 2).run)
            if self.store is not None:
                self.resume_matches()
                self.reopen_rooms()
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

    @property
    def _tls_context(self):
        return self.identity.server_context if self.identity is not None else None

    def summary(self) -> dict[str, Any]:
        """What the mDNS TXT record tells: open rooms, free seats, games,
        passwords, and the certificate's fingerprint."""
        summary = self.lobby.summary()
        if self.fingerprint is not None:
            summary["fp"] = self.fingerprint
        return summary

    def execute(self, effects: list[Any]) -> None:
        """Carry out what the lobby or a room session decided, in order."""
        for e in effects:
            t = type(e)
            if t is Send:
                sender = e.peer.tags.get("deltas")
                e.peer.link.send(e.msg if sender is None else _numbered(sender, e.msg))
            elif t is Views:
                e.room.link._send_views(only=e.peers)
            elif t is Post:
                e.room.link.post(e.item)
            elif t is Close:
                e.peer.link.close(e.code, e.msg)
            elif t is Notify:
                self._notify()
            elif t is Log:
                log.log(e.level, e.fmt, *map(escape, e.args))
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

    def reopen_rooms(self) -> list[RoomActor]:
        """Open again every room the store kept that is not playing a resumed
        match (called by `run`, after `resume_matches`): rooms between games or
        waiting for their first deal when the host stopped, their people's
        seats held for them. A kept room that cannot be opened again is
        forgotten (logged). Returns the reopened rooms."""
        assert self.keeper is not None and self._nursery is not None
        actors = []
        now = trio.current_time()
        for name, data, _saved in self.keeper.open_rooms():
            if name in self.lobby.rooms:  # its game was resumed: that room is kept anew as it goes
                continue
            try:
                session = self.lobby.reopen(name, data, now)
            except Exception:
                log.exception("room %r cannot be opened again: forgotten", name)
                if self.strict:
                    raise
                self.keeper.forget_room(name)
                continue
            self.execute(self.lobby.drain())
            actors.append(session.link)
        return actors

    # ------------------------------------------------------------ peers

    def _admit(self, address: str | None) -> tuple[str, str] | None:
        """Make room for a new connection from `address`, or say why not (code, sentence)."""
        if address is not None and self._per_address.get(address, 0) >= self.max_per_address:
            return "too_many_connections", f"At most {self.max_per_address} connections from one address."
        cap = self.max_connections if self.max_connections is not None else default_max_connections(
            resource.getrlimit(resource.RLIMIT_NOFILE)[0])
        if len(self._conns) < cap:
            return None
        while self._ungreeted:
            cid, old = next(iter(self._ungreeted.items()))  # the oldest
            if old.greeted:
                del self._ungreeted[cid]
                continue
            self._forget(cid)
            log.info("%s: evicted (never said hello) for a newcomer: the host is full", old.label)
            old.close("host_full", old._error("host_full", "The host is full; this connection never said hello.", True))
            return None
        return "host_full", f"The host serves its {cap} connections; try later."

    def _remember_cut_off(self, address: str) -> None:
        now = trio.current_time()
        if len(self._cut_off) >= 4096:  # bounded: forget what no longer weighs
            self._cut_off = {a: t for a, t in self._cut_off.items() if now - t < CUT_OFF_MEMORY}
        self._cut_off.pop(address, None)
        self._cut_off[address] = now

    def _forget(self, cid: int) -> None:
        self._ungreeted.pop(cid, None)
        entry = self._conns.pop(cid, None)
        if entry is not None:
            address = entry.address
            if address is not None:
                left = self._per_address[address] - 1
                if left:
                    self._per_address[address] = left
                else:
                    del self._per_address[address]

    async def serve_stream(self, stream: trio.abc.Stream) -> None:
        """Serve one peer on `stream` until it goes."""
        address = _address(stream)
        refused = self._admit(address)
        if refused is not None:
            log.info("refused a connection from %s: %s", address, refused[0])
            await refuse(stream, *refused, tls=self._tls_context)
            return
        conn = Connection(stream, numbered=True, outbox=self.outbox, heartbeat=self.heartbeat, dead_after=self.dead_after,
                          hello_timeout=self.hello_timeout, frame_timeout=self.frame_timeout, tls=self._tls_context,
                          sweeper=self.sweeper)
        conn.address = address
        self._conns[conn.id] = conn
        self._ungreeted[conn.id] = conn
        if address is not None:
            self._per_address[address] = self._per_address.get(address, 0) + 1
        now = trio.current_time()
        peer = self.lobby.connect(conn.id, conn.label, now, conn, address=address or "")
        if address is not None and now - self._cut_off.get(address, -CUT_OFF_MEMORY) < CUT_OFF_MEMORY:
            peer.bucket.level = min(peer.bucket.level, CUT_OFF_START)  # no fresh burst for reconnecting (section 14)

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
            self._forget(conn.id)
            if address is not None and conn.close_reason in CUT_OFF_CODES:
                self._remember_cut_off(address)
            self.execute(self.lobby.gone(peer))
            # a liveness probe (discovery's check: nothing, or a hello, then close) is not news
            log.log(logging.DEBUG if conn.recv_frames <= 1 else logging.INFO,
                    "%s (%s) gone: %s", escape(conn.label), escape(peer.name), conn.close_reason)

    def _watch(self, peer: Peer, msg: dict[str, Any]) -> None:
        if self.strict:
            check_outgoing_host(msg)
        if self.on_wire is not None:
            self.on_wire(peer, msg)

    def _guarded(self, peer: Peer, msg: dict[str, Any]) -> None:
        """`Lobby.receive`, where a bug of ours costs this peer its connection,
        loudly in the log, and never the host (unless `strict`: tests)."""
        if type(msg) is dict and msg.get("type") == "hello" and peer.name is None:
            # views after the first as deltas (docs/protocol.md, "Deltas"): set before the hello is
            # served, so that a seat taken back with a token gets its first view numbered
            if msg.get("deltas") is True:
                peer.tags.setdefault("deltas", DeltaSender())
            else:
                peer.tags.pop("deltas", None)
        self._handoffs = []
        try:
            self.execute(self.lobby.receive(peer, msg, trio.current_time()))
        except RemoteProtocolError:
            raise
        except Exception:
            log.exception("bug while serving %s: message %.200r", escape(peer.label), msg)
            self.execute(self.lobby.drain())  # what was decided before the failure
            if self.strict:
                raise
            self.lobby.out.error(peer, "internal", "The host failed on that message (its bug, logged).", fatal=True)
            self.execute(self.lobby.drain())
        finally:
            handoffs, self._handoffs = self._handoffs, None
            for actor, item in handoffs:  # the rooms' turns, in the order the lobby posted them
                actor.handle_now(item)
            conn = peer.link
            conn.label = peer.label
            if not conn.greeted and peer.name is not None:
                conn.greeted = True
                self._ungreeted.pop(conn.id, None)


def _numbered(sender: DeltaSender, msg: dict[str, Any]) -> dict[str, Any]:
    """A message to a peer that takes deltas, as its view's numbering needs:
    a snapshot's view is numbered (its next view a delta of it); after
    `left` or `bad_token` it holds no view (the next one goes in full)."""
    typ = msg["type"]
    if typ == "snapshot":
        if msg["view"] is None:
            sender.reset()
        else:
            msg = {**msg, "view": sender.full(msg["view"])}
    elif typ == "left" or (typ == "error" and msg.get("code") == "bad_token"):
        sender.reset()
    return msg


def _sent(peer: Peer | None) -> bool:
    """Nothing of `peer`'s waits in its outbox (its last message went to the socket)."""
    link = getattr(peer, "link", None)
    return bool(getattr(link, "idle", False))


def _address(stream: trio.abc.Stream) -> str | None:
    """The peer's IP address (None: not a socket)."""
    sock = getattr(stream, "socket", None)
    try:
        return sock.getpeername()[0] if sock is not None else None
    except (OSError, IndexError, TypeError):
        return None


class RoomActor:
    """The one task that owns a room's session (see the module docstring)."""

    def __init__(self, host: Host, session: RoomSession):
        self.host = host
        self.session = session
        self._send, self._recv = trio.open_memory_channel[Any](INBOX)
        self._waiting: trio.CancelScope | None = None  # set while the task waits on an empty inbox
        self._posts = 0  # messages put in the inbox

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
        """Hand a message to the room's task (never waits), or, while the task
        waits on an empty inbox and a peer's message is being served, to
        `handle_now` once the lobby's effects are carried out."""
        handoffs = self.host._handoffs
        if self._waiting is not None and handoffs is not None:
            handoffs.append((self, item))
            return
        self._enqueue(item)

    def handle_now(self, item: tuple[str, Peer, Any]) -> None:
        """Handle `item` in the caller's task, as the room's task would have
        (it waits on an empty inbox: nothing is under way in the room). The
        task is woken if something is due at once or views wait; else its wait
        takes the new deadline. If the task got a message meanwhile, or the
        room closed, `item` goes to the inbox behind it."""
        waiting, s = self._waiting, self.session
        if waiting is None or s.closed:
            self._enqueue(item)
            return
        self._waiting = None  # what the handling posts to this room goes to the inbox
        posts = self._posts
        self._handle(*item)
        if s.rest_pending and _sent(s.rest_after):
            self.host.execute(s.flush_rest())
        if self._posts != posts:
            return  # the task has been handed a message: it takes over from here
        if s.closed or s.rest_pending or s.deadline() <= trio.current_time():
            waiting.cancel()
        else:
            waiting.deadline = s.deadline()
            self._waiting = waiting

    def _enqueue(self, item: tuple[str, Peer, Any]) -> None:
        self._waiting = None
        self._posts += 1
        try:
            self._send.send_nowait(item)
        except trio.WouldBlock:
            item[1].link.send(error_message("busy", f"Room {self.room.name!r} is busy; try again.", ref=item[0]))
        except trio.ClosedResourceError:  # the room has just closed
            if item[0] != "gone":
                item[1].link.send(error_message("no_room", f"Room {self.room.name!r} has closed.", ref=item[0]))

    def stop(self) -> None:
        """The room closed: nothing more is posted to it."""
        self._waiting = None
        self._send.close()

    # ------------------------------------------------------------ the task

    async def run(self) -> None:
        s, execute = self.session, self.host.execute
        execute(s.opened(trio.current_time()))
        while not s.closed:
            with trio.move_on_at(s.deadline()) as waiting:
                try:
                    try:
                        item = self._recv.receive_nowait()
                        await trio.lowlevel.cancel_shielded_checkpoint()  # the others' turn, as `receive` gives
                    except trio.WouldBlock:
                        self._waiting = waiting  # the inbox is empty: `handle_now` may serve it
                        try:
                            item = await self._recv.receive()
                        finally:
                            self._waiting = None
                    self._handle(*item)
                    if not self._drain():
                        return
                except (trio.EndOfChannel, trio.ClosedResourceError):
                    return
            if s.rest_pending:
                # the actor's own view goes out first: it went straight to its
                # socket (`Connection.send` while the writer is idle), or two
                # checkpoints let its writer send it before the others' views
                # are built and sent
                if not _sent(s.rest_after):
                    await trio.sleep(0)
                    await trio.sleep(0)
                execute(s.flush_rest())
            if not s.closed:
                await self._timers()

    def _drain(self) -> bool:
        """Handle whatever queued up in the inbox, without waiting. False when
        the inbox has closed (the room is gone)."""
        s, execute = self.session, self.host.execute
        while not s.closed:
            try:
                item = self._recv.receive_nowait()
            except trio.WouldBlock:
                break
            except (trio.EndOfChannel, trio.ClosedResourceError):
                return False
            execute(s.flush_rest())
            self._handle(*item)
        return True

    async def _timers(self) -> None:
        """The due clocks, one at a time, taking turns with the inbox: after
        each move the task yields and handles what queued up meanwhile, so a
        room whose bots are always due still answers its messages at once
        (docs/protocol.md, "Limits and abuse")."""
        s, execute = self.session, self.host.execute
        now = trio.current_time()
        execute(s.wake(now))
        while not s.closed and s.timer_due(now):
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
                log.exception("room %s: the referee failed; the room is closed", escape(s.room.name))
                if self.host.strict:
                    raise
                execute(s.fail())
                return
            execute(s.played(played, trio.current_time()))
            await trio.sleep(0)
            if not self._drain():
                return
            if s.rest_pending:  # an `act` drained meanwhile: its peer's view first, as in `run`
                if not _sent(s.rest_after):
                    await trio.sleep(0)
                execute(s.flush_rest())
            now = trio.current_time()

    def _handle(self, typ: str, peer: Peer, msg: Any) -> None:
        """One message; a bug of ours is logged and answered, and the room goes on
        (unless the host is `strict`: tests)."""
        s, execute = self.session, self.host.execute
        try:
            execute(s.handle(typ, peer, msg, trio.current_time()))
        except Exception:
            log.exception("room %s: bug while handling %s from %s", escape(s.room.name), typ, escape(peer.label))
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
        msgs = s.view_messages([p.seat for p in targets], trio.current_time())
        for p in targets:
            msg = msgs[p.seat]
            sender = p.tags.get("deltas")
            p.link.send(msg if sender is None else sender.next(msg, s.room.referee))
