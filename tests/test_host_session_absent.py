"""The session layer with people who go (issue 14), pure: who directs a room
when its creator has gone, the bounded rematch wait, names unique at a
table, a departed person's seat keeping its name, coins that reach the
lobby, the host summary counting playing rooms. Driven as in
test_host_session.py (plain numbers for `now`, a real sqlite store)."""

from __future__ import annotations

from test_host_session import Driver, profile, seated_pair, sends, store  # noqa: F401 (the fixture)

from lanmatch.console.model import Console, HostRow
from lanmatch.net.discovery import txt_record
from lanmatch.net.keeper import StoreKeeper
from lanmatch.table.session import REMATCH_WAIT


def test_when_the_creator_goes_the_next_seated_person_directs_at_once():
    d = Driver()
    session, ann, bob = seated_pair(d)
    cat = d.connect("Cat")
    d.send(cat, {"type": "join", "room": "r"})
    assert d.last(bob, "room")["room"]["director"] == 0
    d.run(d.lobby.gone(ann))  # her connection closed between games
    room = d.last(bob, "room")["room"]
    assert room["director"] == 1 and room["creator"] is None
    err = sends(d.send(cat, {"type": "start"}), cat)[0]
    assert err["code"] == "not_creator" and "Bob" in err["message"]
    d.send(bob, {"type": "start"})
    assert session.room.state == "playing"


def test_a_rematch_the_director_does_not_deal_in_a_minute_is_anyones():
    d = Driver()
    session, ann, bob = seated_pair(d)
    d.send(ann, {"type": "start"})
    d.play_out(session)
    over_at = d.now
    room = d.last(bob, "room")["room"]
    assert room["state"] == "over" and room["director"] == 0 and room["open_rematch"] is False
    assert sends(d.send(bob, {"type": "rematch"}), bob)[0]["code"] == "not_creator"
    assert session.deadline() == over_at + REMATCH_WAIT
    d.tick(session, over_at + REMATCH_WAIT)
    assert d.last(bob, "room")["room"]["open_rematch"] is True
    d.send(bob, {"type": "rematch"})
    room = d.last(bob, "room")["room"]
    assert room["state"] == "playing" and room["games"] == 2 and room["open_rematch"] is False


def test_names_are_unique_at_a_table():
    d = Driver()
    root = d.connect("root")
    session = d.create(root, game="colormatch", table="classic", seats=4)
    for name in ("ROOT", "root", "Ann"):
        d.send(d.connect(name), {"type": "join", "room": "r"})
    assert [x.name for x in session.room.seats] == ["root", "ROOT (2)", "root (3)", "Ann"]
    assert d.last(root, "room")["room"]["names"] == ["root", "ROOT (2)", "root (3)", "Ann"]


def test_a_departed_persons_seat_keeps_the_name_to_the_tally():
    d = Driver()
    session, ann, bob = seated_pair(d)
    d.send(ann, {"type": "start"})
    d.send(bob, {"type": "leave"})
    seat = d.last(ann, "room")["room"]["seats"][1]
    assert seat == {**seat, "name": "Bob", "kind": "bot", "left": True}
    newbob = d.connect("Bob")
    d.send(newbob, {"type": "watch", "room": "r"})
    d.play_out(session)
    room = d.last(ann, "room")["room"]
    assert room["state"] == "over" and room["names"][:2] == ["Ann", "Bob"] and room["seats"][1]["left"] is True
    assert not any(n is None or n.startswith("Seat") for n in room["names"])


def test_coins_reach_a_profile_back_in_the_lobby_while_the_clock_plays_its_seat(store):  # noqa: F811
    d = Driver(StoreKeeper(store, strict=True))
    bob_profile = profile("Bob")
    ann = d.connect("Ann", profile=profile("Ann"))
    bob = d.connect("Bob", profile=bob_profile)
    session = d.create(ann, game="colormatch", table="classic", seats=3, bots="easy", stake=50)
    d.send(bob, {"type": "join", "room": "r"})
    d.send(ann, {"type": "start"})
    d.run(d.lobby.gone(bob))  # his console quit: the clock plays his seat
    back = d.connect("Bob", profile=bob_profile)  # a new console, in the lobby
    assert back.room is None and d.last(back, "welcome")["profile"]["balance"] == 950
    mid = session.match.id
    d.play_out(session)
    paid = d.last(back, "coins")
    assert paid["match"] == mid and paid["reason"] in ("win", "loss")
    assert paid["balance"] == store.balance(back.profile.id)
    assert d.got(bob, "coins")[-1]["reason"] == "stake"  # nothing more to the closed connection


def test_the_host_summary_counts_playing_rooms():
    d = Driver()
    session, ann, bob = seated_pair(d)
    d.create(d.connect("Cat"), "other", game="colormatch", seats=2)
    d.send(ann, {"type": "start"})
    summary = d.lobby.summary()
    assert (summary["rooms"], summary["playing"], summary["free"]) == (2, 1, 1)
    # as the console's hosts list reads the advert: two rooms (it used to say 3,
    # counting the playing one twice)
    txt = txt_record(summary)
    row = HostRow("Kitchen", "10.0.0.2", 7070, txt["rooms"], txt["free"], txt["games"], False, txt["playing"])
    assert Console("Ann").host_rooms(row) == "2"
