"""Scenario tests for the `standard` Color Match table (SPEC sections 3-5, seed 003).

Every test deals fixed hands with `deck=` (see `_rig_std.rig`) so the situation
is exact, acts through the public API only and asserts on views and outcomes.
"""

from __future__ import annotations

import pytest
from _rig_std import (
    ACTIONS,
    HAND1,
    HAND2,
    NUMS,
    QUIET,
    SHED,
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

T = "standard"

# Three hands that match nothing on a red 5 except where a test says so.
H0 = ["R1", "Y2", "G3", "B4", "Y6", "G7", "B8"]
H1 = ["Y1", "G2", "B3", "Y4", "G6", "B7", "Y8"]
H2 = ["G1", "B2", "Y3", "G4", "B6", "Y7", "G8"]


def plays(g, seat):
    return [a for a in g.legal_actions(seat) if a["type"] == "play"]


def types(g, seat):
    return sorted({a["type"] for a in g.legal_actions(seat)})


# ---------------------------------------------------------------- starters


def test_wild_draw_four_starter_goes_to_the_bottom_and_the_next_card_is_turned():
    g = game(T, [H0, H1], "W+4", ["R9", "B9"])
    v = g.view(0)
    assert (v["top"], v["color"], v["turn"], v["phase"]) == ("R9", "R", 0, "turn")
    assert v["discards"] == 1
    assert v["draw_pile"] == 108 - 14 - 1
    drawn = draw_out(g)
    assert len(drawn) == 93
    assert drawn[0] == "B9"
    assert drawn[-1] == "W+4"  # it went to the bottom of the draw pile


def test_skip_starter_skips_the_first_seat():
    g = game(T, [H0, H1, H2], "RS", first=0)
    v = g.view(0)
    assert v["turn"] == 1
    assert v["to_act"] == [1]
    assert v["counts"] == [7, 7, 7]
    assert g.legal_actions(0) == []


def test_reverse_starter_keeps_the_first_seat_first_and_turns_play_counterclockwise():
    g = game(T, [H0, H1, H2], "RR", first=0)
    v = g.view(0)
    assert (v["turn"], v["direction"]) == (0, -1)
    play(g, 0, "R1")
    assert g.view(0)["turn"] == 2


def test_draw_two_starter_makes_the_first_seat_draw_two_and_lose_the_turn():
    g = game(T, [H0, H1, H2], "R+2", ["G5", "B9"], first=0)
    v = g.view(0)
    assert v["counts"] == [9, 7, 7]
    assert v["hand"][-2:] == ["G5", "B9"]
    assert (v["turn"], v["pending"], v["phase"]) == (1, 0, "turn")
    assert v["color"] == "R"


def test_draw_two_starter_is_dealt_at_once_even_with_stacking():
    g = game(T, [H0, H1, H2], "R+2", ["G5", "B9"], first=0, options={"stacking": True})
    v = g.view(0)
    assert v["counts"] == [9, 7, 7]
    assert (v["turn"], v["pending"], v["phase"]) == (1, 0, "turn")


def test_wild_starter_lets_the_first_seat_name_the_color_then_play():
    g = game(T, [H0, H1, H2], "W", first=0)
    v = g.view(0)
    assert (v["phase"], v["to_act"], v["top"]) == ("color", [0], "W")
    assert g.legal_actions(0) == [{"type": "color", "color": c} for c in "RYGB"]
    with pytest.raises(IllegalAction):
        play(g, 0, "G3")
    do(g, 0, "color", color="G")
    v = g.view(0)
    assert (v["color"], v["turn"], v["phase"]) == ("G", 0, "turn")
    assert {a["card"] for a in plays(g, 0)} == {"G3", "G7"}
    play(g, 0, "G7")
    v = g.view(0)
    assert (v["top"], v["turn"], v["counts"]) == ("G7", 1, [6, 7, 7])


# ---------------------------------------------------------------- drawing


def test_draw_is_allowed_while_holding_a_play():
    g = game(T, [H0, H1, H2], "R5", ["B9"])
    assert {"type": "play", "card": "R1"} in g.legal_actions(0)
    assert {"type": "draw"} in g.legal_actions(0)
    do(g, 0, "draw")
    v = g.view(0)
    assert v["hand"][-1] == "B9"
    assert v["counts"] == [8, 7, 7]
    assert v["turn"] == 1  # B9 could not be played: the turn passed


def test_playable_drawn_card_may_be_played_at_once():
    g = game(T, [H0, H1, H2], "R5", ["R9"])
    do(g, 0, "draw")
    v = g.view(0)
    assert (v["phase"], v["turn"], v["drawn"]) == ("drawn", 0, "R9")
    assert g.legal_actions(0) == [{"type": "play", "card": "R9"}, {"type": "pass"}]
    with pytest.raises(IllegalAction):
        play(g, 0, "R1")  # only the drawn card may be played now
    play(g, 0, "R9")
    v = g.view(0)
    assert (v["top"], v["turn"], v["counts"]) == ("R9", 1, [7, 7, 7])


def test_playable_drawn_card_may_be_passed():
    g = game(T, [H0, H1, H2], "R5", ["R9"])
    do(g, 0, "draw")
    do(g, 0, "pass")
    v = g.view(0)
    assert (v["top"], v["turn"], v["phase"], v["counts"]) == ("R5", 1, "turn", [8, 7, 7])
    assert v["hand"][-1] == "R9"


def test_unplayable_drawn_card_passes_the_turn():
    g = game(T, [H0, H1, H2], "R5", ["G9"])
    do(g, 0, "draw")
    v = g.view(0)
    assert (v["turn"], v["phase"], v["counts"], v["top"]) == (1, "turn", [8, 7, 7], "R5")
    assert "drawn" not in v


def test_discards_are_reshuffled_into_the_draw_pile_when_it_runs_out():
    g = game(T, [["R1", "R2", "R3"] + H0[1:5], H1, H2], "R5", first=0)
    # Seats 1 and 2 hold nothing red and no 1-3: they draw while seat 0 plays.
    play(g, 0, "R1")
    do(g, 1, "draw")
    if g.view(1)["phase"] == "drawn":
        do(g, 1, "pass")
    assert g.view(0)["turn"] == 2
    do(g, 2, "draw")
    if g.view(2)["phase"] == "drawn":
        do(g, 2, "pass")
    play(g, 0, "R2")
    draw_out(g)
    v = g.view(0)
    assert (v["draw_pile"], v["discards"], v["top"]) == (0, 3, "R2")
    seat = v["turn"]
    before = g.view(seat)["counts"][seat]
    do(g, seat, "draw")
    w = g.view(seat)
    assert w["top"] == "R2"
    assert w["discards"] == 1
    assert w["draw_pile"] == 1  # R5 and R1 went back; one of them was drawn
    assert w["counts"][seat] == before + 1
    assert w["hand"][-1] in ("R5", "R1")
    assert any(e["type"] == "reshuffle" for e in w["events"])


def test_with_nothing_to_draw_a_player_may_only_play_or_pass():
    g = game(T, [H0, H1, H2], "R5")
    draw_out(g)
    v = g.view(0)
    assert (v["draw_pile"], v["discards"]) == (0, 1)
    seat = v["turn"]
    acts = g.legal_actions(seat)
    assert {"type": "pass"} in acts
    assert {"type": "draw"} not in acts
    assert {a["type"] for a in acts} == {"play", "pass"}
    with pytest.raises(IllegalAction):
        do(g, seat, "draw")
    do(g, seat, "pass")
    assert g.view(0)["turn"] == (seat + 1) % 3


# ---------------------------------------------------------------- action cards


def test_skip_makes_the_next_player_lose_the_turn():
    g = game(T, [["RS"] + H0[1:], H1, H2], "R5")
    play(g, 0, "RS")
    v = g.view(0)
    assert (v["turn"], v["counts"], v["color"]) == (2, [6, 7, 7], "R")


def test_reverse_with_two_players_acts_like_skip():
    g = game(T, [["RR"] + H0[1:], H1], "R5")
    play(g, 0, "RR")
    v = g.view(0)
    assert (v["turn"], v["counts"]) == (0, [6, 7])
    assert g.legal_actions(1) == []


def test_reverse_with_three_players_turns_play_counterclockwise():
    g = game(T, [["RR"] + H0[1:], H1, H2], "R5")
    play(g, 0, "RR")
    v = g.view(0)
    assert (v["turn"], v["direction"]) == (2, -1)


def test_draw_two_makes_the_next_player_draw_two_and_lose_the_turn():
    g = game(T, [["R+2"] + H0[1:], H1, H2], "R5", ["G9", "B5"])
    play(g, 0, "R+2")
    v = g.view(1)
    assert v["counts"] == [6, 9, 7]
    assert v["hand"][-2:] == ["G9", "B5"]
    assert (v["turn"], v["pending"], v["top"]) == (2, 0, "R+2")


# ---------------------------------------------------------------- +4 Wild

W4_CLEAN = ["W+4", "Y1", "Y2", "G3", "B4", "Y9", "G6"]  # no red: a legal +4 (Y9 only matches the 9)
W4_GUILTY = ["W+4", "R1", "Y2", "G3", "B4", "Y5", "G6"]  # holds red: a bluff


def test_wild_draw_four_bluff_is_legal():
    g = game(T, [W4_GUILTY, H1, H2], "R9")
    assert [a for a in plays(g, 0) if a["card"] == "W+4"] == [
        {"type": "play", "card": "W+4", "color": c} for c in "RYGB"
    ]


def test_wild_draw_four_opens_a_decision_for_the_next_player():
    g = game(T, [W4_CLEAN, H1, H2], "R9")
    play(g, 0, "W+4", "G")
    v = g.view(1)
    assert (v["turn"], v["phase"], v["pending"], v["color"], v["top"]) == (
        1,
        "challenge",
        4,
        "G",
        "W+4",
    )
    assert v["to_act"] == [1]
    assert g.legal_actions(1) == [{"type": "accept"}, {"type": "challenge"}]
    before = views(g)
    for wrong in ({"type": "draw"}, {"type": "play", "card": "G2"}, {"type": "pass"}):
        with pytest.raises(IllegalAction):
            g.act(1, wrong)
    assert views(g) == before


def test_wild_draw_four_accept_draws_four_and_loses_the_turn():
    g = game(T, [W4_CLEAN, H1, H2], "R9", ["B1", "B2", "B3", "B4"])
    play(g, 0, "W+4", "G")
    do(g, 1, "accept")
    v = g.view(1)
    assert v["counts"] == [6, 11, 7]
    assert v["hand"][-4:] == ["B1", "B2", "B3", "B4"]
    assert (v["turn"], v["phase"], v["pending"], v["color"]) == (2, "turn", 0, "G")


def test_wild_draw_four_challenge_succeeds_when_player_held_active_color():
    g = game(T, [W4_GUILTY, H1, H2], "R9", ["B1", "B2", "B3", "B4"])
    play(g, 0, "W+4", "G")
    do(g, 1, "challenge")
    v = g.view(0)
    assert v["counts"] == [10, 7, 7]
    assert v["hand"][-4:] == ["B1", "B2", "B3", "B4"]
    assert (v["turn"], v["phase"], v["pending"], v["color"]) == (1, "turn", 0, "G")
    assert {a["card"] for a in plays(g, 1)} == {"G2", "G6"}  # the challenger plays its turn


def test_wild_draw_four_challenge_fails_when_player_held_no_active_color():
    g = game(T, [W4_CLEAN, H1, H2], "R9", ["B1", "B2", "B3", "B4", "B5", "B6"])
    play(g, 0, "W+4", "G")
    do(g, 1, "challenge")
    v = g.view(1)
    assert v["counts"] == [6, 13, 7]
    assert v["hand"][-6:] == ["B1", "B2", "B3", "B4", "B5", "B6"]
    assert (v["turn"], v["phase"], v["pending"], v["color"]) == (2, "turn", 0, "G")


def test_wild_draw_four_challenge_judges_the_named_active_color():
    # Wild starter, seat 0 names blue, then plays +4 while holding B4: a bluff
    g = game(T, [W4_GUILTY, H1, H2], "W", ["G9", "G8", "G7", "G5"])
    do(g, 0, "color", color="B")
    play(g, 0, "W+4", "Y")
    do(g, 1, "challenge")
    v = g.view(0)
    assert v["counts"] == [10, 7, 7]
    assert (v["turn"], v["phase"], v["color"]) == (1, "turn", "Y")


def test_wild_draw_four_challenge_shows_the_challenged_hand_to_the_challenger_only():
    g = game(T, [W4_GUILTY, H1, H2], "R9", ["B1", "B2", "B3", "B4"])
    play(g, 0, "W+4", "Y")
    for s in range(3):
        assert "shown" not in g.view(s)
    do(g, 1, "challenge")
    assert g.view(1)["shown"] == {"seat": 0, "hand": ["R1", "Y2", "G3", "B4", "Y5", "G6"]}
    assert "shown" not in g.view(0)
    assert "shown" not in g.view(2)
    play(g, 1, "Y1")
    assert "shown" not in g.view(1)


def test_failed_challenge_also_shows_the_hand_to_the_challenger():
    g = game(T, [W4_CLEAN, H1, H2], "R9")
    play(g, 0, "W+4", "G")
    do(g, 1, "challenge")
    assert g.view(1)["shown"] == {"seat": 0, "hand": ["Y1", "Y2", "G3", "B4", "Y9", "G6"]}
    assert "shown" not in g.view(0)
    assert "shown" not in g.view(2)


# ---------------------------------------------------------------- last card


def test_last_card_window_opens_after_playing_the_second_to_last_card():
    g = shed_to_one(T)
    v = g.view(2)
    assert v["counts"] == [1, 12, 12]
    assert v["windows"] == [{"seat": 0, "call": True, "catch": True}]
    assert v["to_act"] == [0, 1, 2]
    assert g.legal_actions(0) == [{"type": "call"}]
    assert {"type": "catch", "seat": 0} in g.legal_actions(1)
    assert g.legal_actions(2) == [{"type": "catch", "seat": 0}]


def test_last_card_call_closes_the_window():
    g = shed_to_one(T)
    do(g, 0, "call")
    v = g.view(0)
    assert v["windows"] == []
    assert v["to_act"] == [1]
    assert v["counts"] == [1, 12, 12]


def test_last_card_catch_after_a_call_is_illegal():
    g = shed_to_one(T)
    do(g, 0, "call")
    before = views(g)
    with pytest.raises(IllegalAction):
        do(g, 2, "catch", seat=0)
    assert views(g) == before


def test_last_card_catch_makes_the_caught_player_draw_two():
    g = shed_to_one(T, extra=["B0", "BR"])
    do(g, 2, "catch", seat=0)
    v = g.view(0)
    assert v["hand"] == ["R7", "B0", "BR"]
    assert v["counts"] == [3, 12, 12]
    assert v["windows"] == []
    assert (v["turn"], v["to_act"]) == (1, [1])


def test_last_card_window_closes_without_penalty_on_the_next_players_action():
    g = shed_to_one(T, extra=["B0"])
    do(g, 1, "draw")
    v = g.view(0)
    assert v["windows"] == []
    assert v["counts"] == [1, 13, 12]
    with pytest.raises(IllegalAction):
        do(g, 2, "catch", seat=0)
    assert g.view(0)["counts"] == [1, 13, 12]


# ---------------------------------------------------------------- going out and scoring


def test_round_winner_scores_the_cards_left_in_the_other_hands():
    # seat 1: W 50 + W+4 50 + Y7 7 + YS 20 + YR 20 + Y+2 20 + Y0 0 = 167, draws Y7 G7 B7 YS BS = 61, B0 = 0
    # seat 2: 85 in hand, draws Y9 G9 B9 GS YR = 67, GR = 20
    hand1 = ["W", "W+4", "Y7", "YS", "YR", "Y+2", "Y0"]
    g = shed_to_one(T, hand1=hand1, extra=["B0", "GR"])
    do(g, 1, "draw")
    do(g, 2, "draw")
    play(g, 0, "R7")
    o = g.outcome
    assert o is not None
    assert o["winners"] == [0]
    assert o["reason"] == "out"
    assert o["points"] == [228 + 172, 0, 0]
    assert [len(h) for h in o["hands"]] == [0, 13, 13]
    assert g.view(1)["phase"] == "over"
    assert g.to_act == []
    assert g.legal_actions(1) == []


def test_going_out_on_draw_two_resolves_the_draw_then_scores():
    g = shed_to_one(T, last="R+2", extra=["B0", "GR", "BR", "BR"])
    do(g, 1, "draw")
    do(g, 2, "draw")
    play(g, 0, "R+2")
    v = g.view(1)
    assert v["counts"] == [0, 15, 13]
    assert v["hand"][-2:] == ["BR", "BR"]
    o = g.outcome
    assert o["winners"] == [0]
    assert o["reason"] == "out"
    # seat 1: 144 + B0 0 + BR BR 40; seat 2: 152 + GR 20
    assert o["points"] == [184 + 172, 0, 0]


def test_going_out_on_wild_draw_four_resolves_the_draw_without_a_challenge():
    g = shed_to_one(T, last="W+4", extra=["B0", "GR", "BR", "BR", "B+2", "B+2"])
    do(g, 1, "draw")
    do(g, 2, "draw")
    play(g, 0, "W+4", "G")
    v = g.view(1)
    assert v["counts"] == [0, 17, 13]
    assert v["phase"] == "over"
    assert v["pending"] == 0
    o = g.outcome
    assert o["winners"] == [0]
    assert o["points"] == [224 + 172, 0, 0]


def test_single_round_is_the_default():
    g = shed_to_one(T, extra=["B0", "GR"])
    v = g.view(0)
    assert (v["mode"], v["target"], v["round"]) == ("single", 0, 1)
    do(g, 1, "draw")
    do(g, 2, "draw")
    play(g, 0, "R7")
    assert g.outcome["points"] == [144 + 172, 0, 0]
    assert g.outcome["rounds"] == 1
    assert g.view(0)["scores"] == [316, 0, 0]


def _finish_round_one(options):
    g = shed_to_one(T, extra=["B0", "GR"], options=options)
    do(g, 1, "draw")
    do(g, 2, "draw")
    return g, play(g, 0, "R7")


def test_match_to_500_carries_totals_and_deals_again():
    g, events = _finish_round_one({"mode": "match"})
    assert g.outcome is None
    over = [e for e in events if e["type"] == "round_over"]
    assert [(e["winners"], e["points"]) for e in over] == [([0], [316, 0, 0])]
    deal = [e for e in events if e["type"] == "deal"]
    assert [(e["round"], e["first"]) for e in deal] == [(2, 1)]
    v = g.view(0)
    assert (v["mode"], v["target"], v["round"], v["scores"]) == ("match", 500, 2, [316, 0, 0])
    assert len(v["hand"]) >= 7
    assert sum(v["counts"]) + v["draw_pile"] + v["discards"] == 108
    assert v["phase"] != "over"
    # Play round two out and check the totals add up.
    got = []
    for _ in range(3000):
        if g.view(0)["round"] != 2 or g.outcome is not None:
            break
        seat = g.view(0)["turn"]
        acts = g.legal_actions(seat)
        pick = next((a for a in acts if a["type"] == "play"), acts[0])
        got += g.act(seat, pick)
    two = [e for e in got if e["type"] == "round_over"]
    assert len(two) == 1
    totals = [a + b for a, b in zip([316, 0, 0], two[0]["points"], strict=True)]
    assert sum(two[0]["points"]) > 0
    if g.outcome is None:
        assert g.view(0)["scores"] == totals
    else:
        assert g.outcome["points"] == totals


def test_target_option_alone_plays_a_match_to_that_target():
    g, _ = _finish_round_one({"target": 400})
    assert g.outcome is None
    v = g.view(0)
    assert (v["mode"], v["target"], v["round"], v["scores"]) == ("match", 400, 2, [316, 0, 0])


def test_match_ends_when_a_total_reaches_the_target():
    g, _ = _finish_round_one({"mode": "match", "target": 300})
    o = g.outcome
    assert o is not None
    assert (o["winners"], o["points"], o["rounds"]) == ([0], [316, 0, 0], 1)
    assert g.view(2)["scores"] == [316, 0, 0]


# ---------------------------------------------------------------- blocked round


def test_blocked_round_lowest_points_wins():
    sets = [
        list(NUMS),  # 180 points, 36 cards
        [c for c in NUMS if c != "R1"] + ["Y0"],  # 179 points, 36 cards
        ["R1", "G0", "B0"] + ACTIONS + WILDS,  # 881 points, 35 cards
    ]
    g = blocked_deal(T, sets, first=0, top="R0")
    o = block(g, first_passer=2)
    assert o["reason"] == "blocked"
    assert o["winners"] == [1]
    assert o["points"] == [0, 180 + 881, 0]


def test_blocked_round_tie_goes_to_fewer_cards():
    sets = [
        [c for c in NUMS if c != "B9"],  # 171 points, 35 cards
        [c for c in NUMS if c != "B9"] + ["G0"],  # 171 points, 36 cards
        ["B9", "B9", "Y0", "B0"] + ACTIONS + WILDS,  # 898 points, 36 cards
    ]
    g = blocked_deal(T, sets, first=1, top="R0")
    o = block(g, first_passer=0)
    assert o["reason"] == "blocked"
    assert o["winners"] == [0]
    assert o["points"] == [171 + 898, 0, 0]


def test_blocked_round_still_tied_players_share_the_win():
    sets = [
        list(NUMS),  # 180 points, 36 cards
        list(NUMS),  # 180 points, 36 cards
        ["Y0", "G0", "B0"] + ACTIONS + WILDS,  # 880 points, 35 cards
    ]
    g = blocked_deal(T, sets, first=0, top="R0")
    o = block(g, first_passer=2)
    assert o["reason"] == "blocked"
    assert o["winners"] == [0, 1]
    assert o["points"] == [880, 880, 0]


def _drawn_out_shared_deal(options=None):
    sets = [list(NUMS), list(NUMS), ["Y0", "G0", "B0"] + ACTIONS + WILDS]
    g = blocked_deal(T, sets, first=0, top="R0", options=options)
    draw_out(g)
    assert g.view(0)["turn"] == 2
    return g


def test_penalty_with_too_few_cards_to_draw_takes_what_there_is_and_the_rest_lapses():
    g = _drawn_out_shared_deal()
    play(g, 2, "R+2")  # only R0, under the top, can still be drawn
    v = g.view(0)
    assert v["counts"] == [37, 36, 34]
    assert v["hand"][-1] == "R0"
    assert (v["turn"], v["pending"], v["draw_pile"], v["discards"], v["top"]) == (1, 0, 0, 1, "R+2")


def test_stacked_pile_with_too_few_cards_to_draw_takes_what_there_is_and_the_rest_lapses():
    g = _drawn_out_shared_deal({"stacking": True})
    play(g, 2, "R+2")
    v = g.view(0)
    assert (v["phase"], v["pending"], v["turn"]) == ("pile", 2, 0)
    assert g.legal_actions(0) == [{"type": "draw"}]
    do(g, 0, "draw")
    v = g.view(0)
    assert v["counts"] == [37, 36, 34]
    assert (v["turn"], v["pending"], v["phase"]) == (1, 0, "turn")


# ---------------------------------------------------------------- stacking

S0 = ["R+2", "W+4", "R1", "Y2", "G3", "B4", "Y6"]
S1 = ["Y+2", "W+4", "Y1", "G2", "B3", "Y4", "G6"]
S2 = ["G+2", "W+4", "G1", "B2", "Y3", "G4", "B6"]
STACK = {"stacking": True}


def test_stacking_draw_two_on_draw_two_grows_the_pile():
    g = game(T, [S0, S1, S2], "R5", ["B1", "B2", "B3", "B4"], options=STACK)
    play(g, 0, "R+2")
    v = g.view(1)
    assert (v["turn"], v["phase"], v["pending"], v["counts"]) == (1, "pile", 2, [6, 7, 7])
    assert g.legal_actions(1) == [{"type": "play", "card": "Y+2"}, {"type": "draw"}]
    play(g, 1, "Y+2")
    v = g.view(2)
    assert (v["turn"], v["phase"], v["pending"]) == (2, "pile", 4)
    do(g, 2, "draw")
    v = g.view(2)
    assert v["counts"] == [6, 6, 11]
    assert v["hand"][-4:] == ["B1", "B2", "B3", "B4"]
    assert (v["turn"], v["phase"], v["pending"]) == (0, "turn", 0)


def test_stacking_wild_draw_four_on_wild_draw_four_grows_the_pile():
    g = game(T, [S0, S1, S2], "R5", ["B1", "B2", "B3", "B4", "B5", "B6", "B7", "B8"], options=STACK)
    play(g, 0, "W+4", "G")
    assert g.legal_actions(1) == [{"type": "accept"}, {"type": "challenge"}] + [
        {"type": "play", "card": "W+4", "color": c} for c in "RYGB"
    ]
    play(g, 1, "W+4", "B")
    v = g.view(2)
    assert (v["turn"], v["phase"], v["pending"], v["color"]) == (2, "challenge", 8, "B")
    do(g, 2, "accept")
    v = g.view(2)
    assert v["counts"] == [6, 6, 15]
    assert (v["turn"], v["pending"]) == (0, 0)


def test_stacking_only_a_lone_wild_draw_four_can_be_challenged():
    g = game(T, [S0, S1, S2], "R5", options=STACK)
    play(g, 0, "W+4", "G")
    play(g, 1, "W+4", "B")
    assert {"type": "challenge"} not in g.legal_actions(2)
    before = views(g)
    with pytest.raises(IllegalAction) as e:
        do(g, 2, "challenge")
    assert e.value.reason
    assert views(g) == before


def test_stacking_never_mixes_draw_two_and_wild_draw_four():
    g = game(T, [S0, S1, S2], "R5", options=STACK)
    play(g, 0, "R+2")
    assert {"type": "play", "card": "W+4", "color": "R"} not in g.legal_actions(1)
    with pytest.raises(IllegalAction):
        play(g, 1, "W+4", "R")
    g = game(T, [S0, S1, S2], "R5", options=STACK)
    play(g, 0, "W+4", "Y")
    assert {"type": "play", "card": "Y+2"} not in g.legal_actions(1)
    with pytest.raises(IllegalAction):
        play(g, 1, "Y+2")


def test_going_out_on_a_stacked_draw_two_deals_the_whole_pile_then_scores():
    g = shed_to_one(T, last="R+2", extra=["R+2", "B1", "B2", "B3", "B4", "B5", "B6"], options=STACK)
    do(g, 1, "draw")
    play(g, 1, "R+2")  # the drawn card, played at once
    play(g, 2, "G+2")
    assert (g.view(0)["phase"], g.view(0)["pending"]) == ("pile", 4)
    play(g, 0, "R+2")
    v = g.view(1)
    assert v["counts"] == [0, 18, 11]
    assert v["hand"][-6:] == ["B1", "B2", "B3", "B4", "B5", "B6"]
    o = g.outcome
    assert (o["winners"], o["reason"]) == ([0], "out")
    # seat 1: 144 + B1..B6 (21); seat 2: 152 - G+2 (20)
    assert o["points"] == [165 + 132, 0, 0]


def test_without_stacking_draw_two_cannot_be_answered():
    g = game(T, [S0, S1, S2], "R5", ["B1", "B2"])
    play(g, 0, "R+2")
    v = g.view(1)
    assert v["counts"] == [6, 9, 7]
    assert (v["turn"], v["pending"]) == (2, 0)


# ---------------------------------------------------------------- jump-in

JUMP = {"jump_in": True}


def test_jump_in_identical_card_out_of_turn_and_play_continues_from_the_jumper():
    hands = [["G5"] + H0[1:], H1, ["G5"] + H2[1:], ["R1", "R2", "Y5", "B6", "Y9", "B9", "G9"]]
    g = game(T, hands, "R5", options=JUMP)
    play(g, 0, "G5")
    v = g.view(2)
    assert v["turn"] == 1
    assert v["to_act"] == [1, 2]
    assert g.legal_actions(2) == [{"type": "play", "card": "G5"}]
    play(g, 2, "G5")
    v = g.view(2)
    assert (v["top"], v["turn"], v["counts"]) == ("G5", 3, [6, 7, 6, 7])
    assert g.legal_actions(1) == []


def test_jump_in_card_effect_applies_from_the_jumper():
    hands = [["RS"] + H0[1:], H1, H2, ["RS", "R2", "Y5", "B6", "Y9", "B9", "G9"]]
    g = game(T, hands, "R5", options=JUMP)
    play(g, 0, "RS")
    assert g.view(0)["turn"] == 2
    play(g, 3, "RS")  # jumps in: the skip now skips seat 0
    v = g.view(0)
    assert (v["turn"], v["counts"]) == (1, [6, 7, 7, 6])


def test_jump_in_needs_identical_color_and_symbol():
    hands = [["G5"] + H0[1:], H1, ["Y5", "G1", "B2", "Y3", "G4", "B6", "Y7"]]
    g = game(T, hands, "R5", options=JUMP)
    play(g, 0, "G5")
    assert g.legal_actions(2) == []
    assert g.view(0)["to_act"] == [1]
    with pytest.raises(IllegalAction):
        play(g, 2, "Y5")


def test_jump_in_is_off_by_default():
    hands = [["G5"] + H0[1:], H1, ["G5"] + H2[1:]]
    g = game(T, hands, "R5")
    play(g, 0, "G5")
    assert g.legal_actions(2) == []
    with pytest.raises(IllegalAction):
        play(g, 2, "G5")


def test_jump_in_not_while_a_pile_waits():
    hands = [["R+2"] + H0[1:], H1, ["R+2"] + H2[1:]]
    g = game(T, hands, "R5", options={"jump_in": True, "stacking": True})
    play(g, 0, "R+2")
    assert g.view(0)["pending"] == 2
    assert g.legal_actions(2) == []
    assert g.view(0)["to_act"] == [1]
    with pytest.raises(IllegalAction):
        play(g, 2, "R+2")


def test_jump_in_not_onto_a_wild():
    hands = [["W"] + H0[1:], H1, ["W"] + H2[1:]]
    g = game(T, hands, "R5", options=JUMP)
    play(g, 0, "W", "R")
    assert g.legal_actions(2) == []
    with pytest.raises(IllegalAction):
        play(g, 2, "W", "R")


def test_jump_in_not_while_a_wild_draw_four_decision_waits():
    hands = [["W+4"] + H0[1:], H1, ["W+4"] + H2[1:]]
    g = game(T, hands, "R5", options={"jump_in": True, "stacking": True})
    play(g, 0, "W+4", "G")
    assert g.view(0)["phase"] == "challenge"
    assert g.legal_actions(2) == []
    with pytest.raises(IllegalAction):
        play(g, 2, "W+4", "G")


# ---------------------------------------------------------------- 7-0

SEVEN_O = {"seven_o": True}


def test_seven_swaps_hands_with_the_chosen_seat():
    h0 = ["R7", "Y2", "G3", "B4", "Y6", "G7", "B8"]
    g = game(T, [h0, H1, H2], "R5", options=SEVEN_O)
    assert [a for a in plays(g, 0) if a["card"] == "R7"] == [
        {"type": "play", "card": "R7", "swap_with": 1},
        {"type": "play", "card": "R7", "swap_with": 2},
    ]
    play(g, 0, "R7", swap_with=2)
    assert g.view(0)["hand"] == H2
    assert g.view(2)["hand"] == h0[1:]
    assert g.view(1)["hand"] == H1
    v = g.view(1)
    assert (v["top"], v["turn"], v["counts"]) == ("R7", 1, [7, 7, 6])


def test_seven_needs_a_seat_to_swap_with_under_seven_o():
    h0 = ["R7", "Y2", "G3", "B4", "Y6", "G7", "B8"]
    g = game(T, [h0, H1, H2], "R5", options=SEVEN_O)
    for bad in ({"type": "play", "card": "R7"}, {"type": "play", "card": "R7", "swap_with": 0}):
        before = views(g)
        with pytest.raises(IllegalAction):
            g.act(0, bad)
        assert views(g) == before


def test_zero_passes_every_hand_on_in_the_direction_of_play():
    h0 = ["R0", "Y2", "G3", "B4", "Y6", "G7", "B8"]
    g = game(T, [h0, H1, H2], "R5", options=SEVEN_O)
    play(g, 0, "R0")
    assert g.view(1)["hand"] == h0[1:]
    assert g.view(2)["hand"] == H1
    assert g.view(0)["hand"] == H2
    v = g.view(0)
    assert (v["top"], v["turn"], v["counts"]) == ("R0", 1, [7, 6, 7])


def test_zero_passes_hands_counterclockwise_after_a_reverse():
    h0 = ["R0", "Y2", "G3", "B4", "Y6", "G7", "B8"]
    g = game(T, [h0, H1, H2], "RR", options=SEVEN_O)  # Reverse starter: direction -1
    play(g, 0, "R0")
    assert g.view(2)["hand"] == h0[1:]
    assert g.view(1)["hand"] == H2
    assert g.view(0)["hand"] == H1
    assert g.view(0)["turn"] == 2


def test_seven_and_zero_do_nothing_special_without_seven_o():
    h0 = ["R7", "R0", "G3", "B4", "Y6", "G7", "B8"]
    g = game(T, [h0, H1, H2], "R5")
    assert {"type": "play", "card": "R7"} in g.legal_actions(0)
    assert not any("swap_with" in a for a in g.legal_actions(0))
    play(g, 0, "R7")
    assert [g.view(s)["hand"] for s in range(3)] == [h0[1:], H1, H2]


def test_seven_swap_that_leaves_the_player_one_card_opens_its_last_card_window():
    # decisions.md 8: the window follows the player's hand after any 7-0 swap
    h0 = ["R1", "R2", "R3", "R4", "R6", "R7", "G9"]
    h2 = ["R1", "R2", "R3", "R4", "R6", "R8", "B0"]
    g = game(T, [h0, HAND1, h2], "R5", QUIET[:7], options=SEVEN_O)
    do(g, 0, "draw")  # Y7: seat 0 now trails seat 2 by one card
    do(g, 1, "draw")
    play(g, 2, "R1")
    for mine, theirs in (("R1", "R2"), ("R2", "R3"), ("R3", "R4"), ("R4", "R6"), ("R6", "R8")):
        play(g, 0, mine)
        do(g, 1, "draw")
        play(g, 2, theirs)
    v = g.view(0)
    assert (v["counts"], v["turn"]) == ([3, 13, 1], 0)
    assert v["windows"] == [{"seat": 2, "call": True, "catch": True}]
    play(g, 0, "R7", swap_with=2)
    v = g.view(0)
    assert v["hand"] == ["B0"]
    assert g.view(2)["hand"] == ["G9", "Y7"]
    assert v["windows"] == [{"seat": 0, "call": True, "catch": True}]
    do(g, 2, "catch", seat=0)
    assert g.view(0)["counts"] == [3, 13, 2]


def test_seven_swap_that_hands_over_the_last_card_opens_no_window():
    h0 = ["R1", "R2", "R3", "R4", "R6", "R7", "B0"]
    g = game(T, [h0, HAND1, HAND2], "R5", QUIET, options=SEVEN_O)
    for card in ("R1", "R2", "R3", "R4", "R6"):
        play(g, 0, card)
        do(g, 1, "draw")
        do(g, 2, "draw")
    assert g.view(0)["counts"] == [2, 12, 12]
    play(g, 0, "R7", swap_with=1)
    v = g.view(0)
    assert (v["counts"], v["windows"], v["to_act"]) == ([12, 1, 12], [], [1])
    assert g.view(1)["hand"] == ["B0"]


@pytest.mark.parametrize("last", ["R7", "R0"])
def test_seven_or_zero_as_the_last_card_does_nothing(last):
    assert last not in SHED
    g = shed_to_one(T, last=last, extra=["B0", "GR"], options=SEVEN_O)
    do(g, 1, "draw")
    do(g, 2, "draw")
    assert plays(g, 0) == [{"type": "play", "card": last}]
    h1, h2 = g.view(1)["hand"], g.view(2)["hand"]
    play(g, 0, last)
    o = g.outcome
    assert o["winners"] == [0]
    assert o["hands"] == [[], h1, h2]
    assert o["points"] == [144 + 172, 0, 0]


# ---------------------------------------------------------------- bad input


def _bad_input_game(table):
    # seat 0 to act on a red 5, holding a Wild, a red 1 and nothing else playable
    h0 = ["W", "R1", "Y2", "G3", "B4", "Y6", "G7"]
    return game(table, [h0, H1, H2], "R5")


BAD = [
    ("unknown type", 0, {"type": "fly"}),
    ("no type", 0, {"card": "R1"}),
    ("card not held", 0, {"type": "play", "card": "G9"}),
    ("not a card", 0, {"type": "play", "card": "Z9"}),
    ("wrong seat", 1, {"type": "play", "card": "Y1"}),
    ("wrong seat draws", 2, {"type": "draw"}),
    ("seat out of range", 3, {"type": "draw"}),
    ("negative seat", -1, {"type": "draw"}),
    ("seat not an int", "0", {"type": "draw"}),
    ("wild without color", 0, {"type": "play", "card": "W"}),
    ("wild with bad color", 0, {"type": "play", "card": "W", "color": "P"}),
    ("wild with lowercase color", 0, {"type": "play", "card": "W", "color": "g"}),
    ("color on a non-wild", 0, {"type": "play", "card": "R1", "color": "R"}),
    ("unmatched card", 0, {"type": "play", "card": "G3"}),
    ("action a string", 0, "draw"),
    ("action a list", 0, ["draw"]),
    ("action None", 0, None),
    ("catch with no window", 1, {"type": "catch", "seat": 0}),
    ("call with no window", 0, {"type": "call"}),
    ("accept with no decision", 0, {"type": "accept"}),
    ("challenge with no decision", 1, {"type": "challenge"}),
    ("color outside a color phase", 0, {"type": "color", "color": "G"}),
    ("swap_with on a non-seven", 0, {"type": "play", "card": "R1", "swap_with": 1}),
    ("expire with nothing to expire", 0, {"type": "expire", "penalty": True}),
    ("expire with a bad penalty", 0, {"type": "expire", "penalty": "yes"}),
    ("card not a string", 0, {"type": "play", "card": 5}),
    ("card unhashable", 0, {"type": "play", "card": ["R1"]}),
    ("type unhashable", 0, {"type": ["draw"]}),
]


@pytest.mark.parametrize("table", ["standard", "toll", "cards"])
@pytest.mark.parametrize(("name", "seat", "action"), BAD, ids=[b[0] for b in BAD])
def test_bad_input_raises_illegal_action_and_changes_nothing(table, name, seat, action):
    g = _bad_input_game(table)
    before = views(g)
    legal = [g.legal_actions(s) for s in range(3)]
    with pytest.raises(IllegalAction) as e:
        g.act(seat, action)
    assert isinstance(e.value.reason, str) and e.value.reason.strip()
    assert str(e.value).strip()
    assert views(g) == before
    assert [g.legal_actions(s) for s in range(3)] == legal
    assert g.to_act == [0]
    # the game still plays on normally
    play(g, 0, "R1")
    assert g.view(0)["turn"] == 1


def test_an_action_after_the_game_is_over_is_illegal():
    g = shed_to_one(T, extra=["B0", "GR"])
    do(g, 1, "draw")
    do(g, 2, "draw")
    play(g, 0, "R7")
    before = views(g)
    with pytest.raises(IllegalAction) as e:
        do(g, 1, "draw")
    assert e.value.reason
    assert views(g) == before


def test_unknown_option_is_refused_at_new_game():
    with pytest.raises(ValueError):
        new_game("colormatch", table=T, players=3, seed=1, options={"strict_wild4": True})
