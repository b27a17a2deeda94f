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

With a store (`Host(store=...)`, docs/store.md "Host wiring"), the room task
also keeps the match in it: `begin_match` when a game starts (the stakes of a
coin room are posted in that transaction), every applied action recorded
before anyone is sent the state it made, `leave` when a person gives up a
running game (the fee), `finish_match` when it ends (the pot paid). Each is a
short synchronous sqlite transaction on the host's thread. `Host.run` first
resumes every match the store holds unfinished (a host killed at any instant
carries on where its tables stood).

`Host.listen(port, bind)` serves TCP; `Host.advertise` is `discovery.py`'s.
"""

from __future__ import annotations

import contextlib
import datetime
import logging
import math
import random
import sqlite3
import time
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
from lanmatch.rules import GAMES
from lanmatch.store import (
    BadName,
    InsufficientCoins,
    MatchRecord,
    Profile,
    ReplayError,
    SeatSpec,
    Store,
    StoreError,
    WrongKey,
    rebuild_game,
)
from lanmatch.table import AUTOPILOT_PACE, Referee, Rejected, Room, RoomError, Seat

log = logging.getLogger("lanmatch.host")

RATE = 50.0  # messages a second a peer may send on average (accepted actions are free) ...
BURST = 100.0  # ... in bursts of up to this many
MAX_ERRORS = 10  # bad messages before a peer is cut off
MAX_ROOMS = 256
INBOX = 1024
LOBBY_TYPES = ("hello", "ping", "list", "create")
STORE_FAILED = "The host's store failed (logged)"


@dataclass(eq=False)
class Peer:
    """What the host knows about one connection."""

    conn: Connection
    bucket: TokenBucket
    name: str | None = None
    agent: str = "person"
    room: RoomActor | None = None
    seat: int | None = None  # None: not seated (lobby or spectator)
    profile: Profile | None = None  # recognised at hello (a host with a store)
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
        store: Store | None = None,
    ):
        self.name = name
        self.store = store  # None: nothing is kept (no profiles, no coin rooms, no resume)
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
        open_rooms = [a.room for a in self.rooms.values() if a.room.state != "playing"]
        return {
            "rooms": len(open_rooms),
            "free": sum(len(r.free_seats()) for r in open_rooms),
            "games": sorted({a.room.game for a in self.rooms.values()}) or list(GAMES),
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
        first_directs: bool = False,
        **settings: Any,
    ) -> RoomActor:
        """Create a room and start its task. `seed` fixes the deals (game k of
        the room is dealt from `seed + k - 1`; default: random).
        `first_directs`: a room made in-process (no creating peer), whose first
        peer to take a seat becomes its creator (`lanmatch play`: you).

        Raises:
            RoomError: `room_exists`, `too_many_rooms`, or `bad_room` (settings).
        """
        if name in self.rooms:
            raise RoomError("room_exists", f"There is already a room {name!r}.")
        if len(self.rooms) >= MAX_ROOMS:
            raise RoomError("too_many_rooms", f"This host holds {MAX_ROOMS} rooms at most.")
        settings.setdefault("bot_delay", self.bot_delay)
        if settings.get("stake") and self.store is None:
            raise RoomError("bad_room", "This host keeps no store, so it has practice rooms only (no stake).")
        if settings.get("mode") == "daily":
            opts = dict(settings.get("options") or {})
            opts.setdefault("date", datetime.datetime.now(datetime.UTC).date().isoformat())
            settings["options"] = opts
        room = Room(name, owner=owner.conn.id if owner else None, **settings)
        actor = RoomActor(self, room, auto_start=auto_start, start_after=start_after, rematch_after=rematch_after, seed=seed)
        actor.owner = owner
        actor.first_directs = first_directs and owner is None
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

    # ------------------------------------------------------------ resuming

    def resume_matches(self) -> list[RoomActor]:
        """Rebuild a room for every match the store holds unfinished (called by
        `run`): the deal and the stored actions replayed into a new referee,
        people's seats waiting for their peers' tokens, bots playing on, every
        seat's clock started in full now. A match whose actions already end
        the game is settled instead; one that cannot be replayed (or rebuilt)
        is abandoned, its stakes returned. Returns the resumed rooms."""
        assert self.store is not None and self._nursery is not None
        try:
            records = self.store.unfinished()
        except (StoreError, sqlite3.Error) as e:
            self.store_error("read the unfinished matches (none resumed)", e)
            return []
        actors = []
        for record in records:
            try:
                actor = self._resume_match(record)
            except Exception:
                log.exception("match %d (room %r) cannot be resumed: abandoned, its stakes returned", record.id, record.room)
                if self.strict:
                    raise
                with contextlib.suppress(StoreError, sqlite3.Error):
                    self.store.abandon_match(record.id, time.time())
                continue
            if actor is not None:
                actors.append(actor)
        return actors

    def _resume_match(self, record: MatchRecord) -> RoomActor | None:
        """Raises: RoomError, StoreError, sqlite3.Error, ValueError (a record
        this host cannot seat again: the caller abandons it)."""
        store = self.store
        assert store is not None and self._nursery is not None
        try:
            g = rebuild_game(record)
        except ReplayError as e:
            log.warning("%s: abandoned, its stakes returned", e)
            store.abandon_match(record.id, time.time())
            return None
        if g.outcome is not None:  # killed between its last action and its payout
            store.finish_match(record.id, g.outcome, time.time())
            log.info("match %d (room %r) had ended before the restart: settled now", record.id, record.room)
            return None
        s = record.settings
        name = record.room or f"match {record.id}"
        if name in self.rooms:
            name = f"{name[:20]} #{record.id}"
        room = Room(
            name,
            record.game,
            record.table,
            record.players,
            options={k: v for k, v in record.options.items() if k != "mode"},
            clock=s.get("clock"),
            mode=record.options.get("mode", "single"),
            password=s.get("password", ""),
            bot_level=s.get("bot_level", "medium"),
            bot_delay=float(s.get("bot_delay", self.bot_delay)),
            stake=record.stake,
        )
        bots: dict[int, str] = {}
        agents: dict[int, str] = {}
        profile_of: dict[int, Profile] = {}
        for x in record.seats:
            if x.token is not None and not x.left:  # a person (or a bot node) who comes back with its token
                agent = "bot" if x.kind == "bot" else "person"
                room.seats[x.seat] = Seat(x.name, x.token, agent, connected=False)
                agents[x.seat] = agent
                if x.profile_id is not None:
                    profile_of[x.seat] = store.get_profile(x.profile_id)
            else:  # a room bot, or the bot that plays for a player who left
                bots[x.seat] = x.bot_level if x.kind == "bot" and x.bot_level else room.bot_level
        ref = Referee(
            record.game,
            record.table,
            record.players,
            record.seed,
            now=trio.current_time(),  # every seat's clock restarts in full
            options=record.options,
            clock=room.clock,
            bots=bots,
            agents=agents,
            bot_delay=room.bot_delay,
            first_seat=record.first_seat,
            engine=g,
        )
        room.resume(ref, games=int(s.get("games", 1)), tally=s.get("tally"))
        start_after = s.get("start_after")
        actor = RoomActor(
            self,
            room,
            auto_start=bool(s.get("auto_start", False)),
            start_after=None if start_after is None else float(start_after),
            rematch_after=float(s.get("rematch_after", 2.0)),
            seed=s.get("room_seed"),
        )
        actor.match_id = record.id
        actor.stored = actor.base = len(record.actions)  # the new referee's log[0] is action `stored`
        actor.kinds = [x.kind for x in record.seats]
        actor.profile_of = profile_of
        actor.awaited = set(agents)
        self.rooms[name] = actor
        for x in room.seats:
            if x is not None:
                self.tokens[x.token] = actor
        self._nursery.start_soon(actor.run)
        self._notify()
        log.info("room %s: resumed match %d at action %d (%d seats wait for their peers)",
                 name, record.id, len(record.actions), len(agents))
        return actor

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
        welcome: dict[str, Any] = {"protocol": PROTOCOL_VERSION, "host": self.name, "server": f"lanmatch {__version__}",
                                   "coins": self.store is not None, "profile": None}
        refusal = None
        if msg.get("profile") is not None and self.store is not None:
            welcome["profile"], refusal = self._profile(peer, msg["profile"])
        peer.send("welcome", **welcome)
        if refusal is not None:
            peer.error(*refusal, ref="hello")
        token = msg.get("token")
        if token is not None:
            actor = self.tokens.get(token)
            if actor is None:
                peer.error("bad_token", "That seat token is not known here (wrong, or the seat was freed).", ref="hello")
            else:
                actor.post(("resume", peer, msg))

    def _profile(self, peer: Peer, given: dict[str, Any]) -> tuple[dict[str, Any] | None, tuple[str, str] | None]:
        """Recognise (or make) the profile a peer brought: `(welcome's profile, None)`,
        or `(None, (code, sentence))` when it is refused."""
        assert self.store is not None
        try:
            profile = self.store.profile(given["name"], given["key"], time.time())
            balance = self.store.balance(profile.id)
        except WrongKey as e:
            return None, ("wrong_key", str(e))
        except (BadName, ValueError) as e:
            return None, ("bad_profile", f"That profile cannot be used here: {e}")
        except (StoreError, sqlite3.Error) as e:
            self.store_error("make or find a profile", e)
            return None, ("store_failed", f"{STORE_FAILED}: your profile is not recognised now; practice rooms still work.")
        peer.profile = profile
        log.info("%s: profile %r (id %d, %d coins)", peer.conn.label, profile.name, profile.id, balance)
        return {"name": profile.name, "balance": balance}, None

    def store_error(self, what: str, e: BaseException) -> None:
        """Log a failed store call; a refusal or a bad argument (our bug, not
        sqlite's failure) is raised again when the host is `strict` (tests)."""
        log.error("store: could not %s: %s: %s", what, type(e).__name__, e)
        if self.strict and not isinstance(e, sqlite3.Error):
            raise e

    def check_stake(self, peer: Peer, stake: int) -> None:
        """May `peer` sit at a coin room of `stake`? A bot node without a profile
        may (the house posts for it); a person needs a profile holding the stake.

        Raises:
            RoomError: `need_profile`, `insufficient_coins`, `store_failed`.
        """
        if peer.profile is None:
            if peer.agent == "bot":
                return
            raise RoomError(
                "need_profile",
                f"A coin room (stake {stake}) needs a profile: say hello with your profile, or pick a practice room.",
            )
        assert self.store is not None
        try:
            held = self.store.balance(peer.profile.id)
        except (StoreError, sqlite3.Error) as e:
            self.store_error("read a balance", e)
            raise RoomError("store_failed", f"{STORE_FAILED}: coin rooms cannot be joined now.") from None
        if held < stake:
            raise RoomError(
                "insufficient_coins",
                f"You hold {held} coins, less than the stake of {stake}; pick a smaller stake or a practice room.",
            )

    def _create(self, peer: Peer, msg: dict[str, Any]) -> None:
        if peer.room is not None:
            peer.error("in_room", f"Leave room {peer.room.room.name!r} first.", ref="create")
            return
        game = GAMES.get(msg["game"])
        seats = msg.get("seats", min(4, game.max_players) if game else 4)
        if game is not None and peer.profile is None and seats > game.guest_max_players:
            peer.error("bad_room", f"A guest's room (no profile) seats up to {game.guest_max_players}.", ref="create")
            return
        stake = msg.get("stake", 0)
        if stake and msg.get("sit", True) and self.store is not None:
            try:
                self.check_stake(peer, stake)
            except RoomError as e:
                peer.error(e.code, e.reason, ref="create")
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
                stake=stake,
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
        self.first_directs = False  # the first peer to sit becomes the creator
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
        # the store's side (a host with a store): the match being played
        self.match_id: int | None = None
        self.stored = 0  # its actions in the store
        self.base = 0  # the store index of referee.log[0] (a resumed referee's log starts empty)
        self.kinds: list[str] = []  # each seat's kind in the store: player, guest, bot
        self.profile_of: dict[int, Profile] = {}  # seat -> the profile sitting there
        self.awaited: set[int] = set()  # a resumed table: seats whose peers have not come back yet

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
                self._auto_start(now)
            elif self.start_after is not None:  # nobody to play with yet: look again later
                self._start_at = now + self.start_after
            else:  # wait until the seats are full (`_join` starts it)
                self._start_at = None
        ref = self.room.referee
        fired = 0
        while ref is not None and self.room.state == "playing" and not self.closed:
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
                if room.stake and room.state == "playing":
                    raise RoomError("wrong_state", "Nobody is kicked out of a running coin game; wait for its end.")
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
        p = peer.profile
        if p is not None and any(q.id == p.id and self.room.seats[s] is not None for s, q in self.profile_of.items()):
            raise RoomError("profile_seated", f"The profile {p.name!r} already sits at this table.")
        if self.room.stake:
            self.room.check_watch(msg.get("password"))  # a wrong password says so first
            self.host.check_stake(peer, self.room.stake)
        seat, token = self.room.join(
            peer.name or "?", self.host.rng, agent=peer.agent, seat=msg.get("seat"), password=msg.get("password")
        )
        if p is not None:
            self.profile_of[seat] = p
        self.spectators.discard(peer)
        peer.room, peer.seat, peer.watching = self, seat, False
        self.seated[seat] = peer
        if self.first_directs:
            self.owner, self.first_directs = peer, False
        self.host.tokens[token] = self
        peer.send("seated", room=self.room.name, seat=seat, token=token)
        self._send_room()
        self.host._notify()
        if self.auto_start and self.room.is_full() and self.room.state != "playing":
            self._auto_start(trio.current_time())

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
        self.awaited.discard(seat)
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
        """Free a seat; a person leaving a running game leaves the stored match
        first (in a coin game: the stake forfeited, the fee charged, told).

        Raises:
            RoomError: `store_failed` (nothing changed: the seat is kept).
        """
        room = self.room
        x = room.seats[seat]
        fee = None
        if x is not None and room.state == "playing" and self.match_id is not None and self.kinds[seat] != "bot":
            try:
                fee = self.host.store.leave(self.match_id, seat, time.time())
            except (StoreError, sqlite3.Error, ValueError) as e:
                self.host.store_error(f"record that seat {seat} of match {self.match_id} left", e)
                raise RoomError("store_failed", f"{STORE_FAILED}: your leaving could not be recorded; you keep your seat.") from None
        if x is not None:
            self.host.tokens.pop(x.token, None)
        profile = self.profile_of.pop(seat, None)
        peer = self.seated.get(seat)
        if fee is not None and room.stake and profile is not None and peer is not None:
            self._tell_coins(peer, profile, -fee, "fee", self.match_id)
        room.leave(seat, now)
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
        """A bug of ours broke this table: its stored match is abandoned (the
        stakes go back), its members told, the room closed."""
        self._abandon()
        self._close("This table failed (a host bug, logged); sorry.")

    def _abandon(self) -> bool:
        """Abandon the stored match of the game being played: every stake goes
        back (each player told: `coins`, reason `refund`). False when the store
        refused too: the match stays live with its pot, resumed at the next start."""
        mid, self.match_id = self.match_id, None
        if mid is None:
            return True
        try:
            settlement = self.host.store.abandon_match(mid, time.time())
        except (StoreError, sqlite3.Error) as e:
            log.error("room %s: match %d could not be abandoned (%s): it stays live with its pot and "
                      "resumes at the next start", self.room.name, mid, e)
            return False
        log.warning("room %s: match %d abandoned, every stake returned", self.room.name, mid)
        if self.room.stake:
            for s, kind in enumerate(self.kinds):
                peer, profile = self.seated.get(s), self.profile_of.get(s)
                if kind == "player" and peer is not None and profile is not None:
                    self._tell_coins(peer, profile, settlement.paid(profile.id), "refund", mid)
        return True

    def _close(self, reason: str) -> None:
        """Tell the members why, and close the room."""
        for p in [*self.seated.values(), *self.spectators]:
            p.send("left", room=self.room.name, reason=reason)
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

    def _auto_start(self, now: float) -> None:
        """A headless room's start: a refusal is logged and tried again later."""
        try:
            self._start(now)
        except RoomError as e:
            log.warning("room %s: cannot start: %s", self.room.name, e.reason)
            self._start_at = now + max(1.0, self.rematch_after)

    def _start(self, now: float) -> None:
        """Raises: RoomError `wrong_state`, or (a host with a store) the refusals of `_begin`."""
        room = self.room
        if room.state == "playing":
            raise RoomError("wrong_state", f"Room {room.name!r} is already playing.")
        seed = self.host.rng.getrandbits(63) if self.seed is None else self.seed + room.games
        if self.host.store is not None:
            self._begin(seed)
        room.start(now, seed)
        self._start_at = None
        log.info("room %s: game %d started (%s%s)", room.name, room.games, room.table or room.game,
                 f", match {self.match_id}" if self.match_id is not None else "")
        self._send_room()
        self._send_views()
        self.host._notify()
        if room.stake and self.match_id is not None:
            for s, kind in enumerate(self.kinds):
                peer, profile = self.seated.get(s), self.profile_of.get(s)
                if kind == "player" and peer is not None and profile is not None:
                    self._tell_coins(peer, profile, -room.stake, "stake", self.match_id)

    def _begin(self, seed: int) -> None:
        """Store the match about to be dealt from `seed` (the stakes of a coin
        room posted in the same transaction). A player who no longer holds the
        stake (they played elsewhere meanwhile) loses the seat first.

        Raises:
            RoomError: `insufficient_coins` (those seats were freed), or
                `store_failed` (nothing was stored; the game does not start).
        """
        store, room = self.host.store, self.room
        assert store is not None
        if room.stake:
            short = []
            for s, p in sorted(self.profile_of.items()):
                try:
                    held = store.balance(p.id)
                except (StoreError, sqlite3.Error) as e:
                    self.host.store_error("read a balance", e)
                    raise RoomError("store_failed", f"{STORE_FAILED}: the game did not start.") from None
                if held < room.stake and room.seats[s] is not None:
                    short.append((s, p, held))
            for s, _, held in short:
                peer = self.seated.get(s)
                self._free(s, trio.current_time())  # not playing: nothing to store
                if peer is not None:
                    self._detach(peer)
                    peer.send("left", room=room.name,
                              reason=f"You hold {held} coins, less than the stake of {room.stake}, so you lost your seat.")
            if short:
                self._send_room()
                names = ", ".join(p.name for _, p, _ in short)
                raise RoomError("insufficient_coins", f"{names} no longer held the stake of {room.stake}: seat(s) freed.")
        specs = []
        for s, x in enumerate(room.seats):
            profile = self.profile_of.get(s)
            if x is None:
                specs.append(SeatSpec.bot(room.bot_level, name=f"Bot {s} ({room.bot_level})"))
            elif profile is not None:
                specs.append(SeatSpec.player(profile, token=x.token))
            elif x.agent == "bot":
                specs.append(SeatSpec.bot(None, name=x.name, token=x.token))
            else:
                specs.append(SeatSpec.guest(x.name, token=x.token))
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
        try:
            match_id = store.begin_match(
                game=room.game, table=room.table, seats=specs, seed=seed, options=room.options,
                kind="coins" if room.stake else "practice", stake=room.stake, room=room.name,
                now=time.time(), settings=settings,
            )
        except InsufficientCoins as e:
            raise RoomError("insufficient_coins", str(e)) from None
        except (StoreError, sqlite3.Error, ValueError) as e:
            self.host.store_error(f"begin a match in room {room.name!r}", e)
            raise RoomError("store_failed", f"{STORE_FAILED}: the game did not start.") from None
        self.match_id, self.stored, self.base = match_id, 0, 0
        self.kinds = [x.kind for x in specs]

    def _record(self) -> bool:
        """Store the referee's new actions (before anyone is sent the state
        they made). Returns False when a store failure closed the room."""
        ref = self.room.referee
        if self.match_id is None or ref is None:
            return True
        new = ref.log[self.stored - self.base:]
        if not new:
            return True
        try:
            self.host.store.record_actions(self.match_id, self.stored, [entry[1:] for entry in new])
        except (StoreError, sqlite3.Error, ValueError) as e:
            return self._store_failed(f"record action {self.stored} of match {self.match_id}", e)
        self.stored += len(new)
        return True

    def _store_failed(self, what: str, e: BaseException) -> bool:
        """The store failed while a game runs: its match is abandoned (every stake
        returned). A practice game goes on unrecorded (True); a coin game is
        stopped and the room closed (False): it cannot go on without its record."""
        self.host.store_error(what, e)
        returned = self._abandon()
        if not self.room.stake:
            log.warning("room %s: the practice game goes on unrecorded", self.room.name)
            return True
        self._close(
            "The host's store failed, so this coin game was stopped"
            + (" and every stake returned" if returned else "; its pot is kept and the game resumes when the host restarts")
            + " (logged); sorry."
        )
        return False

    def _finish(self) -> None:
        """The game ended: settle the stored match (the pot paid, the stats
        written, one transaction) and tell each player of a coin game."""
        mid, ref = self.match_id, self.room.referee
        if mid is None or ref is None:
            return
        self.match_id = None
        try:
            settlement = self.host.store.finish_match(mid, ref.outcome, time.time())
        except (StoreError, sqlite3.Error, ValueError) as e:
            self.host.store_error(f"settle match {mid}", e)
            log.error("room %s: match %d stays live in the store (its pot too); it is settled at the next start",
                      self.room.name, mid)
            return
        if not self.room.stake:
            return
        winners = ref.outcome.get("winners") or []
        for s, kind in enumerate(self.kinds):
            peer, profile = self.seated.get(s), self.profile_of.get(s)
            if kind == "player" and peer is not None and profile is not None:
                reason = "win" if s in winners else ("loss" if winners else "draw")
                self._tell_coins(peer, profile, settlement.paid(profile.id), reason, mid)

    def _tell_coins(self, peer: Peer, profile: Profile, change: int, reason: str, match: int | None) -> None:
        """A `coins` message (only to a peer that brought a profile: others may not know the type)."""
        if peer.profile is None:
            return
        try:
            balance = self.host.store.balance(profile.id)
        except (StoreError, sqlite3.Error) as e:
            self.host.store_error("read a balance", e)
            return
        peer.send("coins", profile=profile.name, balance=balance, change=change, reason=reason,
                  room=self.room.name, match=match)

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
        """After every applied action: the store records it, then every member
        gets the new state. The peer who acted gets it first; the others' views
        follow from `run` (`_flush_rest`) before anything else happens in the room."""
        if not self._record():
            return
        if first is not None and first.seat is not None:
            self._send_views(only=[first])
            self._rest = first
        else:
            self._send_views()
        if self.room.game_ended():
            log.info("room %s: game %d over: %s", self.room.name, self.room.games, self.room.referee.outcome["winners"])
            self._finish()
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
            elif self.awaited:
                # a resumed table's seats whose peers never came back are freed
                # (as if they had gone between games): nobody left, it closes
                for s in sorted(self.awaited):
                    if self.room.seats[s] is not None and s not in self.seated:
                        self._free(s, trio.current_time())
                self.awaited.clear()
                self._maybe_close()
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
