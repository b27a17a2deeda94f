"""The shortest way through the host (issue 19).

A message sent while a connection's writer is idle goes to the socket at
once, from the sender's own task (net/conn.py, "direct writes"); what the
socket cannot take at once is sent by the writer, in order. A peer's message
to a room whose task waits on an empty inbox is handled in the reader's turn
(net/host.py). Real TCP on 127.0.0.1, TLS 1.3 and plain."""

from __future__ import annotations

import functools
import select

import pytest
import trio
from _net import RawPeer, start_host

from lanmatch.net.conn import Connection
from lanmatch.net.tls import Identity, client_handshake
from lanmatch.protocol import Decoder

LOOPBACK = "127.0.0.1"


async def _pair(nursery: trio.Nursery, tls: bool):
    """(host-side Connection, running; the peer's raw stream, TLS if asked)."""
    accepted: list = []
    got = trio.Event()

    async def handler(stream: trio.SocketStream) -> None:
        accepted.append(stream)
        got.set()
        await trio.sleep_forever()

    listeners = await nursery.start(functools.partial(trio.serve_tcp, handler, 0, host=LOOPBACK))
    port = listeners[0].socket.getsockname()[1]
    client = await trio.open_tcp_stream(LOOPBACK, port)
    await got.wait()
    ident = Identity.ephemeral() if tls else None
    conn = Connection(accepted[0], numbered=True, tls=ident.server_context if ident else None, heartbeat=60.0,
                      dead_after=600.0)
    conn.strict = True
    nursery.start_soon(conn.run, lambda msg: None)
    peer = await client_handshake(client) if tls else client
    return conn, peer, client


async def _wait_idle(conn: Connection) -> None:
    with trio.fail_after(5):
        while not conn.idle:
            await trio.sleep(0.01)


async def _read(peer, dec: Decoder, n: int) -> list[dict]:
    out: list[dict] = []
    with trio.fail_after(20):
        while len(out) < n:
            dec.feed(await peer.receive_some(65536))
            while (m := dec.next_message()) is not None:
                out.append(m)
    return out


@pytest.mark.parametrize("tls", [True, False], ids=["tls", "plain"])
async def test_a_message_to_an_idle_connection_is_on_the_socket_when_send_returns(nursery, tls):
    conn, peer, client = await _pair(nursery, tls)
    await _wait_idle(conn)
    assert conn.send({"type": "ping"})
    # no checkpoint since the send: the writer task has not run, yet the bytes are readable
    readable, _, _ = select.select([client.socket.fileno()], [], [], 0)
    assert readable, "the frame waited for the writer task"
    assert conn.idle
    (m,) = await _read(peer, Decoder(), 1)
    assert m == {"seq": 1, "type": "ping"}


@pytest.mark.parametrize("tls", [True, False], ids=["tls", "plain"])
async def test_what_the_socket_cannot_take_goes_out_after_in_order(nursery, tls):
    conn, peer, client = await _pair(nursery, tls)
    await _wait_idle(conn)
    blob = "x" * 20_000
    n = 120  # about 2.4 MB: far more than the kernel's buffers hold while nobody reads
    for i in range(n):
        assert conn.send({"type": "note", "i": i, "text": blob})
    assert not conn.idle  # the rest waits for the writer
    got = await _read(peer, Decoder(), n)
    assert [m["seq"] for m in got] == list(range(1, n + 1))
    assert [m["i"] for m in got] == list(range(n))
    assert all(m["text"] == blob for m in got)
    await _wait_idle(conn)
    assert conn.send({"type": "ping"})  # and once it all went out, direct again
    assert (await _read(peer, Decoder(), 1))[0]["seq"] == n + 1


# ------------------------------------------------------------------ the room's turn, handed off


async def test_an_act_to_a_waiting_room_is_applied_in_the_readers_turn_and_its_view_sent(nursery):
    """The room's task waits on an empty inbox: the peer's `act` is handled in
    the reader's call (net/host.py, `RoomActor.handle_now`) and the actor's
    view is on its socket before the call returns, with no task switch."""
    host = await start_host(nursery)
    a = await RawPeer.open(host.port)
    await a.hello("ann")
    await a.send({"type": "create", "room": "r", "game": "colormatch", "table": "classic", "seats": 2})
    await a.expect("seated")
    await a.send({"type": "start"})
    with trio.fail_after(10):
        while True:
            view = await a.expect("view", timeout=10)
            if view["legal"]:
                break
    actor = host.rooms["r"]
    with trio.fail_after(5):
        while actor._waiting is None or not actor.session.seated[view["view"]["seat"]].link.idle:
            await trio.sleep(0.01)
    peer = actor.session.seated[view["view"]["seat"]]
    before = actor.actions
    host._guarded(peer, {"type": "act", "state_id": view["state_id"], "action": view["legal"][0]})
    assert actor.actions == before + 1  # applied in this call, not by the room's task later
    sock = getattr(a.stream, "transport_stream", a.stream).socket
    assert select.select([sock.fileno()], [], [], 0)[0], "the actor's view waited for another task"
    # the room's task still keeps the clocks: woken when the bot's move is due at
    # once (the host's bots in rooms with people wait `person_bot_delay`, 0 here)
    if actor.session.deadline() <= trio.current_time():
        assert actor._waiting is None
    else:
        assert actor._waiting is not None and actor._waiting.deadline == actor.session.deadline()
    got = await a.expect("view")
    assert got["state_id"] == view["state_id"] + 1
    with trio.fail_after(5):
        while got["state_id"] < view["state_id"] + 2:  # ... and the bot's move came
            got = await a.expect("view")


async def test_what_the_handling_posts_to_its_own_room_waits_its_turn(nursery):
    """A message that arrives while the room's task is busy goes to the inbox
    and is handled by the task, in order: three quick chats arrive in order."""
    host = await start_host(nursery)
    a = await RawPeer.open(host.port)
    await a.hello("ann")
    await a.send({"type": "create", "room": "r", "game": "colormatch", "table": "classic", "seats": 2})
    await a.expect("seated")
    for i in range(3):
        await a.send({"type": "chat", "text": f"line {i}"})
    got = [(await a.expect("chat"))["text"] for _ in range(3)]
    assert got == ["line 0", "line 1", "line 2"]
