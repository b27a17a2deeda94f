"""The call's grace at a real host, on trio's autojump clock: a person at
`standard` against Medium room bots (human pace: a person created the room)
plays down to one card without calling; called within a second they are
never caught; left uncalled, a bot catches them only after its reaction time
(1.5-3 s for Medium, `lanmatch/bots/pace.py`)."""

from __future__ import annotations

import random

import pytest
import trio
from test_net_clock import Person, connect, wait_for

from lanmatch.bots import pace
from lanmatch.net.host import Host


async def _to_one_card(nursery, seed: int):
    host = Host("call host", rng=random.Random(seed), strict=True)
    await nursery.start(host.run)
    ann = Person()
    await connect(nursery, host, ann)
    ann.send("create", room="r", game="colormatch", table="standard", seats=3, clock=30, bots="medium")
    await wait_for(lambda: ann.seat is not None)
    ann.send("start")
    await wait_for(lambda: ann.view_msg is not None)
    for _ in range(300):
        await wait_for(lambda: ann.view_msg["view"]["outcome"] is not None
                       or (ann.view_msg["view"].get("turn") == ann.seat and bool(ann.view_msg["legal"])))
        msg = ann.view_msg
        if msg["view"]["outcome"] is not None:
            return host, ann, None
        legal = [a for a in msg["legal"] if "call" not in a and a["type"] not in ("call", "catch")]
        plays = [a for a in legal if a["type"] == "play"]
        action = (plays or legal)[0]
        sid = msg["state_id"]
        ann.act(action, state_id=sid)
        await wait_for(lambda sid=sid: ann.view_msg["state_id"] != sid)
        if action["type"] == "play" and len(msg["view"]["hand"]) == 2:
            return host, ann, trio.current_time()
    return host, ann, None


@pytest.mark.parametrize("seed", [1, 5, 8])
async def test_a_person_who_calls_within_a_second_is_never_caught(nursery, autojump_clock, seed):
    host, ann, played = await _to_one_card(nursery, seed)
    if played is None:
        pytest.skip("the hand ended before the person held one card")
    ref = host.rooms["r"].room.referee
    await trio.sleep(0.9)
    assert not any(a["type"] == "catch" for _, _, a, _ in ref.log)
    ann.act({"type": "call"}, state_id=ann.view_msg["state_id"])
    await wait_for(lambda: any(e.get("type") == "call" for e in ann.view_msg["view"]["events"]))
    await trio.sleep(5.0)
    assert not any(a["type"] == "catch" for _, _, a, _ in ref.log)


@pytest.mark.parametrize("seed", [1, 5, 8])
async def test_a_person_who_never_calls_is_caught_after_the_reaction_time(nursery, autojump_clock, seed):
    host, ann, played = await _to_one_card(nursery, seed)
    if played is None:
        pytest.skip("the hand ended before the person held one card")
    ref = host.rooms["r"].room.referee
    await wait_for(lambda: any(a["type"] == "catch" for _, _, a, _ in ref.log) or ref.view(0)["windows"] == [])
    catches = [(t, a) for t, _, a, _ in ref.log if a["type"] == "catch"]
    assert catches, "Medium bots always catch"
    when, action = catches[0]
    assert action == {"type": "catch", "seat": ann.seat}
    assert pace.REACTION["medium"][0] - 0.05 <= when - played <= pace.REACTION["medium"][1] + 0.05
