"""Partners over a real host on 127.0.0.1 with a real sqlite store: a coin
room with `teams` splits the pot between the winning partners, the ledger
stays conserved, the room list says partners, and the ratings count a team
win as each partner beating each opponent (partners play no game together).
"""

from __future__ import annotations

import pytest
import trio
from _net import LOOPBACK, start_host
from test_host_store import Player, conserved, profile, store, until  # noqa: F401 (the store fixture)

from lanmatch.store.rating import pairwise


@pytest.mark.parametrize(("game", "table"), [("colormatch", "standard"), ("dominoes", None)])
async def test_a_coin_room_with_partners_splits_the_pot_between_the_winning_partners(nursery, store, game, table):  # noqa: F811
    host = await start_host(nursery, store=store)
    host.create_room("Pairs", game=game, table=table, seats=4, stake=50, auto_start=True,
                     start_after=0.3, bot_level="easy", options={"teams": True})
    summary = host.rooms["Pairs"].room.summary()
    assert summary["teams"] is True and summary["seats"] == 4
    ann, bob = (Player("medium", room="Pairs", profile=profile("Ann"), name="Ann"),
                Player("medium", room="Pairs", profile=profile("Bob"), name="Bob"))
    async with trio.open_nursery() as n:
        for node in (ann, bob):
            n.start_soon(node.run, (LOOPBACK, host.port))
        await until(lambda: all(len(p.coins()) >= 2 for p in (ann, bob)), timeout=60.0)
        n.cancel_scope.cancel()
    (record,) = [store.match(m.id) for m in store.history()]
    assert (record.kind, record.stake, record.status, record.players) == ("coins", 50, "finished", 4)
    assert record.options.get("teams") is True
    winners = record.outcome["winners"]
    assert winners in ([0, 2], [1, 3]), "a team wins: both partners"
    assert record.outcome["points"][winners[0]] == record.outcome["points"][winners[1]]
    for p in (ann, bob):
        stake_msg, paid_msg = p.coins()[:2]
        assert stake_msg["change"] == -50 and stake_msg["balance"] == 950
        won = p.seat in winners
        assert paid_msg["reason"] == ("win" if won else "loss")
        assert paid_msg["change"] == (100 if won else 0), "the pot of 200 split between two partners"
        assert store.balance(store.find_profile(p.name).id) == paid_msg["balance"] == (1050 if won else 950)
    bots = [s.seat for s in record.seats if s.kind == "bot"]
    assert len(bots) == 2
    assert store.house_balance() == sum(100 for b in bots if b in winners) - 100
    conserved(store)
    # the ratings: each person rated against both opponents only, never the partner
    c = store.conn
    rated = c.execute("SELECT profile_id, seat FROM rating_changes WHERE match_id = ?", (record.id,)).fetchall()
    assert sorted(pid for pid, _ in rated) == sorted(store.find_profile(p.name).id for p in (ann, bob))


def test_partners_play_no_rating_game_with_each_other():
    games = pairwise(["win", "loss", "win", "loss"], partners=True)
    assert games == {0: [(1, 1.0), (3, 1.0)], 1: [(0, 0.0), (2, 0.0)], 2: [(1, 1.0), (3, 1.0)],
                     3: [(0, 0.0), (2, 0.0)]}
    alone = pairwise(["win", "loss", "win", "loss"])
    assert (2, 0.5) in alone[0], "without partners two winners are level with each other"
    # a partner who left forfeits to the opponents only
    left = pairwise(["win", "left", "win", "loss"], partners=True)
    assert left[1] == [(0, 0.0), (2, 0.0)] and left[3] == [(0, 0.0), (2, 0.0)]
