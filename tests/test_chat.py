"""Chat and emotes in a room (docs/protocol.md, "Chat"), and the room's watchers.

The host relays a member's `chat` (a text of 1-200 characters, or one of the
quick emotes) to every member of the room, seated or watching, with the
sender's seat and name. Each abuse (too long, control or format characters,
neither or both fields, a blank text, too fast, from a peer in no room or in
another room) gets its own named error and relays nothing. The room names
its watchers (`watchers`) and they stay through a rematch.
"""

from __future__ import annotations

import dataclasses

import pytest
from _net import RawPeer, start_host
from test_host_session import Driver, seated_pair


def chats(d: Driver, peer) -> list[dict]:
    return d.got(peer, "chat")


def errors(d: Driver, peer) -> list[dict]:
    return d.got(peer, "error")


def room_with_watcher(d: Driver):
    session, ann, bob = seated_pair(d)
    cat = d.connect("Cat")
    d.send(cat, {"type": "watch", "room": "r"})
    return session, ann, bob, cat


def test_a_chat_goes_to_every_seat_and_watcher_with_the_senders_seat_and_name():
    d = Driver()
    session, ann, bob, cat = room_with_watcher(d)
    d.send(ann, {"type": "chat", "text": "  hello all  "})
    for p in (ann, bob, cat):
        (m,) = chats(d, p)
        assert (m["room"], m["seat"], m["name"], m["text"]) == ("r", 0, "Ann", "hello all")
        assert "emote" not in m
    d.send(cat, {"type": "chat", "emote": "gl"})
    for p in (ann, bob, cat):
        m = chats(d, p)[-1]
        assert (m["seat"], m["name"], m["emote"]) == (None, "Cat", "gl") and "text" not in m
    outsider = d.connect("Dan")
    assert chats(d, outsider) == []


def test_a_chat_says_the_seats_name_at_the_table():
    d = Driver()
    ann = d.connect("Ann")
    d.create(ann, game="colormatch", table="classic", seats=3)
    ann2 = d.connect("ann")
    d.send(ann2, {"type": "join", "room": "r"})
    d.send(ann2, {"type": "chat", "emote": "gg"})
    assert chats(d, ann)[-1]["name"] == "ann (2)"


@pytest.mark.parametrize(
    ("msg", "code"),
    [
        ({"type": "chat", "text": "x" * 201}, "bad_field"),
        ({"type": "chat", "text": "ring\x07"}, "bad_field"),
        ({"type": "chat", "text": "new\nline"}, "bad_field"),
        ({"type": "chat", "text": "abc\u202edef"}, "bad_field"),
        ({"type": "chat", "text": "zero\u200bwidth"}, "bad_field"),
        ({"type": "chat", "text": ""}, "bad_field"),
        ({"type": "chat", "text": 5}, "bad_field"),
        ({"type": "chat", "emote": "boo"}, "bad_field"),
        ({"type": "chat", "text": "hi", "color": "red"}, "bad_field"),
        ({"type": "chat"}, "bad_chat"),
        ({"type": "chat", "text": "hi", "emote": "gg"}, "bad_chat"),
        ({"type": "chat", "text": "   "}, "bad_chat"),
    ],
)
def test_a_bad_chat_gets_a_named_error_and_relays_nothing(msg, code):
    d = Driver()
    session, ann, bob, cat = room_with_watcher(d)
    before = session.public()
    d.send(bob, msg)
    assert errors(d, bob)[-1]["code"] == code and errors(d, bob)[-1]["ref"] == "chat"
    assert chats(d, ann) == chats(d, bob) == chats(d, cat) == []
    assert session.public() == before
    d.send(bob, {"type": "chat", "text": "fine"})  # the peer is still served
    assert [m["text"] for m in chats(d, cat)] == ["fine"]


def test_the_longest_chat_and_any_printable_unicode_pass():
    d = Driver()
    session, ann, bob, cat = room_with_watcher(d)
    text = "é" * 192 + " 日本語 ok"
    assert len(text) == 200 - 1
    d.send(ann, {"type": "chat", "text": text + "!"})
    assert chats(d, cat)[-1]["text"] == text + "!"


def test_chat_is_rate_limited_per_peer_with_retry_after_and_others_unaffected():
    d = Driver()
    d.lobby.limits = dataclasses.replace(d.lobby.limits, chat_rate=0.5, chat_burst=3)
    session, ann, bob, cat = room_with_watcher(d)
    for k in range(3):
        d.send(bob, {"type": "chat", "text": f"m{k}"})
    d.send(bob, {"type": "chat", "text": "one too many"})
    err = errors(d, bob)[-1]
    assert err["code"] == "chat_too_fast" and err["ref"] == "chat" and 0 < err["retry_after"] <= 2.0
    assert not err["fatal"]
    assert [m["text"] for m in chats(d, cat)] == ["m0", "m1", "m2"]
    d.send(ann, {"type": "chat", "text": "ann still talks"})  # another peer's budget is its own
    assert chats(d, cat)[-1]["text"] == "ann still talks"
    d.now += 2.0  # the budget refills
    d.send(bob, {"type": "chat", "text": "later"})
    assert chats(d, cat)[-1]["text"] == "later"
    assert bob.errors == 0  # a chat too fast is no bad message (the message rate still applies)


def test_a_peer_in_no_room_is_refused_and_nothing_is_relayed():
    d = Driver()
    session, ann, bob, cat = room_with_watcher(d)
    dan = d.connect("Dan")
    d.send(dan, {"type": "chat", "text": "let me in"})
    assert errors(d, dan)[-1]["code"] == "not_in_room"
    d.send(cat, {"type": "leave"})
    d.send(cat, {"type": "chat", "text": "gone"})
    assert errors(d, cat)[-1]["code"] == "not_in_room"
    assert chats(d, ann) == chats(d, bob) == []


def test_a_chat_posted_before_its_peer_left_is_not_relayed():
    """The room checks membership itself: a chat queued in the room's inbox
    when its peer has left since (or moved elsewhere) is refused there."""
    d = Driver()
    session, ann, bob, cat = room_with_watcher(d)
    d.send(cat, {"type": "leave"})
    d.run(session.handle("chat", cat, {"type": "chat", "text": "late"}, d.now))
    assert errors(d, cat)[-1]["code"] == "not_in_room"
    assert chats(d, ann) == chats(d, bob) == []


def test_the_room_names_its_watchers_and_they_stay_through_a_rematch():
    d = Driver()
    session, ann, bob, cat = room_with_watcher(d)
    room = d.last(ann, "room")["room"]
    assert room["watchers"] == ["Cat"] and room["spectators"] == 1
    d.send(ann, {"type": "start"})
    d.play_out(session)
    assert session.room.state == "over"
    d.send(ann, {"type": "rematch"})
    assert session.room.state == "playing" and session.room.games == 2
    assert cat in session.spectators
    assert d.last(cat, "room")["room"]["watchers"] == ["Cat"]
    assert d.last(cat, "view")["view"]["seat"] is None
    d.send(bob, {"type": "chat", "emote": "gg"})
    assert chats(d, cat)[-1]["emote"] == "gg"
    d.send(cat, {"type": "leave"})
    assert d.last(ann, "room")["room"]["watchers"] == []


def test_a_watcher_takes_a_seat_that_opens_between_games():
    d = Driver()
    session, ann, bob, cat = room_with_watcher(d)
    d.send(ann, {"type": "start"})
    d.play_out(session)
    d.send(bob, {"type": "leave"})
    room = d.last(cat, "room")["room"]
    assert room["state"] == "over" and room["open_seats"]
    d.send(cat, {"type": "join", "room": "r"})
    assert d.last(cat, "seated")["seat"] == room["open_seats"][0]
    assert d.last(ann, "room")["room"]["watchers"] == []


async def test_chat_over_real_sockets_reaches_seats_and_watchers(nursery):
    host = await start_host(nursery)
    host.create_room("R", game="colormatch", table="classic", seats=3)
    ann, cat, dan = await RawPeer.open(host.port), await RawPeer.open(host.port), await RawPeer.open(host.port)
    for p, name in ((ann, "Ann"), (cat, "Cat"), (dan, "Dan")):
        await p.expect("host")
        await p.hello(name)
    await ann.send({"type": "join", "room": "R"})
    await ann.expect("seated")
    await cat.send({"type": "watch", "room": "R"})
    await cat.expect("watching")
    await dan.send({"type": "chat", "text": "from the lobby"})
    assert (await dan.expect("error"))["code"] == "not_in_room"
    await cat.send({"type": "chat", "text": "hi \u202e there"})
    assert (await cat.expect("error"))["code"] == "bad_field"
    await ann.send({"type": "chat", "text": "hello watcher"})
    for p in (ann, cat):
        m = await p.expect("chat")
        assert (m["seat"], m["name"], m["text"]) == (0, "Ann", "hello watcher")
    await cat.send({"type": "chat", "emote": "nice"})
    m = await ann.expect("chat")
    assert (m["seat"], m["name"], m["emote"]) == (None, "Cat", "nice")
    assert not [x for x in ann.got if x["type"] == "chat" and x.get("text") == "hi \u202e there"]
    for p in (ann, cat, dan):
        await p.aclose()


async def test_python_bot_nodes_play_on_through_a_watchers_chat(nursery):
    """lanmatch's own bot nodes (`BotNode`) pass over `chat` as the JavaScript node does."""
    import trio
    from _net import play_bots

    host = await start_host(nursery)
    host.create_room("R", game="colormatch", table="classic", seats=3, auto_start=True, start_after=0.3,
                     bot_level="easy")
    cat = await RawPeer.open(host.port)
    await cat.expect("host")
    await cat.hello("Cat")
    await cat.send({"type": "watch", "room": "R"})
    await cat.expect("watching")

    async def talk() -> None:
        for k in range(5):
            await cat.send({"type": "chat", "text": f"go bots {k}"} if k % 2 else {"type": "chat", "emote": "hurry"})
            await trio.sleep(0.1)

    nursery.start_soon(talk)
    nodes = await play_bots(host.port, "R", ["easy", "medium"])
    assert all(n.done for n in nodes)  # each exited 0 with its game played (play_bots checks the codes)
    relayed = 0
    with trio.move_on_after(2):
        while relayed < 5:
            m = await cat.recv(2.0)
            assert m is not None
            relayed += m["type"] == "chat"
    assert relayed == 5  # the watcher's five lines went to the room (the bots among it) and back
    await cat.aclose()
