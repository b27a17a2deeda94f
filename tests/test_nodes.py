"""The command-line nodes as real processes: `lanmatch bot` and `lanmatch host`.

Every process runs under a deadline and talks to 127.0.0.1 only; zeroconf is
bound to 127.0.0.1 (`--bind`), never to the machine's real interfaces.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest
import trio
from _net import LOOPBACK, first_line, start_host

from lanmatch.net.discovery import Browser
from lanmatch.rules import GAMES

TABLES = list(GAMES["colormatch"].tables)  # every Color Match table the registry declares
ENV = {**os.environ, "PYTHONUNBUFFERED": "1"}


def bot_cmd(port: int, room: str, level: str) -> list[str]:
    return [sys.executable, "-m", "lanmatch", "bot", "--level", level, "--room", room, f"{LOOPBACK}:{port}"]


async def run(cmd: list[str], timeout: float) -> subprocess.CompletedProcess:
    with trio.fail_after(timeout):
        return await trio.run_process(cmd, capture_stdout=True, capture_stderr=True, check=False, env=ENV)


@pytest.mark.slow
async def test_three_bot_node_processes_finish_a_match_at_every_table_and_at_dominoes(nursery):
    """Seven rooms on one host, three `lanmatch bot` processes in each, all at once."""
    host = await start_host(nursery)
    rooms = {}
    for table in [*TABLES, "dominoes"]:
        game = "dominoes" if table == "dominoes" else "colormatch"
        rooms[table] = host.create_room(
            f"room-{table}", game=game, table=None if game == "dominoes" else table, seats=3,
            auto_start=True, bot_level="easy",
        )
    results: dict[tuple[str, int], subprocess.CompletedProcess] = {}

    async def one(table: str, k: int) -> None:
        level = ("easy", "medium", "hard")[k]
        results[(table, k)] = await run(bot_cmd(host.port, f"room-{table}", level), timeout=90)

    async with trio.open_nursery() as n:
        for table in rooms:
            for k in range(3):
                n.start_soon(one, table, k)
    for (table, k), r in sorted(results.items()):
        assert r.returncode == 0, f"{table} bot {k}: rc {r.returncode}\n{r.stderr.decode()[-2000:]}"
        assert b"bot node done (1 matches" in r.stderr
    for table, actor in rooms.items():
        assert actor.room.state == "over" and actor.room.referee.over, table
        assert {s.agent for s in actor.room.seats if s is not None} <= {"bot"}


async def test_bot_node_with_a_bad_address_says_so_in_one_line():
    r = await run([sys.executable, "-m", "lanmatch", "bot", "nowhere:notaport"], timeout=30)
    assert r.returncode == 2 and r.stderr.decode().strip().count("\n") == 0
    assert "port" in r.stderr.decode()


async def test_bot_node_gives_up_on_a_dead_address():
    with trio.socket.socket() as s:  # a port nobody listens on
        await s.bind((LOOPBACK, 0))
        port = s.getsockname()[1]
    r = await run([sys.executable, "-m", "lanmatch", "bot", "--retry-for", "1.5", f"{LOOPBACK}:{port}"], timeout=60)
    assert r.returncode == 1, r.stderr.decode()[-2000:]
    assert "giving up" in r.stderr.decode()


@pytest.mark.slow
async def test_host_process_advertises_serves_a_headless_room_and_unregisters_on_ctrl_c(nursery, tmp_path):
    """`lanmatch host --bind 127.0.0.1 --room ...`: found over mDNS on loopback,
    plays a headless match with a bot node, and is gone from mDNS after SIGINT."""
    cmd = [sys.executable, "-m", "lanmatch", "host", "--name", f"lm-test-{os.getpid()}", "--bind", LOOPBACK,
           "--data", str(tmp_path / "data"),
           "--room", "R", "--table", "toll", "--seats", "2", "--start-after", "1", "--bots", "easy"]
    proc = await trio.lowlevel.open_process(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
    try:
        line = await first_line(proc)
        assert line.startswith(b"listening 127.0.0.1:")
        port = int(line.split(b":")[-1])
        async with Browser([LOOPBACK]) as browser:
            found = await browser.first(15, want=lambda h: h.port == port)
            assert found is not None and found.label == f"lm-test-{os.getpid()}"
            assert found.txt["txtvers"] == "1" and found.txt["proto"] == "1" and "games" in found.txt
            r = await run(bot_cmd(port, "R", "medium"), timeout=60)
            assert r.returncode == 0, r.stderr.decode()[-2000:]
            proc.send_signal(signal.SIGINT)
            with trio.fail_after(10):
                assert await proc.wait() == 0
            with trio.fail_after(5):
                while any(h.port == port for h in browser.hosts.values()):
                    await browser.changed()
        err = (await proc.stderr.receive_some(65536)).decode()
        assert "unregistered" in err
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


@pytest.mark.slow
async def test_a_killed_host_is_dropped_by_the_browser(nursery):
    """Two hosts get advertised; one killed with -9 is never withdrawn from
    mDNS, yet the browser drops it (TCP check). (A name clash is renamed
    across machines: tests/test_lan.py. On one machine both hosts share port
    5353, and zeroconf's unicast answer to a probe may reach either of them.)"""
    base = f"kill-{os.getpid()}"
    procs = []
    try:
        lines: list[list[bytes]] = [[], []]
        for k in range(2):
            cmd = [sys.executable, "-m", "lanmatch", "host", "--name", f"{base}-{k}", "--bind", LOOPBACK, "--no-store"]
            p = await trio.lowlevel.open_process(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=ENV)
            procs.append(p)
            buf = b""
            with trio.fail_after(20):
                while b"\nadvertised " not in buf or not buf.endswith(b"\n"):
                    chunk = await p.stdout.receive_some(256)
                    assert chunk, "a host printed nothing"
                    buf += chunk
            lines[k] = buf.splitlines()
        names = sorted(line.split(b" ", 1)[1].decode() for k in range(2) for line in lines[k] if line.startswith(b"advertised"))
        assert names == [f"{base}-{k}._lanmatch._tcp.local." for k in range(2)], names
        ports = [int(lines[k][0].split(b":")[-1]) for k in range(2)]
        async with Browser([LOOPBACK], recheck=1.0) as browser:
            with trio.fail_after(15):
                while not set(ports) <= {h.port for h in browser.hosts.values()}:
                    await browser.changed()
            procs[0].kill()  # no goodbye on mDNS
            await procs[0].wait()
            with trio.fail_after(8):
                while ports[0] in {h.port for h in browser.hosts.values()}:
                    await browser.changed()
            assert ports[1] in {h.port for h in browser.hosts.values()}
    finally:
        for p in procs:
            if p.returncode is None:
                p.send_signal(signal.SIGINT)
                with trio.move_on_after(5):
                    await p.wait()
                if p.returncode is None:
                    p.kill()
                    await p.wait()


@pytest.mark.parametrize("where", ["taken", "foreign"])
async def test_a_host_that_cannot_listen_exits_2_in_one_line_and_makes_nothing(tmp_path, where):
    """Issue 14: a taken port, or an address that is not this machine's, is one
    line and status 2, said before the store (or anything else) is made."""
    data = tmp_path / "data"
    with trio.socket.socket() as s:
        await s.bind((LOOPBACK, 0))
        s.listen(1)
        port = s.getsockname()[1]
        bind = LOOPBACK if where == "taken" else "192.0.2.1"  # TEST-NET-1: never this machine's
        r = await run([sys.executable, "-m", "lanmatch", "host", "--no-mdns", "--bind", bind, "--port", str(port),
                       "--data", str(data)], timeout=30)
    err = r.stderr.decode()
    assert r.returncode == 2, err
    assert err.startswith(f"lanmatch host: cannot listen on {bind}:{port}: ") and err.count("\n") == 1, err
    assert not data.exists()
