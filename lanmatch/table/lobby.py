"""The host's lobby, sans-I/O: connections, hello, the room list, making rooms.

How this works. The host makes a `Peer` for every connection
(`Lobby.connect`) and hands the lobby every message the peer sends
(`receive(peer, msg, now)`), in order. The lobby applies the peer's rate
limit, checks the message against the catalogue (`check_peer_message`),
answers what is its own (`hello`, `ping`, `list`, `create`) and posts
everything about a room to that room's session (a `Post` effect: the room's
task handles it). It answers with effects (`effects.py`), like the room
sessions (`session.py`), and shares its `Outbox` with them; it does no I/O
and reads no clock.

The lobby holds what the rooms share: the rooms by name, the seat tokens,
the `rng` tokens and deals come from, the store's `Keeper` (None: a host
without a store: practice rooms only) and the `Limits`. A policy about
connections or rooms as a whole (how many, how fast, how long before
hello) belongs here, in one place: every connection comes in through
`connect` and `receive` and goes through `gone`; every room is made by
`create_room` or `resume` and dropped by `drop_room`.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from lanmatch import __version__
from lanmatch.protocol import (
    CLOCKS,
    PROTOCOL_VERSION,
    PROTOCOL_VERSIONS,
    RemoteProtocolError,
    check_peer_message,
)
from lanmatch.protocol.proofs import hello_proof, rekey_proof
from lanmatch.rules import GAMES
from lanmatch.table.bucket import TokenBucket
from lanmatch.table.effects import INFO, NOTIFY, Outbox, Post, StartRoom
from lanmatch.table.names import look_alike, normal_name
from lanmatch.table.referee import AUTOPILOT_PACE, Referee
from lanmatch.table.room import SEAT_HOLD, Room, RoomError, Seat
from lanmatch.table.session import Keeper, Match, RoomSession
from lanmatch.table.tournament import Tournament


@dataclass(frozen=True)
class Limits:
    """What the host allows a peer, and itself."""

    rate: float = 50.0  # messages a second a peer may send on average (accepted actions are free) ...
    burst: float = 100.0  # ... in bursts of up to this many
    max_errors: int = 10  # bad messages before a peer is cut off
    max_rooms: int = 256  # rooms on the host
    rooms_per_peer: int = 4  # open rooms one connection may have created
    rooms_per_address: int = 8  # ... and all the connections of one address
    wrong_passwords: float = 5.0  # wrong passwords a second, per address and per room (then `slow_down`)
    new_profiles: int = 5  # new profiles an hour per address (0: none)
    page: int = 100  # rooms in one `rooms` reply
    chat_rate: float = 0.5  # chat messages a second a peer may send on average ...
    chat_burst: float = 5.0  # ... in bursts of up to this many (then `chat_too_fast`)
    seat_hold: float = SEAT_HOLD  # seconds a dropped peer's seat (and its room) waits between games


@dataclass(eq=False)
class Peer:
    """What the host knows about one connection."""

    id: int
    label: str  # for the log: the connection's, then ":name" after hello
    bucket: TokenBucket
    link: Any = None  # the I/O layer's handle (the host's Connection); never used here
    name: str | None = None
    agent: str = "person"
    room: RoomSession | None = None
    seat: int | None = None  # None: not seated (lobby or spectator)
    profile: Any = None  # recognised at hello (a host with a store)
    watching: bool = False
    errors: int = 0
    nonce: str | None = None  # the `host` frame's (protocol 2's proofs are HMACs of it)
    unknown: tuple[str, str] | None = None  # a protocol-2 hello's unknown profile (name, proof): `register` may follow
    rekey: tuple[Any, str, str] | None = None  # (profile, its stored verifier, the hello's proof): a legacy `register` may follow
    closed: bool = False  # its connection has closed (the I/O layer says so at once)
    tags: dict[str, Any] = field(default_factory=dict)
    address: str = ""  # the peer's IP address ("" when unknown): the per-address limits


def guest_name(name: str) -> str:
    """What a guest whose name is a profile's sits as: "Ann (guest)" (at most 32 characters)."""
    tag = " (guest)"
    return name[: 32 - len(tag)].rstrip() + tag


class Lobby:
    """The host's lobby and the rooms' shared state. See the module docstring.

    `today()` is the host's calendar (the UTC date, `YYYY-MM-DD`), read when
    a daily room is made without a date.
    """

    def __init__(
        self,
        name: str,
        *,
        rng: Any,
        today: Callable[[], str],
        keeper: Keeper | None = None,
        limits: Limits = Limits(),  # noqa: B008 (frozen)
        bot_delay: float = 0.0,
        person_bot_delay: float = AUTOPILOT_PACE,
        nonces: Any = None,
        fingerprint: str | None = None,
    ):
        self.name = name
        self.fingerprint = fingerprint  # the host's TLS certificate's (None: plain TCP); legacy profiles move with it
        self.rng = rng  # tokens and deals (the host passes random.SystemRandom())
        self.nonces = nonces if nonces is not None else rng  # the `host` frames' nonces
        self.today = today
        self.keeper = keeper
        self.limits = limits
        self.bot_delay = bot_delay  # room bots' pause before a move, in rooms the host made
        self.person_bot_delay = person_bot_delay  # ... in rooms a person made (so they can follow)
        self.out = Outbox()
        self.rooms: dict[str, RoomSession] = {}
        self.tokens: dict[str, RoomSession] = {}
        self.peers: set[Peer] = set()
        self.new_profiles: dict[str, TokenBucket] = {}  # by address: the budget of new profiles
        self.wrong_passwords: dict[str, TokenBucket] = {}  # by address: the wrong-password budget

    def drain(self) -> list[Any]:
        return self.out.drain()

    def notify(self) -> None:
        self.out.add(NOTIFY)

    def summary(self) -> dict[str, Any]:
        """What the mDNS TXT record tells: rooms (all of them, `playing` of
        them playing), free seats of the rooms not playing, games, passwords."""
        open_rooms = [s.room for s in self.rooms.values() if s.room.state != "playing"]
        return {
            "rooms": len(self.rooms),
            "playing": len(self.rooms) - len(open_rooms),
            "free": sum(len(r.free_seats()) for r in open_rooms),
            "games": sorted({s.room.game for s in self.rooms.values()}) or list(GAMES),
            "password": any(s.room.password for s in self.rooms.values()),
        }

    # ------------------------------------------------------------ connections

    def connect(self, id: int, label: str, now: float, link: Any = None, *, address: str = "") -> Peer:
        """A new connection: its `Peer` (its rate limit starts full at `now`)."""
        peer = Peer(id, label, TokenBucket(self.limits.rate, self.limits.burst, now), link, address=address)
        self.peers.add(peer)
        return peer

    def greet(self, peer: Peer) -> list[Any]:
        """The host speaks first: the `host` frame (seq 1) with a fresh nonce."""
        peer.nonce = f"{self.nonces.getrandbits(128):032x}"
        self.out.tell(peer, "host", protocol=PROTOCOL_VERSION, versions=list(PROTOCOL_VERSIONS), name=self.name,
                      server=f"lanmatch {__version__}", nonce=peer.nonce)
        return self.out.drain()

    def gone(self, peer: Peer) -> list[Any]:
        """The connection ended: its room is told (`gone`: a seat is kept)."""
        self.peers.discard(peer)
        peer.closed = True
        if peer.room is not None:
            self.out.add(Post(peer.room, ("gone", peer, None)))
        return self.out.drain()

    def receive(self, peer: Peer, msg: dict[str, Any], now: float) -> list[Any]:
        """One message from `peer` (decoded, not yet checked).

        Raises: a bug of ours (the host closes that peer: `internal`).
        """
        out = self.out
        if not peer.bucket.take(now):
            out.error(peer, "rate_limited", f"More than {self.limits.rate:g} messages a second: cut off.", fatal=True)
            return out.drain()
        try:
            check_peer_message(msg)
        except RemoteProtocolError as e:
            self._bad(peer, e.code, e.message, msg.get("type") if isinstance(msg.get("type"), str) else None)
            return out.drain()
        typ = msg["type"]
        if peer.name is None and typ != "hello":
            self._bad(peer, "hello_first", "Say hello first: {type: hello, protocol, name}.", typ)
        elif typ == "ping":
            pass
        elif typ == "hello":
            self._hello(peer, msg, now)
        elif typ == "register":
            self._register(peer, msg["profile"], now)
        elif typ == "list":
            self._list(peer, msg.get("page", 0))
        elif typ == "create":
            self._create(peer, msg)
        elif typ in ("join", "watch"):
            session = self.rooms.get(msg["room"])
            if session is None:
                out.error(peer, "no_room", f"There is no room {msg['room']!r}; send list to see them.", ref=typ)
            elif peer.room is not None and peer.room is not session:
                out.error(peer, "in_room", f"Leave room {peer.room.room.name!r} first.", ref=typ)
            else:
                out.add(Post(session, (typ, peer, msg)))
        elif peer.room is None:
            if typ == "resync":
                out.tell(peer, "snapshot", room=None, seat=None, view=None)
            else:
                out.error(peer, "not_in_room", "Join or watch a room first.", ref=typ)
        else:
            out.add(Post(peer.room, (typ, peer, msg)))
        return out.drain()

    def password_bucket(self, peer: Peer, now: float) -> TokenBucket:
        """The wrong-password budget of `peer`'s address (all its connections)."""
        key = peer.address or f"#{peer.id}"
        bucket = self.wrong_passwords.get(key)
        if bucket is None:
            if len(self.wrong_passwords) >= 4096:  # forget the addresses whose budget is full again
                self.wrong_passwords = {k: b for k, b in self.wrong_passwords.items() if b.wait(now) == 0.0 and b.level < b.burst}
            rate = self.limits.wrong_passwords
            bucket = self.wrong_passwords[key] = TokenBucket(rate, rate, now)
        return bucket

    def _list(self, peer: Peer, page: int) -> None:
        """One page of the room list (`limits.page` rooms; page 0 for an old
        peer that asks for none): bounded under the frame cap however many
        rooms the host holds (names are at most 64 bytes)."""
        size = self.limits.page
        rooms = list(self.rooms.values())
        pages = max(1, -(-len(rooms) // size))
        chosen = rooms[page * size:(page + 1) * size]
        self.out.tell(peer, "rooms", rooms=[s.room.summary() for s in chosen], page=page, pages=pages)

    def _bad(self, peer: Peer, code: str, message: str, ref: str | None) -> None:
        peer.errors += 1
        if peer.errors >= self.limits.max_errors:
            self.out.error(peer, "too_many_errors", f"{message} ({peer.errors} bad messages: cut off)", fatal=True, ref=ref)
        else:
            self.out.error(peer, code, message, ref=ref)

    def _hello(self, peer: Peer, msg: dict[str, Any], now: float) -> None:
        out = self.out
        if msg["protocol"] not in PROTOCOL_VERSIONS:
            out.error(
                peer,
                "protocol_version",
                f"This host speaks lanmatch protocol {PROTOCOL_VERSION} (versions "
                f"{', '.join(map(str, PROTOCOL_VERSIONS))}) and you sent {msg['protocol']}: "
                "update lanmatch on the older side.",
                fatal=True,
                ref="hello",
            )
            return
        if peer.name is not None:
            out.error(peer, "hello_twice", "Hello was already said on this connection.", ref="hello")
            return
        name = normal_name(msg["name"])
        if not name:
            self._bad(peer, "bad_field", "A name needs a visible character.", "hello")
            return
        peer.name = name
        peer.agent = msg.get("agent", "person")
        peer.label = f"{peer.label}:{peer.name}"
        welcome: dict[str, Any] = {"protocol": msg["protocol"], "host": self.name, "server": f"lanmatch {__version__}",
                                   "coins": self.keeper is not None, "profile": None}
        refusal = None
        given = msg.get("profile")
        known = self.keeper.names() if self.keeper is not None else []
        if given is not None and self.keeper is not None:
            given_name = normal_name(given["name"])
            if "key" in given:  # protocol 1: the key travels
                profile, balance, refusal = self._profile(
                    peer, given_name, lambda: self.keeper.profile(given_name, given["key"]), known, now)
            else:
                profile, balance, refusal = self._proved(peer, given_name, given["proof"])
            if profile is not None:
                self._recognised(peer, profile, balance)
                welcome["profile"] = {"name": profile.name, "balance": balance}
        alike = look_alike(peer.name, known) if peer.profile is None else None
        said = peer.name
        if alike is not None:  # a guest never sits under a profile's name: it sits as "Ann (guest)"
            peer.name = guest_name(peer.name)
        welcome["name"] = peer.name  # the name this peer sits, watches and talks under here
        out.tell(peer, "welcome", **welcome)
        if refusal is not None:
            out.error(peer, *refusal, ref="hello")
        if alike is not None and refusal is None:  # (a refused profile was told already, and why)
            out.error(peer, "name_taken", f"The name {said!r} is (or looks like) the profile {alike!r} of this "
                      f"host: you sit as {peer.name!r}; pick another name, or bring that profile.", ref="hello")
        token = msg.get("token")
        if token is not None:
            session = self.tokens.get(token)
            if session is None:
                out.error(peer, "bad_token", "That seat token is not known here (wrong, or the seat was freed).",
                          ref="hello")
            else:
                out.add(Post(session, ("resume", peer, msg)))

    def _profile(self, peer: Peer, name: str, make: Callable[[], tuple[Any, int, Any]], known: list[str],
                 now: float) -> tuple[Any, int, Any]:
        """`make()` (the keeper's `profile` from a key, or `register` from a
        verifier), unless it would make a new profile whose name looks like a
        known one (`bad_profile`) or over the address's budget of new profiles
        (`profile_limit`)."""
        if not any(k.casefold() == name.casefold() for k in known):  # a new profile
            alike = look_alike(name, known)
            if alike is not None:
                return None, 0, ("bad_profile", f"That profile cannot be used here: {name!r} looks like the profile "
                                 f"{alike!r} of this host; pick another name.")
            n = self.limits.new_profiles
            key_ = peer.address or f"#{peer.id}"
            bucket = self.new_profiles.get(key_)
            if bucket is None:
                bucket = self.new_profiles[key_] = TokenBucket(n / 3600.0, n, now)
            if not bucket.take(now):
                return None, 0, ("profile_limit", f"This host makes {n} new profiles an hour per address at most; "
                                 "bring a profile it knows, or play as a guest.")
        return make()

    def _recognised(self, peer: Peer, profile: Any, balance: int) -> None:
        peer.profile = profile
        peer.name = profile.name  # a profile holder's seat shows the profile's name
        self.out.log(INFO, "%s: profile %r (id %d, %d coins)", peer.label, profile.name, profile.id, balance)

    def _proved(self, peer: Peer, name: str, proof: str) -> tuple[Any, int, tuple[str, str] | None]:
        """A protocol-2 profile: its proof checked in constant time against the
        one made from the stored verifier and this connection's nonce."""
        profile, verifier, balance, refusal = self.keeper.verifier(name)
        if refusal is not None:
            return None, 0, refusal
        if profile is None:
            peer.unknown = (name, proof)
            return None, 0, ("unknown_profile", f"There is no profile {name!r} on this host yet: register it "
                             "(first use here) or play as a guest.")
        if peer.nonce is None or not hmac.compare_digest(hello_proof(verifier, peer.nonce), proof):
            peer.rekey = (profile, verifier, proof)  # kept under an older key? `register` with `legacy` may move it
            return None, 0, ("wrong_key", f"The name {profile.name!r} is taken on this host by another player's "
                             "profile (the profile key does not match); pick another name.")
        return profile, balance, None

    def _register(self, peer: Peer, given: dict[str, Any], now: float) -> None:
        """Protocol 2: make the profile a hello named and the host did not
        know, once; its verifier must be the one the hello's proof was made with."""
        out = self.out
        if "legacy" in given:
            self._rekey(peer, given)
            return
        pending, peer.unknown = peer.unknown, None
        if (pending is None or self.keeper is None or peer.profile is not None or given["name"] != pending[0]
                or peer.nonce is None or not hmac.compare_digest(hello_proof(given["verifier"], peer.nonce), pending[1])):
            out.error(peer, "bad_register", "Register only once, right after a hello whose profile this host did "
                      "not know, with that profile's verifier.", ref="register")
            return
        profile, balance, refusal = self._profile(
            peer, given["name"], lambda: self.keeper.register(given["name"], given["verifier"]), self.keeper.names(), now)
        if profile is None:
            out.error(peer, *refusal, ref="register")
            return
        self._recognised(peer, profile, balance)
        out.tell(peer, "profile", profile={"name": profile.name, "balance": balance})

    def _rekey(self, peer: Peer, given: dict[str, Any]) -> None:
        """Protocol 3: a profile the host keeps under the key of protocol 1/2
        moves to its per-host key, once, right after the hello whose proof
        (made with the new verifier) did not match: `legacy` proves the old
        key for this host and connection (`rekey_proof`)."""
        out = self.out
        pending, peer.rekey = peer.rekey, None
        ok = (pending is not None and self.keeper is not None and peer.profile is None and peer.nonce is not None
              and self.fingerprint is not None and normal_name(given["name"]).casefold() == pending[0].name.casefold()
              and hmac.compare_digest(hello_proof(given["verifier"], peer.nonce), pending[2])
              and hmac.compare_digest(rekey_proof(pending[1], peer.nonce, self.fingerprint, given["verifier"]),
                                      given["legacy"]))
        if not ok:
            out.error(peer, "bad_register", "A legacy register comes once, right after a hello whose proof did not "
                      "match, and proves the profile's older key for this host.", ref="register")
            return
        balance, refusal = self.keeper.rekey(pending[0], pending[1], given["verifier"])
        if refusal is not None:
            out.error(peer, *refusal, ref="register")
            return
        self._recognised(peer, pending[0], balance)
        out.tell(peer, "profile", profile={"name": pending[0].name, "balance": balance})

    def check_stake(self, peer: Peer, stake: int) -> None:
        """May `peer` sit at a coin room of `stake`? It needs a profile holding
        the stake, whatever its `agent` says (a bot node brings one:
        `lanmatch bot --profile NAME`).

        Raises:
            RoomError: `need_profile`, `insufficient_coins`, `store_failed`.
        """
        if peer.profile is None:
            raise RoomError(
                "need_profile",
                f"A coin room (stake {stake}) needs a profile: say hello with your profile, or pick a practice room.",
            )
        assert self.keeper is not None
        held = self.keeper.balance(peer.profile, failed="coin rooms cannot be joined now.")
        if held < stake:
            raise RoomError(
                "insufficient_coins",
                f"You hold {held} coins, less than the stake of {stake}; pick a smaller stake or a practice room.",
            )

    def _create(self, peer: Peer, msg: dict[str, Any]) -> None:
        out = self.out
        if peer.room is not None:
            out.error(peer, "in_room", f"Leave room {peer.room.room.name!r} first.", ref="create")
            return
        game = GAMES.get(msg["game"])
        seats = msg.get("seats", min(4, game.max_players) if game else 4)
        if game is not None and peer.profile is None and seats > game.guest_max_players:
            out.error(peer, "bad_room", f"A guest's room (no profile) seats up to {game.guest_max_players}.", ref="create")
            return
        stake = msg.get("stake", 0)
        clock = msg.get("clock")
        try:
            if "date" in (msg.get("options") or {}):
                raise RoomError("bad_room", "A daily deal is dealt from the host's UTC date: send no date.")
            if stake and msg.get("sit", True) and self.keeper is not None:
                self.check_stake(peer, stake)
            if clock is not None and clock not in CLOCKS:
                raise RoomError("bad_room", f"The move clock is one of {', '.join(map(str, CLOCKS))} seconds.")
            session = self.create_room(
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
            out.error(peer, e.code, e.reason, ref="create")
            return
        typ = "join" if msg.get("sit", True) else "watch"
        out.add(Post(session, (typ, peer, {"type": typ, "room": msg["room"], "password": msg.get("password", "")})))

    # ------------------------------------------------------------ rooms

    def create_tournament(self, name: str, matches: int, rooms: list[str]) -> Tournament:
        """A tournament of `matches` games over the rooms named `rooms` (made
        already), kept in the store when the host has one.

        Raises:
            RoomError: `bad_room` (no such room, a room of another tournament, a bad count).
        """
        sessions = [self.rooms.get(r) for r in rooms]
        if any(x is None for x in sessions):
            raise RoomError("bad_room", f"A tournament's rooms must exist: {', '.join(rooms)}.")
        if any(x.tournament is not None for x in sessions):
            raise RoomError("bad_room", "A room counts for one tournament at a time.")
        try:
            t = Tournament(name, matches, tuple(rooms))
        except ValueError as e:
            raise RoomError("bad_room", f"That tournament cannot be played: {e}.") from None
        if self.keeper is not None:
            t.id = self.keeper.begin_tournament(name, matches, list(rooms))
        for x in sessions:
            x.tournament = t
        return t

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
    ) -> RoomSession:
        """Make a room (its task starts: `StartRoom`). `seed` fixes the deals
        (game k of the room is dealt from `seed + k - 1`; default: random).
        `first_directs`: a room made by the host itself (no creating peer),
        whose first peer to take a seat becomes its creator (`lanmatch play`).

        Raises:
            RoomError: `room_exists`, `too_many_rooms`, or `bad_room` (settings).
        """
        if name in self.rooms:
            raise RoomError("room_exists", f"There is already a room {name!r}.")
        if len(self.rooms) >= self.limits.max_rooms:
            raise RoomError("too_many_rooms", f"This host holds {self.limits.max_rooms} rooms at most.")
        if owner is not None:
            self._check_room_caps(owner)
        settings.setdefault("bot_delay", self.bot_delay)
        if settings.get("stake") and self.keeper is None:
            raise RoomError("bad_room", "This host keeps no store, so it has practice rooms only (no stake).")
        if "daily" in (settings.get("mode"), (settings.get("options") or {}).get("mode")):
            if settings.get("stake"):
                raise RoomError("bad_room", "A daily deal plays no coins (no stake).")
            opts = dict(settings.get("options") or {})
            if "date" not in opts:
                opts["date"] = self.today()
            settings["options"] = opts
        room = Room(name, owner=owner.id if owner else None, **settings)
        session = RoomSession(self, room, auto_start=auto_start, start_after=start_after,
                              rematch_after=rematch_after, seed=seed)
        session.owner = owner
        session.made_by = None if owner is None else (owner.id, owner.address)
        session.first_directs = first_directs and owner is None
        self._open(session)
        return session

    def _check_room_caps(self, owner: Peer) -> None:
        """Raises: RoomError `too_many_rooms` (this connection's or address's cap)."""
        mine = [s.made_by for s in self.rooms.values() if s.made_by is not None]
        cap = self.limits.rooms_per_peer
        if sum(1 for i, _ in mine if i == owner.id) >= cap:
            raise RoomError("too_many_rooms", f"This connection has made {cap} rooms that are still open, the most one may.")
        cap = self.limits.rooms_per_address
        if owner.address and sum(1 for _, a in mine if a == owner.address) >= cap:
            raise RoomError("too_many_rooms", f"Your address has made {cap} rooms that are still open, the most one may.")

    def _open(self, session: RoomSession) -> None:
        self.rooms[session.room.name] = session
        self.out.add(StartRoom(session))
        self.notify()

    def drop_room(self, session: RoomSession) -> None:
        if self.rooms.get(session.room.name) is session:
            del self.rooms[session.room.name]
            for t in [t for t, s in self.tokens.items() if s is session]:
                del self.tokens[t]
            self.notify()

    def resume(self, record: Any, game: Any, now: float) -> RoomSession:
        """The room of a stored match the host had not finished (a
        `lanmatch.store.MatchRecord`), playing `game` (its deal and actions
        replayed) from `now`: people's seats wait for their peers' tokens,
        bots play on, every seat's clock starts in full now.

        Raises: RoomError, ValueError, or the keeper's failure to read a
        profile (a record this host cannot seat again: the caller abandons it).
        """
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
        profile_of: dict[int, Any] = {}
        for x in record.seats:
            if x.token is not None and not x.left:  # a person (or a bot node) who comes back with its token
                agent = "bot" if x.kind == "bot" else "person"
                room.seats[x.seat] = Seat(x.name, x.token, agent, connected=False)
                agents[x.seat] = agent
                if x.profile_id is not None:
                    profile_of[x.seat] = self.keeper.profile_by_id(x.profile_id)
            else:  # a room bot, or the bot that plays for a player who left
                bots[x.seat] = x.bot_level if x.kind == "bot" and x.bot_level else room.bot_level
        ref = Referee(
            record.game,
            record.table,
            record.players,
            record.seed,
            now=now,  # every seat's clock restarts in full
            options=record.options,
            clock=room.clock,
            bots=bots,
            agents=agents,
            bot_delay=room.bot_delay,
            first_seat=record.first_seat,
            engine=game,
        )
        room.resume(ref, games=int(s.get("games", 1)), tally=s.get("tally"))
        start_after = s.get("start_after")
        session = RoomSession(
            self,
            room,
            auto_start=bool(s.get("auto_start", False)),
            start_after=None if start_after is None else float(start_after),
            rematch_after=float(s.get("rematch_after", 2.0)),
            seed=s.get("room_seed"),
        )
        stored = len(record.actions)  # the new referee's log[0] is action `stored`
        session.match = Match(record.id, [x.kind for x in record.seats], stored=stored, base=stored)
        session.profile_of = profile_of
        session.awaited = set(agents)
        if any(a == "person" for a in agents.values()):
            # every clock waits (a pause the views tell) until the people are back, a minute at most:
            # a play-test's people came back from a restart to "Your move (4 s)"
            ref.pause(now)
            session.grace_until = now + self.limits.seat_hold
        for x in room.seats:
            if x is not None:
                self.tokens[x.token] = session
        self._open(session)
        self.out.log(INFO, "room %s: resumed match %d at action %d (seats waiting for their peers: %d)",
                     name, record.id, stored, len(agents))
        return session

    def reopen(self, name: str, data: dict[str, Any], now: float) -> RoomSession:
        """A room the host had open between games when it stopped, as its
        session kept it (`RoomSession.kept`), opened again at `now`: the same
        settings, games played and running score; each person's (or bot
        node's) seat held for them (`Limits.seat_hold`) until their token, or
        their profile's `join`, takes it back; the creator back at their seat
        directs it again.

        Raises: RoomError (`room_exists`, `bad_room`), or what reading the
        data or a profile raises (KeyError, TypeError, ValueError: a kept room
        this host cannot open again; the caller forgets it).
        """
        if name in self.rooms:
            raise RoomError("room_exists", f"There is already a room {name!r}.")
        room = Room(
            name, data["game"], data["table"], int(data["players"]),
            options=dict(data["options"]), clock=data["clock"], mode=data["mode"], password=data["password"],
            bot_level=data["bot_level"], bot_delay=float(data["bot_delay"]), stake=int(data["stake"]),
        )
        room.games = int(data["games"])
        tally = data["tally"]
        if len(tally["wins"]) == room.n and len(tally["points"]) == room.n:
            room.tally = {"wins": list(tally["wins"]), "points": list(tally["points"])}
        start_after = data["start_after"]
        session = RoomSession(self, room, auto_start=bool(data["auto_start"]),
                              start_after=None if start_after is None else float(start_after),
                              rematch_after=float(data["rematch_after"]), seed=data["seed"])
        for s, x in enumerate(data["seats"]):
            if x is None:
                continue
            room.seats[s] = Seat(str(x["name"]), str(x["token"]), "bot" if x["agent"] == "bot" else "person",
                                 connected=False)
            if x["profile"] is not None:
                session.profile_of[s] = self.keeper.profile_by_id(int(x["profile"]))
            session.held[s] = now + self.limits.seat_hold
        for x in room.seats:  # (only once the whole room could be read)
            if x is not None:
                self.tokens[x.token] = session
        session.creator_seat = data["creator"]
        session._kept = data  # (what the store holds of it now)
        self._open(session)
        self.out.log(INFO, "room %s: opened again after the restart, game %d played (seats held for their "
                     "people: %d)", name, room.games, len(session.held))
        return session


__all__ = ["Limits", "Lobby", "Peer", "TokenBucket"]
