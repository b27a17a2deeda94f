"""Glicko-2 (lanmatch/ratings.py) against Glickman's worked example, and the
pairwise results of a multi-player match."""

from __future__ import annotations

import math

import pytest

from lanmatch.ratings import START_RD, Rating, expected, placement_results, update


def test_glickmans_worked_example():
    """'Example of the Glicko-2 system' (Glickman, 2013): a 1500/200 player,
    volatility 0.06, tau 0.5, beats a 1400/30 and loses to 1550/100 and 1700/300."""
    games = [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0), (Rating(1700, 300), 0.0)]
    r = update(Rating(1500, 200, 0.06), games, tau=0.5)
    # the paper rounds its intermediate values and prints 1464.06; unrounded it is 1464.05
    assert r.rating == pytest.approx(1464.06, abs=0.02)
    assert r.rd == pytest.approx(151.52, abs=0.01)
    assert r.volatility == pytest.approx(0.05999, abs=0.00001)


def test_a_period_without_games_only_widens_the_deviation_up_to_a_new_players():
    r = update(Rating(1500, 200, 0.06), [])
    assert r.rating == 1500 and r.volatility == 0.06
    assert r.rd == pytest.approx(173.7178 * math.sqrt((200 / 173.7178) ** 2 + 0.06**2))
    assert update(Rating(1500, START_RD), []).rd == START_RD


def test_a_win_raises_a_loss_lowers_and_equal_players_draw_level():
    a, b = Rating(1500, 100), Rating(1500, 100)
    assert update(a, [(b, 1.0)]).rating > 1500 > update(a, [(b, 0.0)]).rating
    assert update(a, [(b, 0.5)]).rating == pytest.approx(1500)
    assert expected(Rating(1700, 50), Rating(1500, 50)) > 0.5 > expected(Rating(1300, 50), Rating(1500, 50))
    with pytest.raises(ValueError, match="score"):
        update(a, [(b, 2.0)])


def test_placements_give_pairwise_results_and_unplaced_seats_play_no_game_among_themselves():
    assert placement_results([0, 1, 2]) == {0: [(1, 1.0), (2, 1.0)], 1: [(0, 0.0), (2, 1.0)], 2: [(0, 0.0), (1, 0.0)]}
    assert placement_results([0, None, None]) == {0: [(1, 1.0), (2, 1.0)], 1: [(0, 0.0)], 2: [(0, 0.0)]}
    assert placement_results([0, 0, None]) == {0: [(1, 0.5), (2, 1.0)], 1: [(0, 0.5), (2, 1.0)], 2: [(0, 0.0), (1, 0.0)]}
    for places in ([0, 1, 1, 2], [0, None, 1, None]):
        res = placement_results(places)
        for i, games in res.items():
            for j, score in games:
                assert dict(res[j])[i] == 1.0 - score, "each pair's results add up to one game"
