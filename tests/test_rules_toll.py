"""Scenario tests for the `toll` Color Match table (SPEC section 5, seed 000).

Bypass = Skip, Flip = Reverse, Toll 2 = +2, Shift = Wild, Toll 4 = +4 Wild:
the engine speaks card codes (`RS`, `RR`, `R+2`, `W`, `W+4`), the palette the names.
"""

from __future__ import annotations

import pytest
from _rig_std import (
    ACTIONS,
    NUMS,
    WILDS,
    block,
    blocked_deal,
    do,
    draw_out,
    game,
    play,
    shed_to_one,
    views,
)

from lanmatch.rules import IllegalAction, new_game

T = "toll"

H0 = ["R1", "Y2", "G3", "B4", "Y6", "G7", "B8"]
H1 = ["Y1", "G2", "B3", "Y4", "G6", "B7", "Y8"]
H2 = ["G1", "B2", "Y3", "G4", "B6", "Y7", "G8"]

CLEAN = ["W+4", "Y1", "Y2", "G3", "B4", "Y9", "G6"]  # no red (Y9 only matches the 9)
GUILTY = ["W+4", "R1", "Y2", "G3", "B4", "Y5", "G6"]  # holds red


def plays(g, seat):
    return [a for a in g.legal_actions(seat) if a["type"] == "play"]


# ---------------------------------------------------------------- starter


def test_toll_starter_is_always_a_number():
    g = game(T, [H0, H1], "RS", ["W", "G+2", "B4", "R9"])
    v = g.view(0)
    assert (v["top"], v["color"], v["turn"], v["phase"]) == ("B4", "B", 0, "turn")
    assert (v["draw_pile"], v["discards"], v["counts"]) == (93, 1, [7, 7])
    drawn = draw_out(g)
    assert drawn[0] == "R9"
    assert drawn[-3:] == ["RS", "W", "G+2"]  # passed over, to the bottom, in order


@pytest.mark.parametrize("starter", ["RS", "RR", "R+2", "W"])
def test_toll_action_starters_never_act(starter):
    g = game(T, [H0, H1, H2], starter, ["R9"])
    v = g.view(0)
    assert (v["top"], v["turn"], v["direction"], v["counts"], v["phase"]) == (
        "R9",
        0,
        1,
        [7, 7, 7],
        "turn",
    )


# ---------------------------------------------------------------- drawing


def test_toll_may_draw_instead_of_playing_even_with_a_play():
    g = game(T, [H0, H1, H2], "R5", ["B9"])
    acts = g.legal_actions(0)
    assert {"type": "play", "card": "R1"} in acts
    assert {"type": "draw"} in acts
    do(g, 0, "draw")
    v = g.view(0)
    assert (v["turn"], v["counts"], v["hand"][-1]) == (1, [8, 7, 7], "B9")


def test_toll_playable_drawn_card_is_the_only_card_you_may_play():
    g = game(T, [H0, H1, H2], "R5", ["R9"])
    do(g, 0, "draw")
    v = g.view(0)
    assert (v["phase"], v["drawn"], v["turn"]) == ("drawn", "R9", 0)
    assert g.legal_actions(0) == [{"type": "play", "card": "R9"}, {"type": "pass"}]
    before = views(g)
    with pytest.raises(IllegalAction) as e:
        play(g, 0, "R1")
    assert e.value.reason
    assert views(g) == before
    play(g, 0, "R9")
    v = g.view(0)
    assert (v["top"], v["turn"], v["counts"]) == ("R9", 1, [7, 7, 7])


def test_toll_playable_drawn_card_may_be_passed():
    g = game(T, [H0, H1, H2], "R5", ["R9"])
    do(g, 0, "draw")
    do(g, 0, "pass")
    v = g.view(0)
    assert (v["top"], v["turn"], v["phase"], v["counts"]) == ("R5", 1, "turn", [8, 7, 7])


def test_toll_unplayable_drawn_card_ends_the_turn():
    g = game(T, [H0, H1, H2], "R5", ["G9"])
    do(g, 0, "draw")
    v = g.view(0)
    assert (v["turn"], v["phase"], v["counts"]) == (1, "turn", [8, 7, 7])


def test_toll_draws_a_drawn_shift_only_as_that_card():
    g = game(T, [H0, H1, H2], "R5", ["W"])
    do(g, 0, "draw")
    assert g.legal_actions(0) == [{"type": "play", "card": "W", "color": c} for c in "RYGB"] + [
        {"type": "pass"}
    ]


# ---------------------------------------------------------------- Bypass, Flip, Toll 2, Shift


def test_toll_bypass_makes_the_next_player_lose_the_turn():
    g = game(T, [["RS"] + H0[1:], H1, H2], "R5")
    play(g, 0, "RS")
    assert g.view(0)["turn"] == 2


def test_toll_flip_with_two_players_works_like_bypass():
    g = game(T, [["RR"] + H0[1:], H1], "R5")
    play(g, 0, "RR")
    v = g.view(0)
    assert (v["turn"], v["direction"], v["counts"]) == (0, -1, [6, 7])


def test_toll_flip_reverses_the_direction_of_play():
    g = game(T, [["RR"] + H0[1:], H1, H2], "R5")
    play(g, 0, "RR")
    v = g.view(0)
    assert (v["turn"], v["direction"]) == (2, -1)


def test_toll_two_makes_the_next_player_draw_two_and_lose_the_turn():
    g = game(T, [["R+2"] + H0[1:], H1, H2], "R5", ["G9", "B5"])
    play(g, 0, "R+2")
    v = g.view(1)
    assert v["counts"] == [6, 9, 7]
    assert v["hand"][-2:] == ["G9", "B5"]
    assert (v["turn"], v["pending"], v["phase"]) == (2, 0, "turn")


def test_toll_shift_and_toll_four_may_be_played_on_any_turn():
    hand = ["W", "W+4", "R1", "R2", "Y5", "G3", "B4"]  # red and a 5 in hand: both still legal
    g = game(T, [hand, H1, H2], "R5")
    acts = plays(g, 0)
    for wild in ("W", "W+4"):
        assert [a for a in acts if a["card"] == wild] == [
            {"type": "play", "card": wild, "color": c} for c in "RYGB"
        ]


def test_toll_shift_names_the_color_and_play_passes_on():
    g = game(T, [["W"] + H0[1:], H1, H2], "R5")
    play(g, 0, "W", "B")
    v = g.view(1)
    assert (v["top"], v["color"], v["turn"], v["phase"], v["counts"]) == (
        "W",
        "B",
        1,
        "turn",
        [6, 7, 7],
    )
    assert {a["card"] for a in plays(g, 1)} == {"B3", "B7"}


# ---------------------------------------------------------------- Toll 4


def test_toll_four_gives_the_next_player_accept_or_challenge():
    g = game(T, [CLEAN, H1, H2], "R9")
    play(g, 0, "W+4", "G")
    v = g.view(1)
    assert (v["turn"], v["phase"], v["pending"], v["color"]) == (1, "challenge", 4, "G")
    assert g.legal_actions(1) == [{"type": "accept"}, {"type": "challenge"}]


def test_toll_four_accept_draws_four_and_loses_the_turn():
    g = game(T, [CLEAN, H1, H2], "R9", ["B1", "B2", "B3", "B4"])
    play(g, 0, "W+4", "G")
    do(g, 1, "accept")
    v = g.view(1)
    assert v["counts"] == [6, 11, 7]
    assert v["hand"][-4:] == ["B1", "B2", "B3", "B4"]
    assert (v["turn"], v["pending"], v["color"]) == (2, 0, "G")


def test_toll_four_challenge_succeeds_when_player_held_active_color():
    g = game(T, [GUILTY, H1, H2], "R9", ["B1", "B2", "B3", "B4"])
    play(g, 0, "W+4", "G")
    do(g, 1, "challenge")
    v = g.view(0)
    assert v["counts"] == [10, 7, 7]
    assert v["hand"][-4:] == ["B1", "B2", "B3", "B4"]
    assert (v["turn"], v["phase"], v["pending"], v["color"]) == (1, "turn", 0, "G")
    assert {a["card"] for a in plays(g, 1)} == {"G2", "G6"}  # the challenger keeps the turn


def test_toll_four_challenge_fails_when_player_held_no_active_color():
    g = game(T, [CLEAN, H1, H2], "R9", ["B1", "B2", "B3", "B4", "B5", "B6"])
    play(g, 0, "W+4", "G")
    do(g, 1, "challenge")
    v = g.view(1)
    assert v["counts"] == [6, 13, 7]
    assert v["hand"][-6:] == ["B1", "B2", "B3", "B4", "B5", "B6"]
    assert (v["turn"], v["pending"], v["color"]) == (2, 0, "G")


def test_toll_four_challenge_shows_no_hand():
    for hand in (GUILTY, CLEAN):
        g = game(T, [hand, H1, H2], "R9")
        play(g, 0, "W+4", "G")
        do(g, 1, "challenge")
        for s in range(3):
            assert "shown" not in g.view(s)


def test_tolls_never_stack():
    g = game(T, [["R+2"] + H0[1:], ["Y+2"] + H1[1:], H2], "R5", ["G9", "B5"])
    play(g, 0, "R+2")
    v = g.view(1)
    assert v["counts"] == [6, 9, 7]  # Toll 2 taken at once, no chance to answer it
    assert (v["turn"], v["pending"]) == (2, 0)
    g = game(T, [CLEAN, ["W+4", "Y+2"] + H1[2:], H2], "R9")
    play(g, 0, "W+4", "G")
    assert g.legal_actions(1) == [{"type": "accept"}, {"type": "challenge"}]
    with pytest.raises(IllegalAction):
        play(g, 1, "W+4", "B")
    with pytest.raises(ValueError):
        new_game("colormatch", table=T, players=3, seed=1, options={"stacking": True})


# ---------------------------------------------------------------- last card, going out, scoring


def test_toll_has_no_last_card_call():
    g = shed_to_one(T)
    v = g.view(2)
    assert v["counts"] == [1, 12, 12]
    assert v["windows"] == []
    assert v["to_act"] == [1]
    assert g.legal_actions(0) == []
    assert g.legal_actions(2) == []
    for seat, action in ((0, {"type": "call"}), (2, {"type": "catch", "seat": 0})):
        before = views(g)
        with pytest.raises(IllegalAction):
            g.act(seat, action)
        assert views(g) == before


def test_toll_first_to_empty_their_hand_wins_and_scores_the_others_cards():
    # seat 1: W 50 + W+4 50 + Y7 7 + YS 20 + YR 20 + Y+2 20 + Y0 0, draws Y7 G7 B7 YS BS (61), B0
    # seat 2: 85 in hand, draws Y9 G9 B9 GS YR (67), GR 20
    g = shed_to_one(T, hand1=["W", "W+4", "Y7", "YS", "YR", "Y+2", "Y0"], extra=["B0", "GR"])
    do(g, 1, "draw")
    do(g, 2, "draw")
    play(g, 0, "R7")
    o = g.outcome
    assert (o["winners"], o["reason"]) == ([0], "out")
    assert o["points"] == [228 + 172, 0, 0]
    assert o["rounds"] == 1
    assert g.to_act == []


def test_toll_going_out_on_toll_two_resolves_the_draw_then_scores():
    g = shed_to_one(T, last="R+2", extra=["B0", "GR", "BR", "BR"])
    do(g, 1, "draw")
    do(g, 2, "draw")
    play(g, 0, "R+2")
    assert g.view(1)["counts"] == [0, 15, 13]
    assert g.outcome["winners"] == [0]
    assert g.outcome["points"] == [184 + 172, 0, 0]


def test_toll_going_out_on_toll_four_resolves_the_draw_without_a_challenge():
    g = shed_to_one(T, last="W+4", extra=["B0", "GR", "BR", "BR", "B+2", "B+2"])
    do(g, 1, "draw")
    do(g, 2, "draw")
    play(g, 0, "W+4", "Y")
    v = g.view(1)
    assert (v["counts"], v["phase"], v["pending"]) == ([0, 17, 13], "over", 0)
    assert g.outcome["winners"] == [0]
    assert g.outcome["points"] == [224 + 172, 0, 0]


def test_toll_is_one_round_only():
    with pytest.raises(ValueError):
        new_game("colormatch", table=T, players=3, seed=1, options={"mode": "match"})


def test_toll_blocked_round_lowest_points_wins():
    sets = [
        [c for c in NUMS if c != "B9"],  # 171 points, 35 cards
        [c for c in NUMS if c != "B9"] + ["G0"],  # 171 points, 36 cards: the tie goes to fewer
        ["B9", "B9", "Y0", "B0"] + ACTIONS + WILDS,  # 898 points, 36 cards
    ]
    o = block(blocked_deal(T, sets, first=1, top="R0"), first_passer=0)
    assert (o["reason"], o["winners"]) == ("blocked", [0])
    assert o["points"] == [171 + 898, 0, 0]


def test_toll_blocked_round_shared_win_splits_the_pot():
    sets = [
        list(NUMS),  # 180 points, 36 cards
        list(NUMS),  # 180 points, 36 cards
        ["Y0", "G0", "B0"] + ACTIONS + WILDS,  # 880 points, 35 cards
    ]
    o = block(blocked_deal(T, sets, first=0, top="R0"), first_passer=2)
    assert (o["reason"], o["winners"]) == ("blocked", [0, 1])
    assert o["points"] == [880, 880, 0]
