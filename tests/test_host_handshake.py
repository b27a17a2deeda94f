"""Protocol 2 on the host, over real sockets on 127.0.0.1 (docs/protocol.md
sections 4 and 12): the `host` frame first, profile proofs, `register`,
protocol 1 still served, and `bye` when the host stops.

Every store is a real sqlite file in `tmp_path`; every loop is bounded.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
import secrets
import signal
import subprocess
import sys

import pytest
import trio
from _net import LOOPBACK, RawPeer, first_line, start_host
from _stranger import Stranger, only_a_client_hello

from lanmatch.net.discovery import check_alive
from lanmatch.protocol import encode_frame
from lanmatch.store import NEW_PROFILE_COINS, Store
from lanmatch.store.db import key_hash


def proof(key: str, nonce: str) -> str:
    return hmac.new(bytes.fromhex(key_hash(key)), f"lanmatch-hello:{nonce}".encode(), hashlib.sha256).hexdigest()


@pytest.fixture
def store(tmp_path):
    s = Store.open_dir(tmp_path / "data", lock=True, durable=False)
    yield s
    s.close()


async def test_the_host_speaks_first_with_a_fresh_nonce_and_welcome_is_seq_2(nursery):
    host = await start_host(nursery)
    nonces = set()
    for _ in range(2):
        p = await RawPeer.open(host.port)
        first = await p.recv()  # sent before the peer says anything
        assert {k: first[k] for k in ("type", "seq", "protocol", "versions", "name")} == {
            "type": "host", "seq": 1, "protocol": 3, "versions": [1, 2, 3], "name": "test host"}
        assert first["server"].startswith("lanmatch ")
        assert len(first["nonce"]) == 32 and not first["nonce"].strip("0123456789abcdef")
        nonces.add(first["nonce"])
        welcome = await p.hello("Ann")
        assert (welcome["seq"], welcome["protocol"]) == (2, 3)
        await p.aclose()
    assert len(nonces) == 2


async def test_a_protocol_1_hello_is_welcomed_in_protocol_1_with_its_key(nursery, store):
    host = await start_host(nursery, store=store)
    key = secrets.token_hex(16)
    p = await RawPeer.open(host.port)
    await p.send({"type": "hello", "protocol": 1, "name": "Old", "profile": {"name": "Old", "key": key}})
    welcome = await p.expect("welcome")
    assert welcome["protocol"] == 1 and welcome["profile"] == {"name": "Old", "balance": NEW_PROFILE_COINS}
    await p.send({"type": "hello", "protocol": 1, "name": "Again"})  # a second hello: refused as before
    assert (await p.expect("error"))["code"] == "hello_twice"
    q = await RawPeer.open(host.port)
    await q.send({"type": "hello", "protocol": 4, "name": "Future"})
    err = await q.expect("error")
    assert err["code"] == "protocol_version" and err["fatal"] and "1, 2, 3" in err["message"] and "4" in err["message"]
    for x in (p, q):
        await x.aclose()


async def test_a_profile_registers_with_its_verifier_and_proves_itself_later(nursery, store):
    host = await start_host(nursery, store=store)
    key = secrets.token_hex(16)
    p = await RawPeer.open(host.port)
    nonce = (await p.expect("host"))["nonce"]
    welcome = await p.hello("Ann", profile={"name": "Ann", "proof": proof(key, nonce)})
    assert welcome["profile"] is None and welcome["coins"] is True
    err = await p.expect("error")
    assert (err["code"], err["fatal"], err["ref"]) == ("unknown_profile", False, "hello")
    await p.send({"type": "register", "profile": {"name": "Ann", "verifier": key_hash(key)}})
    made = await p.expect("profile")
    assert made["profile"] == {"name": "Ann", "balance": NEW_PROFILE_COINS}
    await p.send({"type": "register", "profile": {"name": "Ann", "verifier": key_hash(key)}})  # once only
    assert (await p.expect("error"))["code"] == "bad_register"
    await p.send({"type": "create", "room": "Coins", "game": "colormatch", "seats": 2, "stake": 10})
    assert (await p.expect("seated"))["seat"] == 0  # a coin room: the profile counts
    await p.aclose()
    assert [x.name for x in store.profiles()] == ["Ann"]

    q = await RawPeer.open(host.port)  # a new connection: a new nonce, the same key
    nonce2 = (await q.expect("host"))["nonce"]
    assert nonce2 != nonce
    stale = await q.hello("Ann", profile={"name": "ann", "proof": proof(key, nonce)})  # a replayed proof
    assert stale["profile"] is None and (await q.expect("error"))["code"] == "wrong_key"
    r = await RawPeer.open(host.port)
    nonce3 = (await r.expect("host"))["nonce"]
    good = await r.hello("Ann", profile={"name": "ann", "proof": proof(key, nonce3)})
    assert good["profile"] == {"name": "Ann", "balance": NEW_PROFILE_COINS}
    for x in (q, r):
        await x.aclose()


async def test_a_register_that_does_not_match_its_hello_is_refused(nursery, store):
    host = await start_host(nursery, store=store)
    key = secrets.token_hex(16)
    p = await RawPeer.open(host.port)
    nonce = (await p.expect("host"))["nonce"]
    await p.hello("Ann")
    await p.send({"type": "register", "profile": {"name": "Ann", "verifier": key_hash(key)}})  # no unknown profile
    err = await p.expect("error")
    assert (err["code"], err["fatal"], err["ref"]) == ("bad_register", False, "register")
    q = await RawPeer.open(host.port)
    nonce = (await q.expect("host"))["nonce"]
    await q.hello("Bob", profile={"name": "Bob", "proof": proof(key, nonce)})
    await q.expect("error", code="unknown_profile")
    await q.send({"type": "register", "profile": {"name": "Bob", "verifier": key_hash("another key " * 2)}})
    assert (await q.expect("error"))["code"] == "bad_register"
    for x in (p, q):
        await x.aclose()
    assert store.profiles() == []


async def test_a_host_that_stops_says_bye_to_every_peer(nursery):
    async with trio.open_nursery() as inner:
        host = await start_host(inner)
        host.create_room("Table", game="colormatch", seats=3)
        peers = [await RawPeer.open(host.port) for _ in range(2)]
        await peers[0].hello("Ann")
        await peers[0].send({"type": "join", "room": "Table"})
        await peers[0].expect("seated")
        await peers[1].hello("Bob")
        inner.cancel_scope.cancel()
    for p in peers:
        bye = await p.expect("bye")
        assert bye["host"] == "test host" and "closed the table" in bye["reason"]
        assert await p.closed()
        seqs = [m["seq"] for m in p.got]
        assert seqs == list(range(1, len(seqs) + 1))
        await p.aclose()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
async def test_lanmatch_host_stopped_by_a_signal_says_bye_first(tmp_path, signum):
    cmd = [sys.executable, "-m", "lanmatch", "host", "--name", "Kitchen", "--bind", LOOPBACK, "--no-mdns",
           "--data", str(tmp_path / "data")]
    proc = await trio.lowlevel.open_process(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        line = await first_line(proc)
        p = await RawPeer.open(int(line.split(b":")[-1]))
        assert (await p.expect("host"))["name"] == "Kitchen"
        await p.hello("Ann")
        proc.send_signal(signum)
        bye = await p.expect("bye", timeout=10)
        assert bye["host"] == "Kitchen" and bye["reason"].startswith("Kitchen closed the table")
        assert await p.closed(timeout=10)
        with trio.fail_after(10):
            assert await proc.wait() == 0
        await p.aclose()
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


@pytest.mark.parametrize("answer", [b"HTTP/1.1 400 Bad Request\r\n\r\n", b"\x00\x00\x00\x03abc", None])
async def test_a_liveness_probe_of_a_stranger_is_false_and_sends_it_nothing(answer):
    """The lobby's TCP check (`check_alive`) of a port that is not a lanmatch
    host: an HTTP answer, a frame that is not a `host` frame, or silence."""
    with Stranger(answer) as stranger:
        assert not await check_alive(LOOPBACK, stranger.port, timeout=0.5)
    got = bytes(stranger.received)
    assert stranger.connections == 1 and (got == b"" or only_a_client_hello(got))


async def test_a_liveness_probe_logs_at_debug_and_a_visit_at_info(nursery, caplog):
    host = await start_host(nursery)
    caplog.set_level(logging.DEBUG, logger="lanmatch.host")
    assert await check_alive(LOOPBACK, host.port)  # the host frame answers; nothing else is said
    probe = await RawPeer.open(host.port)
    await probe.hello("probe", agent="bot")
    await probe.aclose()
    visitor = await RawPeer.open(host.port)
    await visitor.hello("Ann")
    await visitor.send({"type": "list"})
    await visitor.expect("rooms")
    await visitor.aclose()
    with trio.fail_after(5):
        while sum("gone" in r.getMessage() for r in caplog.records) < 3:
            await trio.sleep(0.01)
    gone = [(r.levelno, r.getMessage()) for r in caplog.records if "gone" in r.getMessage()]
    assert [lvl for lvl, _ in gone] == [logging.DEBUG, logging.DEBUG, logging.INFO], gone


async def test_a_profile_made_under_protocol_1_moves_to_its_per_host_key_once(nursery, store):
    """A profile the host keeps under the key itself (protocol 1/2) meets a
    protocol-3 peer: its proof (of the per-host key) is `wrong_key`, the peer
    sends `register` with `legacy`, and the host keeps the per-host verifier
    from then on (coins kept). Another player's key moves nothing."""
    from lanmatch.net.client import Client
    from lanmatch.protocol.proofs import host_key

    host = await start_host(nursery, store=store)
    key = secrets.token_hex(16)
    old = await RawPeer.open(host.port)
    with trio.fail_after(10):
        await old.send({"type": "hello", "protocol": 1, "name": "Ann", "profile": {"name": "Ann", "key": key}})
        assert (await old.expect("welcome"))["profile"] == {"name": "Ann", "balance": NEW_PROFILE_COINS}
        await old.aclose()
    assert store.verifier_of("Ann")[1] == key_hash(key)

    got: list = []

    class Watcher(Client):
        def on_message(self, msg):
            got.append(msg)
            if msg["type"] == "profile" or (msg["type"] == "error" and msg["code"] == "wrong_key") \
                    or (msg["type"] == "welcome" and msg["profile"] is not None):
                self.close()

    ann = Watcher("Ann", profile={"name": "Ann", "key": key})
    with trio.fail_after(10):
        await ann.connect_once((LOOPBACK, host.port))
    assert ann.account == {"name": "Ann", "balance": NEW_PROFILE_COINS}
    assert not [m for m in got if m["type"] == "error"]  # the wrong_key was held back, and not needed
    here = host_key(key, host.fingerprint)
    assert store.verifier_of("Ann")[1] == key_hash(here)  # moved: the per-host key's verifier
    again = Watcher("Ann", profile={"name": "Ann", "key": key})
    got.clear()
    with trio.fail_after(10):
        await again.connect_once((LOOPBACK, host.port))
    assert [m["type"] for m in got if m["type"] in ("welcome", "profile")] == ["welcome"]
    assert again.account == {"name": "Ann", "balance": NEW_PROFILE_COINS}  # proved at hello now
    thief = Watcher("Ann", profile={"name": "Ann", "key": secrets.token_hex(16)})
    got.clear()
    with trio.fail_after(10):
        await thief.connect_once((LOOPBACK, host.port))
    assert thief.account is None and [m["code"] for m in got if m["type"] == "error"] == ["wrong_key"]
    assert store.verifier_of("Ann")[1] == key_hash(here)


async def test_a_legacy_register_is_refused_unless_it_proves_the_old_key_for_this_host(nursery, store):
    """`legacy` made for another fingerprint (a relay through a host that is
    not this one), or without the hello's wrong_key before it: `bad_register`."""
    from lanmatch.protocol.proofs import hello_proof, host_key, profile_verifier, rekey_proof

    host = await start_host(nursery, store=store)
    key = secrets.token_hex(16)
    store.profile_from_verifier("Ann", key_hash(key), 0.0)
    for fp in ("f" * 64, None):
        p = await RawPeer.open(host.port)
        nonce = (await p.expect("host"))["nonce"]
        new = profile_verifier(host_key(key, fp or host.fingerprint))
        if fp is not None:  # the hello first, as the protocol asks
            await p.hello("Ann", profile={"name": "Ann", "proof": hello_proof(new, nonce)})
            assert (await p.expect("error"))["code"] == "wrong_key"
        else:
            await p.hello("Ann")
        legacy = rekey_proof(key_hash(key), nonce, fp or host.fingerprint, new)
        await p.send({"type": "register", "profile": {"name": "Ann", "verifier": new, "legacy": legacy}})
        assert (await p.expect("error", code="bad_register"))["ref"] == "register"
        await p.aclose()
    assert store.verifier_of("Ann")[1] == key_hash(key)  # unchanged


async def test_a_peer_speaking_plain_tcp_gets_nothing_but_a_tls_alert(nursery):
    """A protocol-1/2 peer of an older lanmatch (plain TCP) says hello with its
    key: the host answers at most a TLS alert record, never a frame, and
    closes; nobody is welcomed, and the host goes on serving TLS peers."""
    host = await start_host(nursery)
    plain = await trio.open_tcp_stream(LOOPBACK, host.port)
    await plain.send_all(encode_frame({"type": "hello", "protocol": 1, "name": "Old",
                                       "profile": {"name": "Old", "key": "k" * 32}}))
    got = b""
    with trio.fail_after(10):
        while True:
            try:
                chunk = await plain.receive_some(4096)
            except trio.BrokenResourceError:
                break
            if not chunk:
                break
            got += chunk
    await plain.aclose()
    assert got == b"" or (got[0] == 0x15 and got[1] == 0x03), got[:16]  # 0x15: a TLS alert record
    assert b"host" not in got and b"welcome" not in got
    assert not any(p.name for p in host.peers)
    p = await RawPeer.open(host.port)
    assert (await p.hello("Ann"))["host"] == "test host"
    await p.aclose()
