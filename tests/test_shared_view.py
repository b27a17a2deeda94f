"""The Color Match engine's `shared_view`: the views the referee sends.

`shared_view(seat)` is `view(seat)` (and `shared_view(None)` is
`watch_view()`) without copying the events: they are the engine's own
objects, for a reader that changes nothing (the referee builds each seat's
view once per state and only reads and sends it). Here every state of random
games at every table and seat count is checked: the shared view equals the
copied one for every seat and for a watcher, so it shows no more and no less
(a seat's own cards of a draw, and nobody else's), long enough for the
engine to drop its oldest events; and the referee hands out exactly the
engine's views.
"""

from __future__ import annotations

import random

import pytest
from msgpack import packb

from lanmatch.rules import IllegalAction, new_game
from lanmatch.rules.registry import get_game
from lanmatch.table.referee import Referee

GAME = get_game("colormatch")
LO, HI = GAME.seat_range()


def _random_game(table: str, players: int, seed: int, rng: random.Random):
    """Yield the engine at every state of one game played with random legal actions."""
    g = new_game("colormatch", table=table, players=players, seed=seed)
    yield g
    for _ in range(600):  # bounded: a game ends long before (or the test stops there)
        if g.outcome is not None:
            return
        seat = rng.choice([s for s in g.to_act if g.legal_actions(s)])
        g.act(seat, rng.choice(g.legal_actions(seat)))
        yield g


@pytest.mark.parametrize("table", list(GAME.tables))
def test_shared_views_equal_the_copied_views(table):
    rng = random.Random(table)
    states = dropped = 0
    for players in (LO, 4, HI):
        for seed in range(3):
            for g in _random_game(table, players, seed, rng):
                for s in range(players):
                    assert g.shared_view(s) == g.view(s), (players, seed, g.view(0)["step"], s)
                    # as sent: equal values of another type (1 and true) differ on the wire
                    assert packb(g.shared_view(s)) == packb(g.view(s)), (players, seed, g.view(0)["step"], s)
                assert packb(g.shared_view(None)) == packb(g.watch_view())
                states += 1
                dropped += g.view(0)["events"][0]["n"] > 1
    assert states > 200 and dropped  # the games were long enough to drop old events


def test_a_shared_view_holds_the_engines_own_events_and_view_copies_them():
    g = new_game("colormatch", table=GAME.default_table, players=3, seed=5)
    rng = random.Random(5)
    for _ in range(12):
        seat = g.to_act[0]
        g.act(seat, rng.choice(g.legal_actions(seat)))
    watcher = g.shared_view(None)
    assert watcher["events"] and all(e is k for e, k in zip(watcher["events"], g._events[-len(watcher["events"]):], strict=True))
    copied = g.view(1)
    copied["events"][-1]["type"] = "changed by the caller"
    assert g.view(1) != copied and g.shared_view(1) == g.view(1)  # a caller's copy changes nothing in the game
    with pytest.raises(IllegalAction, match="no seat 7"):
        g.shared_view(7)


def test_the_shared_views_of_a_state_build_what_every_seat_sees_once():
    """Build once, send many: the seats' shared views of one state hold the
    very same public values (built once for the state, built again after the
    next action); a seat's own hand and its cards of a draw are its alone;
    `view()` hands out copies that share nothing with them or each other."""
    g = new_game("colormatch", table=GAME.default_table, players=4, seed=2)
    rng = random.Random(2)
    drew = None
    for _ in range(40):
        seat = g.to_act[0]
        action = next((a for a in g.legal_actions(seat) if a["type"] == "draw"), None) if drew is None else None
        g.act(seat, action or rng.choice(g.legal_actions(seat)))
        drew = seat if action else drew
    assert drew is not None and any("cards" in e for e in g.shared_view(drew)["events"])
    views = [g.shared_view(s) for s in range(4)] + [g.shared_view(None)]
    public = ("counts", "to_act", "windows", "scores", "options")
    for key in public:
        assert all(v[key] is views[0][key] for v in views), key
    assert len({id(v["hand"]) for v in views[:4]}) == 4
    mine = views[drew]["events"]
    assert mine is not views[4]["events"] and all(v["events"] is views[4]["events"] for v in views[:4]
                                                   if not any("cards" in e for e in v["events"]))
    copies = [g.view(0), g.view(1)]
    for key in (*public, "hand", "events"):
        assert copies[0][key] is not copies[1][key] and copies[0][key] is not views[0][key], key
    copies[0]["counts"].append(99)
    copies[0]["scores"][0] = 1000
    assert g.shared_view(0) == g.view(0) != copies[0] and g.shared_view(0)["counts"] is views[0]["counts"]
    seat = g.to_act[0]
    g.act(seat, g.legal_actions(seat)[0])
    after = g.shared_view(0)
    assert after["step"] == views[0]["step"] + 1 and after["counts"] is not views[0]["counts"]
    assert after == g.view(0) and g.shared_view(1)["counts"] is after["counts"]


def test_the_referee_hands_out_the_engines_views():
    rng = random.Random(9)
    for table in GAME.tables:
        ref = Referee("colormatch", table, 4, seed=3, now=0.0, clock=60.0)
        now = 0.0
        for _ in range(150):
            if ref.over:
                break
            for s in range(4):
                assert ref.view(s) == ref.g.view(s)
            assert ref.spectator_view() == ref.g.watch_view()
            assert ref.state_id == ref.g.view(0)["step"]
            seat = rng.choice([s for s in ref.g.to_act if ref.legal(s)])
            now += 1.0
            ref.act(seat, rng.choice(ref.legal(seat)), ref.state_id, now)


@pytest.mark.parametrize("table", list(GAME.tables))
def test_a_state_keeps_what_did_not_change_and_names_what_did(table):
    """Between two successive states whose shared views were built, a value
    every seat sees alike that did not change is the earlier state's very
    object, and `shared_view_changes` names every other difference: the
    public keys that changed (with the new views' own values) and the seat's
    own keys. For states further apart it says it does not know."""
    rng = random.Random(f"changes {table}")
    named = kept = 0
    for players in (LO, 4, HI):
        before = None
        for g in _random_game(table, players, 7, rng):
            views = {s: g.shared_view(s) for s in [*range(players), None]}
            step = views[None]["step"]
            if before is not None:
                since = before[None]["step"]
                public, own = g.shared_view_changes(since, step)
                assert g.shared_view_changes(since - 1, step) is None and g.shared_view_changes(since, step + 1) is None
                for s, new in views.items():
                    old = before[s]
                    assert set(old) ^ set(new) <= set(own), (s, step)
                    for k, v in new.items():
                        if k == "events" or k in own:
                            continue
                        if k in public:
                            assert v is public[k] and v != old[k], (k, s, step)
                            named += 1
                        else:
                            assert v is old[k], (k, s, step)  # kept: found by identity
                            kept += 1
            before = views
    assert named > 100 and kept > 2 * named  # most of a view stays from one state to the next


def test_a_watchers_copy_is_fresh_even_where_the_shared_views_keep_a_value():
    """Keeping a state's unchanged values for the next is the shared views'
    alone: `view` and `watch_view` still hand out fresh copies."""
    g = new_game("colormatch", table=GAME.default_table, players=3, seed=4)
    first = g.shared_view(None)
    seat = g.to_act[0]
    g.act(seat, g.legal_actions(seat)[0])
    assert g.shared_view(None)["scores"] is first["scores"]
    copy = g.watch_view()
    assert copy["scores"] == first["scores"] and copy["scores"] is not first["scores"]
