"""The peer's side: a client connection to a host, and the headless bot node.

How this works. `Client.connect_once(address)` opens TCP, says `hello` (with
the seat token when it has one, to get its seat back) and serves the
connection with a `Connection` (reader, writer, heartbeats; see `conn.py`)
until it ends. Every host message is checked (`check_host_message`), its
`seq` followed (a gap sends `resync`, answered by a full `snapshot`), and the
client's picture updated (`room`, `seat`, `token`, the latest `view`, the
profile's `balance`) before `on_message(msg)` sees it. Its `hello` asks for
deltas (docs/protocol.md, "Deltas"): each `delta` is applied to the view
held (`DeltaHolder`) and everything after sees the full `view` it makes; a
delta that does not follow sends `resync` (`Client(deltas=False)`: full
views only). A message of a type
this client does not know is passed over (its `seq` still counts). A client
given a `profile` (`{"name", "key"}`, e.g. from `lanmatch.net.profile`)
brings it in every `hello`: a host with a store recognises it (coin rooms,
stats).

Every connection is TLS 1.3 first (docs/protocol.md section 1): the
certificate's fingerprint must be the one the host's mDNS advert names
(`expect_fingerprint`) and the one pinned for the host's name in `hosts`
(a `HostBook`; kept at the first connection), else `HostChanged`. Then the
handshake of protocol 3 (section 4; `Client(protocol=1)` is kept only to
test the host's service of older peers): the client sends nothing at all
before the host's first frame, a `host` message with a fresh `nonce`, has
come (it waits `HOST_WAIT` seconds). An address that answers otherwise (an HTTP server, a
silent port, a host of a protocol this client does not speak) raises
`NotLanmatch` with one line, the first time: no retry, nothing sent. Then
`hello` brings the profile as a proof (`profile_proof`: an HMAC of the nonce
under the verifier the host keeps of the profile's key at that host,
`host_key`), never a key; a host that does not know the name says
`unknown_profile`, and the client `register`s the verifier once; a host
that keeps the profile under its protocol-1/2 key says `wrong_key`, and the
client moves it with a legacy `register` (`rekey_proof`). A host that stops
says `bye` first (`Client.bye`).

`BotNode` is a `Client` that plays: it lists the rooms, joins one (the named
one, or the first with a free seat), and answers every view that offers it
legal actions with its bot's choice (`lanmatch.bots.make_bot`), exactly like
a person's console would. When the connection drops it reconnects by itself
with its seat token. It stops when the match ends (unless `stay`), and exits
2 with one line for an address that is not a lanmatch host it can talk to.
"""

from __future__ import annotations

import logging
import os
import random
import socket
import time
from typing import Any

import trio

from lanmatch import __version__
from lanmatch.bots import make_bot
from lanmatch.net.conn import Connection
from lanmatch.net.hostbook import HostBook
from lanmatch.net.tls import TLSStream, client_handshake, fingerprint_of, short_fingerprint
from lanmatch.protocol import (
    DEFAULT_PORT,
    MAX_FRAME,
    PROTOCOL_VERSION,
    DeltaHolder,
    RemoteProtocolError,
    check_host_message,
    decode_body,
    view_from_wire,
)
from lanmatch.protocol.framing import HEADER
from lanmatch.protocol.proofs import hello_proof, host_key, profile_verifier, rekey_proof

log = logging.getLogger("lanmatch.client")

HOST_WAIT = 5.0  # seconds a protocol-2 peer waits for the host's first frame


class NotLanmatch(Exception):
    """The address is not a lanmatch host this client can talk to (a stranger's
    service, a silent port, another protocol): `str(e)` is the one line to say.
    Nothing was sent to it (but a TLS ClientHello)."""


class HostChanged(NotLanmatch):
    """The host showed another certificate than the one pinned for its name
    (or than its mDNS advert says): someone may stand in for it. Nothing was
    sent to it; `str(e)` names both fingerprints and what to do."""

    def __init__(self, name: str, pinned: str, seen: str, why: str = "pinned"):
        self.name, self.pinned, self.seen = name, pinned, seen
        was = "this machine pinned" if why == "pinned" else "its advert on the network says"
        super().__init__(
            f"WARNING: {name!r} showed a certificate other than the one {was} "
            f"({short_fingerprint(pinned)}), now {short_fingerprint(seen)}: someone may be standing in for it. "
            f"Nothing was sent. If its host really was reinstalled: lanmatch hosts --forget {name!r}")


profile_proof = hello_proof  # its name here before protocol 3 (callers import it)


def reach_error(e: BaseException) -> str:
    """Why a connection could not be made, in a few words ("connection
    refused"), from the innermost error that says (trio groups its attempts)."""
    todo: list[BaseException] = [e]
    seen = 0
    while todo and seen < 16:
        seen += 1
        x = todo.pop(0)
        if isinstance(x, OSError) and (x.strerror or (x.errno or 0) > 0):
            # the system's words for the errno (trio writes the address into strerror); a resolver error's own
            text = os.strerror(x.errno) if not isinstance(x, socket.gaierror) and (x.errno or 0) > 0 else x.strerror
            return text[:1].lower() + text[1:]
        todo += list(getattr(x, "exceptions", ()))
        if x.__cause__ is not None:
            todo.append(x.__cause__)
    return str(e) or type(e).__name__


ENDED = {
    "oversize": "it sent something else: not a lanmatch frame",
    "bad_frame": "it sent something else: not a lanmatch frame",
    "truncated": "it sent something else: not a lanmatch frame",
    "eof": "it closed the connection without a welcome",
    "reset": "it reset the connection",
    "timeout": "it said nothing for 4 s",
}


def not_welcomed(address: tuple[str, int], reason: str) -> str:
    """The line for a first connection that ended before any `welcome`
    (protocol 1: the peer had said hello; no retry follows)."""
    return f"{where(address)} did not answer as a lanmatch host ({ENDED.get(reason, reason)})"


def where(address: tuple[str, int]) -> str:
    return f"{address[0]}:{address[1]}"


def _hex(text: Any, n: int) -> bool:
    return isinstance(text, str) and len(text) == n and all(c in "0123456789abcdef" for c in text)


async def first_frame(stream: trio.abc.Stream, address: tuple[str, int], wait: float = HOST_WAIT) -> dict[str, Any]:
    """The host's first frame, read byte-exact from `stream` (nothing is sent;
    what follows it stays in the stream).

    Raises:
        NotLanmatch: nothing within `wait` seconds, not a frame, or not a `host` message.
        OSError, trio.BrokenResourceError: the connection broke.
    """
    not_host = f"{where(address)} is not a lanmatch host"

    async def exactly(n: int) -> bytes:
        data = bytearray()
        while len(data) < n:
            try:
                chunk = await stream.receive_some(n - len(data))
            except trio.BrokenResourceError:  # TLS closed without its close_notify
                chunk = b""
            if not chunk:
                raise NotLanmatch(f"{not_host} (it closed the connection without answering as one)")
            data += chunk
        return bytes(data)

    with trio.move_on_after(wait):
        (n,) = HEADER.unpack(await exactly(HEADER.size))
        if not 0 < n <= MAX_FRAME:
            raise NotLanmatch(f"{not_host} (it sent something else: not a lanmatch frame)")
        try:
            msg = check_host_message(decode_body(await exactly(n)))
        except RemoteProtocolError:
            raise NotLanmatch(f"{not_host} (it sent something else: not a lanmatch frame)") from None
        if msg["type"] != "host" or msg["seq"] != 1 or not _hex(msg["nonce"], 32):
            raise NotLanmatch(f"{not_host} (its first message was not a lanmatch host's)")
        return msg
    raise NotLanmatch(f"{not_host} (it did not answer as one within {wait:g} s)")


def parse_address(text: str, default_port: int | None = DEFAULT_PORT) -> tuple[str, int]:
    """`HOST:PORT` (or `HOST`: the default port) as (host, port).

    Raises:
        ValueError: no port where `default_port` is None, or a port outside 1-65535, with a sentence.
    """
    host, sep, port = text.rpartition(":")
    if not sep:
        if default_port is None:
            raise ValueError(f"{text!r} is not HOST:PORT")
        host, port = text, str(default_port)
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit() or not 1 <= int(port) <= 65535:
        raise ValueError(f"{text!r}: the port must be a number from 1 to 65535")
    return host, int(port)


class Client:
    """One peer's link to a host, kept across reconnects (token, seat, last view)."""

    def __init__(
        self,
        name: str,
        *,
        agent: str = "person",
        token: str | None = None,
        heartbeat: float = 1.0,
        dead_after: float = 4.0,
        connect_timeout: float = 3.0,
        profile: dict[str, str] | None = None,
        protocol: int | None = None,
        register: bool = True,
        tls: bool = True,
        hosts: HostBook | None = None,
        deltas: bool = True,
    ):
        self.name = name
        self.agent = agent
        self.token = token
        self.profile = profile  # {"name", "key"}: its key (protocol 1) or a proof of it (2) goes in hello
        self.protocol = protocol  # None: PROTOCOL_VERSION (3); 1 only to test a host's service of old peers
        self.register = register  # protocol 2: register the profile where the host does not know it
        self.tls = tls  # TLS 1.3 from the first byte (False: plain TCP, for the benchmark's comparison only)
        self.hosts = hosts  # the known hosts' pins (None: nothing pinned, nothing remembered)
        self.expect_fingerprint: str | None = None  # the advert's `fp=`, when the address came from mDNS
        self.fingerprint: str | None = None  # the certificate the host showed on this connection
        self._rekey: dict[str, Any] | None = None  # a `wrong_key` held back while a legacy register is tried
        self.host_frame: dict[str, Any] | None = None  # protocol 2: the host's first frame on this connection
        self.answered = False  # a `host` frame came from this client's address (in this run)
        self.bye: dict[str, Any] | None = None  # the host's goodbye (it closes the connection)
        self.host_wait = HOST_WAIT  # protocol 2: seconds to wait for the host's first frame
        self._registered = False
        self.account: dict[str, Any] | None = None  # the welcome's profile: {"name", "balance"}, or None
        self.balance: int | None = None  # the profile's coins, as the host last said
        self.heartbeat = heartbeat
        self.dead_after = dead_after
        self.connect_timeout = connect_timeout
        self.conn: Connection | None = None
        self.seq = 0
        self.gaps = 0
        self.room: dict[str, Any] | None = None
        self.room_name: str | None = None
        self.seat: int | None = None
        # the room this client watches, as its `watch` said it (with the password): said
        # again after a reconnect, as a seat's token is (a watcher holds no token)
        self.watched: dict[str, Any] | None = None
        self._watch_asked: dict[str, Any] | None = None  # the last `watch` sent, until `watching` answers
        self._rewatch = False  # `watched` said again after a reconnect, not answered yet
        self.view_msg: dict[str, Any] | None = None  # the latest `view` message, `far` keys restored
        self.deltas = deltas  # ask for deltas in hello; `view_msg` and `on_message` see full views still
        self._held = DeltaHolder()  # the latest view as sent (wire form, numbered): what a delta applies to
        self.delta_gaps = 0  # deltas that did not fit the view held (each answered by a resync)
        self.fatal: dict[str, Any] | None = None  # a fatal error the host sent
        self.welcomed = False

    # ------------------------------------------------------------ sending

    def send(self, typ: str, **fields: Any) -> bool:
        if self.conn is None:
            return False
        if typ == "watch":
            self._watch_asked = fields
        return self.conn.send({"type": typ, **fields})

    def act(self, action: dict[str, Any], state_id: int | None = None) -> bool:
        """Send `action`, answering `state_id` (default: the latest view's)."""
        if state_id is None:
            if self.view_msg is None:
                return False
            state_id = self.view_msg["state_id"]
        return self.send("act", state_id=state_id, action=action)

    # ------------------------------------------------------------ running

    def speaks(self) -> int:
        """The protocol version this client says hello with."""
        return PROTOCOL_VERSION if self.protocol is None else self.protocol

    async def connect_once(self, address: tuple[str, int], *, task_status=trio.TASK_STATUS_IGNORED) -> str:
        """Connect over TCP, hello, serve until the connection ends; returns why it ended.

        Raises:
            OSError: the host cannot be reached within `connect_timeout`.
            NotLanmatch: (protocol 2) the address does not answer as a lanmatch
                host this client speaks to; nothing was sent.
        """
        with trio.fail_after(self.connect_timeout):
            try:
                stream = await trio.open_tcp_stream(*address)
            except trio.TooSlowError:
                raise OSError(f"no answer within {self.connect_timeout:g} s") from None
        return await self.run_stream(stream, task_status=task_status, address=address)

    async def run_stream(self, stream: trio.abc.Stream, *, task_status=trio.TASK_STATUS_IGNORED,
                         address: tuple[str, int] | None = None) -> str:
        """Say hello on an open `stream` and serve it until it ends; returns why it ended.

        Raises:
            NotLanmatch: (protocol 2) see `connect_once`; after a good
                connection to this address, only a version mismatch raises
                (any other failure is a dropped connection: "no_host_frame").
        """
        self.seq = 0
        self._held.reset()  # a new connection numbers its views afresh
        self.welcomed = False
        self.host_frame = None
        self.bye = None
        self._registered = False
        self._rekey = None
        self.fingerprint = None
        first = None
        if self.speaks() >= 2 or self.tls:
            try:
                if self.tls:
                    stream = await self._tls(stream, address)
                if self.speaks() >= 2:
                    first = await self._host_frame(stream, address)
            except NotLanmatch as e:
                with trio.CancelScope(shield=True):
                    await trio.aclose_forcefully(stream)
                if self.answered and not isinstance(e, HostChanged):
                    return "no_host_frame"
                raise
            except (OSError, trio.BrokenResourceError, trio.ClosedResourceError):
                with trio.CancelScope(shield=True):
                    await trio.aclose_forcefully(stream)
                return "reset"
        conn = Connection(stream, numbered=False, heartbeat=self.heartbeat, dead_after=self.dead_after, label=self.name)
        self.conn = conn
        if first is not None:
            self._receive(first)
        self.send("hello", **self._hello())
        task_status.started(conn)
        try:
            await conn.run(self._receive)
        finally:
            self.conn = None
        return conn.close_reason or "closed"

    async def _tls(self, stream: trio.abc.Stream, address: tuple[str, int] | None) -> TLSStream:
        """The TLS handshake (only a ClientHello goes out before it is done).

        Raises:
            NotLanmatch: the address does not speak TLS 1.3 within `host_wait`.
            HostChanged: its certificate is not the one its advert names.
        """
        not_host = f"{where(address or ('?', 0))} is not a lanmatch host"
        try:
            tls = await client_handshake(stream, self.host_wait)
        except trio.TooSlowError:
            raise NotLanmatch(f"{not_host} (it did not answer as one within {self.host_wait:g} s)") from None
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            raise NotLanmatch(f"{not_host} (it does not speak TLS 1.3, as every lanmatch host does)") from None
        self.fingerprint = fingerprint_of(tls)
        if self.expect_fingerprint is not None and self.expect_fingerprint != self.fingerprint:
            raise HostChanged(where(address or ("?", 0)), self.expect_fingerprint, self.fingerprint, why="advert")
        return tls

    async def _host_frame(self, stream: trio.abc.Stream, address: tuple[str, int] | None) -> dict[str, Any]:
        """The host's first frame, whose versions hold ours; its name's pin checked
        (and, on first use, kept).

        Raises:
            NotLanmatch: see `first_frame`, or a host of other versions (always).
            HostChanged: the host of that name showed another certificate before.
        """
        msg = await first_frame(stream, address or ("?", 0), self.host_wait)
        if self.fingerprint is not None and self.hosts is not None:
            known = self.hosts.pinned(msg["name"])
            if known is not None and known.fingerprint != self.fingerprint:
                raise HostChanged(msg["name"], known.fingerprint, self.fingerprint)
            if address is not None:
                self.hosts.remember(msg["name"], address[0], address[1], self.fingerprint, time.time())
        self.answered = True
        mine = self.speaks()
        if mine not in msg["versions"]:
            self.answered = False  # it will not talk to us: no reconnecting either
            raise NotLanmatch(f"{msg['name'] or where(address or ('?', 0))} speaks lanmatch protocol "
                              f"{msg['protocol']}; this lanmatch speaks {mine}: update the older side")
        return msg

    def _hello(self) -> dict[str, Any]:
        """The fields of `hello`: protocol 2 proves the profile, protocol 1 sends its key."""
        hello: dict[str, Any] = {"protocol": self.speaks(), "name": self.name, "agent": self.agent,
                                 "client": f"lanmatch {__version__}"}
        if self.token:
            hello["token"] = self.token
        if self.deltas:
            hello["deltas"] = True
        if self.profile is not None:
            if self.host_frame is not None:
                proof = hello_proof(profile_verifier(self._key()), self.host_frame["nonce"])
                hello["profile"] = {"name": self.profile["name"], "proof": proof}
            else:
                hello["profile"] = {"name": self.profile["name"], "key": self.profile["key"]}
        return hello

    def _key(self) -> str:
        """The profile's key at this host: per host under TLS (`host_key`)."""
        assert self.profile is not None
        key = self.profile["key"]
        return host_key(key, self.fingerprint) if self.fingerprint is not None else key

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close("bye")

    def _receive(self, msg: dict[str, Any]) -> None:
        try:
            check_host_message(msg)
        except RemoteProtocolError as e:
            if e.code != "unknown_type" or type(msg.get("seq")) is not int:
                raise
            self._follow(msg["seq"])  # a newer host's message: passed over, its number counted
            log.debug("%s: passed over a message of type %.32r", self.name, msg.get("type"))
            return
        seq = msg["seq"]
        self._follow(seq)
        typ = msg["type"]
        if typ == "host":
            if seq == 1:
                self.host_frame = msg
        elif typ == "welcome":
            self.welcomed = True
            self._account(msg.get("profile"))
            if self.watched is not None and self.seat is None and not self.token:
                self.send("watch", **self.watched)  # a watcher's connection came back: watch again
                self._rewatch = True
        elif typ == "profile":
            self._rekey = None
            self._account(msg["profile"])
        elif typ == "coins":
            self.balance = msg["balance"]
        elif typ == "seated":
            self.room_name, self.seat, self.token = msg["room"], msg["seat"], msg["token"]
            self.watched = None
        elif typ == "watching":
            self.room_name, self.seat = msg["room"], None
            asked = self._watch_asked if (self._watch_asked or {}).get("room") == msg["room"] else None
            self.watched, self._watch_asked, self._rewatch = asked or {"room": msg["room"]}, None, False
        elif typ == "left":
            self.room_name, self.seat, self.token, self.room, self.view_msg = None, None, None, None, None
            self.watched = None
            self._held.reset()
        elif typ == "room":
            self.room = msg["room"]
        elif typ == "view":
            self._held.full(msg)
            msg = {**msg, "view": view_from_wire(msg["view"])}
            self.view_msg = msg
        elif typ == "delta":
            full = self._held.delta(msg)
            if full is None:  # a gap, or a delta that does not fit: the snapshot will bring the view
                if not self._held.broken:
                    self._held.broken = True
                    self.delta_gaps += 1
                    log.info("%s: delta %d does not follow the view held: resync", self.name, msg["vn"])
                    self.send("resync")
                return
            msg = {**full, "seq": seq, "view": view_from_wire(full["view"])}
            self.view_msg = msg
            typ = "view"  # what `on_message` sees: the full view, as without deltas
        elif typ == "snapshot":
            self.room = msg["room"]
            self.seat = msg["seat"]
            if msg["view"] is not None:
                v = msg["view"]
                if not isinstance(v.get("view"), dict) or type(v.get("state_id")) is not int:
                    raise RemoteProtocolError("bad_field", "a snapshot's view is a view message")
                self._held.full(v)
                self.view_msg = {**v, "type": "view", "seq": seq, "view": view_from_wire(v["view"])}
                msg = {**msg, "view": self.view_msg}
            else:
                self._held.reset()
        elif typ == "bye":
            self.bye = msg
        elif typ == "error":
            if msg["code"] == "bad_token":  # that seat is gone (freed, or a restarted host's table ended)
                self.token, self.seat, self.room_name, self.room, self.view_msg = None, None, None, None, None
                self._held.reset()
            elif msg.get("ref") == "watch":
                self._watch_asked = None
                if self._rewatch:  # watching again was refused (the room closed, its password changed)
                    self._rewatch = False
                    self.watched, self.room_name, self.room, self.view_msg = None, None, None, None
                    self._held.reset()
            elif (msg["code"] == "bad_field" and msg.get("ref") == "hello" and self.deltas
                  and "'deltas'" in msg["message"] and not self.welcomed):
                # a host from before deltas refuses the unknown field: say hello again without it
                log.info("%s: the host does not know deltas: full views", self.name)
                self.deltas = False
                self.send("hello", **self._hello())
                return
            elif msg["code"] == "unknown_profile" and msg.get("ref") == "hello":
                self._register()
            elif msg["code"] == "wrong_key" and msg.get("ref") == "hello" and self._register_legacy(msg):
                return  # said only if the legacy register fails too
            elif msg["code"] == "bad_register" and self._rekey is not None:
                msg, self._rekey = self._rekey, None  # the host keeps that name under another key: its wrong_key
            if msg["fatal"]:
                self.fatal = msg
        self.on_message(msg)
        if typ == "bye" and self.conn is not None:
            self.conn.close("bye")

    def _follow(self, seq: int) -> None:
        if seq != self.seq + 1:
            self.gaps += 1
            log.info("%s: sequence gap (%d after %d): resync", self.name, seq, self.seq)
            self.send("resync")
        self.seq = seq

    def _account(self, profile: Any) -> None:
        """The profile the host recognised (`welcome`, `profile`): its name and coins."""
        self.account = profile if isinstance(profile, dict) else None
        self.balance = self.account.get("balance") if self.account is not None else None

    def _register_legacy(self, wrong_key: dict[str, Any]) -> bool:
        """Protocol 3, first use of the per-host key at a host that keeps the
        profile under its protocol-1/2 key: move it (`register` with `legacy`,
        bound to this host's certificate and nonce). True if it was tried."""
        if (self.host_frame is None or self.profile is None or self.fingerprint is None or self._registered
                or self.speaks() < 3):
            return False
        self._registered, self._rekey = True, wrong_key
        new = profile_verifier(self._key())
        legacy = rekey_proof(profile_verifier(self.profile["key"]), self.host_frame["nonce"], self.fingerprint, new)
        self.send("register", profile={"name": self.profile["name"], "verifier": new, "legacy": legacy})
        return True

    def _register(self) -> None:
        """Protocol 2, first use at this host: make the profile with its verifier (once)."""
        if self.host_frame is None or self.profile is None or not self.register or self._registered:
            return
        self._registered = True
        self.send("register", profile={"name": self.profile["name"],
                                       "verifier": profile_verifier(self._key())})

    def on_message(self, msg: dict[str, Any]) -> None:
        """Override: called for every host message, after the bookkeeping."""


class BotNode(Client):
    """A headless bot that joins a host and plays through the protocol."""

    def __init__(
        self,
        level: str,
        *,
        room: str | None = None,
        stay: bool = False,
        name: str | None = None,
        seed: int | None = None,
        retry_for: float | None = 60.0,
        **kw: Any,
    ):
        super().__init__(name or f"{level} bot", agent="bot", **kw)
        self.level = level
        self.want_room = room
        self.stay = stay
        self.seed = seed if seed is not None else random.SystemRandom().getrandbits(32)
        self.retry_for = retry_for  # None: retry forever
        self.bot: Any = None
        self._bot_key: tuple | None = None
        self._last_step = -1
        self._done_sid: int | None = None  # state answered (or let pass)
        self.done = False
        self.matches = 0
        self.actions = 0
        self.rejections: list[dict[str, Any]] = []
        self._want_list_at: float | None = None
        self._asked_back = False  # this connection asked `room` for the seat its profile holds there
        self._said_waiting = False
        self.ever_welcomed = False  # a first connection that ends unwelcomed is not a lanmatch host

    async def run(self, address: tuple[str, int]) -> int:
        """Play until the match ends (0), or a fatal refusal or an address that
        is not a lanmatch host it speaks to (2, said in one line), or the host
        stays unreachable for `retry_for` seconds (1)."""
        failures = 0
        last_ok = trio.current_time()
        while True:
            self._done_sid = None  # an answer lost with the old connection is given again
            try:
                with trio.fail_after(self.connect_timeout):
                    stream = await trio.open_tcp_stream(*address)
            except (OSError, trio.TooSlowError) as e:
                failures += 1
                why = reach_error(e) if isinstance(e, OSError) else f"no answer within {self.connect_timeout:g} s"
                log.info("%s: cannot connect to %s: %s", self.name, where(address), why)
            else:
                refused: NotLanmatch | None = None
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(self._lister)
                    try:
                        reason = await self.run_stream(stream, address=address)
                    except NotLanmatch as e:
                        refused, reason = e, "refused"
                    nursery.cancel_scope.cancel()
                if refused is not None:
                    log.warning("%s: %s", self.name, refused)
                    return 2
                if self.welcomed:
                    failures = 0
                    last_ok = trio.current_time()
                    self.ever_welcomed = True
                elif not self.ever_welcomed and self.fatal is None:
                    log.warning("%s: %s", self.name, not_welcomed(address, reason))
                    return 2
                if self.bye is not None:
                    log.info("%s: the host said goodbye: %s", self.name, self.bye.get("reason") or "(no reason)")
                log.info("%s: connection ended: %s", self.name, reason)
            if self.done:
                return 0
            if self.fatal is not None and self.fatal["code"] not in ("replaced", "timeout"):
                log.warning("%s: the host refused us: %s", self.name, self.fatal["message"])
                return 2
            self.fatal = None
            if self.retry_for is not None and trio.current_time() - last_ok > self.retry_for:
                log.warning("%s: no host at %s:%d for %.0f s: giving up", self.name, *address, self.retry_for)
                return 1
            await trio.sleep(min(2.0, 0.1 * 2 ** min(failures, 5)))

    async def _lister(self) -> None:
        """Look for a seat again while the rooms were all full."""
        while True:
            await trio.sleep(0.5)
            if self._want_list_at is not None and trio.current_time() >= self._want_list_at and self.seat is None:
                self._want_list_at = None
                self.send("list")

    def on_message(self, msg: dict[str, Any]) -> None:
        typ = msg["type"]
        if typ == "welcome":
            self._asked_back = False
            if self.token is None:
                self.send("list")
        elif typ == "rooms":
            self._pick(msg["rooms"], msg.get("page", 0), msg.get("pages", 1))
        elif typ == "error":
            if msg["code"] == "bad_token" or msg.get("ref") in ("join", "list"):
                self._want_list_at = trio.current_time() + 0.5
        elif typ == "left":
            self._want_list_at = trio.current_time() + 0.5
        elif typ == "rejected":
            self.rejections.append(msg)
        elif typ == "view":
            self._play(msg)
        elif typ == "snapshot" and msg["view"] is not None:
            self._play(msg["view"])

    def _pick(self, rooms: list[dict[str, Any]], page: int = 0, pages: int = 1) -> None:
        if self.seat is not None:
            return
        for r in rooms:
            if self.want_room is not None and r.get("name") != self.want_room:
                continue
            if r.get("free", 0) > 0 and not r.get("password"):
                self.send("join", room=r["name"])
                return
            if self.want_room is not None and self.profile is not None and not self._asked_back:
                # a node started again: the host gives a profile back the seat it holds there
                self._asked_back = True
                self.send("join", room=r["name"])
                return
        if page + 1 < pages:  # the list is paged: look at the next page at once
            self.send("list", page=page + 1)
            return
        if not self._said_waiting:
            self._said_waiting = True
            where = f"at {self.want_room}" if self.want_room is not None else "in any room"
            log.info("%s: no free seat %s yet: looking again every half second", self.name, where)
        self._want_list_at = trio.current_time() + 0.5

    def _play(self, msg: dict[str, Any]) -> None:
        view = msg["view"]
        sid = msg["state_id"]
        key = (view["game"], view.get("table"), self.seat)
        if self.bot is None or key != self._bot_key or view["step"] < self._last_step:
            self.bot = make_bot(self.level, game=view["game"], table=view.get("table"), seat=self.seat or 0,
                                seed=self.seed + self.matches)
            self._bot_key = key
            self._done_sid = None
        self._last_step = view["step"]
        self.bot.observe(view)
        if view.get("outcome") is not None:
            if self._done_sid != ("over", sid):
                self._done_sid = ("over", sid)
                self.matches += 1
                if not self.stay:
                    self.done = True
                    self.close()
            return
        legal = msg["legal"]
        if not legal or self._done_sid == sid:
            return
        self._done_sid = sid
        if view.get("turn") != self.seat and self.bot.declines(view, legal):
            return
        action = self.bot.choose(view, legal)
        self.actions += 1
        self.act(action, sid)
