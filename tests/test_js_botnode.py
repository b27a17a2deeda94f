"""A bot node in another language: tests/js/botnode.mjs, written from
docs/protocol.md alone, plays a whole game against a real `lanmatch host`.

This keeps the protocol page honest: if the host drifts from the page, the
JavaScript peer (which knows only the page) breaks here. Each case starts a
headless host on 127.0.0.1 (a free port, no store, no mDNS), runs the node
against it and expects exit 0 with one `outcome ...` line. Every wait is
bounded. Skipped, loudly, when `node` is not installed (.ci/run installs
`nodejs` when apt is available).
"""

from __future__ import annotations

import os
import re
import selectors
import shutil
import ssl
import subprocess
import sys
import time
from pathlib import Path

import pytest
from _stranger import only_a_client_hello

ROOT = Path(__file__).resolve().parent.parent
BOTNODE = ROOT / "tests" / "js" / "botnode.mjs"
NODE = shutil.which("node")

pytestmark = pytest.mark.skipif(
    NODE is None,
    reason="SKIPPED LOUDLY: Node.js (`node`) is not installed, so the JavaScript bot node "
    "(tests/js/botnode.mjs) that checks docs/protocol.md cannot run; install `nodejs`",
)

OUTCOME = re.compile(
    r"^outcome room=(?P<room>\S+) game=(?P<game>\S+) table=(?P<table>\S+) seat=(?P<seat>\d+) "
    r"result=(?P<result>won|lost|shared win|draw) winners=\[[\d,]*\] points=\[[\d,]*\] "
    r"reason=(?P<reason>\w+) actions=(?P<actions>\d+) resyncs=(?P<resyncs>\d+)"
    r"(?: probes=(?P<probes>\S+))?$"
)


def _lanmatch() -> list[str]:
    exe = Path(sys.executable).with_name("lanmatch")
    if exe.exists():
        return [str(exe)]
    return [sys.executable, "-m", "lanmatch"]


def _start_host(tmp_path: Path, host_args: list[str], *, store: bool = False) -> tuple[subprocess.Popen, str]:
    """A host on 127.0.0.1 at a free port (with a store in `tmp_path` if asked);
    returns it and its 'HOST:PORT'."""
    env = dict(os.environ, XDG_DATA_HOME=str(tmp_path / "data"), XDG_CONFIG_HOME=str(tmp_path / "config"))
    keep = ["--data", str(tmp_path / "store")] if store else ["--no-store"]
    proc = subprocess.Popen(
        [*_lanmatch(), "host", "--bind", "127.0.0.1", *keep, "--no-mdns", "--name", "js-test", *host_args],
        stdout=subprocess.PIPE,
        stderr=open(tmp_path / "host.log", "wb"),  # noqa: SIM115 - closed with the process
        env=env,
        cwd=tmp_path,
    )
    # The first line on stdout is 'listening ADDR:PORT' (lanmatch host --help).
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    line = b""
    deadline = time.monotonic() + 15
    while not line.endswith(b"\n"):
        left = deadline - time.monotonic()
        if left <= 0 or proc.poll() is not None:
            _stop(proc)
            pytest.fail(f"host did not say 'listening' within 15 s: {(tmp_path / 'host.log').read_text()[-2000:]}")
        if sel.select(timeout=left):
            chunk = os.read(proc.stdout.fileno(), 1)
            if not chunk:
                continue
            line += chunk
    sel.close()
    m = re.match(r"listening (\S+:\d+)$", line.decode().strip())
    assert m, f"unexpected first line from the host: {line!r}"
    return proc, m.group(1)


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)
    if proc.stdout:
        proc.stdout.close()


def _play(tmp_path: Path, host_args: list[str], bot_args: list[str], *, store: bool = False,
          runs: int = 1) -> re.Match:
    proc, addr = _start_host(tmp_path, host_args, store=store)
    try:
        for _ in range(runs):
            res = subprocess.run(
                [NODE, str(BOTNODE), addr, *bot_args, "--timeout", "25"],
                capture_output=True,
                text=True,
                timeout=30,
            )
            if res.returncode != 0:
                break
    finally:
        _stop(proc)
    log = (tmp_path / "host.log").read_text(errors="replace")[-3000:]
    assert res.returncode == 0, f"botnode exited {res.returncode}\nstderr: {res.stderr}\nhost log:\n{log}"
    lines = res.stdout.strip().splitlines()
    assert len(lines) == 1, res.stdout
    m = OUTCOME.match(lines[0])
    assert m, f"no outcome line: {res.stdout!r}"
    assert int(m["actions"]) > 0, lines[0]
    return m


HEADLESS = ["--room", "R", "--seats", "3", "--start-after", "0.5", "--bots", "medium"]


@pytest.mark.parametrize(
    ("table", "bot_args"),
    [
        # --probe: an act with an old state_id and an action not in `legal`
        # must both come back `rejected` with the documented codes.
        ("classic", ["--probe"]),
        # --drop-every: the node pretends views got lost, sees the seq gap,
        # sends `resync` and carries on from the `snapshot`.
        ("daynight", ["--drop-every", "4"]),
        ("cards", []),
        ("toll", []),
    ],
)
def test_js_botnode_plays_color_match(tmp_path: Path, table: str, bot_args: list[str]) -> None:
    m = _play(tmp_path, [*HEADLESS, "--table", table], ["R", "js bot", *bot_args])
    assert (m["room"], m["game"], m["table"]) == ("R", "colormatch", table)
    if "--probe" in bot_args:
        assert m["probes"] == "stale,illegal", m.group(0)
    if "--drop-every" in bot_args:
        assert int(m["resyncs"]) > 0, m.group(0)


def test_js_botnode_plays_dominoes(tmp_path: Path) -> None:
    m = _play(tmp_path, [*HEADLESS, "--game", "dominoes"], ["R", "js domino", "--probe"])
    assert (m["room"], m["game"], m["table"]) == ("R", "dominoes", "-")
    assert m["probes"] == "stale,illegal", m.group(0)


def test_js_botnode_creates_and_starts_a_room(tmp_path: Path) -> None:
    # No room on the host and none named: the node creates one (2 seats) and starts it.
    m = _play(tmp_path, [], [])
    assert m["room"].startswith("js-") and m["game"] == "colormatch", m.group(0)


def test_js_botnode_registers_its_profile_then_proves_it(tmp_path: Path) -> None:
    # Protocol 2 with a profile: the first run gets unknown_profile and registers
    # (a profile reply), the second proves the same key against a new nonce.
    key = "0123456789abcdef" * 2
    m = _play(tmp_path, HEADLESS, ["R", "jsbot", "--key", key], store=True, runs=2)
    assert m["room"] == "R"
    from lanmatch.store import Store

    with Store.open_dir(tmp_path / "store") as s:
        assert [p.name for p in s.profiles()] == ["jsbot"]


def test_js_botnode_pins_the_hosts_certificate_by_fingerprint(tmp_path: Path) -> None:
    """`--fp` of the host's certificate (what its mDNS `fp=` says) plays; any
    other fingerprint is refused in one line, exit 2, before a word is sent."""
    from lanmatch.net.tls import CERT_FILE, fingerprint

    proc, addr = _start_host(tmp_path, HEADLESS)
    try:
        pem = (tmp_path / "data" / "lanmatch" / CERT_FILE).read_text()
        der = ssl.PEM_cert_to_DER_cert(pem)
        wrong = subprocess.run([NODE, str(BOTNODE), addr, "R", "--fp", "0" * 64, "--timeout", "25"],
                               capture_output=True, text=True, timeout=30)
        right = subprocess.run([NODE, str(BOTNODE), addr, "R", "--fp", fingerprint(der), "--timeout", "25"],
                               capture_output=True, text=True, timeout=30)
    finally:
        _stop(proc)
    assert wrong.returncode == 2 and "not the pinned " + "0" * 64 in wrong.stderr, wrong.stderr
    assert right.returncode == 0 and OUTCOME.match(right.stdout.strip()), right.stderr
    log = (tmp_path / "host.log").read_text(errors="replace")
    assert "js-test" in log and log.count("gone: ") >= 1


class _Stranger:
    """A TCP service on 127.0.0.1 that is not lanmatch: it records every byte
    it is sent and, if `answer`, says it at once."""

    def __init__(self, answer: bytes):
        import socket
        import threading

        self.answer = answer
        self.got = b""
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(10)
        self.port = self.sock.getsockname()[1]
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        try:
            conn, _ = self.sock.accept()
        except OSError:
            return
        with conn:
            conn.settimeout(8)
            if self.answer:
                conn.sendall(self.answer)
            try:
                while chunk := conn.recv(65536):
                    self.got += chunk
            except OSError:
                pass

    def close(self) -> None:
        self.thread.join(timeout=10)
        self.sock.close()


@pytest.mark.parametrize(
    ("answer", "why"),
    [(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n", "does not speak TLS 1.3"),
     (b"", "did not answer as one within 5 s")],
)
def test_js_botnode_sends_a_stranger_nothing_and_says_so_in_one_line(answer: bytes, why: str) -> None:
    stranger = _Stranger(answer)
    try:
        res = subprocess.run([NODE, str(BOTNODE), f"127.0.0.1:{stranger.port}", "R", "--key", "k" * 32],
                             capture_output=True, text=True, timeout=30)
    finally:
        stranger.close()
    assert res.returncode == 2, res.stderr
    (line,) = res.stderr.strip().splitlines()
    assert f"127.0.0.1:{stranger.port} is not a lanmatch host" in line and why in line, line
    assert only_a_client_hello(stranger.got)  # the TLS handshake's first message, and nothing else


def test_js_botnode_passes_over_the_rooms_chat_while_it_plays(tmp_path: Path) -> None:
    """A watcher chats (texts and emotes) in the room all through the game
    the JavaScript node plays: the node, which knows no `chat`, passes over
    every one (docs/protocol.md, "Chat") and finishes its game."""
    import trio
    from _net import RawPeer

    proc, addr = _start_host(tmp_path, [*HEADLESS, "--table", "classic"])
    port = int(addr.rsplit(":", 1)[1])
    relayed: list[dict] = []
    seated: list[bool] = []
    try:
        node = subprocess.Popen([NODE, str(BOTNODE), addr, "R", "js bot", "--timeout", "25"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

        async def chatter() -> None:
            cat = await RawPeer.open(port)
            await cat.expect("host")
            await cat.hello("Cat")
            await cat.send({"type": "watch", "room": "R"})
            await cat.expect("watching")
            with trio.move_on_after(28):
                while not seated:  # the node sits: from now on it is sent the room's chat
                    m = await cat.recv(5.0)
                    assert m is not None
                    if m["type"] == "room" and any(x.get("name") == "js bot" for x in m["room"]["seats"]):
                        seated.append(True)
                for k in range(5):  # the host's chat burst (docs/protocol.md, "Chat")
                    await cat.send({"type": "chat", "emote": "gg"} if k % 2 else {"type": "chat", "text": f"line {k}"})
                    await trio.sleep(0.05)
                while node.poll() is None:
                    with trio.move_on_after(0.2):
                        m = await cat.recv(1.0)
                        if m is None:
                            break
                        if m["type"] == "chat":
                            relayed.append(m)
            await cat.aclose()

        trio.run(chatter)
        out, err = node.communicate(timeout=30)
    finally:
        _stop(proc)
    log = (tmp_path / "host.log").read_text(errors="replace")[-3000:]
    assert node.returncode == 0, f"botnode exited {node.returncode}\nstderr: {err}\nhost log:\n{log}"
    m = OUTCOME.match(out.strip().splitlines()[-1])
    assert m and int(m["actions"]) > 0, out
    assert len(relayed) == 5, "the watcher's chat was not relayed while the node sat in the room"
