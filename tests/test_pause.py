"""Pausing the clocks at a table of bots alone (issue 15, docs/protocol.md
"Pause"): the referee's deadlines on plain numbers, the host's clocks on
trio's virtual clock, and the refusal with another person over TLS."""

from __future__ import annotations

import pytest
import trio
from _net import RawPeer, start_host
from test_net_clock import my_turn, setup, wait_for

from lanmatch.table.referee import Referee


def person_at_seat0(**kw) -> Referee:
    """Seat 0 a person, the others room bots; play until the person's turn."""
    ref = Referee("colormatch", "classic", 3, 5, now=0.0, clock=30, bots={1: "easy", 2: "easy"}, bot_delay=0.67, **kw)
    now = 0.0
    for _ in range(200):
        if ref.g.to_act == [0] or ref.over:
            break
        now = ref.next_deadline()
        ref.tick(now)
    assert not ref.over and ref.g.to_act == [0]
    return ref


def test_a_pause_stops_every_clock_and_shifts_each_deadline_by_the_time_paused():
    ref = person_at_seat0()
    due = ref.next_deadline()
    start = due - 30
    assert ref.pause(start + 10) and ref.paused
    assert ref.next_deadline() is None and ref.due(start + 1000) is None and ref.tick(start + 1000) is None
    frozen = ref.timers(start + 10)
    assert frozen == ref.timers(start + 500) and frozen[0]["left"] == pytest.approx(20.0)
    assert not ref.pause(start + 20)  # already paused: nothing changes
    assert ref.resume(start + 110) == pytest.approx(100.0) and not ref.paused
    assert ref.next_deadline() == pytest.approx(due + 100)
    assert ref.timers(start + 110)[0]["left"] == pytest.approx(20.0)
    assert ref.resume(start + 120) == 0.0  # not paused: nothing to shift


def test_bots_wait_through_a_pause_too():
    ref = person_at_seat0()
    act = ref.legal(0)[0]
    t = ref.next_deadline() - 25
    ref.act(0, act, ref.state_id, t)
    while ref.g.to_act == [0] and not ref.over:  # a draw: the person decides again
        ref.act(0, ref.legal(0)[0], ref.state_id, t)
    bot_due = ref.next_deadline()
    assert t < bot_due < t + 5  # a room bot at human pace
    ref.pause(t + 0.1)
    assert ref.tick(t + 60) is None and ref.next_deadline() is None
    ref.resume(t + 60.1)
    assert ref.next_deadline() == pytest.approx(bot_due + 60)
    assert ref.tick(bot_due + 59.9) is None and ref.tick(bot_due + 60) is not None


def test_a_persons_move_ends_the_pause():
    ref = person_at_seat0()
    due = ref.next_deadline()
    ref.pause(due - 20)
    ref.act(0, ref.legal(0)[0], ref.state_id, due - 5)
    assert not ref.paused and ref.next_deadline() is not None


# ---------------------------------------------------------------- the host, on the virtual clock


async def test_the_host_pauses_a_table_of_bots_alone(nursery, autojump_clock):
    host, ann = await setup(nursery, seats=3)
    await wait_for(lambda: my_turn(ann))
    ref = host.rooms["r"].room.referee
    sid = ref.state_id
    ann.send("pause", on=True)
    await wait_for(lambda: ann.view_msg.get("paused") is True)
    left = next(t for t in ann.view_msg["timers"] if t["seat"] == ann.seat)["left"]
    await trio.sleep(300)  # ten move clocks: nothing is played for Ann
    assert ref.state_id == sid and ref.seats[ann.seat].misses == 0
    ann.send("resync")
    await wait_for(lambda: any(m["type"] == "snapshot" for m in ann.got))
    snap = [m for m in ann.got if m["type"] == "snapshot"][-1]["view"]
    assert snap["paused"] is True
    assert next(t for t in snap["timers"] if t["seat"] == ann.seat)["left"] == pytest.approx(left)
    n = len(ann.views())
    ann.send("pause", on=False)
    await wait_for(lambda: len(ann.views()) > n)
    assert "paused" not in ann.view_msg
    assert next(t for t in ann.view_msg["timers"] if t["seat"] == ann.seat)["left"] == pytest.approx(left, abs=0.1)
    await wait_for(lambda: ref.state_id != sid)  # the clock runs again: the host plays Ann's move in time
    assert ref.seats[ann.seat].misses == 1


async def test_pause_is_refused_with_another_person_over_tls(nursery):
    host = await start_host(nursery)
    ann, bob = await RawPeer.open(host.port), await RawPeer.open(host.port)
    await ann.hello("Ann")
    await bob.hello("Bob")
    await ann.send({"type": "create", "room": "two", "game": "colormatch", "seats": 3, "clock": 30})
    await ann.expect("seated")
    await bob.send({"type": "join", "room": "two"})
    await bob.expect("seated")
    await ann.send({"type": "start"})
    await ann.expect("view")
    await bob.send({"type": "pause", "on": True})
    err = await bob.expect("error")
    assert err["code"] == "not_alone" and err["ref"] == "pause"
    assert not host.rooms["two"].room.referee.paused
    watcher = await RawPeer.open(host.port)
    await watcher.hello("Cy")
    await watcher.send({"type": "watch", "room": "two"})
    await watcher.expect("watching")
    await watcher.send({"type": "pause", "on": True})
    assert (await watcher.expect("error"))["code"] == "not_alone"
    for p in (ann, bob, watcher):
        await p.aclose()


async def test_a_pause_of_a_person_alone_over_tls_and_bad_fields(nursery):
    host = await start_host(nursery)
    ann = await RawPeer.open(host.port)
    await ann.hello("Ann")
    await ann.send({"type": "pause", "on": True})
    assert (await ann.expect("error"))["code"] == "not_in_room"
    await ann.send({"type": "create", "room": "solo", "game": "dominoes", "seats": 2, "clock": 30})
    await ann.expect("seated")
    await ann.send({"type": "pause", "on": True})
    assert (await ann.expect("error"))["code"] == "no_game"
    await ann.send({"type": "start"})
    await ann.expect("view")
    await ann.send({"type": "pause", "on": True})
    assert (await ann.expect("view", paused=True))["paused"] is True
    assert host.rooms["solo"].room.referee.paused
    await ann.send({"type": "pause"})
    assert (await ann.expect("error"))["code"] == "bad_field"
    await ann.aclose()


async def test_a_bot_node_alone_with_bots_may_not_pause(nursery):
    """The pause is a person's (docs/protocol.md, "Pause"): a peer that said
    `agent: "bot"` gets `not_alone` even with no person at the table, and
    the clocks run on (a bot node honoured before could stop a headless
    room for its watchers)."""
    host = await start_host(nursery)
    node = await RawPeer.open(host.port)
    await node.hello("Robo", agent="bot")
    await node.send({"type": "create", "room": "bots", "game": "colormatch", "seats": 2, "clock": 30})
    await node.expect("seated")
    await node.send({"type": "start"})
    await node.expect("view")
    await node.send({"type": "pause", "on": True})
    err = await node.expect("error")
    assert err["code"] == "not_alone" and err["ref"] == "pause"
    assert not host.rooms["bots"].room.referee.paused
    await node.aclose()
