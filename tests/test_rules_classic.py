"""Scenario tests for the Classic Table (`classic`, SPEC sections 4 and 5, seed 001).

Every test deals fixed hands with `deck=` (see `_rig_classic.rig`) and seat 0
moves first, so the situation is exact; each test is named for the rule it
checks and asserts through `view` keys and `outcome`.
"""

from __future__ import annotations

import pytest
from _rig_classic import draw_turn, game, moves, play, play_all, views, wild

from lanmatch.rules import IllegalAction
from lanmatch.rules.cards import classic_deck

GREENS = ["G1", "G2", "G3", "G4", "G6", "G7", "G8"]  # 31 points, matches nothing red


def points(card: str) -> int:
    """SPEC section 4: numbers face value, colored action cards 20, wilds 50."""
    if card[0] == "W":
        return 50
    return int(card[1:]) if card[1:].isdigit() else 20


# Two players, top R5: seat 0 keeps the turn with Skips and Reverses (a Reverse with
# two players acts like a Skip) down to one card, a yellow or a wild it then plays.
OUT_HAND = ["RS", "RS", "RR", "RR", "YR", "YS"]
OUT_PLAYS = [(0, c) for c in OUT_HAND]


# ---------------------------------------------------------------- starter


def test_starter_is_always_a_number_non_numbers_go_to_the_bottom():
    hands = [["R1", "R2", "R3", "R4", "R5", "R6", "R7"], ["Y1", "Y2", "Y3", "Y4", "Y5", "Y6", "Y7"]]
    g = game("classic", hands, "RS", ["W+4", "G4", "B7"])
    v = g.view(0)
    assert (v["top"], v["color"], v["discards"]) == ("G4", "G", 1)
    assert v["draw_pile"] == 112 - 14 - 1
    drawn = []
    while g.view(0)["draw_pile"]:
        seat = g.to_act[0]
        draw_turn(g, seat)
        drawn.append(g.view(seat)["hand"][-1])
    assert len(drawn) == 97
    assert drawn[0] == "B7"
    assert drawn[-2:] == ["RS", "W+4"]  # moved under the pile, in the order they were turned


# ------------------------------------------------------------------ wilds


def test_wild_and_wild_draw_four_are_playable_on_any_turn():
    hands = [["W", "W+4", "R7", "Y1", "G3", "B4", "B6"], GREENS]
    g = game("classic", hands, "R5")
    # both wilds are offered even though R7 matches (no +4 restriction, no challenge)
    assert moves(g, 0) == wild("W") | wild("W+4") | {"play R7", "draw"}
    play(g, 0, "W+4", "B")
    v = g.view(1)
    assert (v["top"], v["color"], v["pending"], v["pending_kind"]) == ("W+4", "B", 4, "+4")
    assert moves(g, 1) == {"draw"}  # no challenge at this table


# ---------------------------------------------------------------- drawing


def test_draw_is_allowed_with_a_play_and_takes_exactly_one_card():
    hands = [["R7", "Y1", "Y2", "G3", "G4", "B4", "B6"], GREENS]
    g = game("classic", hands, "R5", ["B9", "B8"])
    assert moves(g, 0) == {"play R7", "draw"}
    g.act(0, {"type": "draw"})
    v = g.view(0)
    assert v["counts"] == [8, 7]
    assert v["hand"] == hands[0] + ["B9"]
    assert v["draw_pile"] == 112 - 14 - 1 - 1


def test_unplayable_drawn_card_passes_the_turn():
    hands = [["R7", "Y1", "Y2", "G3", "G4", "B4", "B6"], GREENS]
    g = game("classic", hands, "R5", ["B9"])
    g.act(0, {"type": "draw"})
    v = g.view(1)
    assert (v["to_act"], v["turn"], v["phase"]) == ([1], 1, "turn")
    assert (v["top"], v["counts"]) == ("R5", [8, 7])


def test_playable_drawn_card_offers_play_or_keep():
    hands = [["R7", "Y1", "Y2", "G3", "G4", "B4", "B6"], GREENS]
    g = game("classic", hands, "R5", ["R9"])
    g.act(0, {"type": "draw"})
    v = g.view(0)
    assert (v["phase"], v["to_act"], v["drawn"]) == ("drawn", [0], "R9")
    # only the drawn card, not R7, and the verb is keep (not pass)
    assert moves(g, 0) == {"play R9", "keep"}


def test_playable_drawn_card_can_be_played_at_once():
    hands = [["R7", "Y1", "Y2", "G3", "G4", "B4", "B6"], GREENS]
    g = game("classic", hands, "R5", ["R9"])
    g.act(0, {"type": "draw"})
    play(g, 0, "R9")
    v = g.view(0)
    assert (v["top"], v["counts"], v["to_act"]) == ("R9", [7, 7], [1])
    assert v["hand"] == hands[0]


def test_keeping_a_playable_drawn_card_ends_the_turn():
    hands = [["R7", "Y1", "Y2", "G3", "G4", "B4", "B6"], GREENS]
    g = game("classic", hands, "R5", ["R9"])
    g.act(0, {"type": "draw"})
    g.act(0, {"type": "keep"})
    v = g.view(0)
    assert (v["top"], v["counts"], v["to_act"], v["phase"]) == ("R5", [8, 7], [1], "turn")
    assert v["hand"] == hands[0] + ["R9"]


def test_host_expire_in_the_drawn_phase_plays_the_drawn_card():
    hands = [["R7", "Y1", "Y2", "G3", "G4", "B4", "B6"], GREENS]
    g = game("classic", hands, "R5", ["R9"])
    g.act(0, {"type": "draw"})
    assert "expire" not in {a["type"] for a in g.legal_actions(0)}  # the host acts it
    g.act(0, {"type": "expire", "penalty": False})
    v = g.view(0)
    assert (v["top"], v["color"], v["counts"], v["to_act"]) == ("R9", "R", [7, 7], [1])
    assert v["hand"] == hands[0]


def test_host_expire_plays_a_drawn_wild_naming_the_color_held_most():
    # decisions.md 9: the color the seat holds most of (here green, 3 cards)
    hands = [["R7", "Y1", "Y2", "G3", "G4", "G9", "B6"], ["Y3"] + GREENS[1:]]
    g = game("classic", hands, "R5", ["W"])
    g.act(0, {"type": "draw"})
    assert moves(g, 0) == wild("W") | {"keep"}
    g.act(0, {"type": "expire", "penalty": False})
    v = g.view(1)
    assert (v["top"], v["color"], v["counts"], v["to_act"]) == ("W", "G", [7, 7], [1])


# ------------------------------------------------------------ penalty piles


def test_plus_two_pile_is_answered_by_any_plus_two_and_grows_2_4_6_8():
    hands = [
        ["R+2", "R1", "R2", "R3", "R4", "R6", "R7"],
        ["Y+2", "Y1", "Y2", "Y3", "Y4", "Y6", "Y7"],
        ["G+2", "G1", "G2", "G3", "G4", "G6", "G7"],
        ["B+2", "B1", "B2", "B3", "B4", "B6", "B7"],
        ["R8", "Y8", "G8", "B8", "W", "RS", "YB"],
    ]
    pile = ["R9", "Y9", "G9", "B9", "R9", "Y9", "G9", "B9"]
    g = game("classic", hands, "R5", pile)
    seen = []
    for seat, card in enumerate(["R+2", "Y+2", "G+2", "B+2"]):
        play(g, seat, card)
        v = g.view(seat + 1)
        seen.append((v["pending"], v["pending_kind"], v["phase"], v["to_act"]))
    assert seen == [
        (2, "+2", "pile", [1]),
        (4, "+2", "pile", [2]),
        (6, "+2", "pile", [3]),
        (8, "+2", "pile", [4]),
    ]
    assert moves(g, 4) == {"draw"}
    g.act(4, {"type": "draw"})
    v = g.view(4)
    assert v["counts"] == [6, 6, 6, 6, 15]
    assert v["hand"][7:] == pile
    assert (v["pending"], v["to_act"], v["phase"]) == (0, [0], "turn")


def test_drawing_a_waiting_pile_takes_it_all_and_ends_the_turn():
    hands = [
        ["R+2"] + GREENS[:6],
        ["R3", "R4", "Y1", "Y2", "Y3", "Y4", "Y6"],
        ["B1", "B2", "B3", "B4", "B6", "Y7", "Y8"],
    ]
    g = game("classic", hands, "R5", ["B7", "B8", "B9"])
    play(g, 0, "R+2")
    g.act(1, {"type": "draw"})
    v = g.view(1)
    assert v["counts"] == [6, 9, 7]
    assert v["hand"][7:] == ["B7", "B8"]
    assert (v["pending"], v["to_act"], v["top"], v["draw_pile"]) == (
        0,
        [2],
        "R+2",
        112 - 21 - 1 - 2,
    )


def test_nothing_but_a_plus_two_is_playable_while_a_pile_waits():
    hands = [["R+2"] + GREENS[:6], ["Y+2", "R3", "R2", "RS", "RR", "RB", "W"]]
    g = game("classic", hands, "R5")
    play(g, 0, "R+2")
    # R3 matches the color, RS/RR/RB are colored actions, W is a wild: none of them counts now
    assert moves(g, 1) == {"play Y+2", "draw"}
    g2 = game("classic", [hands[0], ["W+4", "R3", "R2", "RS", "RR", "RB", "W"]], "R5")
    play(g2, 0, "R+2")
    assert moves(g2, 1) == {"draw"}  # not even a +4 Wild answers a +2 here


def test_plus_four_wild_cannot_be_answered():
    hands = [["W+4"] + GREENS[:6], ["W+4", "R+2", "Y+2", "R3", "W", "RB", "R7"]]
    g = game("classic", hands, "R5", ["B1", "B2", "B3", "B4"])
    play(g, 0, "W+4", "R")
    v = g.view(1)
    assert (v["pending"], v["pending_kind"], v["color"]) == (4, "+4", "R")
    assert moves(g, 1) == {"draw"}
    g.act(1, {"type": "draw"})
    v = g.view(1)
    assert v["counts"] == [6, 11]
    assert v["hand"][7:] == ["B1", "B2", "B3", "B4"]
    assert (v["pending"], v["to_act"]) == (0, [0])


def test_a_pile_that_cannot_be_drawn_in_full_takes_what_there_is_and_the_rest_lapses():
    hands = [["R+2"] + GREENS[:6], ["Y1", "Y2", "Y3", "Y4", "Y6", "Y7", "Y8"]]
    g = game("classic", hands, "R5")
    while g.view(0)["draw_pile"]:
        draw_turn(g, g.to_act[0])
    assert g.to_act == [1]  # seat 0 drew the 97th card
    g.act(1, {"type": "pass"})
    held = g.view(1)["counts"][1]
    play(g, 0, "R+2")
    assert (g.view(1)["pending"], g.view(1)["discards"]) == (2, 2)
    g.act(1, {"type": "draw"})  # only R5 (under the top) can come back
    v = g.view(1)
    assert v["hand"][-1] == "R5"
    assert (v["counts"][1], v["pending"], v["draw_pile"], v["discards"]) == (held + 1, 0, 0, 1)
    assert (v["to_act"], v["phase"], v["outcome"]) == ([0], "turn", None)


# ------------------------------------------------------------------- Bomb


# Bomb deals: every seat holds the red cards it plays, and filler that matches nothing red.
BOMB_PILE = ["Y9", "B9", "G9", "Y5"]
BOMB_HANDS = {
    2: [
        ["RB", "R6", "R8", "G1", "G2", "G3", "G4"],
        ["R1", "R7", "Y1", "Y2", "Y3", "Y4", "Y6"],
    ],
    3: [
        ["RB", "R6", "G1", "G2", "G3", "G4", "G6"],
        ["R1", "R7", "Y1", "Y2", "Y3", "Y4", "Y6"],
        ["R2", "R8", "B1", "B2", "B3", "B4", "B6"],
    ],
    4: [
        ["RB", "R6", "G1", "G2", "G3", "G4", "G6"],
        ["R1", "RS", "Y1", "Y2", "Y3", "Y4", "Y6"],
        ["R2", "B1", "B2", "B3", "B4", "B6", "B7"],
        ["R3", "Y7", "Y8", "B8", "G7", "G8", "G9"],
    ],
}


def _bomb_game(players: int):
    return game("classic", BOMB_HANDS[players], "R5", BOMB_PILE)


def test_bomb_blast_lands_on_the_player_after_the_bomber_with_three_players():
    pile = BOMB_PILE
    g = _bomb_game(3)
    play(g, 0, "RB")
    v = g.view(0)
    assert (v["fuse"], v["blast"], v["top"], v["to_act"]) == (3, 4, "RB", [1])
    play(g, 1, "R1")
    assert g.view(0)["fuse"] == 2
    play(g, 2, "R2")
    assert g.view(0)["fuse"] == 1
    play(g, 0, "R6")
    v = g.view(1)
    assert v["counts"] == [5, 10, 6]
    assert v["hand"][-4:] == pile
    assert (v["fuse"], v["blast"], v["to_act"], v["phase"]) == (None, 0, [1], "turn")
    assert g.outcome is None
    play(g, 1, "R7")  # the hit player then plays their own turn
    assert g.view(2)["to_act"] == [2]


def test_bomb_blast_hits_the_bomber_with_two_players():
    pile = BOMB_PILE
    g = _bomb_game(2)
    play_all(g, [(0, "RB"), (1, "R1"), (0, "R6")])
    assert g.view(1)["fuse"] == 1
    play(g, 1, "R7")
    v = g.view(0)
    assert v["counts"] == [9, 5]
    assert v["hand"][-4:] == pile
    assert (v["fuse"], v["to_act"], v["phase"]) == (None, [0], "turn")
    play(g, 0, "R8")
    assert g.view(0)["to_act"] == [1]


def test_bomb_blast_hits_the_bomber_with_four_players():
    pile = BOMB_PILE
    g = _bomb_game(4)
    play_all(g, [(0, "RB"), (1, "R1"), (2, "R2")])
    assert g.view(3)["fuse"] == 1
    play(g, 3, "R3")
    v = g.view(0)
    assert v["counts"] == [10, 6, 6, 6]
    assert v["hand"][-4:] == pile
    assert (v["fuse"], v["to_act"]) == (None, [0])
    play(g, 0, "R6")
    assert g.view(0)["to_act"] == [1]


def test_skip_counts_as_one_handoff_of_the_bomb_fuse():
    g = _bomb_game(4)
    play(g, 0, "RB")
    play(g, 1, "RS")  # seat 2 is skipped: one hand-off, 1 -> 3
    v = g.view(3)
    assert (v["fuse"], v["to_act"]) == (2, [3])
    play(g, 3, "R3")
    assert g.view(0)["fuse"] == 1
    play(g, 0, "R6")
    v = g.view(1)
    assert v["counts"] == [5, 10, 7, 6]
    assert (v["fuse"], v["to_act"]) == (None, [1])


def test_bomb_on_a_burning_fuse_adds_two_and_relights_at_three():
    hands = [
        ["RB", "Y6", "G1", "G2", "G3", "G4", "G6"],
        ["YB", "Y7", "B1", "B2", "B3", "B4", "B6"],
        ["Y2", "G7", "G8", "B7", "B8", "R1", "R2"],
        ["Y3", "R3", "R4", "R6", "R7", "R8", "R9"],
    ]
    pile = ["B9", "G9", "Y9", "Y5", "B5", "G5", "R9"]
    g = game("classic", hands, "R5", pile)
    play(g, 0, "RB")
    play(g, 1, "YB")  # matches by symbol
    v = g.view(2)
    assert (v["fuse"], v["blast"], v["top"], v["color"], v["to_act"]) == (3, 6, "YB", "Y", [2])
    play(g, 2, "Y2")
    play(g, 3, "Y3")
    assert g.view(0)["fuse"] == 1
    play(g, 0, "Y6")
    v = g.view(1)
    assert v["counts"] == [5, 12, 6, 6]
    assert v["hand"][-6:] == pile[:6]
    assert (v["fuse"], v["blast"], v["to_act"]) == (None, 0, [1])


def test_a_blast_never_ends_the_match():
    # two players: seat 0 keeps the turn with Skips and Reverses, bombs, and is down
    # to ONE CARD when its own blast comes back to it: it draws 4 and plays on
    hands = [
        ["RS", "RR", "RS", "RR", "RB", "R6", "G1"],
        ["R1", "R7", "Y1", "Y2", "Y3", "Y4", "Y6"],
    ]
    pile = ["B1", "B2", "B3", "B4"]
    g = game("classic", hands, "R5", pile)
    play_all(g, [(0, "RS"), (0, "RR"), (0, "RS"), (0, "RR"), (0, "RB"), (1, "R1"), (0, "R6")])
    assert g.view(1)["one_card"] == [0]
    assert g.view(1)["fuse"] == 1
    play(g, 1, "R7")
    v = g.view(0)
    assert g.outcome is None and v["outcome"] is None
    assert v["hand"] == ["G1", "B1", "B2", "B3", "B4"]
    assert (v["counts"], v["one_card"], v["to_act"], v["phase"]) == ([5, 5], [], [0], "turn")


# ---------------------------------------------------------------- going out


@pytest.mark.parametrize(
    ("last", "color"),
    [("Y+2", None), ("W+4", "G"), ("YB", None)],
    ids=["plus_two", "plus_four", "bomb"],
)
def test_going_out_on_a_draw_card_or_bomb_ends_the_match_and_nobody_draws(last, color):
    hands = [OUT_HAND + [last], GREENS]
    g = game("classic", hands, "R5")
    play_all(g, OUT_PLAYS)
    assert g.view(0)["counts"] == [1, 7]
    play(g, 0, last, color)
    v = g.view(1)
    assert (g.outcome["winners"], g.outcome["points"], g.outcome["reason"]) == ([0], [31, 0], "out")
    assert v["counts"] == [0, 7]
    assert v["hand"] == GREENS
    assert (v["pending"], v["fuse"], v["blast"], v["to_act"]) == (0, None, 0, [])
    assert v["top"] == last


def test_a_last_wild_still_names_its_color():
    hands = [OUT_HAND + ["W"], GREENS]
    g = game("classic", hands, "R5")
    play_all(g, OUT_PLAYS)
    assert moves(g, 0) == wild("W") | {"draw"}
    play(g, 0, "W", "B")
    v = g.view(1)
    assert (v["top"], v["color"]) == ("W", "B")
    assert (g.outcome["winners"], g.outcome["points"], g.outcome["reason"]) == ([0], [31, 0], "out")


def test_one_card_banner_shows_without_any_call():
    hands = [OUT_HAND + ["Y9"], GREENS]
    g = game("classic", hands, "R5", ["B9"])
    play_all(g, OUT_PLAYS[:-1])
    assert all(v["one_card"] == [] for v in views(g))
    play(g, 0, "YS")  # seat 0 now holds one card
    for v in views(g):
        assert v["one_card"] == [0]
        assert v["windows"] == []
    assert moves(g, 0) == {"play Y9", "draw"}  # no call, no catch
    assert moves(g, 1) == set()
    g.act(0, {"type": "draw"})  # B9 does not match Y: turn passes, banner goes
    assert [v["one_card"] for v in views(g)] == [[], []]
    assert g.view(1)["to_act"] == [1]


# ------------------------------------------------------------------ scoring


def test_scoring_example_of_the_seed_three_players():
    """Seed 001 / SPEC: you go out; rivals hold Skip, Wild, 9 (79) and Bomb, 0 (20)."""
    hands = [
        ["R2", "R5", "R8", "R3", "R6", "R9", "Y2"],
        ["R3", "R6", "R9", "R4", "YS", "W", "G9"],
        ["R4", "R7", "R5", "R8", "Y1", "GB", "B0"],
    ]
    g = game("classic", hands, "R1", ["R2", "R7", "Y9"])
    play_all(g, [(0, "R2"), (1, "R3"), (2, "R4"), (0, "R5"), (1, "R6"), (2, "R7")])
    play_all(g, [(0, "R8"), (1, "R9")])
    g.act(2, {"type": "draw"})
    play(g, 2, "R2")
    play_all(g, [(0, "R3"), (1, "R4"), (2, "R5"), (0, "R6")])
    g.act(1, {"type": "draw"})
    play(g, 1, "R7")
    play_all(g, [(2, "R8"), (0, "R9")])
    g.act(1, {"type": "draw"})
    play(g, 1, "Y9")
    play(g, 2, "Y1")
    assert [sorted(h) for h in (g.view(1)["hand"], g.view(2)["hand"])] == [
        ["G9", "W", "YS"],
        ["B0", "GB"],
    ]
    play(g, 0, "Y2")
    assert g.outcome["winners"] == [0]
    assert g.outcome["reason"] == "out"
    assert g.outcome["points"] == [99, 20, 79]


def _blocked(sets: list[list[str]], starter: str):
    """Deal each seat the first 7 cards of its set and interleave the rest in the pile.

    Seats draw in turn (seat 0 first) and keep everything until the pile is empty;
    nobody plays, so nothing can be drawn any more and the round is blocked after
    one lap of passes. Returns the game after the last pass.
    """
    n = len(sets)
    longest = max(len(s) for s in sets) - 7
    pile = [sets[s][7 + i] for i in range(longest) for s in range(n) if 7 + i < len(sets[s])]
    g = game("classic", [s[:7] for s in sets], starter, pile)
    while g.view(0)["draw_pile"]:
        draw_turn(g, g.to_act[0])
    assert [sorted(v["hand"]) for v in views(g)] == [sorted(s) for s in sets]
    for _ in range(n):
        assert g.outcome is None
        seat = g.to_act[0]
        assert "pass" in moves(g, seat) and "draw" not in moves(g, seat)
        g.act(seat, {"type": "pass"})
    return g


# one copy of every 1-9 in every color: 36 cards, 180 points (the deck holds two)
ONE_OF_EACH = [c + str(k) for c in "RYGB" for k in range(1, 10)]


def test_blocked_round_lowest_points_in_hand_wins():
    rest = classic_deck()
    rest.remove("R0")
    low = sorted((c for c in rest if c[1:].isdigit()), key=lambda c: int(c[1:]))[:56]
    high = list(rest)
    for c in low:
        high.remove(c)
    assert (len(low), sum(map(points, low)), len(high), sum(map(points, high))) == (
        56,
        203,
        55,
        1117,
    )
    g = _blocked([low, high], "R0")
    # seat 0 holds more cards but fewer points; classic scoring: total held minus own
    assert (g.outcome["winners"], g.outcome["reason"], g.outcome["points"]) == (
        [0],
        "blocked",
        [1117, 203],
    )


def test_blocked_round_tie_on_points_goes_to_fewer_cards():
    actions = [c for c in classic_deck() if c[0] != "W" and not c[1:].isdigit()]
    assert len(actions) == 28
    a = ["W", "W", "W+4", "W+4"] + actions[:14] + ONE_OF_EACH + ["Y0", "G0"]
    b = ["W", "W", "W+4", "W+4"] + actions[14:] + ONE_OF_EACH + ["B0"]
    assert (len(a), sum(map(points, a)), len(b), sum(map(points, b))) == (56, 660, 55, 660)
    g = _blocked([a, b], "R0")
    assert (g.outcome["winners"], g.outcome["reason"], g.outcome["points"]) == (
        [1],
        "blocked",
        [660, 660],
    )


def test_blocked_round_still_tied_players_share_the_win():
    actions = [c for c in classic_deck() if c[0] == "W" or not c[1:].isdigit()]
    a = ONE_OF_EACH + ["Y0"]
    b = ONE_OF_EACH + ["G0"]
    c = ["B0"] + actions
    assert [(len(s), sum(map(points, s))) for s in (a, b, c)] == [(37, 180), (37, 180), (37, 960)]
    g = _blocked([a, b, c], "R0")
    assert (g.outcome["winners"], g.outcome["reason"], g.outcome["points"]) == (
        [0, 1],
        "blocked",
        [1140, 1140, 360],
    )


# ------------------------------------------------------------------ Reverse


def test_reverse_with_two_players_acts_like_skip():
    hands = [["RR", "R7", "Y1", "Y2", "B3", "B4", "B6"], GREENS]
    g = game("classic", hands, "R5")
    play(g, 0, "RR")
    v = g.view(0)
    assert (v["to_act"], v["turn"], v["phase"], v["top"], v["counts"]) == (
        [0],
        0,
        "turn",
        "RR",
        [6, 7],
    )
    play(g, 0, "R7")
    assert g.view(1)["to_act"] == [1]


# --------------------------------------------------------------- bad input


def _bad_input_game():
    hands = [["R7", "W", "Y1", "Y2", "G3", "B4", "RB"], GREENS]
    return game("classic", hands, "R5", ["B9"])


BAD_ACTIONS = [
    (1, {"type": "draw"}),  # not your turn
    (0, {"type": "play", "card": "G9"}),  # not held
    (0, {"type": "play", "card": "Y1"}),  # does not match
    (0, {"type": "play", "card": "W"}),  # a wild without a color
    (0, {"type": "play", "card": "W", "color": "P"}),  # a night color at a day table
    (0, {"type": "play", "card": "W", "color": "g"}),
    (0, {"type": "play", "card": "W", "color": None}),
    (0, {"type": "play", "card": "W", "color": ["G"]}),
    (0, {"type": "play", "card": "R7", "color": "G"}),  # a colored card names no color
    (0, {"type": "play", "card": ["R7"]}),
    (0, {"type": "play"}),
    (0, {"type": "keep"}),  # nothing was drawn
    (0, {"type": "pass"}),  # cards can still be drawn
    (0, {"type": "accept"}),
    (0, {"type": "challenge"}),  # no challenge at classic
    (0, {"type": "call"}),  # no call at classic
    (1, {"type": "catch", "seat": 0}),
    (0, {"type": "color", "color": "R"}),
    (0, {"type": "expire", "penalty": False}),  # no timed window is open
    (0, {"type": "expire", "penalty": "yes"}),
    (1, {"type": "catch", "seat": "0"}),
    (0, {"type": ["draw"]}),
    (0, {"type": "flip"}),
    (0, {}),
    (0, "draw"),
    (0, None),
    (2, {"type": "draw"}),  # no such seat
    (-1, {"type": "draw"}),
    ("0", {"type": "draw"}),
]


@pytest.mark.parametrize(("seat", "action"), BAD_ACTIONS, ids=[repr(a) for a in BAD_ACTIONS])
def test_bad_input_raises_illegal_action_and_changes_nothing(seat, action):
    g = _bad_input_game()
    before = views(g), [g.legal_actions(s) for s in (0, 1)]
    with pytest.raises(IllegalAction) as err:
        g.act(seat, action)
    assert isinstance(err.value.reason, str) and err.value.reason.strip()
    assert (views(g), [g.legal_actions(s) for s in (0, 1)]) == before
    g.act(0, {"type": "draw"})  # the game goes on as if nothing happened
    assert g.view(0)["hand"][-1] == "B9"


@pytest.mark.parametrize(
    "action",
    [
        {"type": "play", "card": "R3"},
        {"type": "play", "card": "W", "color": "G"},
        {"type": "play", "card": "RB"},
        {"type": "keep"},
        {"type": "pass"},
    ],
    ids=repr,
)
def test_bad_input_while_a_pile_waits_changes_nothing(action):
    hands = [["R+2"] + GREENS[:6], ["Y+2", "R3", "W", "RB", "Y1", "Y3", "Y4"]]
    g = game("classic", hands, "R5")
    play(g, 0, "R+2")
    before = views(g)
    with pytest.raises(IllegalAction) as err:
        g.act(1, action)
    assert err.value.reason.strip()
    assert views(g) == before
