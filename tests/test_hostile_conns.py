"""Hostile connections (issue 13, docs/protocol.md "Connections and frames"):
caps in total and per address, the hello and frame deadlines, escaped log
lines. Real sockets on 127.0.0.1; every loop bounded in count and time. Each
test ends with the host still serving a full match to bot nodes.
"""

from __future__ import annotations

import contextlib
import logging
import os
import random
import signal
import subprocess
import sys

import trio
import trio.testing
from _net import LOOPBACK, RawPeer, first_line, frame_header, play_bots, start_host

from lanmatch.net.host import Host
from lanmatch.protocol import PROTOCOL_VERSION, Decoder, encode_frame


async def serves_a_match(host, room: str = "after") -> None:
    host.create_room(room, game="dominoes", seats=3, auto_start=True, start_after=0.2, bot_level="easy")
    await play_bots(host.port, room, ["easy", "easy"])
    assert host.rooms[room].room.referee.over


async def close_all(host, peers: list[RawPeer], *, left: int = 0) -> None:
    """Close `peers`, then wait until the host counts `left` connections."""
    for p in peers:
        await p.aclose()
    with trio.fail_after(5):
        while len(host._conns) > left:
            await trio.sleep(0.05)


async def refused(p: RawPeer, code: str) -> dict:
    msg = await p.expect("error", code=code)
    assert msg["fatal"] is True
    assert await p.closed()
    return msg


async def test_more_connections_than_the_cap_evict_the_never_helloed_then_host_full(nursery):
    host = await start_host(nursery, max_connections=8)
    idle = [await RawPeer.open(host.port) for _ in range(8)]  # at the cap, none said hello
    newcomers = []
    for k in range(3):  # each evicts the oldest idle one, and is served
        newcomers.append(await RawPeer.open(host.port))
        await refused(idle[k], "host_full")
        assert (await newcomers[-1].hello(f"new{k}"))["type"] == "welcome"
    for p in idle[3:]:  # the rest are evicted for people saying hello
        q = await RawPeer.open(host.port)
        await refused(p, "host_full")
        await q.hello("late")
        newcomers.append(q)
    assert len(newcomers) == 8
    over = await RawPeer.open(host.port)  # 8 people said hello: nobody to evict
    msg = await refused(over, "host_full")
    assert "8" in msg["message"]
    await close_all(host, newcomers)
    await serves_a_match(host)


async def test_over_the_per_address_cap_is_too_many_connections(nursery):
    host = await start_host(nursery, max_per_address=4)
    peers = [await RawPeer.open(host.port) for _ in range(4)]
    for p in peers:
        await p.hello()
    extra = await RawPeer.open(host.port)
    await refused(extra, "too_many_connections")
    await close_all(host, peers[:1], left=3)
    again = await RawPeer.open(host.port)  # a place came free
    await again.hello()
    await close_all(host, [*peers[1:], again])
    await serves_a_match(host)


async def test_a_connection_that_never_says_hello_gets_hello_timeout(nursery):
    host = await start_host(nursery, hello_timeout=1.5, dead_after=0.5, heartbeat=0.2)
    silent = await RawPeer.open(host.port)
    msg = await refused(silent, "hello_timeout")  # not dropped silently for its silence first
    # the host's first frame (protocol 2), then the error: never pinged before hello
    assert [m["type"] for m in silent.got] == ["host", "error"] and msg["seq"] == 2
    late = await RawPeer.open(host.port)
    await trio.sleep(1.0)  # past the silence and ping times, within the hello deadline
    welcome = await late.hello()
    assert welcome["seq"] == 2  # docs/protocol.md section 4: `welcome` follows the host's first frame
    await late.aclose()
    host.hello_timeout, host.dead_after, host.heartbeat = 0.5, 4.0, 1.0  # (for the connections to come)
    greeted = await RawPeer.open(host.port)
    await greeted.hello()
    for _ in range(5):  # past the deadline: a peer that said hello stays (it answers pings)
        await trio.sleep(0.2)
        await greeted.send({"type": "ping"})
    await greeted.send({"type": "list"})
    await greeted.expect("rooms")
    await greeted.aclose()
    await serves_a_match(host)


async def test_a_frame_dripped_a_byte_at_a_time_gets_slow_frame(nursery):
    host = await start_host(nursery, frame_timeout=0.6)
    slow = await RawPeer.open(host.port)
    await slow.hello()
    await slow.send_bytes(frame_header(40) + b"\x81")
    said = None
    with trio.move_on_after(5):
        for _ in range(20):  # a byte every 0.2 s keeps the connection busy, not the frame alive
            with trio.move_on_after(0.2):  # (read meanwhile: a reset would lose what the host said)
                said = await slow.recv(1.0)
            if said is not None and said["type"] == "error":
                break
            try:
                await slow.send_bytes(b"\xa1")
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                break
    assert said is not None and (said["code"], said["fatal"]) == ("slow_frame", True), said
    assert await slow.closed()
    # whole frames sent slowly, one after another, are fine
    steady = await RawPeer.open(host.port)
    await steady.hello()
    for _ in range(4):
        await trio.sleep(0.3)
        await steady.send({"type": "list"})
        await steady.expect("rooms")
    await steady.aclose()
    await serves_a_match(host)


async def test_peer_text_in_the_log_is_escaped(nursery, caplog):
    caplog.set_level(logging.INFO, logger="lanmatch")
    host = await start_host(nursery)
    p = await RawPeer.open(host.port)
    await p.hello("Zoë \"the\" 'best'\u00a0\\n")
    await p.send({"type": "create", "room": "salle\u202fé", "game": "dominoes", "seats": 2, "bots": "easy"})
    await p.expect("seated")
    await p.send({"type": "start"})
    await p.expect("view")
    await p.aclose()
    with trio.fail_after(5):
        while host.peers:
            await trio.sleep(0.05)
    lines = [r.getMessage() for r in caplog.records if r.name.startswith("lanmatch")]
    text = "\n".join(lines)
    assert "Zo\\xeb" in text and "salle\\u202f\\xe9" in text, text
    assert all(line.isascii() and line.isprintable() for line in lines), text
    assert "\\\\n" in text  # a peer's backslash-n is not a line break, nor reads as one
    await serves_a_match(host)


# ------------------------------------------------------------------ the sweeper, on trio's autojump clock
#
# One task keeps every connection's clocks (`conn.py` `Sweeper`): the host's
# `serve_stream` over in-memory stream pairs (the same code as over TCP), in
# virtual time, so that a thousand connections' deadlines take milliseconds.


class MemPeer:
    """A raw peer on one end of a `memory_stream_pair`, the host on the other."""

    def __init__(self, stream):
        self.stream = stream
        self.dec = Decoder()
        self.got: list[dict] = []

    @classmethod
    def open(cls, nursery, host: Host) -> MemPeer:
        a, b = trio.testing.memory_stream_pair()
        nursery.start_soon(host.serve_stream, b)
        return cls(a)

    async def recv(self) -> dict | None:
        """The next message, or None at the end of the stream."""
        while True:
            m = self.dec.next_message()
            if m is not None:
                self.got.append(m)
                return m
            try:
                data = await self.stream.receive_some(65536)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                return None
            if not data:
                return None
            self.dec.feed(data)

    async def send(self, msg: dict) -> None:
        await self.stream.send_all(encode_frame(msg))

    async def hello(self, name: str) -> dict:
        await self.send({"type": "hello", "protocol": PROTOCOL_VERSION, "name": name})
        while (m := await self.recv())["type"] != "welcome":
            pass
        return m

    async def until_closed(self) -> list[dict]:
        """Everything the host still sends, up to its end of the stream."""
        out = []
        while (m := await self.recv()) is not None:
            out.append(m)
        return out


async def gone(host: Host, left: int = 0) -> None:
    """Wait until the host (and its sweeper) count `left` connections."""
    with trio.fail_after(5):
        while len(host._conns) > left or len(host.sweeper.conns) > left:
            await trio.sleep(0.01)


async def memory_host(nursery, **kw) -> Host:
    host = Host("sweep", rng=random.Random(1), strict=True, tls=False, **kw)  # the raw peers speak plain frames
    await nursery.start(host.run)
    return host


async def test_the_sweeper_gives_every_never_helloed_connection_hello_timeout_at_its_deadline(nursery, autojump_clock):
    host = await memory_host(nursery, max_connections=2000)
    peers = [MemPeer.open(nursery, host) for _ in range(1000)]
    opened = trio.current_time()
    for p in peers:
        assert (await p.recv())["type"] == "host"
    await trio.sleep(host.hello_timeout - 0.1)
    assert len(host._conns) == len(host.sweeper.conns) == 1000  # nobody dropped before the deadline
    for p in peers:
        rest = await p.until_closed()
        assert [(m["type"], m["code"], m["fatal"]) for m in rest] == [("error", "hello_timeout", True)]
    assert trio.current_time() - opened < host.hello_timeout + 1.0
    await gone(host)
    assert not host._ungreeted
    late = MemPeer.open(nursery, host)  # the host still serves
    await late.hello("late")
    await late.send({"type": "list"})
    while (await late.recv())["type"] != "rooms":
        pass


async def test_the_sweeper_gives_a_dripped_frame_slow_frame_and_spares_frames_split_across_chunks(nursery, autojump_clock):
    host = await memory_host(nursery)
    slow, steady = MemPeer.open(nursery, host), MemPeer.open(nursery, host)
    await slow.hello("slow")
    await steady.hello("steady")
    ping = encode_frame({"type": "ping"})
    half = len(ping) // 2
    began = trio.current_time()
    await slow.stream.send_all(frame_header(40) + b"\x81")

    async def drip() -> None:
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
            for _ in range(10):  # a byte every 3 s keeps the connection busy, not the frame alive
                await trio.sleep(3.0)
                await slow.stream.send_all(b"\xa1")

    async def split_frames() -> None:  # every chunk ends one frame and begins the next
        await steady.stream.send_all(ping[:half])
        for _ in range(10):
            await trio.sleep(3.0)
            await steady.stream.send_all(ping[half:] + ping[:half])
        await steady.stream.send_all(ping[half:])
        await steady.send({"type": "list"})

    async with trio.open_nursery() as n:
        n.start_soon(drip)
        n.start_soon(split_frames)
        rest = await slow.until_closed()
        assert host.frame_timeout <= trio.current_time() - began < host.frame_timeout + 1.0
        assert [(m["type"], m.get("code")) for m in rest if m["type"] != "ping"] == [("error", "slow_frame")]
        while (m := await steady.recv())["type"] != "rooms":  # 30 s of split frames: still served
            assert m["type"] == "ping", m
    assert [c.label for c in host._conns.values()] == [host.sweeper.conns[c].label for c in host._conns]


async def test_the_sweeper_pings_a_greeted_peer_and_drops_it_when_silent(nursery, autojump_clock):
    host = await memory_host(nursery)
    quiet = MemPeer.open(nursery, host)
    await quiet.hello("quiet")
    said = trio.current_time()
    rest = await quiet.until_closed()  # it never sends again
    assert rest and all(m["type"] == "ping" for m in rest)  # pinged each second of its silence ...
    assert host.dead_after <= trio.current_time() - said < host.dead_after + 1.0  # ... then dropped
    await gone(host)


async def test_lanmatch_host_takes_its_connection_caps_from_the_command_line(tmp_path):
    """`lanmatch host --max-per-address 2 --max-connections 3` (docs/protocol.md section 14)."""
    cmd = [sys.executable, "-m", "lanmatch", "host", "--name", f"lm-caps-{os.getpid()}", "--bind", LOOPBACK,
           "--data", str(tmp_path / "data"), "--max-per-address", "2", "--max-connections", "3"]
    proc = await trio.lowlevel.open_process(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        port = int((await first_line(proc)).split(b":")[-1])
        peers = [await RawPeer.open(port) for _ in range(2)]
        for p in peers:
            await p.hello()
        msg = await refused(await RawPeer.open(port), "too_many_connections")
        assert "2" in msg["message"]
        for p in peers:
            await p.aclose()
    finally:
        proc.send_signal(signal.SIGINT)
        with trio.fail_after(10):
            await proc.wait()


async def flood_lists(p: RawPeer, n: int) -> tuple[int, dict | None]:
    """Send `n` `list`s at once: how many were answered `rooms`, and the fatal error if one came."""
    await p.send_bytes(b"".join(encode_frame({"type": "list"}) for _ in range(n)))
    answered = 0
    while answered < n:
        m = await p.recv()
        if m is None:
            return answered, None
        if m["type"] == "rooms":
            answered += 1
        elif m["type"] == "error" and m["fatal"]:
            return answered, m
    return answered, None


async def test_reconnecting_after_rate_limited_brings_no_fresh_burst(nursery):
    host = await start_host(nursery)
    fresh = await RawPeer.open(host.port)
    await fresh.hello("fresh")
    assert await flood_lists(fresh, 30) == (30, None)  # within a new connection's burst
    answered, err = await flood_lists(fresh, 150)  # past it: cut off
    assert err is not None and err["code"] == "rate_limited" and answered < 150
    assert await fresh.closed()
    again = await RawPeer.open(host.port)  # the same address, at once: the rate, not a new burst
    await again.hello("again")
    answered, err = await flood_lists(again, 30)
    assert err is not None and err["code"] == "rate_limited" and answered < 30
    await again.aclose()
    await close_all(host, [])
    await serves_a_match(host)
