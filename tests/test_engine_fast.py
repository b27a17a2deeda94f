"""The Color Match engine's fast paths agree with its general ones.

`legal_actions` computes an ordinary turn at a plain table on its own path, and
`act` applies a plain play, draw or pass straight from the turn seat's cached
legal actions. Here every state of random games is checked both ways: the
fast listing against the general one (`_compute_legal`), and each action
applied through the fast path against the same action sent with an extra key
(which `act` ignores, but which takes it down the general path): the same
events, the same views for every seat. The lists handed out are the caller's
own: mutating them changes nothing in the game. bench/trace.py compares whole
traces with an older tree.
"""

from __future__ import annotations

import copy
import random

import pytest

from lanmatch.rules import GAMES, new_game

TABLES = tuple(GAMES["colormatch"].tables)  # every Color Match table the registry declares


def _general_legal(g, seat):
    h = copy.deepcopy(g)
    h._cache = {}
    h._turn_legal = None
    return h._compute_legal(seat)


@pytest.mark.parametrize("table", TABLES)
@pytest.mark.parametrize("players", (2, 4))
def test_fast_paths_match_general_paths(table, players):
    rng = random.Random(f"{table}{players}")
    for seed in range(4):
        g = new_game("colormatch", table=table, players=players, seed=seed)
        steps = 0
        while g.outcome is None and steps < 400:
            seats = g.to_act
            legal = {s: g.legal_actions(s) for s in seats}
            for s in seats:
                assert legal[s] == _general_legal(g, s), (seed, steps, s)
            seat = rng.choice([s for s in seats if legal[s]])
            plays = [a for a in legal[seat] if a["type"] == "play"]
            action = rng.choice(plays if plays and rng.random() < 0.8 else legal[seat])
            slow = copy.deepcopy(g)
            events = g.act(seat, dict(action))
            assert slow.act(seat, {**action, "state_id": 7}) == events
            for s in range(players):
                assert g.view(s) == slow.view(s)
            assert g.to_act == slow.to_act and g.outcome == slow.outcome
            steps += 1


def test_handed_out_lists_are_the_callers_own():
    g = new_game("colormatch", table="standard", players=4, seed=3)
    seat = g.to_act[0]
    before = g.legal_actions(seat)
    mine = g.legal_actions(seat)
    for a in mine:
        a["card"] = "X"
        a["type"] = "draw"
    mine.clear()
    g.to_act.append(99)
    assert g.legal_actions(seat) == before
    assert g.to_act == [seat]
    action = next(a for a in before if a["type"] == "play")
    events = g.act(seat, action)
    kept = copy.deepcopy(events)
    for e in events:
        e["type"] = "nothing"
    assert g.view(0)["events"][-len(kept):] == kept
