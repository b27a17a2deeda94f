"""The host's clocks over a connection, on trio's autojump clock.

The host and the peer talk through an in-memory stream pair (the same
`serve_stream` / `run_stream` code as over TCP); virtual time makes a 30 s move
clock take milliseconds.
"""

from __future__ import annotations

import random

import pytest
import trio
import trio.testing

from lanmatch.net.client import Client
from lanmatch.net.host import Host
from lanmatch.table import AUTOPILOT_PACE


class Person(Client):
    """A peer that records what it receives and acts only when told."""

    def __init__(self, name="Ann", **kw):
        super().__init__(name, **kw)
        self.got: list[dict] = []

    def on_message(self, msg):
        self.got.append(msg)

    def views(self):
        return [m for m in self.got if m["type"] == "view"]


async def connect(nursery, host: Host, peer: Client):
    a, b = trio.testing.memory_stream_pair()
    nursery.start_soon(host.serve_stream, b)
    nursery.start_soon(peer.run_stream, a)
    await wait_for(lambda: peer.welcomed)


async def wait_for(cond, timeout: float = 600.0):
    with trio.fail_after(timeout):
        while not cond():
            await trio.sleep(0.01)


async def setup(nursery, table="classic", seats=2, clock=30):
    host = Host("clock host", rng=random.Random(3), strict=True)  # room bots pause 0.67 s: virtual time
    await nursery.start(host.run)
    ann = Person()
    await connect(nursery, host, ann)
    ann.send("create", room="r", game="colormatch", table=table, seats=seats, clock=clock, bots="easy")
    await wait_for(lambda: ann.seat is not None)
    ann.send("start")
    await wait_for(lambda: ann.view_msg is not None)
    return host, ann


def my_turn(peer: Client) -> bool:
    v = peer.view_msg
    return v is not None and v["view"].get("turn") == peer.seat and bool(v["legal"]) and v["view"]["outcome"] is None


def moves_by(host: Host, seat: int) -> list[tuple]:
    return [e for e in host.rooms["r"].room.referee.log if e[1] == seat]


async def test_a_timed_out_move_is_played_by_hard_after_the_clock(nursery, autojump_clock):
    host, ann = await setup(nursery)
    await wait_for(lambda: my_turn(ann))
    log = host.rooms["r"].room.referee.log
    t0 = log[-1][0] if log else trio.current_time()  # the turn began with the last move
    timer = next(t for t in ann.view_msg["timers"] if t["seat"] == ann.seat)
    assert timer["kind"] == "move" and timer["left"] == pytest.approx(30.0, abs=0.1)
    before = len(moves_by(host, ann.seat))
    await wait_for(lambda: len(moves_by(host, ann.seat)) > before)
    # the referee's log holds when the move was made (the Hard stand-in thinks
    # on a worker thread, during which the test's clock may jump further)
    when, _, _, by = moves_by(host, ann.seat)[-1]
    assert when - t0 == pytest.approx(30.0, abs=0.1)
    assert by == "move"
    assert host.rooms["r"].room.referee.seats[ann.seat].misses == 1


async def test_three_misses_put_the_seat_on_autopilot_until_any_input(nursery, autojump_clock):
    host, ann = await setup(nursery)
    await wait_for(lambda: ann.view_msg["autopilot"] == [ann.seat] or ann.view_msg["view"]["outcome"] is not None)
    if ann.view_msg["view"]["outcome"] is not None:
        pytest.skip("the hand ended before the third miss")
    assert [e[3] for e in moves_by(host, ann.seat)][:3] == ["move", "move", "move"]
    # on autopilot: the seat's moves come at computer speed
    await wait_for(lambda: my_turn(ann) or ann.view_msg["view"]["outcome"] is not None)
    if ann.view_msg["view"]["outcome"] is None:
        t0 = host.rooms["r"].room.referee.log[-1][0]  # the turn began with the last move
        n = len(moves_by(host, ann.seat))
        await wait_for(lambda: len(moves_by(host, ann.seat)) > n)
        when, _, _, by = moves_by(host, ann.seat)[-1]
        assert when - t0 == pytest.approx(AUTOPILOT_PACE, abs=0.05)
        assert by == "autopilot"
        # any input ends it: even a stale action
        ann.act({"type": "draw"}, state_id=0)
        await wait_for(lambda: any(m["type"] == "rejected" for m in ann.got))
        ref = host.rooms["r"].room.referee
        assert not ref.seats[ann.seat].autopilot and ref.seats[ann.seat].misses == 0


async def test_a_dropped_peer_keeps_its_seat_and_comes_back_with_its_token(nursery, autojump_clock):
    host, ann = await setup(nursery, seats=3)
    token, seat = ann.token, ann.seat
    ann.close()
    ref = host.rooms["r"].room.referee
    await wait_for(lambda: not host.rooms["r"].room.seats[seat].connected)
    n = len(moves_by(host, seat))
    await wait_for(lambda: len(moves_by(host, seat)) > n or ref.over)  # the clock plays for the seat
    back = Person("Ann again", token=token)
    await connect(nursery, host, back)
    await wait_for(lambda: back.view_msg is not None)
    assert back.seat == seat
    assert back.view_msg["view"]["hand"] == ref.view(seat)["hand"]
    room = [m for m in back.got if m["type"] == "room"][-1]["room"]
    assert room["seats"][seat]["connected"]


async def test_every_view_counts_the_clock_down(nursery, autojump_clock):
    host, ann = await setup(nursery, clock=45)
    await wait_for(lambda: my_turn(ann))
    await trio.sleep(20)
    ann.send("resync")
    await wait_for(lambda: any(m["type"] == "snapshot" for m in ann.got))
    snap = [m for m in ann.got if m["type"] == "snapshot"][-1]
    timer = next(t for t in snap["view"]["timers"] if t["seat"] == ann.seat)
    assert timer["left"] == pytest.approx(25.0, abs=0.2)
