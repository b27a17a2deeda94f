"""A third game declared in this file alone plays through everything (issue 12).

High Card, a tiny two-seat game of hidden chips, is registered here with
`lanmatch.rules.register` and nothing else in lanmatch is edited: a match is
played through a real host on 127.0.0.1 by two bot nodes (the generic bots),
the host's store records it and replays it, the protocol checks every message
(the host runs `strict`), and no view shows a seat the other's chips.
"""

from __future__ import annotations

import random

import pytest
import trio
from _net import LOOPBACK, RawPeer, start_host

from lanmatch.net.client import BotNode
from lanmatch.protocol import check_host_message, view_to_wire
from lanmatch.rules import Game, IllegalAction, TableInfo, new_game, register, unregister
from lanmatch.store import Store, rebuild_game
from lanmatch.table import Referee


class HighCard:
    """High Card: each seat is dealt 3 chips from 1-9 (from the seed). A
    trick: the leader plays a chip face down, the other answers, then both are
    shown; the higher chip scores a point (a tie none) and its player leads
    the next. After 3 tricks the most points wins (equal: a draw)."""

    def __init__(self, players=2, seed=0, options=None, deck=None):
        if players != 2:
            raise ValueError(f"High Card seats 2 players, not {players!r}")
        if options:
            raise ValueError(f"High Card has no option {next(iter(options))!r}")
        rng = random.Random(seed)
        chips = rng.sample(range(1, 10), 6) if deck is None else [int(c) for c in deck]
        self.hands = [sorted(chips[:3]), sorted(chips[3:6])]
        self.scores = [0, 0]
        self.turn = rng.randrange(2)
        self.face_down = None  # (seat, chip) the leader played
        self.step = 0
        self.events: list[dict] = []
        self.outcome = None

    @property
    def to_act(self):
        return [] if self.outcome is not None else [self.turn]

    def legal_actions(self, seat):
        if self.outcome is not None or seat != self.turn:
            return []
        return [{"type": "play", "card": str(c)} for c in self.hands[seat]]

    def act(self, seat, action):
        if not isinstance(action, dict) or {"type": action.get("type"), "card": action.get("card")} \
                not in self.legal_actions(seat):
            raise IllegalAction("You cannot play that now.")
        chip = int(action["card"])
        self.hands[seat].remove(chip)
        self.step += 1
        new = []
        if self.face_down is None:
            self.face_down = (seat, chip)
            new.append({"type": "lead", "seat": seat})
            self.turn = 1 - seat
        else:
            leader, led = self.face_down
            self.face_down = None
            winner = leader if led > chip else seat if chip > led else None
            if winner is not None:
                self.scores[winner] += 1
            new.append({"type": "trick", "chips": [led, chip] if leader == 0 else [chip, led], "winner": winner})
            self.turn = winner if winner is not None else leader
            if not self.hands[0] and not self.hands[1]:
                a, b = self.scores
                self.outcome = {"winners": [0] if a > b else [1] if b > a else [],
                                "points": list(self.scores), "reason": "out"}
                new.append({"type": "game_end", "winners": list(self.outcome["winners"])})
        for e in new:
            e["n"] = len(self.events) + 1
            self.events.append(e)
        return [dict(e) for e in new]

    def view(self, seat):
        if type(seat) is not int or seat not in (0, 1):
            raise IllegalAction(f"There is no seat {seat!r} at this table (seats 0-1).")
        return self._view(seat)

    def watch_view(self):
        return self._view(None)

    def _view(self, seat):
        out = self.outcome
        return {
            "game": "highcard", "seat": seat, "players": 2, "step": self.step,
            "hand": [str(c) for c in self.hands[seat]] if seat is not None else [],
            "counts": [len(h) for h in self.hands], "to_act": self.to_act, "turn": self.turn,
            "scores": list(self.scores), "face_down": self.face_down is not None,
            "events": [dict(e) for e in self.events[-32:]],
            "outcome": None if out is None else {**out, "winners": list(out["winners"]), "points": list(out["points"])},
        }


HIGHCARD = Game(
    name="highcard",
    title="High Card",
    min_players=2,
    max_players=2,
    guest_max_players=2,
    tables={"highcard": TableInfo(name="highcard", title="High Card", default_clock=15)},
    make=lambda table, players, seed, options, deck, first_seat: HighCard(players, seed, options, deck),
    bots=None,  # the generic bots
    named_tables=False,
    brief=("Play your chips one by one; the higher chip of each trick scores.",),
)


@pytest.fixture
def highcard():
    register(HIGHCARD)
    yield HIGHCARD
    unregister("highcard")


def test_the_engine_api_deals_the_registered_game(highcard):
    g = new_game("highcard", players=2, seed=3)
    assert g.view(0)["hand"] != g.view(1)["hand"] and len(g.view(0)["hand"]) == 3
    with pytest.raises(ValueError, match="seats 2 players"):
        new_game("highcard", players=3)


def test_the_referee_plays_it_with_bots_of_every_level(highcard):
    for level in ("easy", "medium", "hard"):
        ref = Referee("highcard", None, 2, 11, now=0.0, bots={0: level, 1: level})
        now = 0.0
        for _ in range(50):
            if ref.over:
                break
            now = max(now, ref.next_deadline())
            ref.tick(now)
        assert ref.over and ref.outcome["reason"] == "out"


class Watcher(BotNode):
    def __init__(self, level, **kw):
        super().__init__(level, **kw)
        self.views: list[dict] = []

    def on_message(self, msg):
        if msg["type"] == "view":
            self.views.append(msg)
        super().on_message(msg)


async def test_a_match_plays_through_a_real_host_bot_nodes_and_the_store(highcard, tmp_path):
    store = Store.open_dir(tmp_path / "data", lock=True, durable=False)
    try:
        async with trio.open_nursery() as nursery:
            host = await start_host(nursery, store=store)
            host.create_room("hc", game="highcard", seats=2, auto_start=True, start_after=0.3)
            watcher = await RawPeer.open(host.port)
            await watcher.hello("watcher")
            await watcher.send({"type": "watch", "room": "hc"})
            await watcher.expect("watching")
            nodes = [Watcher(level, room="hc", seed=i, name=f"bot{i}") for i, level in enumerate(("easy", "hard"))]
            with trio.fail_after(30):
                async with trio.open_nursery() as n:
                    for node in nodes:
                        n.start_soon(node.run, (LOOPBACK, host.port))
            with trio.move_on_after(5):  # the watcher's last views
                while not any(m["type"] == "view" and m["view"]["outcome"] for m in watcher.got):
                    await watcher.recv()
            await watcher.aclose()
            nursery.cancel_scope.cancel()
        (m,) = store.history()
        assert (m.game, m.status) == ("highcard", "finished")
        record = store.match(m.id)
        assert rebuild_game(record).outcome == record.outcome
        # every view a bot node received is the engine's own view of its seat
        # at that step, as the wire carries it: nothing more (the rival's chips,
        # the face-down one) ever reached it
        for node in nodes:
            assert node.views and node.views[-1]["view"]["outcome"] is not None
            for msg in node.views:
                check_host_message(msg)
                step = msg["view"]["step"]
                truth = view_to_wire(rebuild_game(record, upto=step).view(node.seat))
                assert msg["view"] == truth
        # the watcher saw the engine's watcher view at every step it was sent
        seen = [m for m in watcher.got if m["type"] == "view"]
        assert seen and seen[-1]["view"]["outcome"] is not None
        for msg in seen:
            assert msg["view"] == view_to_wire(rebuild_game(record, upto=msg["view"]["step"]).watch_view())
            assert msg["view"]["hand"] == [] and msg["legal"] == []
    finally:
        store.close()
