"""A seat held between games (`SEAT_HOLD`), pure: a person whose connection
drops after a game keeps the seat for a minute, and their token (a console
started again) or their profile takes it back with the room's standing; the
hold's end frees it, and a room left with nobody closes then; the next deal
does not wait, frees what is still held and stakes nothing for it; a
headless room that deals when full waits for a held seat. Found by a
play-test: a console killed between games and started again a second later
found its seat gone and its score with it. Driven as in test_host_session.py
(plain numbers for `now`, a real sqlite store for coins)."""

from __future__ import annotations

from test_host_session import Driver, profile, seated_pair, store  # noqa: F401 (the fixture)

from lanmatch.net.keeper import StoreKeeper
from lanmatch.table import SEAT_HOLD
from lanmatch.table.effects import StopRoom


def finished_pair(d: Driver, **settings):
    """Ann (creator, seat 0) and Bob (seat 1) at a 3-seat room, one game played out."""
    session, ann, bob = seated_pair(d, **settings)
    d.send(ann, {"type": "start"})
    d.play_out(session)
    assert session.room.state == "over"
    return session, ann, bob


def test_a_seat_dropped_between_games_is_held_and_its_token_brings_it_back_with_the_standing():
    d = Driver()
    session, ann, bob = finished_pair(d)
    token = d.got(bob, "seated")[0]["token"]
    standing = [list(v) for v in session.room.next_tally().values()]
    gone_at = d.now = d.now + 1.0
    d.run(d.lobby.gone(bob))
    seat = d.last(ann, "room")["room"]["seats"][1]
    assert (seat["name"], seat["connected"]) == ("Bob", False) and session.room.seats[1].token == token
    assert session.deadline() <= gone_at + SEAT_HOLD
    d.now = gone_at + SEAT_HOLD - 1.0  # a console started again within the minute
    back = d.connect("Bob", token=token)
    (seated,) = d.got(back, "seated")
    assert (seated["seat"], seated["token"]) == (1, token) and session.seated[1] is back
    assert d.last(back, "view")["view"]["outcome"] is not None  # the end of the game, to read again
    assert [list(v) for v in session.room.next_tally().values()] == standing
    assert session.held == {} and d.last(ann, "room")["room"]["seats"][1]["connected"] is True
    d.tick(session, gone_at + SEAT_HOLD + 1.0)  # the hold's end passes: nothing to free
    assert session.room.seats[1].name == "Bob" and session.seated[1] is back


def test_a_held_seat_is_freed_when_its_hold_runs_out_and_a_room_left_with_nobody_closes():
    d = Driver()
    session, ann, bob = finished_pair(d)
    token = d.got(bob, "seated")[0]["token"]
    d.run(d.lobby.gone(bob))
    gone_at = d.now
    d.tick(session, gone_at + SEAT_HOLD)
    assert session.room.seats[1] is None and d.last(ann, "room")["room"]["seats"][1]["kind"] != "person"
    late = d.connect("Bob", token=token)
    assert d.last(late, "error")["code"] == "bad_token"
    # alone, Ann drops too: the room stays for her minute, then closes
    d.run(d.lobby.gone(ann))
    assert not session.closed and d.lobby.rooms["r"] is session
    effects = d.tick(session, d.now + SEAT_HOLD)
    assert session.closed and StopRoom(session) in effects and d.lobby.rooms == {} and d.lobby.tokens == {}


def test_the_creator_back_at_their_seat_directs_the_room_again():
    d = Driver()
    session, ann, bob = finished_pair(d)
    token = d.got(ann, "seated")[0]["token"]
    d.run(d.lobby.gone(ann))
    assert d.last(bob, "room")["room"]["director"] == 1
    back = d.connect("Ann", token=token)
    assert d.last(bob, "room")["room"]["director"] == 0 and session.owner is back
    assert d.last(bob, "room")["room"]["creator"] == 0
    d.send(back, {"type": "rematch"})
    assert session.room.state == "playing"


def test_the_next_deal_does_not_wait_for_a_held_seat_and_stakes_nothing_for_it(store):  # noqa: F811
    d = Driver(StoreKeeper(store, strict=True))
    ann = d.connect("Ann", profile=profile("Ann"))
    bob = d.connect("Bob", profile=profile("Bob"))
    session = d.create(ann, game="colormatch", table="classic", seats=3, bots="easy", stake=50)
    d.send(bob, {"type": "join", "room": "r"})
    token = d.got(bob, "seated")[0]["token"]
    d.send(ann, {"type": "start"})
    d.play_out(session)
    bob_id = session.profile_of[1].id
    coins = store.balance(bob_id)
    d.run(d.lobby.gone(bob))
    d.send(ann, {"type": "rematch"})
    assert session.room.state == "playing" and session.room.seats[1] is None and session.held == {}
    assert session.match.kinds[1] == "bot"  # a room bot plays it, staked by the house
    assert store.balance(bob_id) == coins  # nothing staked for Bob
    late = d.connect("Bob", token=token)
    assert d.last(late, "error")["code"] == "bad_token"


def test_a_headless_room_that_deals_when_full_waits_for_a_held_seat():
    d = Driver()
    session = d.lobby.create_room("auto", game="colormatch", table="classic", seats=2, auto_start=True,
                                  rematch_after=2.0, bot_level="easy", clock=600)
    d.run(d.lobby.drain())
    ann, bob = d.connect("Ann", agent="bot"), d.connect("Bob", agent="bot")
    for p in (ann, bob):
        d.send(p, {"type": "join", "room": "auto"})
    assert session.room.state == "playing"  # full: dealt at once
    token = d.got(bob, "seated")[0]["token"]
    d.play_out(session)
    ended = d.now
    d.run(d.lobby.gone(bob))
    d.tick(session, ended + 2.0)  # the pause is over, but Bob's seat is held: no deal
    assert session.room.state == "over" and session.room.seats[1].name == "Bob"
    d.now = ended + 3.0
    back = d.connect("Bob", agent="bot", token=token)
    assert session.seated[1] is back and session.room.state == "playing"  # back, full: dealt
