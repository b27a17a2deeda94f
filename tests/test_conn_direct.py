"""A message sent while a connection's writer is idle goes to the socket at
once, from the sender's own task (net/conn.py, "direct writes"); what the
socket cannot take at once is sent by the writer, in order. Real TCP on
127.0.0.1, TLS 1.3 and plain."""

from __future__ import annotations

import functools
import select

import pytest
import trio

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
