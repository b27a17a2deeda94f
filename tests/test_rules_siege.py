"""Scenario tests for Siege (`siege`, SPEC sections 3-5, seed 001).

Siege is `classic` with a Shield (`RH` `YH` `GH` `BH`) in place of each Bomb and
a penalty ladder: +2 on +2, +4 on +2 or +4, never +2 on +4. Every test deals
fixed hands with `deck=` (see `_rig_classic.rig`), seat 0 moving first, top R5.
"""

from __future__ import annotations

import pytest
from _rig_classic import game, moves, play, play_all, views, wild

from lanmatch.rules import IllegalAction, new_game
from lanmatch.rules.cards import siege_deck

GREENS = ["G1", "G2", "G3", "G4", "G6", "G7", "G8"]
BLUES = ["B1", "B2", "B3", "B4", "B6", "B7", "B8"]


def sg(hands: list[list[str]], pile: list[str] | tuple[str, ...] = ()):
    return game("siege", hands, "R5", pile)


def test_siege_deck_has_a_shield_in_place_of_each_bomb():
    deck = siege_deck()
    assert len(deck) == 112
    assert sorted(c for c in deck if c[1:] == "H") == ["BH", "GH", "RH", "YH"]
    assert not any(c[1:] == "B" for c in deck)
    g = new_game("colormatch", table="siege", players=4, seed=3)
    assert sorted(g.cards_in_play()) == sorted(deck)
    assert all(v["shields"] == [] for v in views(g))


# ------------------------------------------------------------------ ladder


def test_plus_two_answers_plus_two_and_the_pile_adds():
    hands = [
        ["R+2"] + GREENS[:6],
        ["Y+2", "W+4", "R3", "RS", "W", "B1", "B2"],
        ["B3", "B4", "B6", "B7", "Y1", "Y3", "Y4"],
    ]
    g = sg(hands)
    play(g, 0, "R+2")
    v = g.view(1)
    assert (v["pending"], v["pending_kind"], v["phase"]) == (2, "+2", "pile")
    assert moves(g, 1) == {"play Y+2", "draw"} | wild("W+4")
    play(g, 1, "Y+2")
    v = g.view(2)
    assert (v["pending"], v["pending_kind"], v["to_act"]) == (4, "+2", [2])
    assert moves(g, 2) == {"draw"}


def test_plus_four_wild_answers_a_plus_two_and_the_pile_adds():
    hands = [
        ["R+2"] + GREENS[:6],
        ["Y+2", "W+4", "R3", "RS", "W", "B1", "B2"],
        ["B3", "B4", "B6", "B7", "Y1", "Y3", "Y4"],
    ]
    g = sg(hands)
    play(g, 0, "R+2")
    play(g, 1, "W+4", "G")
    v = g.view(2)
    assert (v["pending"], v["pending_kind"], v["top"], v["color"], v["to_act"]) == (
        6,
        "+4",
        "W+4",
        "G",
        [2],
    )
    g.act(2, {"type": "draw"})
    v = g.view(2)
    assert (v["counts"], v["pending"], v["to_act"]) == ([6, 6, 13], 0, [0])


def test_plus_four_wild_answers_a_plus_four():
    hands = [
        ["W+4"] + GREENS[:6],
        ["W+4", "Y+2"] + BLUES[:5],
        ["Y1", "Y2", "Y3", "Y4", "Y6", "Y7", "Y8"],
    ]
    g = sg(hands)
    play(g, 0, "W+4", "R")
    assert moves(g, 1) == wild("W+4") | {"draw"}  # the +2 is not offered
    play(g, 1, "W+4", "B")
    v = g.view(2)
    assert (v["pending"], v["pending_kind"], v["color"], v["to_act"]) == (8, "+4", "B", [2])
    g.act(2, {"type": "draw"})
    v = g.view(2)
    assert (v["counts"], v["pending"], v["to_act"]) == ([6, 6, 15], 0, [0])


def test_plus_two_never_answers_a_plus_four():
    hands = [["W+4"] + GREENS[:6], ["R+2", "Y+2", "R3", "W", "R7", "B1", "B2"]]
    g = sg(hands, ["Y1", "Y2", "Y3", "Y4"])
    play(g, 0, "W+4", "R")
    v = g.view(1)
    assert (v["pending"], v["pending_kind"], v["color"]) == (4, "+4", "R")
    assert moves(g, 1) == {"draw"}
    before = views(g)
    with pytest.raises(IllegalAction) as err:
        play(g, 1, "R+2")
    assert err.value.reason.strip()
    assert views(g) == before
    g.act(1, {"type": "draw"})
    v = g.view(1)
    assert v["hand"][7:] == ["Y1", "Y2", "Y3", "Y4"]
    assert (v["counts"], v["to_act"]) == ([6, 11], [0])


# ------------------------------------------------------------------ Shield


def test_shield_of_any_color_cancels_a_waiting_pile_ends_the_turn_and_goes_on_top():
    hands = [
        ["R+2"] + GREENS[:6],
        ["W+4", "R3", "RS", "W", "B1", "B2", "Y9"],
        ["BH", "B3", "B4", "B6", "Y1", "Y3", "Y4"],
    ]
    g = sg(hands)
    play(g, 0, "R+2")
    play(g, 1, "W+4", "G")
    assert moves(g, 2) == {"play BH", "draw"}  # blue on a green +4 pile of 6
    discards = g.view(2)["discards"]
    play(g, 2, "BH")
    for v in views(g):
        assert (v["pending"], v["pending_kind"], v["top"], v["color"]) == (0, None, "BH", "B")
        assert (v["to_act"], v["phase"], v["shields"]) == ([0], "turn", [])
        assert v["counts"] == [6, 6, 6]
        assert v["discards"] == discards + 1


def test_shield_played_otherwise_stands_in_front_and_leaves_top_and_color_unchanged():
    hands = [["RH", "R7"] + GREENS[:5], BLUES]
    g = sg(hands)
    assert "play RH" in moves(g, 0)
    play(g, 0, "RH")
    for v in views(g):
        assert v["shields"] == [0]
        assert (v["top"], v["color"], v["discards"]) == ("R5", "R", 1)
        assert (v["counts"], v["to_act"], v["pending"]) == ([6, 7], [1], 0)


def test_shield_played_otherwise_must_match_by_color_or_symbol():
    hands = [
        ["R+2", "YH", "BH"] + GREENS[:4],
        ["GH", "B1", "B2", "B3", "B4", "B6", "B7"],
        ["RH", "Y1", "Y2", "Y3", "Y4", "Y6", "Y7"],
    ]
    g = sg(hands)
    m = moves(g, 0)
    assert "play YH" not in m and "play BH" not in m  # R5 on top: no color or symbol match
    play(g, 0, "R+2")
    play(g, 1, "GH")  # cancels the pile: top GH, color G
    assert "play RH" in moves(g, 2)  # matches GH by symbol
    play(g, 2, "RH")
    v = g.view(0)
    assert (v["shields"], v["top"], v["color"], v["to_act"]) == ([2], "GH", "G", [0])


def test_standing_shield_absorbs_the_next_pile_handed_to_you_then_you_play_normally():
    hands = [
        ["RH", "Y9", "R8"] + GREENS[:4],
        ["R+2", "Y1", "Y3", "Y4", "Y6", "Y7", "Y8"],
        ["Y+2", "B1", "B2", "B3", "B4", "B6", "B7"],
    ]
    g = sg(hands)
    play(g, 0, "RH")
    play(g, 1, "R+2")
    play(g, 2, "Y+2")  # a pile of 4 is handed to seat 0, who stands a Shield
    for v in views(g):
        assert (v["pending"], v["pending_kind"], v["shields"]) == (0, None, [])
        assert (v["top"], v["color"], v["discards"]) == ("Y+2", "Y", 4)  # R5 R+2 Shield Y+2
        assert v["counts"] == [6, 6, 6]
        assert (v["to_act"], v["phase"]) == ([0], "turn")
    assert moves(g, 0) == {"play Y9", "draw"}  # an ordinary turn on the yellow +2
    play(g, 0, "Y9")
    v = g.view(1)
    assert (v["top"], v["to_act"], v["counts"]) == ("Y9", [1], [5, 6, 6])


def test_at_most_one_standing_shield_per_player():
    hands = [["RH", "YH", "R7"] + GREENS[:4], ["Y5"] + BLUES[:6]]
    g = sg(hands)
    play(g, 0, "RH")
    play(g, 1, "Y5")  # yellow on top: YH would match by color
    assert g.view(0)["shields"] == [0]
    assert moves(g, 0) == {"draw"}
    before = views(g)
    with pytest.raises(IllegalAction) as err:
        play(g, 0, "YH")
    assert err.value.reason.strip()
    assert views(g) == before


def test_shields_view_key_lists_every_seat_with_a_standing_shield():
    hands = [
        ["RH", "Y7"] + GREENS[:5],
        ["R6", "YH"] + BLUES[:5],
        ["Y6", "Y1", "Y2", "Y3", "Y4", "G9", "B9"],
    ]
    g = sg(hands)
    play(g, 0, "RH")
    assert [v["shields"] for v in views(g)] == [[0], [0], [0]]
    play_all(g, [(1, "R6"), (2, "Y6"), (0, "Y7")])
    play(g, 1, "YH")  # matches Y7 by color: a second seat stands a Shield
    assert [v["shields"] for v in views(g)] == [[0, 1], [0, 1], [0, 1]]
    assert (g.view(2)["top"], g.view(2)["to_act"]) == ("Y7", [2])


def test_going_out_on_a_shield_ends_the_match():
    # two players: Skips and Reverses keep the turn; the last card is a standing-type Shield
    hands = [["RS", "RS", "RR", "RR", "YR", "YS", "YH"], GREENS]
    g = sg(hands)
    play_all(g, [(0, c) for c in hands[0]])
    v = g.view(1)
    assert (g.outcome["winners"], g.outcome["reason"], g.outcome["points"]) == ([0], "out", [31, 0])
    assert (v["counts"], v["shields"], v["to_act"]) == ([0, 7], [], [])


@pytest.mark.parametrize(
    "action",
    [
        {"type": "play", "card": "R+2"},  # +2 never answers +4
        {"type": "play", "card": "W", "color": "R"},
        {"type": "play", "card": "R3"},
        {"type": "play", "card": "BH", "color": "B"},
        {"type": "play", "card": "GH"},  # not held
        {"type": "keep"},
        {"type": "pass"},
        {"type": "accept"},
        {"type": "challenge"},
    ],
    ids=repr,
)
def test_bad_input_while_a_plus_four_pile_waits_changes_nothing(action):
    hands = [["W+4"] + GREENS[:6], ["R+2", "BH", "W", "R3", "B1", "B2", "B3"]]
    g = sg(hands)
    play(g, 0, "W+4", "R")
    assert moves(g, 1) == {"play BH", "draw"}
    before = views(g), g.legal_actions(1)
    with pytest.raises(IllegalAction) as err:
        g.act(1, action)
    assert isinstance(err.value.reason, str) and err.value.reason.strip()
    assert (views(g), g.legal_actions(1)) == before
