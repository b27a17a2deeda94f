"""A `lanmatch host` process with a coin room is SIGKILLed at random moments
of its matches, again and again, and restarted on the same data directory
and port each time: every table resumes where it stood, no coin is lost or
paid twice, and no state a peer was shown is ever lost.

The room (`--room R --stake 10`, Classic, 3 seats, a 2 s move clock) seats
two in-process peers with profiles (bot nodes that bring a profile, so they
play their own coins) and one `lanmatch bot` process (the house posts for
it); it deals the next game 0.3 s after each end. Every peer reconnects by
itself with its seat token; a seat whose peer is not back yet is played by
the clock (room bots after a resume are covered by `test_host_store.py`). After each kill the
store is checked as the kill left it (sqlite's integrity, balances equal to
the ledger, coins conserved with the live pots); the next host's log must
say it resumed each unfinished match at its last stored action (or settled
it, when its actions already ended the game). At the end every view the two
peers received is compared with a replay of the stored actions: a view they
were shown is never lost by a crash, and resumed tables show the same state.

Bounded: KILLS kills, each 0.2-1.5 s after both peers are back; every wait
has a deadline; everything talks to 127.0.0.1 only.
"""

from __future__ import annotations

import contextlib
import json
import random
import re
import secrets
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from lanmatch.net.client import BotNode
from lanmatch.protocol import view_to_wire
from lanmatch.store import NEW_PROFILE_COINS, Store, iter_replay, rebuild_game
from lanmatch.store.records import dumps

LOOPBACK = "127.0.0.1"
KILLS = 8
STAKE = 10


class Peer(BotNode):
    """A bot node with a profile that thinks THINK seconds a move (so that a
    game lasts a second or two), keeps every view it was shown (with the seat
    token it held), and says whether it has been shown a game since it last
    (re)connected."""

    THINK = 0.015

    def __init__(self, name: str, level: str):
        super().__init__(level, room="R", stay=True, name=name, retry_for=60.0, connect_timeout=2.0,
                         profile={"name": name, "key": secrets.token_hex(16)})
        self.views: list[tuple[str | None, int | None, int, dict]] = []  # (token, seat, state_id, view)
        self.playing = False  # a view came on this connection
        self._moves_in, self._moves_out = trio.open_memory_channel(64)

    async def run(self, address):
        async with trio.open_nursery() as n:
            n.start_soon(self._thinker)
            code = await super().run(address)
            n.cancel_scope.cancel()
        return code

    async def _thinker(self) -> None:
        async for action, sid in self._moves_out:
            await trio.sleep(self.THINK)
            super().act(action, sid)

    def act(self, action, state_id=None):
        with contextlib.suppress(trio.WouldBlock):
            self._moves_in.send_nowait((action, state_id))
        return True

    def on_message(self, msg):
        if msg["type"] == "welcome":
            self.playing = False
        elif msg["type"] == "view":
            self.playing = True
            self.views.append((self.token, self.seat, msg["state_id"], msg["view"]))
        super().on_message(msg)


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind((LOOPBACK, 0))
        return s.getsockname()[1]


def host_cmd(data: Path, port: int) -> list[str]:
    return [sys.executable, "-m", "lanmatch", "host", "--data", str(data), "--port", str(port), "--bind", LOOPBACK,
            "--no-mdns", "--name", "crash", "--room", "R", "--seats", "3", "--stake", str(STAKE), "--clock", "2",
            "--rematch-after", "0.3", "--bots", "easy"]


async def start_host(data: Path, port: int, log: Path) -> trio.Process:
    with open(log, "wb") as err:
        proc = await trio.lowlevel.open_process(host_cmd(data, port), stdout=subprocess.PIPE, stderr=err)
    line = b""
    with trio.fail_after(20):
        while not line.endswith(b"\n"):
            chunk = await proc.stdout.receive_some(1)
            assert chunk, f"the host printed nothing: {log.read_text()[-2000:]}"
            line += chunk
    assert line == f"listening {LOOPBACK}:{port}\n".encode(), line
    return proc


def conserved(store: Store, when: str) -> dict[int, int]:
    """The store is whole and holds every coin; returns {live match: stored actions}."""
    assert store.check() == [], when
    live = store.unfinished()
    held = sum(store.balance(p.id) for p in store.profiles()) + store.house_balance() + sum(store.pot(r.id) for r in live)
    assert held == store.coins_issued() == NEW_PROFILE_COINS * len(store.profiles()), f"{when}: coins made or lost"
    return {r.id: len(r.actions) for r in live}


def resumed_in(log: Path) -> tuple[dict[int, int], set[int]]:
    """What a host's log says it did at start: {match: resumed at action}, {matches settled}."""
    text = log.read_text()
    resumed = {int(m): int(n) for m, n in re.findall(r"resumed match (\d+) at action (\d+)", text)}
    settled = {int(m) for m in re.findall(r"match (\d+) \(room '[^']*'\) had ended before the restart", text)}
    return resumed, settled


@pytest.mark.slow
async def test_a_host_killed_at_random_moments_resumes_every_table_and_loses_no_coin(tmp_path):
    rng = random.Random(61)
    data, port = tmp_path / "data", free_port()
    peers = [Peer("Ann", "medium"), Peer("Bob", "easy")]
    with open(tmp_path / "bot.log", "wb") as bot_err:
        bot = await trio.lowlevel.open_process(
            [sys.executable, "-m", "lanmatch", "bot", "--level", "easy", "--room", "R", "--stay", "--retry-for", "60",
             f"{LOOPBACK}:{port}"], stderr=bot_err)
    host: trio.Process | None = None
    mid_game = 0  # kills that left a match with actions stored
    resumes = 0
    try:
        async with trio.open_nursery() as n:
            for p in peers:
                n.start_soon(p.run, (LOOPBACK, port))
            live: dict[int, int] = {}
            for i in range(KILLS + 1):
                log = tmp_path / f"host{i}.log"
                for p in peers:
                    p.playing = False
                host = await start_host(data, port, log)
                # the host resumed (or settled) every match the last kill left unfinished
                resumed, settled = resumed_in(log)
                assert set(resumed) | settled == set(live) and not set(resumed) & settled, (live, log.read_text())
                for m, at in resumed.items():
                    assert at == live[m], f"match {m} resumed at action {at}, stored {live[m]}"
                resumes += len(resumed)
                with trio.fail_after(15):  # both peers back at a game (the kill comes while they play)
                    while not all(p.playing for p in peers):
                        await trio.sleep(0.02)
                if i == KILLS:
                    break
                await trio.sleep(rng.uniform(0.2, 1.5))
                host.kill()  # SIGKILL: no goodbye, no cleanup
                assert await host.wait() == -signal.SIGKILL
                with Store.open_dir(data, create=False) as store:
                    live = conserved(store, f"after kill {i}")
                mid_game += any(live.values())
            # the last host plays the matches it resumed to their end, then stops cleanly
            with trio.fail_after(40):
                while True:
                    with Store.open_dir(data, create=False) as store:
                        if all(store.match(m, actions=False).status == "finished" for m in live):
                            break
                    await trio.sleep(0.2)
            host.send_signal(signal.SIGTERM)
            with trio.fail_after(10):
                assert await host.wait() == 0
            n.cancel_scope.cancel()
    finally:
        for proc in (host, bot):
            if proc is not None and proc.returncode is None:
                proc.kill()
                await proc.wait()
    assert mid_game >= KILLS // 4, f"only {mid_game} of {KILLS} kills landed in a match with actions"
    assert resumes >= 1

    with Store.open_dir(data, create=False) as store:
        conserved(store, "at the end")
        assert sorted(p.name for p in store.profiles()) == ["Ann", "Bob"]
        c = store.conn
        matches = c.execute("SELECT id, stake, players, status FROM matches ORDER BY id").fetchall()
        assert sum(1 for m in matches if m[3] == "finished") >= 3, matches
        for mid, stake, players, status in matches:
            rows = c.execute("SELECT reason, seat, amount FROM ledger WHERE match_id = ?", (mid,)).fetchall()
            assert sorted(s for r, s, _ in rows if r == "stake") == list(range(players)), f"match {mid}"
            paid = [(r, s) for r, s, _ in rows if r in ("win", "refund", "odd")]
            assert len(paid) == len(set(paid)), f"match {mid} paid a seat twice"
            out = sum(a for r, _, a in rows if r in ("win", "refund", "odd"))
            assert out == (0 if status == "live" else stake * players), f"match {mid} ({status}) paid {out}"
        # every view the peers were shown is the replay of the stored actions at that step
        records = {mid: store.match(mid) for mid, *_ in matches}
        for r in records.values():
            if r.status == "finished":
                assert dumps(rebuild_game(r).outcome) == dumps(r.outcome)
            else:
                rebuild_game(r)  # resumable
        replays = {mid: [[json.dumps(view_to_wire(v), sort_keys=True) for v in step.views] for step in iter_replay(r)]
                   for mid, r in records.items()}
        checked = 0
        for p in peers:
            assert p.views, f"{p.name} saw nothing"
            for token, seat, sid, view in p.views:
                shown = json.dumps(view, sort_keys=True)
                found = [mid for mid, r in records.items()
                         if seat is not None and r.seats[seat].token == token and sid < len(replays[mid])
                         and replays[mid][sid][seat] == shown]
                assert found, f"{p.name} was shown state {sid} at seat {seat}, which no stored match replays to"
                checked += 1
        assert checked > 100
