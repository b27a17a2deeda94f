"""Scenario tests for the `cards` Color Match table (SPEC section 5, seed 004).

Color Cards: draw only without a legal card, Wild always legal, +4 Wild legal
unless `strict_wild4` finds a match, last-card windows the host closes with
`expire`, modes single / first to 200 / daily.
"""

from __future__ import annotations

import pytest
from _rig_std import do, game, play, shed_to_one, views

from lanmatch.rules import IllegalAction, new_game

T = "cards"

H0 = ["R1", "Y2", "G3", "B4", "Y6", "G7", "B8"]  # on a red 5 only R1 plays
NONE0 = ["Y1", "Y2", "G3", "B4", "Y6", "G7", "B8"]  # on a red 5 nothing plays
H1 = ["Y1", "G2", "B3", "Y4", "G6", "B7", "Y8"]
H2 = ["G1", "B2", "Y3", "G4", "B6", "Y7", "G8"]
STRICT = {"strict_wild4": True}
STACK = {"stacking": True}


def plays(g, seat):
    return [a for a in g.legal_actions(seat) if a["type"] == "play"]


def wild4_legal(g, seat):
    return [a["color"] for a in plays(g, seat) if a["card"] == "W+4"]


# ---------------------------------------------------------------- starter and drawing


def test_cards_starter_is_a_number():
    g = game(T, [H0, H1], "W", ["R+2", "GS", "W+4", "G5"])
    v = g.view(0)
    assert (v["top"], v["color"], v["turn"], v["phase"], v["counts"]) == (
        "G5",
        "G",
        0,
        "turn",
        [7, 7],
    )
    assert (v["draw_pile"], v["discards"]) == (93, 1)


def test_cards_draw_only_with_no_legal_card():
    g = game(T, [H0, H1, H2], "R5")
    assert {"type": "draw"} not in g.legal_actions(0)
    assert g.legal_actions(0) == [{"type": "play", "card": "R1"}]
    before = views(g)
    with pytest.raises(IllegalAction) as e:
        do(g, 0, "draw")
    assert e.value.reason
    assert views(g) == before


def test_cards_draw_when_no_card_is_legal():
    g = game(T, [NONE0, H1, H2], "R5", ["G9"])
    assert g.legal_actions(0) == [{"type": "draw"}]
    do(g, 0, "draw")
    v = g.view(0)
    assert (v["turn"], v["counts"], v["hand"][-1]) == (1, [8, 7, 7], "G9")


def test_cards_playable_drawn_card_may_be_played():
    g = game(T, [NONE0, H1, H2], "R5", ["R9"])
    do(g, 0, "draw")
    v = g.view(0)
    assert (v["phase"], v["drawn"], v["turn"]) == ("drawn", "R9", 0)
    assert g.legal_actions(0) == [{"type": "play", "card": "R9"}, {"type": "pass"}]
    play(g, 0, "R9")
    v = g.view(0)
    assert (v["top"], v["turn"], v["counts"]) == ("R9", 1, [7, 7, 7])


def test_cards_playable_drawn_card_may_be_passed():
    g = game(T, [NONE0, H1, H2], "R5", ["R9"])
    do(g, 0, "draw")
    do(g, 0, "pass")
    v = g.view(0)
    assert (v["top"], v["turn"], v["counts"], v["phase"]) == ("R5", 1, [8, 7, 7], "turn")


# ---------------------------------------------------------------- wilds


def test_cards_wild_is_always_legal():
    g = game(T, [["W"] + H0[1:6] + ["R1"], H1, H2], "R5")
    assert [a for a in plays(g, 0) if a["card"] == "W"] == [
        {"type": "play", "card": "W", "color": c} for c in "RYGB"
    ]
    g = game(T, [["W"] + H0[1:6] + ["R1"], H1, H2], "R5", options=STRICT)
    assert [a["color"] for a in plays(g, 0) if a["card"] == "W"] == list("RYGB")


def test_cards_wild_draw_four_is_always_legal_without_strict_wild4():
    g = game(T, [["W+4", "R1", "Y5", "RS", "G3", "B4", "Y6"], H1, H2], "R5")
    assert wild4_legal(g, 0) == list("RYGB")


def test_cards_strict_wild4_refuses_wild_draw_four_with_a_color_match():
    g = game(T, [["W+4", "R1"] + NONE0[1:6], H1, H2], "R5", options=STRICT)
    assert wild4_legal(g, 0) == []
    before = views(g)
    with pytest.raises(IllegalAction) as e:
        play(g, 0, "W+4", "G")
    assert e.value.reason
    assert views(g) == before


def test_cards_strict_wild4_refuses_wild_draw_four_with_a_number_match():
    g = game(T, [["W+4", "Y5"] + NONE0[1:6], H1, H2], "R5", options=STRICT)
    assert wild4_legal(g, 0) == []
    with pytest.raises(IllegalAction):
        play(g, 0, "W+4", "G")


def test_cards_strict_wild4_refuses_wild_draw_four_with_a_symbol_match():
    # the starter is a number, so a Skip with two players puts RS on top for seat 0 again
    g = game(T, [["RS", "W+4", "YS", "G3", "B4", "Y6", "G7"], H1], "R5", options=STRICT)
    play(g, 0, "RS")
    v = g.view(0)
    assert (v["turn"], v["top"], v["color"]) == (0, "RS", "R")
    assert wild4_legal(g, 0) == []
    assert {"type": "play", "card": "YS"} in plays(g, 0)


def test_cards_strict_wild4_a_held_plain_wild_is_not_a_match():
    g = game(T, [["W+4", "W"] + NONE0[1:6], H1, H2], "R5", options=STRICT)
    assert wild4_legal(g, 0) == list("RYGB")
    play(g, 0, "W+4", "B")
    assert g.view(0)["counts"] == [6, 11, 7]


def test_cards_wild_draw_four_makes_the_next_player_draw_four_and_lose_the_turn():
    g = game(T, [["W+4"] + H0[1:], H1, H2], "R5", ["B1", "B2", "B3", "B4"])
    play(g, 0, "W+4", "G")
    v = g.view(1)
    assert v["counts"] == [6, 11, 7]
    assert v["hand"][-4:] == ["B1", "B2", "B3", "B4"]
    assert (v["turn"], v["phase"], v["pending"], v["color"]) == (2, "turn", 0, "G")
    assert not any(
        a["type"] in ("accept", "challenge") for s in range(3) for a in g.legal_actions(s)
    )


def test_cards_draw_two_makes_the_next_player_draw_two_and_lose_the_turn():
    g = game(T, [["R+2"] + H0[1:], H1, H2], "R5", ["B1", "B2"])
    play(g, 0, "R+2")
    v = g.view(1)
    assert v["counts"] == [6, 9, 7]
    assert (v["turn"], v["pending"]) == (2, 0)


def test_cards_reverse_with_two_players_acts_as_skip():
    g = game(T, [["RR"] + H0[1:], H1], "R5")
    play(g, 0, "RR")
    assert (g.view(0)["turn"], g.view(0)["counts"]) == (0, [6, 7])


# ---------------------------------------------------------------- stacking


def test_cards_stacking_draw_two_on_draw_two():
    hands = [["R+2"] + H0[1:], ["Y+2", "W+4"] + H1[2:], H2]
    g = game(T, hands, "R5", ["B1", "B2", "B3", "B4"], options=STACK)
    play(g, 0, "R+2")
    v = g.view(1)
    assert (v["turn"], v["phase"], v["pending"]) == (1, "pile", 2)
    assert g.legal_actions(1) == [{"type": "play", "card": "Y+2"}, {"type": "draw"}]
    play(g, 1, "Y+2")
    assert (g.view(2)["turn"], g.view(2)["pending"]) == (2, 4)
    do(g, 2, "draw")
    v = g.view(2)
    assert v["counts"] == [6, 6, 11]
    assert (v["turn"], v["pending"]) == (0, 0)


def test_cards_stacking_wild_draw_four_on_wild_draw_four():
    hands = [["W+4"] + H0[1:], ["W+4", "Y+2"] + H1[2:], H2]
    g = game(T, hands, "R5", ["B1", "B2", "B3", "B4", "B5", "B6", "B7", "B8"], options=STACK)
    play(g, 0, "W+4", "G")
    assert g.legal_actions(1) == [{"type": "play", "card": "W+4", "color": c} for c in "RYGB"] + [
        {"type": "draw"}
    ]
    play(g, 1, "W+4", "Y")
    assert (g.view(2)["pending"], g.view(2)["color"]) == (8, "Y")
    do(g, 2, "draw")
    v = g.view(2)
    assert v["counts"] == [6, 6, 15]
    assert (v["turn"], v["pending"]) == (0, 0)


def test_cards_stacking_never_mixes_draw_two_and_wild_draw_four():
    hands = [["R+2", "W+4"] + H0[2:], ["Y+2", "W+4"] + H1[2:], H2]
    g = game(T, hands, "R5", options=STACK)
    play(g, 0, "R+2")
    assert [a for a in plays(g, 1) if a["card"] == "W+4"] == []
    with pytest.raises(IllegalAction):
        play(g, 1, "W+4", "G")
    g = game(T, hands, "R5", options=STACK)
    play(g, 0, "W+4", "G")
    assert [a for a in plays(g, 1) if a["card"] == "Y+2"] == []
    with pytest.raises(IllegalAction):
        play(g, 1, "Y+2")


# ---------------------------------------------------------------- going out and scoring


def test_cards_going_out_on_a_draw_card_still_wins_after_the_draw():
    g = shed_to_one(T, last="R+2", extra=["B0", "GR", "BR", "BR"])
    do(g, 1, "draw")
    do(g, 2, "draw")
    play(g, 0, "R+2")
    v = g.view(1)
    assert v["counts"] == [0, 15, 13]
    assert v["hand"][-2:] == ["BR", "BR"]
    o = g.outcome
    assert (o["winners"], o["reason"]) == ([0], "out")
    # seat 1: 144 + B0 + BR BR = 184; seat 2: 152 + GR = 172
    assert o["points"] == [184 + 172, 0, 0]


def test_cards_going_out_on_wild_draw_four_still_wins_after_the_draw():
    g = shed_to_one(T, last="W+4", extra=["B0", "GR", "BR", "BR", "B+2", "B+2"])
    do(g, 1, "draw")
    do(g, 2, "draw")
    play(g, 0, "W+4", "B")
    assert g.view(1)["counts"] == [0, 17, 13]
    assert g.outcome["winners"] == [0]
    assert g.outcome["points"] == [224 + 172, 0, 0]


def test_cards_going_out_on_a_stacked_draw_two_deals_the_whole_pile():
    g = shed_to_one(T, last="R+2", extra=["R+2", "B1", "B2", "B3", "B4", "B5", "B6"], options=STACK)
    do(g, 1, "draw")
    play(g, 1, "R+2")
    play(g, 2, "G+2")
    play(g, 0, "R+2")
    assert g.view(1)["counts"] == [0, 18, 11]
    assert g.outcome["winners"] == [0]
    assert g.outcome["points"] == [165 + 132, 0, 0]


# ---------------------------------------------------------------- last card


def test_cards_last_card_window_lets_only_that_seat_call():
    g = shed_to_one(T)
    v = g.view(1)
    assert v["windows"] == [{"seat": 0, "call": True, "catch": False}]
    assert v["to_act"] == [0, 1]
    assert g.legal_actions(0) == [{"type": "call"}]
    assert g.legal_actions(2) == []
    assert {"type": "catch", "seat": 0} not in g.legal_actions(1)
    with pytest.raises(IllegalAction):
        do(g, 2, "catch", seat=0)


def test_cards_last_card_call_within_the_window():
    g = shed_to_one(T)
    do(g, 0, "call")
    v = g.view(0)
    assert (v["windows"], v["to_act"], v["counts"]) == ([], [1], [1, 12, 12])
    before = views(g)
    with pytest.raises(IllegalAction):
        do(g, 0, "expire", penalty=True)  # nothing left to expire
    assert views(g) == before


def test_cards_last_card_call_window_outlasts_the_next_players_action():
    g = shed_to_one(T, extra=["B0"])
    do(g, 1, "draw")
    assert g.view(0)["windows"] == [{"seat": 0, "call": True, "catch": False}]
    do(g, 0, "call")
    v = g.view(0)
    assert (v["windows"], v["counts"]) == ([], [1, 13, 12])


def test_cards_expire_with_penalty_makes_the_seat_draw_two():
    g = shed_to_one(T, extra=["B0", "BR"])
    do(g, 0, "expire", penalty=True)
    v = g.view(0)
    assert v["hand"] == ["R7", "B0", "BR"]
    assert (v["windows"], v["to_act"], v["counts"], v["turn"]) == ([], [1], [3, 12, 12], 1)


def test_cards_expire_without_penalty_opens_a_catch_window():
    g = shed_to_one(T, extra=["B0", "BR"])
    do(g, 0, "expire", penalty=False)
    v = g.view(0)
    assert v["windows"] == [{"seat": 0, "call": False, "catch": True}]
    assert v["counts"] == [1, 12, 12]
    assert v["to_act"] == [1, 2]
    assert g.legal_actions(0) == []
    assert g.legal_actions(2) == [{"type": "catch", "seat": 0}]
    with pytest.raises(IllegalAction):
        do(g, 0, "call")
    do(g, 2, "catch", seat=0)
    v = g.view(0)
    assert v["hand"] == ["R7", "B0", "BR"]
    assert (v["windows"], v["counts"], v["turn"]) == ([], [3, 12, 12], 1)


def test_cards_catch_window_outlasts_the_next_turn():
    g = shed_to_one(T, extra=["B0", "GR", "BR"])
    do(g, 0, "expire", penalty=False)
    do(g, 1, "draw")
    assert g.view(0)["windows"] == [{"seat": 0, "call": False, "catch": True}]
    do(g, 2, "catch", seat=0)
    assert g.view(0)["counts"] == [3, 13, 12]


def test_cards_second_expire_closes_the_catch_window_for_nothing():
    g = shed_to_one(T)
    do(g, 0, "expire", penalty=False)
    do(g, 0, "expire", penalty=False)
    v = g.view(0)
    assert (v["windows"], v["counts"], v["to_act"]) == ([], [1, 12, 12], [1])
    with pytest.raises(IllegalAction):
        do(g, 2, "catch", seat=0)


def test_cards_last_card_window_closes_when_the_seat_no_longer_holds_one_card():
    g = shed_to_one(T, extra=["B0", "R+2", "B1", "B2"])
    do(g, 1, "draw")  # B0: nothing to play, the turn passes
    do(g, 2, "draw")  # R+2: playable, played at once onto seat 0
    play(g, 2, "R+2")
    v = g.view(0)
    assert v["hand"] == ["R7", "B1", "B2"]
    assert (v["windows"], v["turn"], v["to_act"]) == ([], 1, [1])


def test_cards_expire_is_never_a_listed_action():
    g = shed_to_one(T)
    for stage in range(2):
        for s in range(3):
            assert all(a["type"] != "expire" for a in g.legal_actions(s))
        if stage == 0:
            do(g, 0, "expire", penalty=False)


# ---------------------------------------------------------------- modes

TWO0 = ["R1", "R2", "R3", "R4", "R5", "R6", "R7"]
TWO1 = ["R1", "R2", "R3", "R4", "R5", "R6", "B9"]


def _quick_two_player_round(options):
    """Seat 0 sheds R1..R7, seat 1 follows suit and is left holding B9 (9 points)."""
    g = game(T, [TWO0, TWO1], "R9", options=options)
    for k in range(1, 7):
        play(g, 0, f"R{k}")
        play(g, 1, f"R{k}")
    return g, play(g, 0, "R7")


def test_cards_single_round_winner_scores_the_others_cards():
    g, _ = _quick_two_player_round({})
    o = g.outcome
    assert (o["winners"], o["points"], o["reason"], o["rounds"]) == ([0], [9, 0], "out", 1)


def test_cards_first_to_200_carries_totals_and_deals_again():
    g, events = _quick_two_player_round({"mode": "match"})
    assert g.outcome is None
    over = [(e["winners"], e["points"]) for e in events if e["type"] == "round_over"]
    assert over == [([0], [9, 0])]
    assert [(e["round"], e["first"]) for e in events if e["type"] == "deal"] == [(2, 1)]
    v = g.view(1)
    assert (v["mode"], v["target"], v["round"], v["scores"]) == ("match", 200, 2, [9, 0])
    assert (v["counts"], v["turn"], v["phase"]) == ([7, 7], 1, "turn")
    assert len(v["hand"]) == 7


def test_cards_first_to_200_ends_when_a_total_reaches_200():
    g = shed_to_one(T, extra=["B0", "GR"], options={"mode": "match"})
    do(g, 1, "draw")
    do(g, 2, "draw")
    play(g, 0, "R7")
    o = g.outcome
    assert o is not None
    assert (o["winners"], o["points"], o["rounds"]) == ([0], [316, 0, 0], 1)


def _daily(date, seed, players=3):
    return new_game(
        "colormatch",
        table=T,
        players=players,
        seed=seed,
        options={"mode": "daily", "date": date},
    )


def test_cards_daily_same_date_deals_identical_games():
    a, b = _daily("2024-05-01", seed=1), _daily("2024-05-01", seed=987654)
    assert views(a) == views(b)
    assert a.view(0)["daily"] == "2024-05-01"
    assert a.view(0)["mode"] == "daily"
    seat = a.to_act[0]
    act = a.legal_actions(seat)[0]
    assert a.act(seat, act) == b.act(seat, act)
    assert views(a) == views(b)


def test_cards_daily_different_dates_deal_differently():
    a, b = _daily("2024-05-01", seed=1), _daily("2024-05-02", seed=1)
    assert [v["hand"] for v in views(a)] != [v["hand"] for v in views(b)]


@pytest.mark.parametrize("players", [2, 4, 6])
def test_cards_daily_is_played_by_exactly_three_players(players):
    with pytest.raises(ValueError):
        _daily("2024-05-01", seed=1, players=players)


def test_cards_daily_needs_a_proper_date():
    for bad in ("2024/05/01", "yesterday", "24-5-1"):
        with pytest.raises(ValueError):
            _daily(bad, seed=1)
