"""A watcher's view comes from the engine (`watch_view()`), redacted at the source.

Over many seeded random games at every table of every registered game, after
every action: the watcher's view holds no hand, no drawn or shown card and no
cards of a draw; every other key it carries is exactly what every seat sees;
and at Day & Night it shows every seat's far faces, each one as the other
seats see it.
"""

from __future__ import annotations

import random

import pytest

from lanmatch.rules import GAMES, new_game
from lanmatch.table import Referee

PRIVATE = {"seat", "hand", "far", "pips", "events", "drawn", "shown"}
CASES = [
    (game.name, table, players)
    for game in GAMES.values()
    for table in game.tables
    for players in sorted({game.min_players, 3, game.max_players})
    if game.seats_ok(players)
]


def _check_watcher(g, players: int) -> None:
    w = g.watch_view()
    assert w["seat"] is None and w["hand"] == []
    assert "drawn" not in w and "shown" not in w
    assert w.get("pips", 0) == 0
    assert all("cards" not in e for e in w["events"])
    for seat in range(players):
        v = g.view(seat)
        for key in w.keys() - PRIVATE:
            assert w[key] == v[key], (key, seat)
        assert set(w) - {"drawn", "shown"} >= set(v) - {"drawn", "shown"}
        # the events are the seat's own, less the cards only that seat saw drawn
        assert [{k: x for k, x in e.items() if k != "cards"} for e in v["events"]] == w["events"]
    if "far" in w:
        assert sorted(w["far"]) == list(range(players))
        for seat in range(players):
            other = g.view((seat + 1) % players)
            assert w["far"][seat] == other["far"][seat]


@pytest.mark.parametrize(("game", "table", "players"), CASES)
def test_a_watcher_sees_what_every_seat_sees_and_nothing_more(game, table, players):
    for seed in range(8):
        rng = random.Random(seed)
        g = new_game(game, table=table, players=players, seed=seed)
        for _ in range(400):
            _check_watcher(g, players)
            if g.outcome is not None:
                break
            seat = rng.choice(g.to_act)
            legal = g.legal_actions(seat)
            if not legal:  # a seat in to_act only to answer a window the host closes
                seat = g.view(0)["turn"]
                legal = g.legal_actions(seat)
            g.act(seat, rng.choice(legal))


def test_the_referee_sends_watchers_the_engines_watcher_view():
    ref = Referee("colormatch", "daynight", 3, 5, now=0.0)
    assert ref.spectator_view() == ref.g.watch_view()
    assert ref.spectator_view()["far"].keys() == {0, 1, 2}


@pytest.mark.parametrize("game", list(GAMES))
def test_an_unknown_seat_is_still_refused(game):
    g = new_game(game, players=2, seed=1)
    with pytest.raises(Exception, match="seat"):
        g.view(2)
    with pytest.raises(Exception, match="seat"):
        g.view(True)
    with pytest.raises(Exception, match="seat"):  # a watcher asks watch_view(), not view(None)
        g.view(None)
