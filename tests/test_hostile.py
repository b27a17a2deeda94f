"""Hostile peers over real sockets on 127.0.0.1 (issue 13): each attack in
its own test (a `# 13.N` comment names it, after the issue's list), each
ending with the host still serving a full match to bot nodes.

The limits are scaled down with the Host's keyword arguments where that keeps
a test fast. Every loop is bounded in count and time; no timing assertions.
"""

from __future__ import annotations

import secrets
import unicodedata

import pytest
import trio
from _net import RawPeer, play_bots, start_host
from test_host_session import Driver, seated_pair

from lanmatch.store import Store


async def still_serves(host, room: str = "after") -> None:
    """The host plays a full match to bot nodes."""
    host.create_room(room, game="colormatch", table="classic", seats=3, auto_start=True, start_after=0.2,
                     bot_level="easy")
    await play_bots(host.port, room, ["easy", "medium"])


async def hello(port: int, name: str, **kw) -> RawPeer:
    p = await RawPeer.open(port)
    await p.hello(name, **kw)
    return p


def key() -> str:
    return secrets.token_hex(16)


@pytest.fixture
def store(tmp_path):
    s = Store.open_dir(tmp_path / "data", durable=False)
    yield s
    s.close()


# 13.1 rooms whose people are gone never close; one connection exhausts the rooms
async def test_rooms_left_by_their_people_close_and_rooms_are_capped_per_connection_and_address(nursery):
    # (a dropped peer's seat, and so its room, waits `seat_hold` between games: 60 s, here 0.3)
    host = await start_host(nursery, rooms_per_peer=2, rooms_per_address=3, seat_hold=0.3)
    a = await hello(host.port, "a", agent="bot")
    for i in range(3):  # create, start, leave: the room goes with its people
        await a.send({"type": "create", "room": f"gone{i}", "game": "colormatch", "table": "classic", "seats": 2})
        await a.expect("seated")
        await a.send({"type": "start"})
        await a.expect("view")
        await a.send({"type": "leave"})
        await a.expect("left")
    await a.send({"type": "list"})
    assert (await a.expect("rooms"))["rooms"] == []
    held = await hello(host.port, "b")
    for i in range(2):
        await held.send({"type": "create", "room": f"b{i}", "game": "colormatch", "sit": i == 0})
        await held.expect("seated" if i == 0 else "error")
    assert set(host.rooms) == {"b0"}  # b's second create: it is already in a room
    c = await hello(host.port, "c")
    await c.send({"type": "create", "room": "c0", "game": "colormatch"})
    await c.expect("seated")
    d = await hello(host.port, "d")
    await d.send({"type": "create", "room": "d0", "game": "colormatch"})
    await d.expect("seated")
    e = await hello(host.port, "e")
    await e.send({"type": "create", "room": "e0", "game": "colormatch"})
    err = await e.expect("error")
    assert err["code"] == "too_many_rooms" and "address" in err["message"]
    for p in (a, held, c, d, e):
        await p.aclose()
    with trio.fail_after(5):
        while host.rooms:
            await trio.sleep(0.02)
    await still_serves(host)


# 13.1 a room made by one connection: its cap names the connection
async def test_one_connection_may_hold_few_open_rooms(nursery):
    host = await start_host(nursery, rooms_per_peer=2)
    a = await hello(host.port, "a")
    friends = [await hello(host.port, f"f{i}") for i in range(2)]
    for i, friend in enumerate(friends):
        await a.send({"type": "create", "room": f"r{i}", "game": "colormatch", "sit": False})
        await a.expect("watching")
        await friend.send({"type": "watch", "room": f"r{i}"})  # someone stays in it: it stays open
        await friend.expect("watching")
        await a.send({"type": "leave"})
        await a.expect("left")
    await a.send({"type": "create", "room": "r2", "game": "colormatch", "sit": False})
    msg = await a.expect("error")
    assert msg["code"] == "too_many_rooms" and "connection" in msg["message"]
    for p in (a, *friends):
        await p.aclose()
    await still_serves(host)


# 13.2 endless games: a target no evening plays, and the creator gone
async def test_a_match_target_beyond_the_tables_cap_is_refused_and_a_game_everybody_left_ends(nursery):
    host = await start_host(nursery)
    p = await hello(host.port, "p", agent="bot")
    for game, table, cap in (("colormatch", "classic", 1000), ("dominoes", None, 500)):
        await p.send({"type": "create", "room": "big", "game": game, "table": table,
                      "options": {"target": 9007199254740992}, "mode": "match"})
        err = await p.expect("error")
        assert err["code"] == "bad_room" and str(cap) in err["message"]
        await p.send({"type": "create", "room": "big", "game": game, "table": table, "options": {"target": cap + 1}})
        assert (await p.expect("error"))["code"] == "bad_room"
    await p.send({"type": "create", "room": "big", "game": "colormatch", "table": "standard", "mode": "match",
                  "options": {"target": 1000}, "seats": 4})
    await p.expect("seated")
    await p.send({"type": "start"})
    await p.expect("view")
    await p.aclose()  # dropped, not left: its game plays on and the room closes at its end
    await p2_leaves_running_game(host)
    await still_serves(host)


async def p2_leaves_running_game(host) -> None:
    q = await hello(host.port, "q", agent="bot")
    await q.send({"type": "create", "room": "left", "game": "colormatch", "table": "standard", "mode": "match",
                  "options": {"target": 1000}, "seats": 4})
    await q.expect("seated")
    await q.send({"type": "start"})
    await q.expect("view")
    await q.send({"type": "leave"})
    await q.expect("left")
    with trio.fail_after(3):
        while "left" in host.rooms:  # abandoned at once: nobody left in it
            await trio.sleep(0.01)
    await q.aclose()


# 13.3 a room whose bots are always due never reads its inbox
async def test_a_room_whose_bots_are_always_due_still_answers_its_messages(nursery):
    host = await start_host(nursery)
    owner = await hello(host.port, "owner", agent="bot")
    await owner.send({"type": "create", "room": "busy", "game": "colormatch", "table": "standard", "seats": 4,
                      "sit": False, "mode": "match", "options": {"target": 1000}})
    await owner.expect("watching")
    await owner.send({"type": "start"})
    await owner.expect("view")
    w = await hello(host.port, "w")
    await w.send({"type": "watch", "room": "busy"})
    await w.expect("watching", timeout=5)
    room = (await w.expect("room"))["room"]
    assert room["state"] == "playing"  # answered while its bots play, not after the match
    await w.send({"type": "resync"})
    assert (await w.expect("snapshot", timeout=5))["room"]["state"] == "playing"
    await w.aclose()
    await owner.aclose()
    await still_serves(host)


# 13.4 the lobby made unlistable: the rooms reply over the frame cap
async def test_list_is_paged_and_answers_for_any_number_of_rooms(nursery):
    host = await start_host(nursery, page=5)
    for i in range(12):
        host.create_room("𝔘" * 16 + f"{i:02}", game="colormatch", table="classic", seats=3, auto_start=True)
    p = await hello(host.port, "p")
    await p.send({"type": "list"})  # an old peer: no page, the first one
    first = await p.expect("rooms")
    assert (len(first["rooms"]), first["page"], first["pages"]) == (5, 0, 3)
    names = [r["name"] for r in first["rooms"]]
    for page in (1, 2, 3):
        await p.send({"type": "list", "page": page})
        got = await p.expect("rooms")
        assert got["page"] == page and got["pages"] == 3
        names += [r["name"] for r in got["rooms"]]
    assert sorted(names) == sorted(r for r in host.rooms)  # page 3 is empty
    await p.aclose()
    await still_serves(host)  # its room is the 13th: a bot node finds it on the last page


# 13.6 unlimited password guessing, on several connections
async def test_wrong_passwords_slow_down_per_address(nursery):
    host = await start_host(nursery)
    host.create_room("locked", game="colormatch", table="classic", seats=3, password="sesame")
    peers = [await hello(host.port, f"g{i}") for i in range(3)]
    codes = []
    for _ in range(4):
        for p in peers:
            await p.send({"type": "join", "room": "locked", "password": "guess"})
    for p in peers:
        for _ in range(4):
            codes.append(await p.expect("error"))
    assert {e["code"] for e in codes} == {"bad_password", "slow_down"}
    assert sum(e["code"] == "bad_password" for e in codes) <= 6  # 5 a second, whatever the connections
    slow = next(e for e in codes if e["code"] == "slow_down")
    assert 0 < slow["retry_after"] <= 1.0
    await peers[0].send({"type": "join", "room": "locked", "password": "sesame"})  # unchecked while over budget
    assert (await peers[0].expect("error"))["code"] == "slow_down"
    await trio.sleep(1.0)
    await peers[0].send({"type": "join", "room": "locked", "password": "sesame"})
    await peers[0].expect("seated")
    for p in peers:
        await p.aclose()
    await still_serves(host)


# 13.7 coins minted at will: new profiles without end, a guest bot in a coin room
async def test_new_profiles_are_bounded_per_address_and_coin_rooms_need_a_profile(nursery, store):
    host = await start_host(nursery, store=store, new_profiles=2)
    made = []
    for i in range(3):
        p = await RawPeer.open(host.port)
        welcome = await p.hello(f"mint{i}", profile={"name": f"Mint{i}", "key": key()})
        made.append(welcome["profile"])
        if i == 2:
            assert (await p.expect("error"))["code"] == "profile_limit"
        await p.aclose()
    assert made[2] is None and [p.name for p in store.profiles()] == ["Mint0", "Mint1"]
    host.create_room("coins", game="colormatch", table="classic", seats=3, stake=10)
    bot = await hello(host.port, "freeloader", agent="bot")
    await bot.send({"type": "join", "room": "coins"})
    assert (await bot.expect("error"))["code"] == "need_profile"
    await bot.aclose()
    await still_serves(host)


# 13.8 names not tied to profiles; look-alike profile names
async def test_names_are_tied_to_profiles_and_look_alikes_are_refused(nursery, store):
    host = await start_host(nursery, store=store)
    ann = await hello(host.port, "Ann", profile={"name": "Ann", "key": key()})
    for name in ("Аnn", "ａnn", "ANN", "Ann "):  # Cyrillic А, fullwidth ａ, case, a space
        guest = await hello(host.port, name)
        err = await guest.expect("error")
        assert (err["code"], err["fatal"]) == ("name_taken", False) and "Ann" in err["message"]
        # the welcome names it as the host does, so its console knows itself among the watchers
        sits_as = f"{unicodedata.normalize('NFKC', name).strip()} (guest)"
        assert next(m for m in guest.got if m["type"] == "welcome")["name"] == sits_as
        # the guest stays, under a name nobody can take for the profile's
        await guest.send({"type": "create", "room": f"g{len(name)}{ord(name[0])}", "game": "colormatch", "seats": 2})
        await guest.expect("seated")
        room = (await guest.expect("room"))["room"]
        assert room["seats"][0]["name"] == f"{unicodedata.normalize('NFKC', name).strip()} (guest)"
        await guest.aclose()
        fake = await RawPeer.open(host.port)
        welcome = await fake.hello("x", profile={"name": name.replace(" ", "").replace("A", "Α"), "key": key()})
        assert welcome["profile"] is None
        err = await fake.expect("error")
        assert err["code"] in ("bad_profile", "wrong_key")
        if err["code"] == "bad_profile":
            assert "looks like the profile 'Ann'" in err["message"]
        await fake.aclose()
    anna = await hello(host.port, "Anna")  # another name altogether
    mallory = await hello(host.port, "Ann", profile={"name": "Mallory2", "key": key()})
    await mallory.send({"type": "create", "room": "m", "game": "colormatch", "table": "classic", "seats": 3})
    await mallory.expect("seated")
    room = (await mallory.expect("room"))["room"]
    assert room["seats"][0]["name"] == "Mallory2"  # the profile's name, whatever hello said
    assert sorted(p.name for p in store.profiles()) == ["Ann", "Mallory2"]
    for p in (ann, anna, mallory):
        await p.aclose()
    await still_serves(host)


# 13.10 daily deals are the peer's choice
async def test_a_daily_deal_is_the_hosts_date_one_person_and_no_coins(nursery, store):
    host = await start_host(nursery, store=store)
    p = await hello(host.port, "Ann", profile={"name": "Ann", "key": key()})
    await p.send({"type": "create", "room": "d", "game": "colormatch", "table": "cards", "seats": 3,
                  "mode": "daily", "options": {"date": "2031-01-01"}})
    assert (await p.expect("error"))["code"] == "bad_room"
    await p.send({"type": "create", "room": "d", "game": "colormatch", "table": "cards", "seats": 3,
                  "mode": "daily", "stake": 10})
    assert (await p.expect("error"))["code"] == "bad_room"
    await p.send({"type": "create", "room": "d", "game": "colormatch", "table": "cards", "seats": 3, "mode": "daily"})
    await p.expect("seated")
    q = await hello(host.port, "Bob")
    await q.send({"type": "join", "room": "d"})
    err = await q.expect("error")
    assert err["code"] == "room_full" and "one person" in err["message"]
    for x in (p, q):
        await x.aclose()
    await still_serves(host)


class Racer(RawPeer):
    """An honest peer answering every view at once: a call or catch when it
    may, else its first legal action."""

    async def race(self, games: int, directs: bool) -> int:
        seen = 0
        with trio.fail_after(60):
            while seen < games:
                msg = await self.recv(30)
                assert msg is not None, self.got[-3:]
                assert msg["type"] != "error", msg
                if msg["type"] == "view":
                    if msg["view"].get("outcome") is not None:
                        seen += 1
                        if seen < games and directs:
                            await self.send({"type": "rematch"})
                        continue
                    legal = msg["legal"]
                    pick = [a for a in legal if a["type"] in ("call", "catch")] or legal
                    if pick:
                        await self.send({"type": "act", "state_id": msg["state_id"], "action": pick[0]})
        return seen


# 13.11 honest peers are cut off: stale rejections of races the host opened count
async def test_two_honest_peers_racing_every_window_are_never_cut_off(nursery):
    host = await start_host(nursery, rate=3.0, burst=10.0)  # scaled down: the races come faster than 3 a second
    host.create_room("race", game="colormatch", table="standard", seats=4, bot_level="easy", first_directs=True)
    a, b = [Racer((await RawPeer.open(host.port)).stream) for _ in range(2)]
    for name, p in (("a", a), ("b", b)):
        await p.hello(name)
        await p.send({"type": "join", "room": "race"})
        await p.expect("seated")
    await a.send({"type": "start"})
    async with trio.open_nursery() as n:
        n.start_soon(a.race, 4, True)
        n.start_soon(b.race, 4, False)
    stale = [m for p in (a, b) for m in p.got if m["type"] == "rejected" and m["code"] == "stale"]
    assert stale  # they did race
    for p in (a, b):
        await p.aclose()
    await still_serves(host)


# 13.12 a stranger stalls a game: a seat whose peer is gone waits its full clock
def test_a_seat_whose_peer_is_gone_at_the_deal_is_played_at_once():
    """A peer that drops and never comes back stalls no game: its seat waits
    for it between games (`seat_hold`), and the next deal frees it and a room
    bot plays it, never its 600 s clock."""
    d = Driver()
    session, ann, bob = seated_pair(d, clock=600)
    d.send(ann, {"type": "start"})
    d.run(d.lobby.gone(bob))  # dropped during game 1: its seat is kept for its token
    d.play_out(session)
    assert session.room.state == "over" and session.room.seats[1] is not None and 1 in session.held
    d.send(ann, {"type": "rematch"})
    ref = session.room.referee
    assert session.room.state == "playing" and session.room.seats[1] is None and ref.seats[1].room_bot
    back = d.connect("Bob again", token=d.got(bob, "seated")[0]["token"])
    assert d.last(back, "error")["code"] == "bad_token"  # freed by the deal: its token is void

