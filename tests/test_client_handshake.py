"""The client's side of the protocol-2 handshake (docs/protocol.md section 4,
what every `Client` speaks): nothing is sent before the
host's first frame, the profile travels as a proof and is registered where it
is unknown, a stranger's service or another version is one line with no
retry, and what a newer host sends that this client does not know is passed
over.

The hosts here are scripted on 127.0.0.1 (the real host's side is in
tests/test_host_handshake.py); the strangers are plain TCP services that
record every byte they receive. `lanmatch bot ADDR` runs as a real process.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import subprocess
import sys
from functools import partial
from typing import Any

import pytest
import trio
from _net import LOOPBACK
from _stranger import Stranger, only_a_client_hello

from lanmatch.net.client import BotNode, Client, NotLanmatch, profile_proof, profile_verifier
from lanmatch.net.tls import Identity
from lanmatch.protocol import Decoder, encode_frame
from lanmatch.protocol.proofs import host_key
from lanmatch.store.db import key_hash

KEY = secrets.token_hex(16)
PROFILE = {"name": "Ann", "key": KEY}


def host_frame(nonce: str, *, versions: tuple[int, ...] = (1, 2), name: str = "Kitchen") -> dict[str, Any]:
    return {"type": "host", "seq": 1, "protocol": max(versions), "versions": list(versions), "name": name,
            "server": "lanmatch 9", "nonce": nonce}


class Script:
    """A scripted host on 127.0.0.1: `serve(stream)` runs for each connection;
    every byte a peer sends is kept in `got`."""

    def __init__(self, tls: bool = True) -> None:
        self.got = bytearray()
        self.connections = 0
        self.port = 0
        self.tls = tls  # a lanmatch host speaks TLS (its certificate: `identity`); a stranger does not
        self.identity = Identity.ephemeral()

    async def start(self, nursery: trio.Nursery, serve) -> tuple[str, int]:
        async def handler(stream: trio.SocketStream) -> None:
            self.connections += 1
            with trio.move_on_after(10):
                if self.tls:
                    stream = trio.SSLStream(stream, self.identity.server_context, server_side=True)
                    try:
                        await stream.do_handshake()
                    except trio.BrokenResourceError:
                        return
                await serve(stream)
            await trio.aclose_forcefully(stream)

        listeners = await nursery.start(partial(trio.serve_tcp, handler, 0, host=LOOPBACK))
        self.port = listeners[0].socket.getsockname()[1]
        return LOOPBACK, self.port

    async def silent_for(self, stream: trio.SocketStream, seconds: float) -> None:
        """Read (and keep) whatever comes for `seconds`."""
        with trio.move_on_after(seconds):
            try:
                while data := await stream.receive_some(4096):
                    self.got += data
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                return  # the peer reset it

    async def read(self, stream: trio.SocketStream, dec: Decoder) -> dict[str, Any]:
        while True:
            msg = dec.next_message()
            if msg is not None and msg.get("type") != "ping":
                return msg
            if msg is None:
                data = await stream.receive_some(4096)
                assert data, "the peer closed"
                self.got += data
                dec.feed(data)


async def test_a_protocol_2_client_waits_for_the_host_proves_its_profile_and_registers_it(nursery):
    """Nothing before the host frame; then hello with a proof (the HMAC of the
    nonce under the verifier the store keeps), never the key; on
    `unknown_profile` a `register` whose verifier belongs to that proof."""
    nonce = secrets.token_hex(16)
    seen: dict[str, Any] = {}
    script = Script()

    async def serve(stream: trio.SocketStream) -> None:
        await script.silent_for(stream, 0.5)
        seen["before"] = bytes(script.got)  # what came before the host spoke: nothing
        await stream.send_all(encode_frame(host_frame(nonce)))
        dec = Decoder()
        seen["hello"] = await script.read(stream, dec)
        await stream.send_all(encode_frame({"type": "welcome", "seq": 2, "protocol": 2, "host": "Kitchen",
                                            "server": "x", "coins": True, "profile": None}))
        await stream.send_all(encode_frame({"type": "error", "seq": 3, "code": "unknown_profile",
                                            "message": "No profile 'Ann' here yet: register it.", "fatal": False,
                                            "ref": "hello"}))
        seen["register"] = await script.read(stream, dec)
        await stream.send_all(encode_frame({"type": "profile", "seq": 4, "profile": {"name": "Ann", "balance": 1000}}))
        await script.silent_for(stream, 0.3)

    address = await script.start(nursery, serve)
    client = Client("Ann", profile=PROFILE, protocol=2, token="t" * 32)
    await client.connect_once(address)
    assert seen["before"] == b""
    hello = seen["hello"]
    assert hello["protocol"] == 2 and hello["name"] == "Ann" and hello["token"] == "t" * 32
    assert set(hello["profile"]) == {"name", "proof"} and hello["profile"]["name"] == "Ann"
    here = host_key(KEY, script.identity.fingerprint)  # the key at this host (its certificate's)
    want = hmac.new(bytes.fromhex(key_hash(here)), f"lanmatch-hello:{nonce}".encode(), hashlib.sha256).hexdigest()
    assert hello["profile"]["proof"] == want and client.fingerprint == script.identity.fingerprint
    assert seen["register"] == {"type": "register", "profile": {"name": "Ann", "verifier": key_hash(here)}}
    assert KEY.encode() not in script.got and here.encode() not in script.got  # no key travels
    assert client.account == {"name": "Ann", "balance": 1000} and client.balance == 1000
    assert client.seq == 4 and client.gaps == 0 and client.answered
    assert profile_verifier(here) == key_hash(here) and profile_proof(key_hash(here), nonce) == want


async def test_a_host_of_another_version_is_one_line_and_gets_nothing(nursery):
    script = Script()

    async def serve(stream: trio.SocketStream) -> None:
        await stream.send_all(encode_frame(host_frame(secrets.token_hex(16), versions=(3,))))
        await script.silent_for(stream, 0.5)

    address = await script.start(nursery, serve)
    with pytest.raises(NotLanmatch) as e:
        await Client("Ann", profile=PROFILE, protocol=2).connect_once(address)
    assert str(e.value) == "Kitchen speaks lanmatch protocol 3; this lanmatch speaks 2: update the older side"
    assert script.got == b""


@pytest.mark.parametrize(("tls", "answer", "why"), [
    (False, b"HTTP/1.1 400 Bad Request\r\n\r\n", "it does not speak TLS 1.3, as every lanmatch host does"),
    (False, None, "it did not answer as one within 0.5 s"),
    (False, encode_frame({"type": "welcome", "seq": 1, "protocol": 1, "host": "Old", "server": "x"}),
     "it does not speak TLS 1.3, as every lanmatch host does"),  # a host of an older lanmatch
    (False, b"", "it does not speak TLS 1.3, as every lanmatch host does"),
    (True, b"HTTP/1.1 400 Bad Request\r\n\r\n", "it sent something else: not a lanmatch frame"),
    (True, None, "it did not answer as one within 0.5 s"),
    (True, encode_frame({"type": "welcome", "seq": 1, "protocol": 1, "host": "Old", "server": "x"}),
     "its first message was not a lanmatch host's"),
    (True, encode_frame({**host_frame("x" * 32)}), "its first message was not a lanmatch host's"),  # not a fresh nonce
    (True, b"", "it closed the connection without answering as one"),
])
async def test_a_stranger_is_one_line_and_is_sent_nothing(nursery, tls, answer, why):
    """A service that does not speak TLS gets one ClientHello; one that does
    (and is not a lanmatch host) gets nothing inside it."""
    script = Script(tls=tls)

    async def serve(stream: trio.SocketStream) -> None:
        if answer == b"":
            return
        if answer is not None:
            await stream.send_all(answer)
        await script.silent_for(stream, 1.5)

    address = await script.start(nursery, serve)
    client = Client("Ann", profile=PROFILE, protocol=2, token="t" * 32)
    client.host_wait = 0.5
    with pytest.raises(NotLanmatch) as e:
        await client.connect_once(address)
    assert str(e.value) == f"{LOOPBACK}:{address[1]} is not a lanmatch host ({why})"
    await trio.sleep(0.2)
    # (a service that closes at once may not have read even the ClientHello)
    assert (only_a_client_hello(script.got) or script.got == b"" if not tls else script.got == b"")
    assert not client.answered


async def test_after_a_good_connection_a_host_that_does_not_answer_is_a_drop_not_a_stranger(nursery):
    script = Script()

    async def serve(stream: trio.SocketStream) -> None:
        if script.connections == 1:
            await stream.send_all(encode_frame(host_frame(secrets.token_hex(16))))
            await stream.send_all(encode_frame({"type": "welcome", "seq": 2, "protocol": 2, "host": "Kitchen",
                                                "server": "x"}))
        await script.silent_for(stream, 0.3 if script.connections == 1 else 1.5)

    address = await script.start(nursery, serve)
    client = Client("Ann", protocol=2, dead_after=60)
    client.host_wait = 0.5
    await client.connect_once(address)
    assert client.welcomed and client.answered
    assert await client.connect_once(address) == "no_host_frame"  # the usual reconnect goes on from here


async def test_a_protocol_1_client_passes_over_the_host_frame_and_what_it_does_not_know(nursery):
    """`Client(protocol=1)` (an older peer): hello at once with the key; a newer
    host's `host` frame and a message of an unknown type count in `seq` and
    change nothing else; a `bye` is kept and ends the connection."""
    script = Script()
    seen: dict[str, Any] = {}

    async def serve(stream: trio.SocketStream) -> None:
        dec = Decoder()
        seen["hello"] = await script.read(stream, dec)
        for msg in (host_frame(secrets.token_hex(16)),
                    {"type": "welcome", "seq": 2, "protocol": 1, "host": "Kitchen", "server": "x"},
                    {"type": "teleport", "seq": 3, "where": "Mars"},
                    {"type": "bye", "seq": 4, "reason": "The host is shutting down.", "host": "Kitchen"}):
            await stream.send_all(encode_frame(msg))
        await script.silent_for(stream, 1.0)

    address = await script.start(nursery, serve)
    got: list[str] = []

    class Watcher(Client):
        def on_message(self, msg: dict[str, Any]) -> None:
            got.append(msg["type"])

    client = Watcher("Ann", profile=PROFILE, protocol=1)
    assert await client.connect_once(address) == "bye"
    assert seen["hello"]["protocol"] == 1 and seen["hello"]["profile"] == PROFILE
    assert got == ["host", "welcome", "bye"] and client.gaps == 0 and client.seq == 4
    assert client.bye["reason"] == "The host is shutting down."


# ------------------------------------------------------------------ `lanmatch bot ADDR` and strangers


@pytest.mark.parametrize(("answer", "why"), [
    (b"HTTP/1.1 400 Bad Request\r\n\r\n", "it does not speak TLS 1.3, as every lanmatch host does"),
    (None, "it did not answer as one within 5 s"),
])
def test_lanmatch_bot_at_a_strangers_port_sends_nothing_and_stops_with_one_line(answer, why):
    with Stranger(answer) as stranger:
        run = subprocess.run([sys.executable, "-m", "lanmatch", "bot", f"{LOOPBACK}:{stranger.port}"],
                             capture_output=True, text=True, timeout=60)
        lines = [line for line in run.stderr.splitlines() if "lanmatch host" in line]
        assert run.returncode == 2, run.stderr
        assert len(lines) == 1 and lines[0].endswith(f"{LOOPBACK}:{stranger.port} is not a lanmatch host ({why})")
        assert "cannot connect" not in run.stderr  # no retry loop
        assert stranger.connections == 1 and only_a_client_hello(bytes(stranger.received))


async def test_a_bot_node_at_a_strangers_port_exits_2_without_a_word_sent(nursery):
    """In process: `BotNode.run` (what `lanmatch bot` runs) returns 2 at once,
    having sent only its TLS ClientHello."""
    script = Script(tls=False)

    async def serve(stream: trio.SocketStream) -> None:
        await stream.send_all(b"SSH-2.0-OpenSSH_9.6\r\n")
        await script.silent_for(stream, 1.0)

    address = await script.start(nursery, serve)
    node = BotNode("easy", retry_for=30)
    assert await node.run(address) == 2
    assert only_a_client_hello(script.got) and script.connections == 1
