"""The host with its store, over real sockets on 127.0.0.1: profiles, coin
rooms, leaving fees, practice rooms, and a table resumed by a new host.

Every store is a real sqlite file in `tmp_path` (`durable=False`: commits
without fsync; the crash test, `test_host_crash.py`, runs the real thing).
Every loop is bounded in count and time.
"""

from __future__ import annotations

import json
import random
import secrets
import time

import pytest
import trio
import trio.testing
from _net import LOOPBACK, RawPeer, start_host

from lanmatch.net.client import BotNode, Client
from lanmatch.net.host import Host
from lanmatch.protocol import view_to_wire
from lanmatch.store import NEW_PROFILE_COINS, Store, rebuild_game


def profile(name: str) -> dict[str, str]:
    return {"name": name, "key": secrets.token_hex(16)}


@pytest.fixture
def store(tmp_path):
    s = Store.open_dir(tmp_path / "data", lock=True, durable=False)
    yield s
    s.close()


class Player(BotNode):
    """A bot node that brings a profile and keeps every message."""

    def __init__(self, level: str, **kw):
        super().__init__(level, stay=True, retry_for=10.0, **kw)
        self.got: list[dict] = []

    def on_message(self, msg):
        self.got.append(msg)
        super().on_message(msg)

    def coins(self) -> list[dict]:
        return [m for m in self.got if m["type"] == "coins"]

    def outcome(self) -> dict | None:
        views = [m for m in self.got if m["type"] == "view"]
        return views[-1]["view"]["outcome"] if views else None


async def until(cond, timeout: float = 30.0, step: float = 0.02) -> None:
    with trio.fail_after(timeout):
        while not cond():
            await trio.sleep(step)


async def until_real(cond, seconds: float, step: float = 0.02) -> None:
    """`until` on trio's autojump clock, bounded in real seconds: while a Hard
    stand-in thinks on a worker thread the run loop is idle, so every poll
    jumps the virtual clock by `step` and a virtual deadline is spent at the
    speed of the loop, not of the game (CI once spent 3600 virtual seconds
    that way before a game of a few hundred ended)."""
    limit = time.monotonic() + seconds
    while not cond():
        if time.monotonic() > limit:
            raise AssertionError(f"not within {seconds} real seconds")
        await trio.sleep(step)


def conserved(store: Store) -> None:
    """No coin made or lost: players + house + live pots = every coin issued."""
    assert store.check() == []
    pots = sum(store.pot(r.id) for r in store.unfinished())
    held = sum(store.balance(p.id) for p in store.profiles()) + store.house_balance() + pots
    assert held == store.coins_issued() == NEW_PROFILE_COINS * len(store.profiles())


def same(a: dict, b: dict) -> bool:
    """Equal as they cross the wire (tuples as lists, `far` keys as strings)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


# ------------------------------------------------------------------ coin rooms


async def test_a_coin_room_posts_every_stake_and_pays_the_pot_to_the_winner(nursery, store):
    """Two peers with profiles and a room bot at a stake of 50: each posts 50
    (the house posts the bot's), the winner takes the pot of 150, each player
    is told the balance after the stake and after the payout."""
    host = await start_host(nursery, store=store)
    host.create_room("Coins", game="colormatch", table="classic", seats=3, stake=50, auto_start=True,
                     start_after=0.3, bot_level="easy")
    ann, bob = Player("medium", room="Coins", profile=profile("Ann"), name="Ann"), Player(
        "easy", room="Coins", profile=profile("Bob"), name="Bob")
    async with trio.open_nursery() as n:
        for node in (ann, bob):
            n.start_soon(node.run, (LOOPBACK, host.port))
        await until(lambda: all(len(p.coins()) >= 2 for p in (ann, bob)))
        n.cancel_scope.cancel()
    assert ann.account == {"name": "Ann", "balance": 1000}
    (record,) = [store.match(m.id) for m in store.history()]
    assert (record.kind, record.stake, record.status) == ("coins", 50, "finished")
    assert sorted(s.kind for s in record.seats) == ["bot", "player", "player"]
    winners = record.outcome["winners"]
    assert len(winners) == 1
    for p in (ann, bob):
        seat = p.seat
        stake_msg, paid_msg = p.coins()[:2]
        assert stake_msg == {**stake_msg, "reason": "stake", "change": -50, "balance": 950, "match": record.id}
        won = seat in winners
        assert paid_msg["reason"] == ("win" if won else "loss")
        assert paid_msg["change"] == (150 if won else 0)
        assert paid_msg["balance"] == (1100 if won else 950) == p.balance
        assert store.balance(store.find_profile(p.name).id) == paid_msg["balance"]
    bot_seat = next(s.seat for s in record.seats if s.kind == "bot")
    assert store.house_balance() == (100 if bot_seat in winners else -50)
    rooms = host.rooms["Coins"].room.summary()
    assert (rooms["kind"], rooms["stake"]) == ("coins", 50)
    conserved(store)


async def test_coin_rooms_refuse_guests_short_balances_and_wrong_keys(nursery, store):
    host = await start_host(nursery, store=store)
    host.create_room("High", game="colormatch", seats=3, stake=2000)
    guest = await RawPeer.open(host.port)
    welcome = await guest.hello("Guest")
    assert welcome["coins"] is True and welcome["profile"] is None
    await guest.send({"type": "list"})
    (summary,) = (await guest.expect("rooms"))["rooms"]
    assert (summary["kind"], summary["stake"]) == ("coins", 2000)
    await guest.send({"type": "join", "room": "High"})
    err = await guest.expect("error")
    assert err["code"] == "need_profile" and "profile" in err["message"]
    await guest.send({"type": "create", "room": "Mine", "game": "colormatch", "stake": 10})
    assert (await guest.expect("error"))["code"] == "need_profile"
    await guest.send({"type": "create", "room": "Big", "game": "colormatch", "seats": 5})
    assert (await guest.expect("error"))["code"] == "bad_room"  # a guest's room seats up to 4

    ann_profile = profile("Ann")
    ann = await RawPeer.open(host.port)
    assert (await ann.hello("Ann", profile=ann_profile))["profile"] == {"name": "Ann", "balance": 1000}
    await ann.send({"type": "join", "room": "High"})
    err = await ann.expect("error")
    assert err["code"] == "insufficient_coins" and "1000" in err["message"] and "2000" in err["message"]
    await ann.send({"type": "create", "room": "Big", "game": "colormatch", "seats": 5, "stake": 10})
    assert (await ann.expect("seated"))["seat"] == 0  # with a profile: up to 6 seats
    room = (await ann.expect("room"))["room"]
    assert (room["kind"], room["stake"], room["pot"]) == ("coins", 10, 0)

    thief = await RawPeer.open(host.port)
    welcome = await thief.hello("Ann", profile={"name": "ann", "key": "f" * 32})
    assert welcome["profile"] is None
    err = await thief.expect("error")
    assert (err["code"], err["fatal"], err["ref"]) == ("wrong_key", False, "hello")
    again = await RawPeer.open(host.port)  # the same profile from another machine: its seat back, one seat
    await again.hello("Ann again", profile=ann_profile)
    await again.send({"type": "join", "room": "Big"})
    assert (await again.expect("seated"))["seat"] == 0
    assert (await again.expect("room"))["room"]["seats"][0]["name"] == "Ann"
    replaced = await ann.expect("error")
    assert (replaced["code"], replaced["fatal"]) == ("replaced", True) and await ann.closed()
    for p in (guest, ann, thief, again):
        await p.aclose()
    assert [p.name for p in store.profiles()] == ["Ann"]
    conserved(store)


async def test_a_host_without_a_store_has_practice_rooms_only(nursery):
    host = await start_host(nursery)
    p = await RawPeer.open(host.port)
    welcome = await p.hello("Ann", profile=profile("Ann"))
    assert welcome["coins"] is False and welcome["profile"] is None
    await p.send({"type": "create", "room": "c", "game": "colormatch", "stake": 10})
    err = await p.expect("error")
    assert err["code"] == "bad_room" and "practice" in err["message"]
    await p.aclose()


async def test_leaving_a_running_coin_game_forfeits_the_stake_and_pays_the_fee(nursery, store):
    """Ann leaves mid-game: 10 % of the stake on top of it; the bot that takes
    her seat plays for the house; nobody is kicked out of a coin game."""
    host = await start_host(nursery, store=store)
    ann = await RawPeer.open(host.port)
    await ann.hello("Ann", profile=profile("Ann"))
    await ann.send({"type": "create", "room": "k", "game": "colormatch", "table": "toll", "seats": 3,
                    "stake": 50, "bots": "easy"})
    await ann.expect("seated")
    bob = Player("easy", room="k", profile=profile("Bob"), name="Bob")
    async with trio.open_nursery() as n:
        n.start_soon(bob.run, (LOOPBACK, host.port))
        await until(lambda: bob.seat is not None)
        await ann.send({"type": "start"})
        assert (await ann.expect("coins"))["reason"] == "stake"
        await ann.send({"type": "kick", "seat": bob.seat})
        assert (await ann.expect("error", ref="kick"))["code"] == "wrong_state"
        await ann.send({"type": "leave"})
        fee = await ann.expect("coins")
        assert (fee["reason"], fee["change"], fee["balance"]) == ("fee", -5, 945)
        await ann.expect("left")
        await until(lambda: any(m["reason"] in ("win", "loss") for m in bob.coins()))
        n.cancel_scope.cancel()
    (m,) = store.history()
    record = store.match(m.id)
    assert record.status == "finished" and record.seats[0].left
    ann_id = store.find_profile("Ann").id
    assert store.balance(ann_id) == 945  # whatever her seat's bot did: it played for the house
    rows = store.ledger(match_id=m.id)
    assert [(r.reason, r.src, r.amount) for r in rows if r.key == f"fee:{m.id}:0"] == [("fee", ann_id, 5)]
    assert not [r for r in rows if r.dst == ann_id]  # her seat's winnings, if any, went to the house
    assert store.stats("Ann").total.left == 1
    conserved(store)


async def test_the_same_profile_from_another_machine_takes_its_running_seat_back(nursery, store):
    """Ann's console dies mid-game and her token is lost with it (another
    machine, a wiped config): her profile joining the room again gets her
    seat, her hand and no second stake; a connection still holding it is told
    `replaced`. A different profile still gets a seat of its own or nothing."""
    host = await start_host(nursery, store=store)
    ann_profile = profile("Ann")
    ann = await RawPeer.open(host.port)
    await ann.hello("Ann", profile=ann_profile)
    await ann.send({"type": "create", "room": "k", "game": "colormatch", "table": "classic", "seats": 2,
                    "stake": 50, "bots": "easy", "clock": 60})
    await ann.expect("seated", seat=0)
    await ann.send({"type": "start"})
    assert (await ann.expect("coins"))["reason"] == "stake"
    hand = (await ann.expect("view"))["view"]["hand"]
    other = await RawPeer.open(host.port)  # a second console of hers, while the first still holds the seat
    await other.hello("Ann's laptop", profile=ann_profile)
    await other.send({"type": "join", "room": "k"})
    assert (await other.expect("seated"))["seat"] == 0
    assert (await other.expect("view"))["view"]["hand"] == hand
    assert (await ann.expect("error"))["code"] == "replaced" and await ann.closed()
    await other.aclose()  # that one dies too: the seat waits for her
    third = await RawPeer.open(host.port)
    await third.hello("Ann", profile=ann_profile)
    await third.send({"type": "join", "room": "k"})
    assert (await third.expect("seated"))["seat"] == 0
    assert (await third.expect("view"))["view"]["hand"] == hand
    bob = await RawPeer.open(host.port)
    await bob.hello("Bob", profile=profile("Bob"))
    await bob.send({"type": "join", "room": "k"})
    assert (await bob.expect("error"))["code"] == "started"  # a seat of its own, not hers
    assert store.balance(store.find_profile("Ann").id) == 950  # one stake, not two
    for p in (third, bob):
        await p.aclose()
    conserved(store)


async def test_practice_rooms_store_their_matches_but_move_no_coins(nursery, store):
    host = await start_host(nursery, store=store)
    host.create_room("p", game="dominoes", seats=3, auto_start=True, start_after=0.3, bot_level="easy")
    ann, bob = (Player("medium", room="p", profile=profile(n), name=n) for n in ("Ann", "Bob"))
    async with trio.open_nursery() as n:
        for node in (ann, bob):
            n.start_soon(node.run, (LOOPBACK, host.port))
        await until(lambda: ann.outcome() is not None and bob.outcome() is not None, timeout=45)
        await until(lambda: store.history() and store.history()[0].status == "finished")
        n.cancel_scope.cancel()
    (m,) = store.history()
    assert (m.kind, m.status, m.stake) == ("practice", "finished", 0)
    assert not ann.coins() and not bob.coins()
    assert {r.reason for r in store.ledger()} == {"grant"}
    for name in ("Ann", "Bob"):
        assert store.balance(store.find_profile(name).id) == 1000
        assert store.stats(name).total.played == 1
    record = store.match(m.id)
    assert json.dumps(rebuild_game(record).outcome, sort_keys=True) == json.dumps(record.outcome, sort_keys=True)
    conserved(store)


# ------------------------------------------------------------------ resume


async def act_when_asked(peer: RawPeer, view: dict) -> None:
    if view["legal"] and view["view"]["outcome"] is None:
        await peer.send({"type": "act", "state_id": view["state_id"], "action": view["legal"][0]})


async def test_a_new_host_on_the_same_store_resumes_the_table_where_it_stood(store):
    """Host 1 plays part of a coin game and is stopped (its tasks cancelled);
    host 2 on the same store has the room again: the reconnecting peer gets
    its seat by token with the same hand, state and turn, a full clock, and
    the game plays to its end; the ledger is clean."""
    ann_profile = profile("Ann")
    async with trio.open_nursery() as n1:
        host1 = await start_host(n1, store=store)
        ann = await RawPeer.open(host1.port)
        await ann.hello("Ann", profile=ann_profile)
        await ann.send({"type": "create", "room": "r", "game": "colormatch", "table": "classic", "seats": 3,
                        "stake": 20, "bots": "easy", "clock": 60})
        token = (await ann.expect("seated"))["token"]
        await ann.send({"type": "start"})
        mine = 0
        with trio.fail_after(20):
            while True:
                view = await ann.expect("view")
                if view["legal"] and view["view"]["turn"] == 0:
                    if mine == 2:
                        break  # Ann's turn, after two moves of hers: the table waits for her
                    mine += 1
                    await act_when_asked(ann, view)
        n1.cancel_scope.cancel()
    await ann.aclose()
    (record,) = store.unfinished()
    assert len(record.actions) == view["state_id"] > 2
    assert store.pot(record.id) == 60

    async with trio.open_nursery() as n2:
        host2 = await start_host(n2, store=store)
        actor = host2.rooms["r"]
        assert actor.room.state == "playing" and actor.room.referee.state_id == view["state_id"]
        assert actor.room.public()["seats"][0] == {"seat": 0, "name": "Ann", "kind": "person", "connected": False}
        back = await RawPeer.open(host2.port)
        await back.hello("Ann", token=token, profile=ann_profile)
        assert (await back.expect("seated"))["seat"] == 0
        again = await back.expect("view")
        assert again["state_id"] == view["state_id"]
        assert again["view"]["hand"] == view["view"]["hand"]
        assert again["view"]["turn"] == view["view"]["turn"] == 0
        assert same(again["view"], view_to_wire(rebuild_game(record).view(0)))
        timer = next(t for t in again["timers"] if t["seat"] == 0)
        assert timer["kind"] == "move" and timer["left"] > 55  # the clock restarted in full
        with trio.fail_after(30):
            latest = again
            while latest["view"]["outcome"] is None:
                await act_when_asked(back, latest)
                latest = await back.expect("view")
            paid = await back.expect("coins")
        assert paid["reason"] in ("win", "loss") and paid["match"] == record.id
        n2.cancel_scope.cancel()
    done = store.match(record.id)
    assert done.status == "finished" and len(done.actions) == latest["state_id"]
    assert json.dumps(rebuild_game(done).outcome, sort_keys=True) == json.dumps(done.outcome, sort_keys=True)
    assert store.unfinished() == []
    conserved(store)


async def test_a_coin_table_whose_store_fails_is_closed_and_loses_no_coin(tmp_path):
    """The sqlite file goes away under a running coin game (its connection is
    closed): the room is closed with a sentence; the match stays live with its
    pot, and the next host on that store resumes it."""
    data = tmp_path / "data"
    store = Store.open_dir(data, durable=False)
    async with trio.open_nursery() as n:
        host = await start_host(n, store=store)
        ann = await RawPeer.open(host.port)
        await ann.hello("Ann", profile=profile("Ann"))
        await ann.send({"type": "create", "room": "r", "game": "colormatch", "seats": 2, "stake": 30,
                        "bots": "easy", "clock": 60})
        await ann.expect("seated")
        await ann.send({"type": "start"})
        view = await ann.expect("view")
        store.conn.close()  # every store call fails from now on
        await act_when_asked(ann, view)
        with trio.fail_after(10):
            while True:
                msg = await ann.recv()
                assert msg is not None, "the host closed the connection"
                if msg["type"] == "left":
                    break
                if msg["type"] == "view":
                    await act_when_asked(ann, msg)
        assert "store failed" in msg["reason"]
        assert "r" not in host.rooms
        n.cancel_scope.cancel()
    store.close()
    with Store.open_dir(data, durable=False) as again:
        (record,) = again.unfinished()
        assert again.pot(record.id) == 60
        conserved(again)
        async with trio.open_nursery() as n:
            host = await start_host(n, store=again)
            ref = host.rooms["r"].room.referee
            # the stored actions replayed; the resumed room's bot may already have moved since (its log)
            assert ref.state_id == len(record.actions) + len(ref.log)
            assert all(by != "seat" for *_, by in ref.log)
            n.cancel_scope.cancel()


async def test_a_resumed_table_nobody_comes_back_to_is_played_out_by_the_clock_and_closes(store, autojump_clock):
    """On trio's virtual clock: a guest's practice game is resumed by a new
    host; nobody reconnects, so the clock plays the guest's seat (Hard on
    timeout, then autopilot) to the end; the match is settled and the room,
    whose seat was never reclaimed, closes."""
    async with trio.open_nursery() as n1:
        host1 = Host("one", rng=random.Random(5), strict=True, store=store)
        await n1.start(host1.run)
        host1.create_room("z", game="colormatch", table="classic", seats=2, bot_level="easy", clock=15)
        ann = Client("Ann")
        a, b = trio.testing.memory_stream_pair()
        n1.start_soon(host1.serve_stream, b)
        n1.start_soon(ann.run_stream, a)
        await until(lambda: ann.welcomed, timeout=60)
        ann.send("join", room="z")
        await until(lambda: ann.seat is not None, timeout=60)
        ann.send("start")
        await until(lambda: ann.view_msg is not None, timeout=60)
        n1.cancel_scope.cancel()
    (record,) = store.unfinished()
    async with trio.open_nursery() as n2:
        host2 = Host("two", rng=random.Random(6), strict=True, store=store)
        await n2.start(host2.run)
        assert host2.rooms["z"].awaited == {s.seat for s in record.seats if s.kind == "guest"} == {0}
        await until_real(lambda: "z" not in host2.rooms, seconds=300)
        n2.cancel_scope.cancel()
    done = store.match(record.id)
    assert done.status == "finished" and done.outcome is not None
    assert {a.by for a in done.actions if done.seats[a.seat].kind == "guest"} >= {"move", "autopilot"}


# ------------------------------------------------------------------ the command line


def test_lanmatch_host_refuses_a_busy_or_newer_store_in_one_line(tmp_path, capsys):
    from lanmatch.cli import build_parser
    from lanmatch.net.nodes import host_main

    data = tmp_path / "data"
    args = build_parser().parse_args(["host", "--data", str(data), "--bind", LOOPBACK, "--no-mdns"])
    with Store.open_dir(data, lock=True):  # another host holds it
        assert trio.run(host_main, args) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Another lanmatch host is using" in err
    with Store.open_dir(data) as s:
        s.conn.execute("PRAGMA user_version = 99")  # written by a newer lanmatch
    assert trio.run(host_main, args) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "newer than this lanmatch understands" in err


@pytest.mark.parametrize("argv", [
    ["--stake", "10"],  # a stake shapes a --room
    ["--room", "R", "--stake", "10", "--no-store"],
    ["--room", "R", "--stake", "-5"],
    ["--data", "d", "--no-store"],
])
def test_lanmatch_host_flags_for_the_store_are_checked(argv, capsys):
    from lanmatch.cli import main

    with pytest.raises(SystemExit) as e:
        main(["host", *argv])
    assert e.value.code == 2
    assert capsys.readouterr().err.count("\n") == 1


async def test_a_bot_node_started_again_with_its_profile_takes_its_seat_back(nursery, store):
    """A play-test killed a bot node mid-game and started it again: it
    waited for a free seat, silently, while its own seat was held for it.
    With its profile it asks for the room once and the host gives the seat
    back; the game goes on with it."""
    host = await start_host(nursery, store=store)
    host.create_room("Barn", game="colormatch", table="classic", seats=2, auto_start=True, start_after=0.2,
                     bot_level="easy", clock=600)
    ann = await RawPeer.open(host.port)
    await ann.hello("Ann")
    await ann.send({"type": "join", "room": "Barn"})
    await ann.expect("seated")  # Ann never moves: the game waits on her turns
    me = profile("Robo")
    first = BotNode("easy", room="Barn", stay=True, name="Robo", profile=me, seed=1)
    async with trio.open_nursery() as node:
        node.start_soon(first.run, (LOOPBACK, host.port))
        await until(lambda: first.seat is not None and host.rooms["Barn"].room.state == "playing")
        seat = first.seat
        node.cancel_scope.cancel()  # the node is gone (its process killed)
    session = host.rooms["Barn"]
    await until(lambda: seat not in session.seated)
    again = BotNode("easy", room="Barn", stay=True, name="Robo", profile=me, seed=2)
    nursery.start_soon(lambda: again.run((LOOPBACK, host.port)))
    await until(lambda: again.seat == seat and session.seated.get(seat) is not None)
    assert session.room.seats[seat].connected and host.rooms["Barn"].room.state == "playing"
    again.close()
    await ann.aclose()
