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
from lanmatch.table.session import PEOPLE_PAUSE


def finished_pair(d: Driver, **settings):
    """Ann (creator, seat 0) and Bob (seat 1) at a 3-seat room, one game played out."""
    session, ann, bob = seated_pair(d, **settings)
    d.send(ann, {"type": "start"})
    d.play_out(session)
    assert session.room.state == "over"
    return session, ann, bob


def auto_pair(d: Driver, start_after: float):
    """A headless 3-seat room "auto" dealing `start_after` s after someone sits;
    two people sit and it deals its first game."""
    session = d.lobby.create_room("auto", game="colormatch", table="classic", seats=3, auto_start=True,
                                  start_after=start_after, rematch_after=2.0, bot_level="easy")
    d.run(d.lobby.drain())
    first, second = d.connect("Ann"), d.connect("Bob")
    for p in (first, second):
        d.send(p, {"type": "join", "room": "auto"})
    d.tick(session, start_after)
    return session, first, second


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
    d.play_out(session, present=(0, 1))
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
    ann, bob = d.connect("Ann"), d.connect("Bob")
    for p in (ann, bob):
        d.send(p, {"type": "join", "room": "auto"})
    assert session.room.state == "playing"  # full: dealt at once
    token = d.got(bob, "seated")[0]["token"]
    d.play_out(session)
    ended = d.now
    d.run(d.lobby.gone(bob))
    d.tick(session, ended + PEOPLE_PAUSE)  # the pause is over, but Bob's seat is held: no deal
    assert session.room.state == "over" and session.room.seats[1].name == "Bob"
    d.now = ended + PEOPLE_PAUSE + 1.0
    back = d.connect("Bob", token=token)
    assert session.seated[1] is back and session.room.state == "playing"  # back, full: dealt


# ------------------------------------------------------------------ a host restarted between games


def reopened(store, now: float = 100.0):  # noqa: F811
    """A new lobby on the same store, as a restarted host makes it: every kept
    room opened again (`Lobby.reopen`)."""
    keeper = StoreKeeper(store, strict=True)
    d = Driver(keeper)
    d.now = now
    rooms = [d.lobby.reopen(name, data, now) for name, data, _ in keeper.open_rooms()]
    d.run(d.lobby.drain())
    return d, rooms


def test_a_room_between_games_is_opened_again_by_a_restarted_host_with_its_standing(store):  # noqa: F811
    """Found by a play-test: a host stopped between games came back without
    its rooms; its people found their seats gone and their score with them."""
    d = Driver(StoreKeeper(store, strict=True))
    ann = d.connect("Ann", profile=profile("Ann"))
    bob = d.connect("Bob")
    session = d.create(ann, game="colormatch", table="classic", seats=3, bots="easy", clock=45)
    d.send(bob, {"type": "join", "room": "r"})
    d.send(ann, {"type": "start"})
    d.play_out(session)
    standing, games = session.room.next_tally(), session.room.games
    tokens = [d.got(p, "seated")[0]["token"] for p in (ann, bob)]
    # the host stops (killed: nothing closes); a new one opens the store
    d2, (room,) = reopened(store)
    assert d2.lobby.rooms["r"] is room and room.room.state == "open" and room.room.games == games == 1
    assert room.room.tally == standing and room.room.clock == 45 and room.room.bot_level == "easy"
    assert [x.name if x else None for x in room.room.seats] == ["Ann", "Bob", None]
    assert room.held.keys() == {0, 1} and room.deadline() == 100.0 + SEAT_HOLD
    bob2 = d2.connect("Bob", token=tokens[1])
    assert d2.got(bob2, "seated")[0]["seat"] == 1
    assert d2.last(bob2, "room")["room"]["director"] == 1  # while Ann, who made it, is away ...
    ann2 = d2.connect("Ann", token=tokens[0])
    room_msg = d2.last(ann2, "room")["room"]
    assert room_msg["creator"] == 0 and room_msg["games"] == 1 and room_msg["tally"] == standing
    d2.send(ann2, {"type": "start"})  # ... and, back, directs it again
    assert room.room.state == "playing" and room.room.games == 2 and room.profile_of[0].name == "Ann"


def test_a_reopened_room_nobody_comes_back_to_closes_and_is_forgotten(store):  # noqa: F811
    d = Driver(StoreKeeper(store, strict=True))
    session, ann, bob = seated_pair(d)
    d.send(ann, {"type": "start"})
    d.play_out(session)
    d2, (room,) = reopened(store)
    d2.tick(room, 100.0 + SEAT_HOLD)
    assert room.closed and d2.lobby.rooms == {} and store.open_rooms() == []
    d3, rooms = reopened(store)  # a third start opens nothing
    assert rooms == [] and d3.lobby.rooms == {}


def test_a_closed_room_is_not_opened_again_and_a_tournaments_room_is_not_kept(store):  # noqa: F811
    d = Driver(StoreKeeper(store, strict=True))
    ann = d.connect("Ann")
    d.create(ann, game="colormatch", table="classic", seats=3)
    assert [name for name, _, _ in store.open_rooms()] == ["r"]
    d.send(ann, {"type": "leave"})  # the room closes with its last person
    assert store.open_rooms() == []
    auto = d.lobby.create_room("t", game="colormatch", table="classic", seats=2, auto_start=True)
    d.lobby.create_tournament("t", 2, ["t"])
    d.run(d.lobby.drain())
    d.send(d.connect("Cy", agent="bot"), {"type": "join", "room": "t"})
    assert auto.seated and store.open_rooms() == []


def test_a_reopened_headless_room_deals_when_its_people_are_back_or_their_minute_is_over(store):  # noqa: F811
    """A `--room` that deals `start_after` seconds after someone sits: opened
    again after a restart, it does not deal to the first peer back while the
    others reconnect; it deals `start_after` after the last is back, or with
    those who are back once the others' minute is over."""
    d = Driver(StoreKeeper(store, strict=True))
    session, a, b = auto_pair(d, 1.0)
    d.play_out(session)
    tokens = [d.got(p, "seated")[0]["token"] for p in (a, b)]
    kept = session.kept()
    for back_b in (True, False):
        store.keep_room("auto", kept, 0.0)  # the host stopped here (each round of the loop)
        d2, (room,) = reopened(store)
        a2 = d2.connect("Ann", token=tokens[0])
        d2.tick(room, 105.0)
        assert room.room.state == "open" and room.held.keys() == {1}  # B is not back: no deal yet
        if back_b:
            d2.now = 106.0
            d2.connect("Bob", token=tokens[1])
            assert room.deadline() == 107.0  # `start_after` from the last one back
            d2.tick(room, 107.0)
            assert room.room.state == "playing" and room.room.seats[1].name == "Bob"
        else:
            d2.tick(room, 100.0 + SEAT_HOLD)  # B's minute is over: its seat freed, A plays
            assert room.room.seats[1] is None and room.deadline() == 101.0 + SEAT_HOLD
            d2.tick(room, 101.0 + SEAT_HOLD)
            assert room.room.state == "playing" and room.seated[0] is a2


def test_the_store_keeps_one_row_per_open_room_and_skips_one_it_cannot_read(store):  # noqa: F811
    store.keep_room("r", {"games": 1}, 1.0)
    store.keep_room("r", {"games": 2}, 2.0)  # replaced
    store.keep_room("s", {"games": 0}, 3.0)
    assert store.open_rooms() == [("r", {"games": 2}, 2.0), ("s", {"games": 0}, 3.0)]
    store.conn.execute("INSERT INTO open_rooms (name, data, saved) VALUES ('t', '[not an object]', 4.0)")
    store.conn.execute("INSERT INTO open_rooms (name, data, saved) VALUES ('u', '{broken', 5.0)")
    assert [name for name, _, _ in store.open_rooms()] == ["r", "s"]
    store.forget_room("r")
    store.forget_room("nothing")  # (a room never kept: nothing to forget)
    assert [name for name, _, _ in store.open_rooms()] == ["s"]


def test_a_bot_nodes_seat_is_not_held_between_games():
    """A bot node that goes after its game (a node that plays one game a run)
    comes back to look for a new game: its seat is freed at once, as before
    the hold, so that its `join` takes a seat of the next game, not the end of
    the last one (the JavaScript bot node of docs/protocol.md found it)."""
    d = Driver()
    ann = d.connect("Ann")
    session = d.create(ann, game="colormatch", table="classic", seats=3, bots="easy")
    node = d.connect("Node", agent="bot")
    d.send(node, {"type": "join", "room": "r"})
    d.send(ann, {"type": "start"})
    d.play_out(session)
    d.run(d.lobby.gone(node))
    assert session.room.seats[1] is None and session.held == {}


def test_a_headless_rooms_timer_waits_for_a_held_person_and_says_when_it_deals():
    """Found by a play-test: Ann's console, killed on the end screen of a room
    that deals itself, came back 8 s later to "Your seat at R is gone": the
    deal 10 s after the end had freed it. The timer now waits for a held
    person (or their minute's end); once back, the room says when it deals."""
    d = Driver()
    session, ann, bob = auto_pair(d, 4.0)
    d.play_out(session)
    ended = d.now
    token = d.got(ann, "seated")[0]["token"]
    d.run(d.lobby.gone(ann))
    d.tick(session, ended + PEOPLE_PAUSE)  # the pause is over: no deal while Ann's seat is held
    assert session.room.state == "over" and session.room.seats[0].name == "Ann"
    d.now = ended + 20.0
    back = d.connect("Ann", token=token)
    assert d.last(back, "room")["room"]["deals_in"] == 4.0  # `start_after` from her return, said at once
    d.tick(session, ended + 24.0)
    assert session.room.state == "playing" and session.seated[0] is back
    # and when she does not come back, the others play once her minute is over
    d.play_out(session)
    ended = d.now
    d.run(d.lobby.gone(back))
    d.tick(session, ended + PEOPLE_PAUSE)
    assert session.room.state == "over"
    d.tick(session, ended + SEAT_HOLD)
    assert session.room.seats[0] is None and session.deadline() == ended + SEAT_HOLD + 4.0
    d.tick(session, ended + SEAT_HOLD + 4.0)
    assert session.room.state == "playing" and session.seated[1] is bob


def test_a_person_the_autopilot_played_to_a_coin_games_end_is_not_staked_again(store):  # noqa: F811
    """Found by a play-test: Ann sat in a coin room that deals itself and
    walked away; the autopilot played her seat and the room staked her every
    game. Now the seat is given up at the game's end (she is told), and the
    next game stakes only those who play."""
    d = Driver(StoreKeeper(store, strict=True))
    session = d.lobby.create_room("pot", game="colormatch", table="classic", seats=3, auto_start=True,
                                  start_after=1.0, rematch_after=2.0, bot_level="easy", stake=10)
    d.run(d.lobby.drain())
    ann = d.connect("Ann", profile=profile("Ann"))
    bob = d.connect("Bob", profile=profile("Bob"))
    for p in (ann, bob):
        d.send(p, {"type": "join", "room": "pot"})
    d.tick(session, 1.0)
    ann_id = session.profile_of[0].id
    session.room.referee.set_autopilot(0, d.now)  # Ann is away: the autopilot plays her seat
    d.play_out(session, present=(1,))
    left = d.last(ann, "left")
    assert left["room"] == "pot" and "autopilot" in left["reason"] and ann.room is None
    assert session.room.seats[0] is None and session.room.seats[1].name == "Bob"
    coins = store.balance(ann_id)
    d.tick(session, session.deadline())  # the next game
    assert session.room.state == "playing" and session.match.kinds[0] == "bot" and store.balance(ann_id) == coins


def test_a_finished_room_says_whose_game_it_was_after_a_newcomer_sits():
    """`ended_names`: the seats' names when the game ended, while the room is
    over, whoever has sat since (the outcome's labels for a console that
    comes back or starts watching then)."""
    d = Driver()
    session, ann, bob = finished_pair(d)
    assert d.last(ann, "room")["room"]["ended_names"] == ["Ann", "Bob", "Bot 2 (easy)"]
    dan = d.connect("Dan")
    d.send(dan, {"type": "join", "room": "r", "seat": 2})
    room = d.last(dan, "room")["room"]
    assert room["names"] == ["Ann", "Bob", "Dan"] and room["ended_names"] == ["Ann", "Bob", "Bot 2 (easy)"]
    d.send(ann, {"type": "rematch"})
    assert "ended_names" not in d.last(dan, "room")["room"]


def test_a_resumed_games_clocks_wait_for_its_people(store):  # noqa: F811
    """Found by a play-test: after a host's restart people came back to
    "Your move (4 s)": every clock had restarted at once while they were
    still reconnecting. A resumed game with people now waits (paused, the
    views say it) until they are back, or a minute at most."""
    d = Driver(StoreKeeper(store, strict=True))
    session, ann, bob = seated_pair(d, clock=30)
    d.send(ann, {"type": "start"})
    d.tick(session, session.deadline())
    tokens = [d.got(p, "seated")[0]["token"] for p in (ann, bob)]
    keeper = StoreKeeper(store, strict=True)
    d2 = Driver(keeper)
    (resumed,) = list(keeper.resume(lambda record, g: d2.lobby.resume(record, g, 100.0)))
    d2.run(d2.lobby.drain())
    ref = resumed.room.referee
    assert ref.paused and resumed.deadline() == 100.0 + SEAT_HOLD
    d2.now = 105.0
    ann2 = d2.connect("Ann", token=tokens[0])
    assert ref.paused and d2.last(ann2, "view").get("paused") is True  # Bob is not back yet
    d2.now = 110.0
    bob2 = d2.connect("Bob", token=tokens[1])
    assert not ref.paused and resumed.grace_until is None
    assert "paused" not in d2.last(bob2, "view") and resumed.deadline() <= 110.0 + 30.0
    # and when nobody comes back, the clocks run once the minute is over
    d3 = Driver(StoreKeeper(store, strict=True))
    (again,) = list(d3.lobby.keeper.resume(lambda record, g: d3.lobby.resume(record, g, 200.0)))
    d3.run(d3.lobby.drain())
    d3.tick(again, 200.0 + SEAT_HOLD)
    assert not again.room.referee.paused and again.deadline() <= 200.0 + SEAT_HOLD + 30.0
