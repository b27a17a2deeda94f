"""The host node over real sockets on 127.0.0.1: rooms, play, tokens, bad input.

Every loop here is bounded in count and time (trio.fail_after); traffic goes
to 127.0.0.1 only.
"""

from __future__ import annotations

import random

import pytest
import trio
from _net import LOOPBACK, RawPeer, frame_header, play_bots, seated, start_host

from lanmatch.net.client import BotNode, Client
from lanmatch.protocol import MAX_FRAME, PROTOCOL_VERSION, encode_frame, view_from_wire
from lanmatch.rules import GAMES

# every table of every game the registry declares: (game, the table's name as rooms carry it)
EVERY_TABLE = [pytest.param(g, game.table_name(t), id=t) for g, game in GAMES.items() for t in game.tables]


def last(p: RawPeer, typ: str) -> dict:
    return [m for m in p.got if m["type"] == typ][-1]


# ------------------------------------------------------------------ matches


@pytest.mark.parametrize(("game", "table"), EVERY_TABLE)
async def test_three_in_process_bot_nodes_finish_a_match(nursery, game, table):
    """Over sockets, every table's actions as the host lists them (a
    double-twelve's two-digit tiles too) are taken back as they are."""
    host = await start_host(nursery)
    host.create_room("r", game=game, table=table, seats=4,
                     auto_start=True, start_after=0.3, bot_level="easy")
    nodes = await play_bots(host.port, "r", ["easy", "medium", "hard"])
    ref = host.rooms["r"].room.referee
    assert ref.over and host.rooms["r"].room.state == "over"
    assert sum(n.actions for n in nodes) > 0
    assert {n.seat for n in nodes} == {0, 1, 2}
    codes = {r["code"] for n in nodes for r in n.rejections}
    assert codes <= {"stale", "not_your_turn", "illegal"}, codes  # only races of out-of-turn chances


# ------------------------------------------------------------------ rooms


async def test_a_room_made_in_process_is_directed_by_the_first_peer_to_sit(nursery):
    """`lanmatch play --lan`: the host's own room belongs to whoever sits
    first (the player at the console), not to any friend who joins later."""
    host = await start_host(nursery)
    host.create_room("Quick play", game="colormatch", table="classic", seats=3, first_directs=True)
    ann, bob = await RawPeer.open(host.port), await RawPeer.open(host.port)
    await ann.hello("Ann")
    await bob.hello("Bob")
    await ann.send({"type": "join", "room": "Quick play"})
    await ann.expect("seated")
    await bob.send({"type": "join", "room": "Quick play"})
    await bob.expect("seated")
    assert (await bob.expect("room"))["room"]["creator"] == 0
    await bob.send({"type": "start"})
    assert (await bob.expect("error"))["code"] == "not_creator"
    await ann.send({"type": "start"})
    assert (await ann.expect("view"))["view"]["seat"] == 0


async def test_room_lifecycle_create_list_join_watch_start_kick_leave(nursery):
    host = await start_host(nursery)
    a = await seated(host.port, "Kitchen", "Ann", create={"game": "colormatch", "table": "siege", "seats": 4, "clock": 60})
    room = await a.expect("room")
    assert room["room"]["creator"] == 0 and room["room"]["clock"] == 60
    assert type(room["room"]["clock"]) is int  # as `create` said it (a bot writer saw 60.0, a float64)
    b = await RawPeer.open(host.port)
    await b.hello("Bob")
    await b.send({"type": "list"})
    rooms = (await b.expect("rooms"))["rooms"]
    assert [(r["name"], r["table"], r["free"], r["open_seats"]) for r in rooms] == [("Kitchen", "siege", 3, [1, 2, 3])]
    await b.send({"type": "join", "room": "Kitchen", "seat": 2})
    assert (await b.expect("seated"))["seat"] == 2
    await b.send({"type": "start"})
    assert (await b.expect("error"))["code"] == "not_creator"
    c = await RawPeer.open(host.port)
    await c.hello("Cy")
    await c.send({"type": "watch", "room": "Kitchen"})
    await c.expect("watching")
    await a.send({"type": "kick", "seat": 2})
    assert (await b.expect("left"))["reason"].startswith("The room's creator kicked")
    await a.send({"type": "start"})
    view = await a.expect("view")
    assert view["view"]["seat"] == 0 and len(view["view"]["hand"]) == 7
    seats = [m for m in a.got if m["type"] == "room"][-1]["room"]["seats"]
    assert [s["kind"] for s in seats] == ["person", "bot", "bot", "bot"]
    spectator = await c.expect("view")
    assert spectator["view"]["hand"] == [] and spectator["view"]["seat"] is None and spectator["legal"] == []
    await c.send({"type": "act", "state_id": spectator["state_id"], "action": {"type": "draw"}})
    assert (await c.expect("rejected"))["code"] == "not_seated"
    await a.send({"type": "leave"})
    await a.expect("left")
    for p in (a, b, c):
        await p.aclose()


async def test_create_refusals(nursery):
    host = await start_host(nursery)
    p = await RawPeer.open(host.port)
    await p.hello()
    for create, code in [
        ({"game": "colormatch", "seats": 6}, "bad_room"),  # a guest's room seats up to 4
        ({"game": "colormatch", "clock": 17}, "bad_room"),
        ({"game": "colormatch", "table": "toll", "options": {"stacking": True}}, "bad_room"),
    ]:
        await p.send({"type": "create", "room": "x", **create})
        assert (await p.expect("error"))["code"] == code
    await p.send({"type": "create", "room": "x", "game": "dominoes", "password": "pw"})
    await p.expect("seated")
    q = await RawPeer.open(host.port)
    await q.hello("q")
    await q.send({"type": "create", "room": "x", "game": "dominoes"})
    assert (await q.expect("error"))["code"] == "room_exists"
    await q.send({"type": "join", "room": "x"})
    assert (await q.expect("error"))["code"] == "bad_password"
    await q.send({"type": "join", "room": "nope"})
    assert (await q.expect("error"))["code"] == "no_room"


async def played_out(host, a: RawPeer):
    """`a` (seat 0 of room r) starts it; the host plays its seat fast until the game is over."""
    await a.send({"type": "start"})
    await a.expect("view")
    actor = host.rooms["r"]
    actor.room.referee.set_room_bot(0, "easy", trio.current_time())  # let the host play our seat fast
    actor.post(("resync", next(iter(actor.seated.values())), None))  # wake the room's task
    with trio.fail_after(10):
        while actor.room.state != "over":
            with trio.move_on_after(0.01):  # read as a peer does (a peer that never reads is cut off: slow_reader)
                await a.recv(1.0)
    return actor


async def test_rematch_keeps_the_seats_and_the_running_score(nursery):
    host = await start_host(nursery)
    a = await seated(host.port, "r", create={"game": "colormatch", "table": "toll", "seats": 2, "bots": "easy"})
    actor = await played_out(host, a)
    first = actor.room.referee.outcome
    await a.send({"type": "rematch"})
    view = await a.expect("view", state_id=0)
    assert view["view"]["outcome"] is None
    room = last(a, "room")
    assert room["room"]["games"] == 2 and room["room"]["tally"]["points"] == first["points"]
    assert room["room"]["seats"][0]["name"] == "p"


# ------------------------------------------------------------------ tokens


async def test_reconnect_with_the_token_gets_the_same_seat_and_hand_back(nursery):
    host = await start_host(nursery)
    a = await seated(host.port, "r", create={"game": "colormatch", "table": "classic", "seats": 3})
    await a.send({"type": "start"})
    first = await a.expect("view")
    seated_msg = next(m for m in a.got if m["type"] == "seated")
    await a.aclose()
    other = await RawPeer.open(host.port)
    await other.hello("watcher")
    await other.send({"type": "watch", "room": "r"})
    with trio.fail_after(3):
        while True:
            room = await other.expect("room")
            if not room["room"]["seats"][0]["connected"]:
                break  # the others see the seat away
    b = await RawPeer.open(host.port)
    await b.hello("again", token=seated_msg["token"])
    back = await b.expect("seated")
    assert (back["seat"], back["token"]) == (0, seated_msg["token"])
    view = await b.expect("view")
    assert view["view"]["hand"] == first["view"]["hand"]  # nobody moved: the clock is 30 s
    room = last(b, "room")
    assert room["room"]["seats"][0]["connected"]


async def test_a_seat_dropped_between_games_is_held_and_its_token_brings_it_back(nursery):
    """Between games too (a console killed after a game and started again):
    the seat waits for its person (`SEAT_HOLD`), shown away, and the token
    takes it back with the room's running score."""
    host = await start_host(nursery)
    a = await seated(host.port, "r", create={"game": "colormatch", "table": "classic", "seats": 3, "bots": "easy"})
    token = next(m for m in a.got if m["type"] == "seated")["token"]
    actor = await played_out(host, a)
    first = actor.room.referee.outcome
    await a.aclose()  # dropped, between games
    with trio.fail_after(3):
        while actor.room.seats[0] is None or actor.room.seats[0].connected:
            await trio.sleep(0.01)
    assert actor.room.seats[0].name == "p" and "r" in host.rooms  # held: the room stays
    b = await RawPeer.open(host.port)
    await b.hello("again", token=token)
    back = await b.expect("seated")
    assert (back["seat"], back["token"]) == (0, token)
    assert (await b.expect("view"))["view"]["outcome"] is not None  # the game's end, to read again
    assert last(b, "room")["room"]["seats"][0]["connected"]
    await b.send({"type": "rematch"})  # and the creator, back, deals the next game
    assert (await b.expect("view", state_id=0))["view"]["outcome"] is None
    room = last(b, "room")["room"]
    assert room["games"] == 2 and room["tally"]["points"] == first["points"]  # the running score kept


async def test_a_wrong_token_is_refused(nursery):
    host = await start_host(nursery)
    await seated(host.port, "r", create={"game": "colormatch", "seats": 3})
    p = await RawPeer.open(host.port)
    await p.hello("thief", token="f" * 32)
    err = await p.expect("error")
    assert err["code"] == "bad_token" and not err["fatal"]
    await p.send({"type": "act", "state_id": 0, "action": {"type": "draw"}})
    assert (await p.expect("error"))["code"] == "not_in_room"


async def test_a_bot_node_reconnects_by_itself_with_its_token(nursery):
    host = await start_host(nursery)
    host.create_room("r", game="colormatch", table="classic", seats=2, auto_start=True, bot_level="easy")
    cut = trio.Event()

    class Flaky(BotNode):
        def on_message(self, msg):
            super().on_message(msg)
            if msg["type"] == "view" and msg["state_id"] >= 6 and not cut.is_set():
                cut.set()
                self.conn.close("test cut")  # the Wi-Fi drops

    nodes = await play_bots(host.port, "r", ["medium", "medium"], cls=Flaky)
    assert cut.is_set()
    assert host.rooms["r"].room.referee.over
    assert sorted(n.seat for n in nodes) == [0, 1]
    assert host.rooms["r"].room.games == 1  # the same game, finished


async def test_a_watcher_that_reconnects_watches_again_and_hears_why_when_it_cannot(nursery):
    """A watcher holds no token: its client says its `watch` again (the
    password with it) after a reconnect; when the room closed meanwhile, the
    refusal leaves it watching nothing."""
    host = await start_host(nursery)
    host.create_room("r", game="colormatch", table="classic", seats=2, bot_level="easy", clock=90, password="pw")
    bob = await seated(host.port, "r", "Bob", seat=0, password="pw")
    await bob.send({"type": "start"})
    await bob.expect("view")
    got: list[dict] = []

    class Watcher(Client):
        def on_message(self, msg):
            got.append(msg)

    cat = Watcher("Cat")

    async def connection() -> trio.Event:
        """Connect `cat` (in the background); the event is set when the connection ends."""
        ended = trio.Event()

        async def run() -> None:
            await cat.connect_once((LOOPBACK, host.port))
            ended.set()

        nursery.start_soon(run)
        return ended

    async def until(pred) -> None:
        with trio.fail_after(5):
            while not pred():
                await trio.sleep(0.01)

    def watchers() -> list[str]:
        return [p.name for p in host.rooms["r"].spectators] if "r" in host.rooms else []

    ended = await connection()
    await until(lambda: cat.welcomed)
    cat.send("watch", room="r", password="pw")
    await until(lambda: watchers() == ["Cat"] and cat.view_msg is not None)
    assert cat.watched == {"room": "r", "password": "pw"} and cat.room_name == "r"
    cat.conn.close("test: the Wi-Fi dropped")
    await ended.wait()
    await until(lambda: watchers() == [])
    got.clear()
    ended = await connection()
    await until(lambda: watchers() == ["Cat"] and any(m["type"] == "view" for m in got))
    assert [m["room"] for m in got if m["type"] == "watching"] == ["r"] and cat.seat is None
    cat.conn.close("test: dropped again")
    await ended.wait()
    await bob.send({"type": "leave"})  # the last person leaves: the room closes
    await until(lambda: "r" not in host.rooms)
    got.clear()
    ended = await connection()
    await until(lambda: any(m["type"] == "error" for m in got))
    err = next(m for m in got if m["type"] == "error")
    assert err["ref"] == "watch" and err["code"] == "no_room", err
    assert cat.watched is None and cat.room_name is None and cat.view_msg is None
    cat.conn.close("test: done")
    await ended.wait()
    await bob.aclose()


# ------------------------------------------------------------------ heartbeats and resync


async def test_a_dead_peer_is_noticed_within_a_few_seconds(nursery):
    host = await start_host(nursery, dead_after=2.0)
    p = await RawPeer.open(host.port)
    await p.hello()  # then silence: no pings
    t0 = trio.current_time()
    assert await p.closed(timeout=5.0)
    assert 1.5 <= trio.current_time() - t0 <= 4.0
    with trio.fail_after(1):
        while host.peers:
            await trio.sleep(0.01)


async def test_the_host_pings_an_idle_peer_and_numbers_every_message(nursery):
    host = await start_host(nursery)
    p = await RawPeer.open(host.port)
    await p.hello()
    await p.expect("ping", timeout=3)
    assert [m["seq"] for m in p.got] == list(range(1, len(p.got) + 1))


async def test_a_sequence_gap_makes_the_client_ask_for_a_snapshot(nursery):
    host = await start_host(nursery)
    host.create_room("r", game="colormatch", table="classic", seats=2, auto_start=True, start_after=0.2)
    got = []

    class Watcher(Client):
        def on_message(self, msg):
            got.append(msg)

    c = Watcher("w")
    nursery.start_soon(c.connect_once, (LOOPBACK, host.port))
    with trio.fail_after(5):
        while not c.welcomed:
            await trio.sleep(0.01)
        c.send("join", room="r")
        while c.view_msg is None:
            await trio.sleep(0.01)
        c.seq += 3  # pretend three messages were lost
        c.act({"type": "draw"}) if c.view_msg["legal"] else c.send("ping")
        while not any(m["type"] == "snapshot" for m in got):
            await trio.sleep(0.01)
    snap = next(m for m in got if m["type"] == "snapshot")
    assert c.gaps == 1 and snap["seat"] == c.seat and snap["room"]["name"] == "r"
    assert snap["view"]["view"]["seat"] == c.seat
    c.close()


# ------------------------------------------------------------------ bad input (SPEC section 10)


async def a_table_keeps_playing(host, nursery, room="live"):
    """A room where the host's bots play on: returns its actor."""
    host.create_room(room, game="colormatch", table="classic", seats=2, auto_start=True, start_after=0.1,
                     bot_level="easy")
    sentinel = BotNode("easy", room=room, stay=True, name="sentinel", seed=3)
    nursery.start_soon(sentinel.run, (LOOPBACK, host.port))
    actor = host.rooms[room]
    with trio.fail_after(5):
        while actor.actions < 3:
            await trio.sleep(0.01)
    return actor


async def assert_still_playing(actor, more: int = 3) -> None:
    start = actor.actions + actor.room.games * 10_000
    with trio.fail_after(5):
        while actor.actions + actor.room.games * 10_000 < start + more:
            await trio.sleep(0.01)


async def test_garbage_bytes_get_an_error_and_only_that_peer_is_cut_off(nursery):
    host = await start_host(nursery)
    actor = await a_table_keeps_playing(host, nursery)
    p = await RawPeer.open(host.port)
    await p.send_bytes(frame_header(6) + b"\xc1garbage"[:6])
    err = await p.expect("error")
    assert err["code"] == "bad_frame" and err["fatal"]
    assert await p.closed()
    await assert_still_playing(actor)


async def test_truncated_frame_then_eof_changes_nothing(nursery):
    host = await start_host(nursery)
    actor = await a_table_keeps_playing(host, nursery)
    p = await RawPeer.open(host.port)
    await p.hello()
    frame = encode_frame({"type": "list"})
    await p.send_bytes(frame[:-2])
    await p.send_eof()
    assert await p.closed()
    assert len(host.rooms) == 1
    await assert_still_playing(actor)


async def test_oversize_frame_is_refused_from_its_header(nursery):
    host = await start_host(nursery)
    p = await RawPeer.open(host.port)
    await p.send_bytes(frame_header(MAX_FRAME + 1))  # no body follows: refused at once
    err = await p.expect("error")
    assert err["code"] == "oversize" and err["fatal"]
    assert await p.closed()


async def test_unknown_message_type_gets_an_error_and_the_connection_stays(nursery):
    host = await start_host(nursery)
    p = await RawPeer.open(host.port)
    await p.hello()
    await p.send({"type": "teleport", "to": "the moon"})
    err = await p.expect("error")
    assert err["code"] == "unknown_type" and not err["fatal"] and err["ref"] == "teleport"
    await p.send({"type": "list"})
    await p.expect("rooms")


async def test_wrong_fields_get_an_error_naming_the_field(nursery):
    host = await start_host(nursery)
    p = await RawPeer.open(host.port)
    await p.hello()
    for msg, word in [
        ({"type": "join"}, "'room'"),
        ({"type": "join", "room": 5}, "'room'"),
        ({"type": "create", "room": "r", "game": "colormatch", "seats": "four"}, "'seats'"),
        ({"type": "list", "admin": True}, "'admin'"),
        ({"type": "act", "state_id": 0, "action": {"type": "expire", "penalty": True}}, "'type'"),
    ]:
        await p.send(msg)
        err = await p.expect("error")
        assert err["code"] == "bad_field" and word in err["message"], err


async def test_too_many_bad_messages_cut_the_peer_off(nursery):
    host = await start_host(nursery)
    p = await RawPeer.open(host.port)
    await p.hello()
    for _ in range(10):
        await p.send({"type": "nonsense"})
    assert any(m.get("code") == "too_many_errors" for m in [await p.expect("error", code="too_many_errors")])
    assert await p.closed()


async def test_protocol_version_mismatch_gets_a_clear_message(nursery):
    host = await start_host(nursery)
    p = await RawPeer.open(host.port)
    await p.send({"type": "hello", "protocol": PROTOCOL_VERSION + 1, "name": "future"})
    err = await p.expect("error")
    assert err["code"] == "protocol_version" and err["fatal"]
    assert f"protocol {PROTOCOL_VERSION}" in err["message"] and str(PROTOCOL_VERSION + 1) in err["message"]
    assert await p.closed()


async def test_hello_comes_first(nursery):
    host = await start_host(nursery)
    p = await RawPeer.open(host.port)
    await p.send({"type": "list"})
    assert (await p.expect("error"))["code"] == "hello_first"


async def test_acting_for_another_seat_is_rejected(nursery):
    host = await start_host(nursery)
    a = await seated(host.port, "r", create={"game": "colormatch", "table": "classic", "seats": 3})
    await a.send({"type": "start"})
    view = await a.expect("view")
    other = (view["view"]["seat"] + 1) % 3
    await a.send({"type": "act", "state_id": view["state_id"], "action": {"type": "draw"}, "seat": other})
    rej = await a.expect("rejected")
    assert rej["code"] == "not_your_seat" and str(other) in rej["reason"]
    assert all(by != "seat" for *_, by in host.rooms["r"].room.referee.log)  # nothing applied for a person


async def test_stale_state_id_is_rejected_and_changes_nothing(nursery):
    host = await start_host(nursery)
    a = await seated(host.port, "r", create={"game": "colormatch", "table": "classic", "seats": 2})
    await a.send({"type": "start"})
    actor = host.rooms["r"]
    with trio.fail_after(5):
        while True:  # wait for our turn
            view = await a.expect("view")
            if view["legal"]:
                break
    before = actor.room.referee.view(0)
    await a.send({"type": "act", "state_id": view["state_id"] - 1, "action": view["legal"][0]})
    rej = await a.expect("rejected")
    assert rej["code"] == "stale" and rej["state_id"] == view["state_id"]
    assert actor.room.referee.view(0) == before
    await a.send({"type": "act", "state_id": view["state_id"], "action": {"type": "play", "card": "XX"}})
    rej = await a.expect("rejected")
    assert rej["code"] == "illegal" and rej["reason"]


async def test_flood_is_rate_limited_and_cut_off_while_others_play(nursery):
    host = await start_host(nursery, rate=50, burst=100)
    actor = await a_table_keeps_playing(host, nursery)
    p = await RawPeer.open(host.port)
    await p.hello()
    data = encode_frame({"type": "list"}) * 400
    await p.send_bytes(data)
    err = await p.expect("error", code="rate_limited", timeout=5)
    assert err["fatal"]
    assert await p.closed()
    await assert_still_playing(actor)


async def test_slow_reader_is_dropped_while_others_keep_playing(nursery):
    host = await start_host(nursery, outbox=16)
    actor = await a_table_keeps_playing(host, nursery)
    p = await RawPeer.open(host.port)
    await p.hello("sloth")
    # fill the host's outbox for us: many rooms to list, asked for again and again, never read
    for k in range(40):
        host.create_room(f"pad{k}", game="colormatch", table="classic", seats=4, auto_start=True)
    dropped = False
    with trio.fail_after(10):
        while not dropped:
            try:
                await p.send({"type": "list"})
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                break
            await trio.sleep(0.03)  # under the rate limit
            dropped = not any(peer.name == "sloth" for peer in host.peers)
    await assert_still_playing(actor)


async def test_a_peer_client_checks_what_the_host_sends(nursery):
    """The client side refuses a host's garbage too (a view with a bad `far`)."""
    from lanmatch.protocol import RemoteProtocolError

    c = Client("x")
    with pytest.raises(RemoteProtocolError):
        c._receive({"type": "view", "seq": 1, "room": "r", "state_id": 0, "legal": [], "timers": [], "autopilot": [],
                    "view": {"game": "colormatch", "seat": 0, "step": 0, "hand": [], "to_act": [], "far": {"x": []}}})
    assert view_from_wire({"game": "dominoes", "seat": 0, "step": 0, "hand": [], "to_act": [0]})["seat"] == 0


# ------------------------------------------------------------------ hidden information


VIEW_KEYS = {
    "game", "table", "seat", "players", "hand", "counts", "top", "color", "direction", "to_act", "turn",
    "phase", "pending", "pending_kind", "fuse", "draw_pile", "discards", "windows", "scores", "round", "mode",
    "target", "options", "step", "events", "outcome", "blast", "one_card", "face", "far", "draw_far", "shields",
    "shown", "drawn", "daily", "line", "ends", "boneyard", "passes", "pips", "set",
}


def check_no_leak(seat: int, msg: dict, truth: dict[int, list[list[str]]]) -> int:
    """Check one `view` message received by `seat` against the host's true hands."""
    view = msg["view"]
    hands = truth[msg["state_id"]]
    assert view["seat"] == seat
    assert set(view) <= VIEW_KEYS, set(view) - VIEW_KEYS
    assert view["hand"] == hands[seat]
    if "drawn" in view:
        assert view["drawn"] in hands[seat]
    for e in view["events"]:
        if "cards" in e:
            assert e.get("seat") == seat, e
    if "far" in view:
        assert seat not in view["far"]
    if "shown" in view:  # a standard challenger alone sees the hand it challenged
        assert view["table"] == "standard" and view["shown"]["seat"] != seat
    if view["game"] == "dominoes" and view.get("outcome") is None:
        tiles = {t for s, h in enumerate(hands) if s != seat for t in h}
        words = set()

        def walk(x):
            if isinstance(x, str):
                words.add(x)
            elif isinstance(x, dict):
                for v in x.values():
                    walk(v)
            elif isinstance(x, list):
                for v in x:
                    walk(v)

        deals = [e["n"] for e in view["events"] if e["type"] == "deal"]
        this_round = [e for e in view["events"] if not deals or e["n"] >= deals[-1]]  # tiles come back each round
        walk({**msg, "view": {**view, "events": this_round}})
        assert not (words & tiles), words & tiles  # tiles are unique: a rival's tile never shows
    for a in msg["legal"]:
        assert a.get("card") is None or a["card"] in hands[seat]
        assert a.get("tile") is None or a["tile"] in hands[seat]
    return 1


@pytest.mark.parametrize(("game", "table"), EVERY_TABLE)
async def test_no_message_ever_holds_another_seats_cards(nursery, game, table):
    """Over several games per table, every view on the wire is checked against
    the host's true hands at that state."""
    host = await start_host(nursery)
    truth: dict[tuple[str, int, int], list[list[str]]] = {}
    from lanmatch.net import host as host_mod

    original = host_mod.RoomActor._send_views

    def recording(self, only=None, skip=None):
        ref = self.room.referee
        if ref is not None:
            truth[(self.room.name, self.room.games, ref.state_id)] = [ref.view(s)["hand"] for s in range(ref.n)]
        return original(self, only, skip)

    host_mod.RoomActor._send_views = recording
    checked = []

    class Spy(BotNode):
        def on_message(self, msg):
            if msg["type"] == "view":
                games = host.rooms[msg["room"]].room.games
                by_state = {k[2]: v for k, v in truth.items() if k[:2] == (msg["room"], games)}
                checked.append(check_no_leak(self.seat, msg, by_state))
            super().on_message(msg)

    try:
        for k in range(3):
            name = f"{table}{k}"
            host.create_room(name, game=game, table=table,
                             seats=3, auto_start=True, bot_level="easy")
            await play_bots(host.port, name, ["easy", "medium", "hard"], cls=Spy, seed=10 * k)
    finally:
        host_mod.RoomActor._send_views = original
    assert len(checked) > 30


async def test_every_message_on_the_wire_is_valid_for_the_catalogue(nursery):
    """`strict=True` checks every frame the host sends (LocalProtocolError if not)."""
    host = await start_host(nursery, strict=True)
    seen = []
    host.on_wire = lambda peer, msg: seen.append(msg["type"])
    host.create_room("r", game="colormatch", table="daynight", seats=3, auto_start=True)
    await play_bots(host.port, "r", ["easy", "easy", "easy"])
    assert {"welcome", "rooms", "seated", "room", "view"} <= set(seen)


def test_tokens_on_the_host_come_from_its_rng():
    from lanmatch.table import Room

    room = Room("r")
    assert room.join("a", random.Random(1))[1] == Room("r").join("a", random.Random(1))[1]


def test_a_room_summary_says_what_a_game_counts_as():
    """The room list's `mode` is the game's (Dominoes is a match to 100: a
    play-test's waiting room said "single" where its history said "match")."""
    from lanmatch.table import Room

    assert Room("d", game="dominoes").public(0)["mode"] == "match"
    assert Room("c", game="colormatch").public(0)["mode"] == "single"
    assert Room("t", game="colormatch", table="standard", options={"target": 200}).public(0)["mode"] == "match"
