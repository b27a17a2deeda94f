"""Helpers for the network tests: a host on 127.0.0.1, a raw peer, bot nodes."""

from __future__ import annotations

import random
import struct
from typing import Any

import trio

from lanmatch.net.client import BotNode
from lanmatch.net.host import Host
from lanmatch.net.tls import client_handshake
from lanmatch.protocol import PROTOCOL_VERSION, Decoder, encode_frame

LOOPBACK = "127.0.0.1"


async def start_host(nursery: trio.Nursery, **kw: Any) -> Host:
    kw.setdefault("rng", random.Random(7))
    kw.setdefault("strict", True)
    kw.setdefault("person_bot_delay", 0.0)
    host = Host("test host", **kw)
    await nursery.start(host.run)
    await nursery.start(host.listen, 0, LOOPBACK)
    return host


class RawPeer:
    """A peer speaking frames by hand, for the bad-input tests."""

    def __init__(self, stream: trio.SocketStream):
        self.stream = stream
        self.dec = Decoder()
        self.got: list[dict[str, Any]] = []
        self.eof = False

    @classmethod
    async def open(cls, port: int, *, tls: bool = True) -> RawPeer:
        """A connection to 127.0.0.1:`port`, TLS as every lanmatch peer's
        (`tls=False`: plain TCP, what a host of ours never serves)."""
        stream = await trio.open_tcp_stream(LOOPBACK, port)
        return cls(await client_handshake(stream) if tls else stream)

    async def send(self, msg: dict[str, Any]) -> None:
        await self.stream.send_all(encode_frame(msg))

    async def send_bytes(self, data: bytes) -> None:
        await self.stream.send_all(data)

    async def send_eof(self) -> None:
        """Half-close the TCP connection (under TLS: without a close_notify)."""
        await getattr(self.stream, "transport_stream", self.stream).send_eof()

    async def recv(self, timeout: float = 3.0) -> dict[str, Any] | None:
        """The next message (None at EOF or reset).

        Raises:
            trio.TooSlowError: nothing within `timeout`.
        """
        with trio.fail_after(timeout):
            while True:
                msg = self.dec.next_message()
                if msg is not None:
                    self.got.append(msg)
                    return msg
                if self.eof:
                    return None
                try:
                    data = await self.stream.receive_some(65536)
                except (trio.BrokenResourceError, trio.ClosedResourceError):
                    data = b""
                if not data:
                    self.eof = True
                self.dec.feed(data)

    async def expect(self, typ: str, timeout: float = 3.0, **match: Any) -> dict[str, Any]:
        """Skip other messages until one of type `typ` (with the `match` fields) comes."""
        with trio.fail_after(timeout):
            while True:
                msg = await self.recv(timeout)
                assert msg is not None, f"connection closed while waiting for {typ!r}: got {self.got[-5:]}"
                if msg["type"] == typ and all(msg.get(k) == v for k, v in match.items()):
                    return msg

    async def closed(self, timeout: float = 3.0) -> bool:
        """Read until the host closes the connection; True if it did in time."""
        with trio.move_on_after(timeout):
            while await self.recv(timeout) is not None:
                pass
            return True
        return False

    async def hello(self, name: str = "raw", **kw: Any) -> dict[str, Any]:
        await self.send({"type": "hello", "protocol": PROTOCOL_VERSION, "name": name, **kw})
        return await self.expect("welcome")

    async def aclose(self) -> None:
        await self.stream.aclose()


async def seated(port: int, room: str, name: str = "p", *, create: dict | None = None, **join) -> RawPeer:
    """A raw peer called `name` seated at `room` (made with `create`, else joined with `join`'s fields)."""
    p = await RawPeer.open(port)
    await p.hello(name)
    if create is not None:
        await p.send({"type": "create", "room": room, **create})
    else:
        await p.send({"type": "join", "room": room, **join})
    await p.expect("seated")
    return p


async def first_line(proc: trio.Process, timeout: float = 20.0) -> bytes:
    """The first line a process prints on stdout (`lanmatch host`: "listening ADDR:PORT")."""
    with trio.fail_after(timeout):
        line = b""
        while not line.endswith(b"\n"):
            chunk = await proc.stdout.receive_some(1)
            assert chunk, "the process printed nothing"
            line += chunk
    return line


def frame_header(n: int) -> bytes:
    return struct.pack(">I", n)


async def play_bots(port: int, room: str, levels: list[str], *, seed: int = 0, cls: type = BotNode,
                    timeout: float = 30.0, **kw: Any) -> list[BotNode]:
    """Run one in-process bot node per level in `room` until each has finished."""
    nodes = [cls(level, room=room, seed=seed + i, name=f"bot{i}", **kw) for i, level in enumerate(levels)]
    codes: list[int] = []
    with trio.fail_after(timeout):
        async with trio.open_nursery() as n:
            for node in nodes:
                async def go(node: BotNode = node) -> None:
                    codes.append(await node.run((LOOPBACK, port)))
                n.start_soon(go)
    assert codes == [0] * len(nodes), codes
    return nodes
