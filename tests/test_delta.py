"""View deltas (docs/protocol.md, "Deltas").

The property: at every table of every game and several seat counts, a seat
(and a spectator) whose `Client` asked for deltas and applies every one it
receives holds exactly the full view it would have been sent, across
rematches, resyncs, reconnects, leaving and dropped frames; every frame goes
through msgpack and the client's own `_receive` (catalogue checks, sequence
gaps, the resync it asks for), the host's side is `DeltaSender` and the
host's snapshot numbering. No delta carries what the seat's full view does
not (the full views are what the hidden-information tests check). Then over
real sockets: bot nodes that take deltas play whole games beside one that
does not, and the host sent deltas only to those that asked.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path
from typing import Any

import pytest
import trio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lanmatch.net.client import BotNode, Client
from lanmatch.net.host import _numbered
from lanmatch.protocol import (
    Decoder,
    DeltaSender,
    apply_delta,
    encode_frame,
    make_delta,
    view_from_wire,
    view_to_wire,
)
from lanmatch.rules import GAMES, new_game
from tests._net import LOOPBACK, start_host

CASES = [
    (game.name, table, players)
    for game in GAMES.values()
    for table in game.tables
    for players in sorted({game.min_players, 3, game.max_players})
    if game.seats_ok(players)
]


def wire(msg: dict[str, Any]) -> dict[str, Any]:
    """`msg` as the other side decodes it (msgpack: tuples become lists)."""
    dec = Decoder()
    dec.feed(encode_frame(msg))
    return dec.next_message()


class Seat(Client):
    """A client fed by hand: what it would `send` is recorded."""

    def __init__(self) -> None:
        super().__init__("p", deltas=True)
        self.asked: list[str] = []
        self.seen: list[dict[str, Any]] = []

    def send(self, typ: str, **fields: Any) -> bool:
        self.asked.append(typ)
        return True

    def on_message(self, msg: dict[str, Any]) -> None:
        self.seen.append(msg)


class Line:
    """One peer's connection: the host's `DeltaSender` and numbering, the
    wire, and the client at the other end."""

    def __init__(self) -> None:
        self.sender = DeltaSender()
        self.client = Seat()
        self.seq = 0
        self.deltas = 0

    def send(self, msg: dict[str, Any], drop: bool = False) -> dict[str, Any]:
        self.seq += 1
        out = wire({"seq": self.seq, **msg})
        if out["type"] == "delta":
            self.deltas += 1
        if not drop:
            self.client._receive(out)
        return out

    def answer_resyncs(self, full: dict[str, Any] | None) -> None:
        while self.client.asked:
            typ = self.client.asked.pop(0)
            assert typ == "resync"
            snap = {"type": "snapshot", "room": {"name": "r"}, "seat": None, "view": None}
            if full is not None:
                snap["view"] = {k: v for k, v in full.items() if k != "type"}
            self.send(_numbered(self.sender, snap))


def view_message(g: Any, seat: int | None, rng: random.Random) -> dict[str, Any]:
    if seat is None:
        view, legal = g.watch_view(), []
    else:
        view, legal = g.view(seat), g.legal_actions(seat)
    timers = [{"seat": s, "kind": "move", "left": 30.0} for s in g.to_act[:1]]
    if rng.random() < 0.3:
        timers = [{"seat": g.to_act[0] if g.to_act else 0, "kind": rng.choice(["move", "keep"]),
                   "left": round(rng.uniform(0, 30), 1)}]
    return {"type": "view", "room": "r", "state_id": view["step"], "view": view_to_wire(view), "legal": legal,
            "timers": timers, "autopilot": sorted(rng.sample(range(view.get("players", 2)), rng.randint(0, 1)))}


def same_view(client: Client, full: dict[str, Any]) -> None:
    got = {k: v for k, v in client.view_msg.items() if k not in ("seq", "vn")}
    want = wire(full)
    want["view"] = view_from_wire(want["view"])
    assert got == want


def carries_nothing_more(delta: dict[str, Any], full: dict[str, Any]) -> None:
    """Every value a delta carries is the seat's own full view's."""
    fv = wire(full)
    for k, v in delta.get("set", {}).items():
        assert fv["view"][k] == v, k
    for e in delta.get("events", []):
        assert e in fv["view"]["events"]
    for k in ("legal", "timers", "autopilot"):
        if k in delta:
            assert delta[k] == fv[k]
    assert set(delta.get("unset", [])).isdisjoint(fv["view"])


def play(g: Any, rng: random.Random) -> None:
    seat = rng.choice(g.to_act)
    legal = g.legal_actions(seat)
    if not legal:  # a seat in to_act only to answer a window the host closes
        seat = g.view(0)["turn"]
        legal = g.legal_actions(seat)
    g.act(seat, rng.choice(legal))


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
@pytest.mark.parametrize(("game", "table", "players"), CASES)
def test_a_seat_applying_every_delta_holds_the_full_view(game, table, players, data):
    seed = data.draw(st.integers(0, 2**16), label="seed")
    p_drop = data.draw(st.sampled_from([0.0, 0.05, 0.3]), label="p_drop")
    same_game = data.draw(st.booleans(), label="same_game")  # the events compared by number within a game
    rng = random.Random(seed)
    g = new_game(game, table=table, players=players, seed=seed)
    seats: list[int | None] = [*range(players), None]
    lines = {s: Line() for s in seats}
    for step in range(160):
        event = rng.random()
        if event < 0.02:  # a reconnect: a new connection, its views numbered afresh
            s = rng.choice(seats)
            old = lines[s].client
            lines[s] = Line()
            lines[s].client.view_msg = old.view_msg  # what a Client keeps across connections
        elif event < 0.04:  # left the room (and back): the next view comes in full
            s = rng.choice(seats)
            lines[s].send(_numbered(lines[s].sender, {"type": "left", "room": "r", "reason": "test"}))
            assert lines[s].client.view_msg is None
        elif event < 0.06:  # a resync asked for no reason: the snapshot renumbers
            lines[rng.choice(seats)].client.asked.append("resync")
        for s in seats:
            line = lines[s]
            full = view_message(g, s, rng)
            before = line.sender.last
            out = line.sender.next(full, g if same_game else None)  # (the host names its referee)
            if out["type"] == "delta":
                carries_nothing_more(wire(out), full)
                assert wire(apply_delta(before, out)) == wire(line.sender.last)
            dropped = rng.random() < p_drop  # a lost frame: found at the next one (its seq, its vn)
            line.send(out, drop=dropped)
            line.answer_resyncs(full)
            if not dropped and not line.client._held.broken:
                same_view(line.client, full)
        if g.outcome is not None or step % 70 == 69:  # the rematch: a new deal, the same room and seats
            g = new_game(game, table=table, players=players, seed=rng.randrange(2**16))
        else:
            play(g, rng)
    for s in seats:  # at the end every seat holds the full view, after one last resync if it needed one
        line = lines[s]
        full = view_message(g, s, rng)
        line.send(line.sender.next(full))
        line.answer_resyncs(full)
        same_view(line.client, full)
        assert line.client.view_msg["type"] == "view"
        assert all(m["type"] != "delta" for m in line.client.seen)  # on_message sees full views only
    if p_drop == 0.0:
        assert sum(line.deltas for line in lines.values()) > 0


def test_make_delta_is_small_and_exact_after_one_action():
    g = new_game("colormatch", table="classic", players=4, seed=3)
    rng = random.Random(1)
    before = view_message(g, 0, rng)
    play(g, rng)
    after = view_message(g, 0, rng)
    d = make_delta(before, after)
    assert "hand" not in d.get("set", {}) or before["view"]["hand"] != after["view"]["hand"]
    assert len(encode_frame({**d, "vn": 2})) * 2 < len(encode_frame(after))
    assert wire(apply_delta({**before, "vn": 1}, {**d, "vn": 2})) == wire({**after, "vn": 2})


def test_a_delta_that_does_not_follow_is_not_applied_and_asks_resync():
    c = Seat()
    g = new_game("colormatch", table="classic", players=2, seed=1)
    rng = random.Random(2)
    sender = DeltaSender()
    first = view_message(g, 0, rng)
    c._receive(wire({"seq": 1, **sender.next(first)}))
    play(g, rng)
    sender.next(view_message(g, 0, rng))  # lost on the way (its seq too)
    play(g, rng)
    c._receive(wire({"seq": 3, **sender.next(view_message(g, 0, rng))}))
    assert c.asked.count("resync") == 2  # the sequence gap and the delta gap (the host answers both alike)
    assert c.view_msg["state_id"] == first["state_id"]  # the old view held, not a wrong one
    assert c.delta_gaps == 1


async def test_bot_nodes_with_and_without_deltas_play_whole_games(nursery):
    host = await start_host(nursery)
    sent: dict[str, list[str]] = {}
    host.on_wire = lambda peer, msg: sent.setdefault(peer.name or "?", []).append(msg["type"])
    actors = [host.create_room(f"r{k}", game=game, table=table, seats=3, auto_start=True, bot_level="easy")
              for k, (game, table) in enumerate([("colormatch", "classic"), ("colormatch", "daynight"),
                                                  ("dominoes", None)])]
    nodes = []
    async with trio.open_nursery() as n:
        for k in range(len(actors)):
            for j, deltas in enumerate([True, True, False]):
                node = BotNode("easy", room=f"r{k}", name=f"n{k}{j}{'d' if deltas else 'f'}", seed=k * 3 + j,
                               deltas=deltas, retry_for=30)
                nodes.append(node)
                n.start_soon(node.run, (LOOPBACK, host.port))
    for node in nodes:
        assert node.done and node.matches == 1, node.name
        assert node.view_msg is not None and node.view_msg["view"]["outcome"] is not None
        kinds = set(sent[node.name])
        if node.deltas:
            assert "delta" in kinds and node.delta_gaps == 0
        else:
            assert "delta" not in kinds and "view" in kinds
    for actor in actors:
        assert actor.room.referee.over


JS_NODE = shutil.which("node")
BOTNODE = Path(__file__).resolve().parent / "js" / "botnode.mjs"


@pytest.mark.skipif(JS_NODE is None, reason="node is not installed")
@pytest.mark.parametrize("flags", [[], ["--drop-every", "3"], ["--full-views"]])
async def test_the_js_bot_node_plays_on_deltas(nursery, flags):
    host = await start_host(nursery)
    sent: list[str] = []
    host.on_wire = lambda peer, msg: sent.append(msg["type"]) if peer.name == "js" else None
    host.create_room("R", game="colormatch", table="daynight", seats=3, auto_start=True, start_after=0.5,
                     bot_level="easy")
    r = await trio.run_process([JS_NODE, str(BOTNODE), f"{LOOPBACK}:{host.port}", "R", "js", *flags,
                                "--timeout", "25"], capture_stdout=True, capture_stderr=True, check=False)
    assert r.returncode == 0, r.stderr.decode()[-2000:]
    assert r.stdout.decode().startswith("outcome")
    if "--full-views" in flags:
        assert "delta" not in sent and "view" in sent
    else:
        assert sent.count("delta") > sent.count("view") > 0
    if "--drop-every" in flags:
        assert "snapshot" in sent and " resyncs=0" not in r.stdout.decode()


async def test_a_client_at_a_host_without_deltas_says_hello_again_and_plays(nursery, monkeypatch):
    """A host from before deltas (its catalogue without hello's `deltas`)
    refuses the field (`bad_field`); the client says hello without it and
    plays on full views."""
    from lanmatch.protocol import messages

    monkeypatch.setitem(messages.PEER, "hello", messages.Spec({k: f for k, f in messages.PEER["hello"].items() if k != "deltas"}))
    host = await start_host(nursery)
    sent: list[str] = []
    host.on_wire = lambda peer, msg: sent.append(msg["type"])
    host.create_room("r", game="colormatch", table="classic", seats=2, auto_start=True, start_after=0.5,
                     bot_level="easy")
    node = BotNode("easy", room="r", name="old", seed=1, retry_for=30)
    with trio.fail_after(60):
        await node.run((LOOPBACK, host.port))
    assert node.done and node.matches == 1 and not node.deltas
    assert "delta" not in sent and "view" in sent


async def test_a_seat_taken_back_with_its_token_starts_on_a_numbered_full_view(nursery):
    """Over real sockets, raw frames: the first view after a hello with a
    token is a full `view` numbered 1 (the delta state is set before the
    hello is served), a seat's next views are deltas of it, and a `resync`
    is answered by a snapshot whose view is numbered next."""
    from tests._net import RawPeer

    host = await start_host(nursery)
    a = await RawPeer.open(host.port)
    await a.hello("a", deltas=True)
    await a.send({"type": "create", "room": "r", "game": "colormatch", "table": "classic", "seats": 3})
    seated_msg = await a.expect("seated")
    await a.send({"type": "start"})
    first = await a.expect("view")
    assert first["vn"] == 1
    await a.aclose()
    b = await RawPeer.open(host.port)
    await b.hello("a", token=seated_msg["token"], deltas=True)
    await b.expect("seated")
    view = await b.expect("view")
    assert view["vn"] == 1 and view["view"]["hand"] == first["view"]["hand"]
    await b.send({"type": "resync"})
    snap = await b.expect("snapshot")
    assert snap["view"]["vn"] == 2 and snap["view"]["view"] == view["view"]
    legal = snap["view"]["legal"]
    assert legal
    await b.send({"type": "act", "state_id": snap["view"]["state_id"], "action": legal[0]})
    d = await b.expect("delta")
    assert d["vn"] == 3 and d["state_id"] == snap["view"]["state_id"] + 1
    assert apply_delta(snap["view"], d)["view"]["step"] == d["state_id"]


def test_a_pause_and_its_end_travel_in_deltas():
    """`paused` is on a view message only while the clocks are paused
    (docs/protocol.md, "Pause"): a delta says it when it comes and `false`
    when it goes, and the peer's rebuilt view holds it exactly then."""
    from lanmatch.protocol.delta import apply_delta, make_delta

    base = {"type": "view", "room": "R", "state_id": 3, "view": {"step": 3, "events": []},
            "legal": [], "timers": [], "autopilot": []}
    paused = {**base, "paused": True}
    d = make_delta(base, paused)
    assert d["paused"] is True
    held = apply_delta({**base, "vn": 1}, {**d, "vn": 2})
    assert held["paused"] is True
    back = make_delta(paused, base)
    assert back["paused"] is False
    again = apply_delta(held, {**back, "vn": 3})
    assert "paused" not in again
    assert "paused" not in make_delta(base, base)


def test_events_are_compared_by_number_only_within_one_game():
    """The host names the game (its referee) to its `DeltaSender`: within one
    game the events two views share are compared by number; a new game whose
    events carry the same numbers (a rematch in the same room and seat) is
    compared in full, so the seat holds the new game's events, not the old's."""
    rng = random.Random(5)
    a = new_game("colormatch", table="classic", players=2, seed=1)
    b = new_game("colormatch", table="classic", players=2, seed=2)
    for g in (a, b):
        for _ in range(3):
            play(g, rng)
    ma, mb = view_message(a, 0, rng), view_message(b, 0, rng)
    na, nb = [e["n"] for e in ma["view"]["events"]], [e["n"] for e in mb["view"]["events"]]
    assert na[: len(nb)] == nb[: len(na)] and ma["view"]["events"] != mb["view"]["events"]  # numbers alike, events not
    sender = DeltaSender()
    first = sender.next(ma, a)
    out = sender.next(mb, b)
    assert out["type"] == "delta"
    assert wire(apply_delta(first, out)) == wire(sender.last)
    assert apply_delta(first, out)["view"]["events"] == mb["view"]["events"]
    # within one game the fast comparison gives what the full one gives
    play(a, rng)
    again = view_message(a, 0, rng)
    assert make_delta(ma, again, same_game=True) == make_delta(ma, again)


REFEREE_CASES = [(game.name, table) for game in GAMES.values() for table in game.tables]


def referee_deltas(ref: Any, rng: random.Random, actions: int) -> tuple[int, set[int]]:
    """Play up to `actions` random actions at `ref`, each seat (and a
    watcher) given the referee's views through two `DeltaSender`s, one sent
    every state and one about two states in three (the slow path); every
    delta must rebuild the full view, and one made from what `view_changes`
    names must equal one made by comparing every key. Returns how many deltas
    were made from what it named, and the rounds seen."""
    players = len(ref.seats)
    seats: list[int | None] = [*range(players), None]
    every = {s: DeltaSender() for s in seats}
    some = {s: DeltaSender() for s in seats}
    named = 0
    rounds: set[int] = set()
    now = 0.0
    for _ in range(actions):
        if ref.over:
            break
        common = {"type": "view", "room": "r", "state_id": ref.state_id, "timers": ref.timers(now),
                  "autopilot": ref.autopilot()}
        rounds.add(ref.spectator_view().get("round", 1))
        for s in seats:
            view, legal = (ref.spectator_view(), []) if s is None else (ref.view(s), ref.legal(s))
            msg = {**common, "view": view_to_wire(view), "legal": legal}
            for sender in (every[s], *([some[s]] if rng.random() < 0.65 else [])):
                before = sender.last
                changes = ref.view_changes(before["view"], msg["view"]) if before is not None else None
                out = sender.next(msg, ref)
                if out["type"] == "delta":
                    assert wire(apply_delta(before, out)) == wire({**msg, "vn": out["vn"]})
                    if changes is not None:
                        named += 1
                        slow = make_delta(before, msg, same_game=True)
                        assert wire(apply_delta(before, {**slow, "vn": out["vn"]})) == wire(apply_delta(before, out))
        seat = rng.choice([s for s in ref.spectator_view()["to_act"] if ref.legal(s)])
        now += 1.0
        ref.act(seat, rng.choice(ref.legal(seat)), ref.state_id, now)
    return named, rounds


@pytest.mark.parametrize(("game", "table"), REFEREE_CASES)
def test_deltas_of_the_referees_views_read_only_what_changed_and_are_exact(game, table):
    """The host's way: each seat's `DeltaSender` is given the referee's
    views and the referee itself, whose `view_changes` names what changed
    between two successive states (Color Match's engine knows it; for a game
    that does not, every key is compared). A seat that is sent every state
    and one that misses some (the slow path) both rebuild exactly the full
    view, and a delta made from what the referee names is the delta made
    by comparing every key."""
    from lanmatch.table.referee import Referee

    players = 4 if GAMES[game].seats_ok(4) else GAMES[game].min_players
    ref = Referee(game, table, players, seed=11, now=0.0, clock=600.0)
    named, _ = referee_deltas(ref, random.Random(f"{game} {table}"), 150)
    shares = hasattr(ref.g, "shared_view_changes")
    assert (named > 100) if shares else named == 0


def test_deltas_read_what_changed_across_the_rounds_of_a_match():
    """A new round deals afresh in the same engine: what the engine kept
    from the last state of a round is compared with the first of the next,
    and the deltas stay exact."""
    from lanmatch.table.referee import Referee

    ref = Referee("colormatch", "standard", 4, seed=1, now=0.0, clock=600.0, options={"mode": "match", "target": 300})
    named, rounds = referee_deltas(ref, random.Random(1), 900)
    assert len(rounds) >= 2 and named > 1000
