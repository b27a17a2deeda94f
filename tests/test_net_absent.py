"""People who go, over real sockets on 127.0.0.1 (issue 14): the next seated
person directs a room whose creator dropped (the pure session tests,
test_host_session_absent.py, cover the rest)."""

from __future__ import annotations

from _net import RawPeer, start_host


async def test_a_dropped_creator_hands_the_room_to_the_next_seated_person(nursery):
    host = await start_host(nursery)
    ann, bob = await RawPeer.open(host.port), await RawPeer.open(host.port)
    await ann.hello("Ann")
    await ann.send({"type": "create", "room": "r", "game": "colormatch", "seats": 3})
    await ann.expect("seated")
    await bob.hello("Bob")
    await bob.send({"type": "join", "room": "r"})
    await bob.expect("room", timeout=3)
    await bob.send({"type": "start"})
    assert (await bob.expect("error"))["code"] == "not_creator"
    await ann.aclose()
    room = (await bob.expect("room"))["room"]  # at once: the next room message says who directs
    assert (room["director"], room["creator"]) == (1, None)
    await bob.send({"type": "start"})
    await bob.expect("view")
    await bob.aclose()
