"""`lanmatch.net.tls.TLSStream`, the lean TLS 1.3 stream every connection
rides on, over real loopback sockets: a handshake and the certificate it
shows, data in both directions at once (records of every size, more than
one per read), the three ways a stream ends, and what a peer that is not
TLS gets."""

from __future__ import annotations

import os
import ssl
from functools import partial

import pytest
import trio
from _net import LOOPBACK

from lanmatch.net.tls import Identity, TLSStream, client_context, fingerprint_of


async def pair(nursery: trio.Nursery, identity: Identity) -> tuple[TLSStream, TLSStream]:
    """A connected (client, server) pair of TLS streams over 127.0.0.1."""
    got: list[TLSStream] = []
    ready = trio.Event()

    async def serve(tcp: trio.SocketStream) -> None:
        server = TLSStream(tcp, identity.server_context, server_side=True)
        await server.do_handshake()
        got.append(server)
        ready.set()
        await trio.sleep_forever()

    listeners = await nursery.start(partial(trio.serve_tcp, serve, 0, host=LOOPBACK))
    port = listeners[0].socket.getsockname()[1]
    client = TLSStream(await trio.open_tcp_stream(LOOPBACK, port), client_context(), server_side=False)
    with trio.fail_after(10):
        await client.do_handshake()
        await ready.wait()
    return client, got[0]


async def read_exactly(stream: TLSStream, n: int) -> bytes:
    data = bytearray()
    while len(data) < n:
        chunk = await stream.receive_some(65536)
        assert chunk, "ended early"
        data += chunk
    return bytes(data)


async def test_both_directions_at_once_with_records_of_every_size(nursery):
    identity = Identity.make()
    client, server = await pair(nursery, identity)
    assert fingerprint_of(client) == identity.fingerprint
    assert client._obj.version() == "TLSv1.3"
    blobs = [os.urandom(n) for n in (1, 100, 16384, 16385, 70000, 3)]
    want = b"".join(blobs)

    async def send(stream: TLSStream) -> None:
        for b in blobs:
            await stream.send_all(b)

    with trio.fail_after(20):
        async with trio.open_nursery() as n:
            n.start_soon(send, client)
            n.start_soon(send, server)
            got = {}

            async def read(name: str, stream: TLSStream) -> None:
                got[name] = await read_exactly(stream, len(want))

            n.start_soon(read, "server", server)
            n.start_soon(read, "client", client)
    assert got == {"server": want, "client": want}


async def test_close_notify_ends_the_other_side_cleanly_and_a_bare_tcp_end_is_a_break(nursery):
    identity = Identity.ephemeral()
    client, server = await pair(nursery, identity)
    await client.send_all(b"bye")
    await client.aclose()  # close_notify, then TCP closed
    with trio.fail_after(10):
        assert await read_exactly(server, 3) == b"bye"
        assert await server.receive_some() == b""
    with pytest.raises(trio.ClosedResourceError):
        await client.send_all(b"more")
    client, server = await pair(nursery, identity)
    await client.transport_stream.send_eof()  # TCP FIN without close_notify: a truncation
    with trio.fail_after(10), pytest.raises(trio.BrokenResourceError):
        await server.receive_some()


async def test_a_peer_that_is_not_tls_breaks_the_handshake_and_gets_at_most_an_alert(nursery):
    identity = Identity.ephemeral()
    seen: list[BaseException] = []

    async def serve(tcp: trio.SocketStream) -> None:
        try:
            await TLSStream(tcp, identity.server_context, server_side=True).do_handshake()
        except trio.BrokenResourceError as e:
            seen.append(e)

    listeners = await nursery.start(partial(trio.serve_tcp, serve, 0, host=LOOPBACK))
    port = listeners[0].socket.getsockname()[1]
    plain = await trio.open_tcp_stream(LOOPBACK, port)
    await plain.send_all(b"GET / HTTP/1.1\r\n\r\n")
    answer = b""
    with trio.fail_after(10):
        while chunk := await plain.receive_some(4096):
            answer += chunk
    assert answer == b"" or answer[0] == 0x15  # nothing, or one TLS alert record
    assert len(seen) == 1 and isinstance(seen[0].__cause__, ssl.SSLError)
    # and a client whose server is not TLS: BrokenResourceError, not a hang
    async def http(tcp: trio.SocketStream) -> None:
        await tcp.send_all(b"HTTP/1.1 400 Bad Request\r\n\r\n")
        await trio.sleep(1)

    listeners = await nursery.start(partial(trio.serve_tcp, http, 0, host=LOOPBACK))
    port = listeners[0].socket.getsockname()[1]
    client = TLSStream(await trio.open_tcp_stream(LOOPBACK, port), client_context(), server_side=False)
    with trio.fail_after(10), pytest.raises(trio.BrokenResourceError):
        await client.do_handshake()


async def test_two_senders_at_once_is_a_bug_said_loudly(nursery):
    client, _server = await pair(nursery, Identity.ephemeral())
    big = os.urandom(4 * 1024 * 1024)  # large enough to block in the transport (nobody reads)
    async with trio.open_nursery() as n:
        n.start_soon(client.send_all, big)
        await trio.sleep(0.05)
        with pytest.raises(trio.BusyResourceError):
            await client.send_all(b"x")
        n.cancel_scope.cancel()
