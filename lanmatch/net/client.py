"""The peer's side: a client connection to a host, and the headless bot node.

How this works. `Client.connect_once(address)` opens TCP, says `hello` (with
the seat token when it has one, to get its seat back) and serves the
connection with a `Connection` (reader, writer, heartbeats; see `conn.py`)
until it ends. Every host message is checked (`check_host_message`), its
`seq` followed (a gap sends `resync`, answered by a full `snapshot`), and the
client's picture updated (`room`, `seat`, `token`, the latest `view`, the
profile's `balance`) before `on_message(msg)` sees it. A client given a
`profile` (`{"name", "key"}`, e.g. from `lanmatch.net.profile`) brings
it in every `hello`: a host with a store recognises it (coin rooms, stats).

`BotNode` is a `Client` that plays: it lists the rooms, joins one (the named
one, or the first with a free seat), and answers every view that offers it
legal actions with its bot's choice (`lanmatch.bots.make_bot`), exactly like
a person's console would. When the connection drops it reconnects by itself
with its seat token. It stops when the match ends (unless `stay`).
"""

from __future__ import annotations

import logging
import random
from typing import Any

import trio

from lanmatch import __version__
from lanmatch.bots import make_bot
from lanmatch.net.conn import Connection
from lanmatch.protocol import (
    PROTOCOL_VERSION,
    RemoteProtocolError,
    check_host_message,
    view_from_wire,
)

log = logging.getLogger("lanmatch.client")


def parse_address(text: str, default_port: int | None = None) -> tuple[str, int]:
    """`HOST:PORT` as (host, port).

    Raises:
        ValueError: no port, or a port outside 1-65535, with a sentence.
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
    ):
        self.name = name
        self.agent = agent
        self.token = token
        self.profile = profile  # {"name", "key"}: sent in hello
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
        self.view_msg: dict[str, Any] | None = None  # the latest `view` message, `far` keys restored
        self.fatal: dict[str, Any] | None = None  # a fatal error the host sent
        self.welcomed = False

    # ------------------------------------------------------------ sending

    def send(self, typ: str, **fields: Any) -> bool:
        if self.conn is None:
            return False
        return self.conn.send({"type": typ, **fields})

    def act(self, action: dict[str, Any], state_id: int | None = None) -> bool:
        """Send `action`, answering `state_id` (default: the latest view's)."""
        if state_id is None:
            if self.view_msg is None:
                return False
            state_id = self.view_msg["state_id"]
        return self.send("act", state_id=state_id, action=action)

    # ------------------------------------------------------------ running

    async def connect_once(self, address: tuple[str, int], *, task_status=trio.TASK_STATUS_IGNORED) -> str:
        """Connect over TCP, hello, serve until the connection ends; returns why it ended.

        Raises:
            OSError: the host cannot be reached within `connect_timeout`.
        """
        with trio.fail_after(self.connect_timeout):
            try:
                stream = await trio.open_tcp_stream(*address)
            except trio.TooSlowError:
                raise OSError(f"no answer from {address[0]}:{address[1]}") from None
        return await self.run_stream(stream, task_status=task_status)

    async def run_stream(self, stream: trio.abc.Stream, *, task_status=trio.TASK_STATUS_IGNORED) -> str:
        """Say hello on an open `stream` and serve it until it ends; returns why it ended."""
        conn = Connection(stream, numbered=False, heartbeat=self.heartbeat, dead_after=self.dead_after, label=self.name)
        self.conn = conn
        self.seq = 0
        self.welcomed = False
        hello: dict[str, Any] = {"protocol": PROTOCOL_VERSION, "name": self.name, "agent": self.agent,
                                 "client": f"lanmatch {__version__}"}
        if self.token:
            hello["token"] = self.token
        if self.profile is not None:
            hello["profile"] = {"name": self.profile["name"], "key": self.profile["key"]}
        self.send("hello", **hello)
        task_status.started(conn)
        try:
            await conn.run(self._receive)
        finally:
            self.conn = None
        return conn.close_reason or "closed"

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close("bye")

    def _receive(self, msg: dict[str, Any]) -> None:
        check_host_message(msg)
        seq = msg["seq"]
        if seq != self.seq + 1:
            self.gaps += 1
            log.info("%s: sequence gap (%d after %d): resync", self.name, seq, self.seq)
            self.send("resync")
        self.seq = seq
        typ = msg["type"]
        if typ == "welcome":
            self.welcomed = True
            self.account = msg.get("profile")
            self.balance = self.account.get("balance") if isinstance(self.account, dict) else None
        elif typ == "coins":
            self.balance = msg["balance"]
        elif typ == "seated":
            self.room_name, self.seat, self.token = msg["room"], msg["seat"], msg["token"]
        elif typ == "watching":
            self.room_name, self.seat = msg["room"], None
        elif typ == "left":
            self.room_name, self.seat, self.token, self.room, self.view_msg = None, None, None, None, None
        elif typ == "room":
            self.room = msg["room"]
        elif typ == "view":
            msg = {**msg, "view": view_from_wire(msg["view"])}
            self.view_msg = msg
        elif typ == "snapshot":
            self.room = msg["room"]
            self.seat = msg["seat"]
            if msg["view"] is not None:
                v = msg["view"]
                if not isinstance(v.get("view"), dict) or type(v.get("state_id")) is not int:
                    raise RemoteProtocolError("bad_field", "a snapshot's view is a view message")
                self.view_msg = {**v, "type": "view", "seq": seq, "view": view_from_wire(v["view"])}
                msg = {**msg, "view": self.view_msg}
        elif typ == "error":
            if msg["code"] == "bad_token":  # that seat is gone (freed, or a restarted host's table ended)
                self.token, self.seat, self.room_name, self.room, self.view_msg = None, None, None, None, None
            if msg["fatal"]:
                self.fatal = msg
        self.on_message(msg)

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

    async def run(self, address: tuple[str, int]) -> int:
        """Play until the match ends (0), or a fatal refusal (2), or the host
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
                log.info("%s: cannot connect to %s:%d: %s", self.name, *address, e or "timeout")
            else:
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(self._lister)
                    reason = await self.run_stream(stream)
                    nursery.cancel_scope.cancel()
                if self.welcomed:
                    failures = 0
                    last_ok = trio.current_time()
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
        if typ == "welcome" and self.token is None:
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
        if page + 1 < pages:  # the list is paged: look at the next page at once
            self.send("list", page=page + 1)
            return
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
