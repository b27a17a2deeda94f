"""Scenario tests for Day & Night (`daynight`, SPEC sections 3-5, seed 001).

Cards are written `DAY/NIGHT`. Every test deals fixed hands with `deck=` (see
`_rig_classic.rig`), seat 0 moving first. Scenario cards are red/yellow by day
and pink/teal by night; `hand(seat, ...)` pads a hand with filler that is blue
or green by day and violet or orange by night.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from _rig_classic import draw_turn, game, moves, play, play_all, rig, views, wild

from lanmatch.rules import IllegalAction, new_game
from lanmatch.rules.cards import day_faces, night_faces

NIGHT = "PTOV"
STARTER = "R9/T8"

FILL = {
    0: ["B1/V1", "B1/V1", "B2/V2", "B2/V2", "B3/V3", "B3/V3", "B4/V4"],
    1: ["B4/V4", "B6/V6", "B6/V6", "B7/V7", "B7/V7", "B8/V8", "B8/V8"],
    2: ["B9/V9", "B9/V9", "G1/O1", "G1/O1", "G2/O2", "G2/O2", "G3/O3"],
    3: ["G3/O3", "G4/O4", "G4/O4", "G6/O6", "G6/O6", "G7/O7", "G7/O7"],
}


def hand(seat: int, *cards: str) -> list[str]:
    """`cards` first, then `seat`'s filler up to 7 cards."""
    return list(cards) + FILL[seat][: 7 - len(cards)]


def days(cards: list[str]) -> list[str]:
    return [c.split("/")[0] for c in cards]


def nights(cards: list[str]) -> list[str]:
    return [c.split("/")[1] for c in cards]


def dn(hands: list[list[str]], pile: list[str] | tuple[str, ...] = (), starter: str = STARTER):
    return game("daynight", hands, starter, pile)


def lists_in(obj) -> list[list]:
    """Every list inside a view (walks dicts and lists)."""
    out = []
    if isinstance(obj, dict):
        for v in obj.values():
            out += lists_in(v)
    elif isinstance(obj, list):
        out.append(obj)
        for v in obj:
            out += lists_in(v)
    return out


# ------------------------------------------------------------------- deck


def test_deck_holds_112_two_faced_cards_paired_at_random_per_deal():
    pairings = []
    for seed in (1, 2):
        g = new_game("colormatch", table="daynight", players=4, seed=seed)
        cards = g.cards_in_play()
        assert len(cards) == 112
        assert sorted(days(cards)) == sorted(day_faces())
        assert sorted(nights(cards)) == sorted(night_faces())
        pairings.append(Counter(cards))
        v = g.view(0)
        assert sum(v["counts"]) + v["draw_pile"] + v["discards"] == 112
    assert pairings[0] != pairings[1]
    assert len(day_faces()) == len(night_faces()) == 112


def test_rigged_deck_must_be_written_day_slash_night_and_hold_every_face():
    deck = rig("daynight", [hand(0), hand(1)], STARTER)
    with pytest.raises(ValueError):
        new_game("colormatch", table="daynight", players=2, seed=1, deck=days(deck))
    broken = deck[:-1] + ["R1/" + deck[-1].split("/")[1]]
    with pytest.raises(ValueError):
        new_game("colormatch", table="daynight", players=2, seed=1, deck=broken)


def test_table_opens_on_day():
    for seed in range(3):
        g = new_game("colormatch", table="daynight", players=3, seed=seed)
        for v in views(g):
            assert v["face"] == "day"
            assert all(c in set(day_faces()) for c in v["hand"])
            assert v["top"] in set(day_faces()) and v["top"][1:].isdigit()
            assert v["color"] == v["top"][0] and v["color"] in "RYGB"


# ------------------------------------------------------------- visibility


def test_view_shows_own_active_faces_and_rivals_far_faces_sorted():
    hands = [hand(0, "R5/P1", "WC/T2"), hand(1, "Y5/P9"), hand(2, "R+1/TA")]
    g = dn(hands, ["Y2/O7", "G5/WH"], starter="R5/P5")
    v = g.view(0)
    assert v["hand"] == days(hands[0])
    assert v["far"] == {1: sorted(nights(hands[1])), 2: sorted(nights(hands[2]))}
    assert v["draw_far"] == "O7"
    assert (v["face"], v["top"], v["color"]) == ("day", "R5", "R")
    v2 = g.view(2)
    assert v2["hand"] == days(hands[2])
    assert v2["far"] == {0: sorted(nights(hands[0])), 1: sorted(nights(hands[1]))}
    for s, view in enumerate(views(g)):
        found = lists_in(view)
        assert nights(hands[s]) not in found and sorted(nights(hands[s])) not in found
        for r in range(3):
            if r != s:
                assert days(hands[r]) not in found and sorted(days(hands[r])) not in found


def test_far_faces_are_sorted_not_in_hand_order_after_a_draw():
    hands = [hand(0, "R5/P1"), hand(1)]
    g = dn(hands, ["R6/O9", "Y8/O8", "Y1/P+5"])
    before = g.view(1)["far"][0]
    draw_turn(g, 0)  # R6/O9 is playable: kept
    draw_turn(g, 1)
    far = g.view(1)["far"][0]
    assert far == sorted(nights(hands[0]) + ["O9"])
    assert far != nights(hands[0]) + ["O9"]  # hand order would tell which card is new
    assert len(far) == len(before) + 1


# ------------------------------------------------------------ playing faces


def test_a_play_names_the_active_face_and_the_card_held_longest_is_played():
    hands = [hand(0, "R5/P1"), hand(1)]
    g = dn(hands, ["R5/T9", "Y8/O8"])
    g.act(0, {"type": "draw"})
    assert g.view(0)["drawn"] == "R5"
    g.act(0, {"type": "keep"})
    draw_turn(g, 1)  # Y8 does not match R9: the turn passes
    play(g, 0, "R5")
    v = g.view(1)
    assert v["far"][0] == sorted(nights(hands[0][1:]) + ["T9"])  # the dealt R5/P1 left
    assert (v["top"], v["counts"]) == ("R5", [7, 8])


def test_playing_the_drawn_card_plays_that_very_card():
    hands = [hand(0, "R5/P1"), hand(1)]
    g = dn(hands, ["R5/T9"])
    g.act(0, {"type": "draw"})
    play(g, 0, "R5")
    v = g.view(1)
    assert v["far"][0] == sorted(nights(hands[0]))  # R5/T9 left, R5/P1 stays
    assert (v["top"], v["to_act"]) == ("R5", [1])


def test_own_far_face_cannot_be_played():
    hands = [hand(0, "Y5/P1"), hand(1)]
    g = dn(hands, ["B4/O4"])
    before = views(g)
    with pytest.raises(IllegalAction) as err:
        play(g, 0, "P1")  # P1 is the far face, only its rivals see it
    assert err.value.reason.strip()
    assert views(g) == before


def test_keep_declines_a_playable_drawn_card():
    hands = [hand(0, "Y5/P1"), hand(1)]
    g = dn(hands, ["R6/P2"])
    g.act(0, {"type": "draw"})
    assert moves(g, 0) == {"play R6", "keep"}
    with pytest.raises(IllegalAction):
        g.act(0, {"type": "pass"})
    g.act(0, {"type": "keep"})
    v = g.view(0)
    assert (v["to_act"], v["counts"], v["top"]) == ([1], [8, 7], "R9")
    assert v["hand"][-1] == "R6"


# --------------------------------------------------------------- Turnover


def test_turnover_flips_hands_draw_pile_and_discard_pile():
    hands = [hand(0, "RT/P7", "R5/T5"), hand(1, "Y7/P2", "G7/T7")]
    g = dn(hands, ["Y1/O3", "Y2/O9"])
    pile_size = g.view(0)["draw_pile"]
    assert g.view(0)["draw_far"] == "O3"
    play(g, 0, "RT")
    v0, v1 = g.view(0), g.view(1)
    assert (v0["face"], v0["top"], v0["color"]) == ("night", "P7", "P")
    assert v0["hand"] == nights(hands[0][1:])  # same order, other face
    assert v1["hand"] == nights(hands[1])
    assert v1["far"] == {0: sorted(days(hands[0][1:]))}
    assert v0["far"] == {1: sorted(days(hands[1]))}
    assert (v0["draw_far"], v0["draw_pile"], v0["discards"]) == ("Y1", pile_size, 2)
    # the top card's other face must now be matched: P or 7 (V7 is a filler)
    assert moves(g, 1) == {"play P2", "play T7", "play V7", "draw"}
    g.act(1, {"type": "draw"})  # the draw pile is flipped too: its night face comes in
    assert g.view(1)["hand"][-1] == "O3"
    assert g.view(1)["draw_far"] == "Y2"


def test_turnover_onto_a_wild_face_the_flipper_names_the_color_then_the_turn_passes():
    hands = [hand(0, "RT/W"), hand(1)]
    g = dn(hands)
    play(g, 0, "RT")
    v = g.view(1)
    assert (v["face"], v["top"], v["phase"], v["to_act"]) == ("night", "W", "color", [0])
    assert moves(g, 0) == {"color P", "color T", "color O", "color V"}
    assert moves(g, 1) == set()
    g.act(0, {"type": "color", "color": "T"})
    v = g.view(1)
    assert (v["color"], v["to_act"], v["phase"], v["counts"]) == ("T", [1], "turn", [6, 7])


# ---------------------------------------------------------- Midnight Clock


def test_midnight_clock_winds_three_handoffs_then_the_table_flips():
    hands = [hand(0, "WC/T2", "R6/P8"), hand(1, "R2/T4"), hand(2, "R4/O6")]
    g = dn(hands)
    seen = []
    for seat, card, color in [(0, "WC", "R"), (1, "R2", None), (2, "R4", None), (0, "R6", None)]:
        play(g, seat, card, color)
        v = g.view(0)
        seen.append((v["fuse"], v["face"], v["to_act"]))
    assert seen == [
        (3, "day", [1]),
        (2, "day", [2]),
        (1, "day", [0]),
        (None, "night", [1]),
    ]
    v = g.view(1)
    assert (v["top"], v["color"], v["phase"]) == ("P8", "P", "turn")
    assert v["hand"] == nights(hands[1][1:])


def test_midnight_clock_names_a_color():
    hands = [hand(0, "WC/T2"), hand(1, "Y2/T4")]
    g = dn(hands)
    assert wild("WC") <= moves(g, 0)
    play(g, 0, "WC", "Y")
    v = g.view(1)
    assert (v["top"], v["color"], v["fuse"]) == ("WC", "Y", 3)
    assert "play Y2" in moves(g, 1)


def test_another_midnight_clock_rewinds_it_to_three():
    hands = [
        hand(0, "WC/T2", "R6/P8"),
        hand(1, "R2/T4", "R7/O2"),
        hand(2, "WC/T3", "R8/O4"),
    ]
    g = dn(hands)
    seen = []
    plays = [(0, "WC", "R"), (1, "R2"), (2, "WC", "R"), (0, "R6"), (1, "R7"), (2, "R8")]
    for p in plays:
        play(g, *p)
        seen.append((g.view(0)["fuse"], g.view(0)["face"]))
    assert seen == [(3, "day"), (2, "day"), (3, "day"), (2, "day"), (1, "day"), (None, "night")]
    assert (g.view(0)["top"], g.view(0)["to_act"]) == ("O4", [0])


def test_a_wound_midnight_clock_survives_a_turnover():
    hands = [hand(0, "WC/T2", "Y6/P6"), hand(1, "RT/P4"), hand(2, "R4/P9")]
    g = dn(hands)
    play(g, 0, "WC", "R")
    play(g, 1, "RT")
    v = g.view(2)
    assert (v["face"], v["fuse"], v["top"], v["to_act"]) == ("night", 2, "P4", [2])
    play(g, 2, "P9")
    assert (g.view(0)["fuse"], g.view(0)["face"]) == (1, "night")
    play(g, 0, "P6")
    v = g.view(1)
    assert (v["face"], v["fuse"], v["top"], v["color"], v["to_act"]) == (
        "day",
        None,
        "Y6",
        "Y",
        [1],
    )


def test_after_a_clock_flip_onto_a_wild_the_player_handed_the_turn_names_the_color_then_plays():
    hands = [hand(0, "WC/T2", "R6/W"), hand(1, "R2/T4", "Y3/O5"), hand(2, "R4/O6")]
    g = dn(hands)
    play_all(g, [(0, "WC", "R"), (1, "R2"), (2, "R4"), (0, "R6")])
    v = g.view(1)
    assert (v["face"], v["top"], v["phase"], v["to_act"]) == ("night", "W", "color", [1])
    assert moves(g, 1) == {"color P", "color T", "color O", "color V"}
    assert moves(g, 0) == set()
    g.act(1, {"type": "color", "color": "O"})
    v = g.view(1)
    assert (v["color"], v["phase"], v["to_act"]) == ("O", "turn", [1])
    play(g, 1, "O5")
    assert g.view(2)["to_act"] == [2]


# ------------------------------------------------------------- night cards


def test_all_pass_every_other_player_loses_their_turn():
    hands = [hand(0, "RT/P4"), hand(1, "Y5/PA", "Y6/P3"), hand(2), hand(3)]
    g = dn(hands)
    play(g, 0, "RT")
    play(g, 1, "PA")
    v = g.view(1)
    assert (v["top"], v["color"], v["to_act"], v["phase"]) == ("PA", "P", [1], "turn")
    assert v["counts"] == [6, 6, 7, 7]
    play(g, 1, "P3")
    assert g.view(2)["to_act"] == [2]


def test_color_hunt_next_player_draws_until_the_named_color_and_loses_the_turn():
    hands = [hand(0, "RT/P4"), hand(1, "B5/WH"), hand(2)]
    g = dn(hands, ["Y1/T3", "Y2/P9", "Y3/W", "Y4/O5", "Y6/O7"])
    play(g, 0, "RT")
    pile = g.view(1)["draw_pile"]
    assert wild("WH", NIGHT) <= moves(g, 1)
    play(g, 1, "WH", "O")
    v = g.view(2)
    assert v["hand"][7:] == ["T3", "P9", "W", "O5"]
    assert (v["counts"], v["draw_pile"], v["to_act"]) == ([6, 6, 11], pile - 4, [0])
    assert (v["top"], v["color"]) == ("WH", "O")


def test_color_hunt_stops_when_nothing_can_be_drawn():
    v_faces = [f for f in night_faces() if f[0] == "V"]
    assert len(v_faces) == 26
    day_pool = [f"{c}{k}" for c in "YG" for k in range(1, 10) for _ in (0, 1)][:26]
    violets = [f"{d}/{n}" for d, n in zip(day_pool, v_faces, strict=True)]
    other = ["B1/O1", "B1/O1", "B2/O2", "B2/O2", "B3/O3", "B3/O3", "B4/O4"]
    hands = [
        ["RT/P4"] + violets[0:6],
        ["G5/P6"] + violets[6:12],
        ["B5/WH"] + violets[12:18],
        violets[18:25],
        violets[25:26] + other[:6],
        ["B6/O6", "B6/O6", "B7/O7", "B7/O7", "B8/O8", "B8/O8", "B4/O4"],
    ]
    g = dn(hands)
    play_all(g, [(0, "RT"), (1, "P6")])
    assert g.view(2)["draw_pile"] == 112 - 42 - 1
    play(g, 2, "WH", "V")  # no violet card is left to draw anywhere
    v = g.view(3)
    assert v["counts"][3] == 7 + 69 + 3  # the whole draw pile, then the reshuffled discards
    assert not any(c.startswith("V") for c in v["hand"][7:])
    assert (v["draw_pile"], v["discards"], v["top"], v["color"]) == (0, 1, "WH", "V")
    assert (v["to_act"], v["outcome"]) == ([4], None)


# ------------------------------------------------------------- penalties


def test_plus_one_is_answered_only_by_plus_one():
    hands = [
        hand(0, "R+1/T2"),
        hand(1, "Y+1/T3", "R2/P2", "RS/O3", "W/P4", "WC/O9"),
        hand(2),
    ]
    g = dn(hands, ["Y1/O7", "Y2/O8"])
    play(g, 0, "R+1")
    v = g.view(1)
    assert (v["pending"], v["pending_kind"], v["phase"]) == (1, "+1", "pile")
    assert moves(g, 1) == {"play Y+1", "draw"}
    play(g, 1, "Y+1")
    v = g.view(2)
    assert (v["pending"], v["pending_kind"], v["to_act"]) == (2, "+1", [2])
    assert moves(g, 2) == {"draw"}
    g.act(2, {"type": "draw"})
    v = g.view(2)
    assert v["hand"][7:] == ["Y1", "Y2"]
    assert (v["counts"], v["pending"], v["to_act"]) == ([6, 6, 9], 0, [0])


def test_plus_five_is_answered_only_by_plus_five():
    hands = [
        hand(0, "RT/P4"),
        hand(1, "Y2/P+5"),
        hand(2, "G2/T+5", "Y3/PA", "Y4/P3", "G5/W", "B5/WH", "R+1/T1"),
    ]
    g = dn(hands)
    play(g, 0, "RT")
    play(g, 1, "P+5")
    v = g.view(2)
    assert (v["face"], v["pending"], v["pending_kind"]) == ("night", 5, "+5")
    assert moves(g, 2) == {"play T+5", "draw"}
    play(g, 2, "T+5")
    v = g.view(0)
    assert (v["pending"], v["pending_kind"], v["to_act"]) == (10, "+5", [0])
    assert moves(g, 0) == {"draw"}
    g.act(0, {"type": "draw"})
    v = g.view(0)
    assert (v["counts"], v["pending"], v["to_act"]) == ([16, 6, 6], 0, [1])


def test_a_waiting_plus_one_pile_survives_a_clock_flip_and_only_plus_one_answers_it():
    hands = [
        hand(0, "WC/T2", "R+1/P8"),
        hand(1, "R2/T4", "Y6/T+5", "Y7/P+5", "Y8/PA"),
        hand(2, "R4/O6"),
    ]
    g = dn(hands)
    play_all(g, [(0, "WC", "R"), (1, "R2"), (2, "R4"), (0, "R+1")])
    v = g.view(1)
    assert (v["face"], v["top"], v["fuse"]) == ("night", "P8", None)
    assert (v["pending"], v["pending_kind"], v["phase"], v["to_act"]) == (1, "+1", "pile", [1])
    assert moves(g, 1) == {"draw"}  # a +5 face does not answer a +1 pile
    g.act(1, {"type": "draw"})
    v = g.view(1)
    assert (v["counts"], v["pending"], v["to_act"]) == ([5, 7, 6], 0, [2])


def test_a_waiting_plus_five_pile_survives_a_flip_back_to_day():
    hands = [
        hand(0, "WC/T2", "G4/T+5"),
        hand(1, "RT/P4", "R+1/O3", "Y+1/O4"),
        hand(2, "R4/P+5"),
    ]
    g = dn(hands)
    play_all(g, [(0, "WC", "R"), (1, "RT")])
    play(g, 2, "P+5")
    v = g.view(0)
    assert (v["face"], v["fuse"], v["pending"]) == ("night", 1, 5)
    assert moves(g, 0) == {"play T+5", "draw"}
    play(g, 0, "T+5")
    v = g.view(1)
    assert (v["face"], v["top"], v["color"], v["fuse"]) == ("day", "G4", "G", None)
    assert (v["pending"], v["pending_kind"], v["phase"], v["to_act"]) == (10, "+5", "pile", [1])
    assert moves(g, 1) == {"draw"}  # a +1 face does not answer a +5 pile


# ---------------------------------------------------------------- scoring


def test_day_points_count_the_active_face():
    hands = [
        ["RS/P1", "RS/P2", "RR/P3", "RR/T1", "YR/T2", "YS/T3", "Y5/P8"],
        ["R+1/T1", "BS/T2", "GR/T3", "BT/T4", "W/T6", "WC/T7", "Y7/TA"],
    ]
    g = dn(hands)
    play_all(g, [(0, c) for c in days(hands[0])])
    # +1 10, Skip 20, Reverse 20, Turnover 20, Wild 40, Midnight Clock 50, 7
    assert g.outcome["winners"] == [0]
    assert g.outcome["reason"] == "out"
    assert g.outcome["points"] == [167, 0]


def test_night_points_count_the_active_face():
    hands = [
        ["RS/P1", "RS/P2", "RR/P3", "RR/T1", "YR/T2", "YT/P4", "B9/P6"],
        ["Y2/P+5", "Y3/TR", "Y4/OT", "Y6/VA", "G1/W", "G2/WH", "G3/P7"],
    ]
    g = dn(hands, ["Y1/O2"])
    play_all(g, [(0, c) for c in days(hands[0])[:6]])
    assert (g.view(1)["face"], g.view(1)["top"], g.view(1)["to_act"]) == ("night", "P4", [1])
    g.act(1, {"type": "draw"})  # O2 does not match P4: the turn passes
    play(g, 0, "P6")
    # +5 20, Reverse 20, Turnover 20, All Pass 30, Wild 40, Color Hunt 60, 7, 2
    assert (g.outcome["winners"], g.outcome["reason"]) == ([0], "out")
    assert g.outcome["points"] == [199, 0]


# ------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "action",
    [
        {"type": "play", "card": "P1"},  # own far face
        {"type": "play", "card": "R5/P1"},
        {"type": "play", "card": "RT", "color": "R"},
        {"type": "color", "color": "P"},
        {"type": "pass"},
        {"type": "keep"},
        {"type": "play", "card": "WC", "color": "R"},  # not held
    ],
    ids=repr,
)
def test_bad_input_in_a_day_turn_changes_nothing(action):
    g = dn([hand(0, "R5/P1", "RT/W"), hand(1)])
    before = views(g), g.legal_actions(0)
    with pytest.raises(IllegalAction) as err:
        g.act(0, action)
    assert err.value.reason.strip()
    assert (views(g), g.legal_actions(0)) == before


@pytest.mark.parametrize(
    ("seat", "action"),
    [
        (0, {"type": "color", "color": "R"}),  # a day color at night
        (0, {"type": "color"}),
        (0, {"type": "color", "color": "p"}),
        (1, {"type": "color", "color": "P"}),  # not the flipper
        (0, {"type": "play", "card": "P1"}),  # name the color first
        (0, {"type": "draw"}),
    ],
    ids=repr,
)
def test_bad_input_while_the_flipper_names_a_color_changes_nothing(seat, action):
    g = dn([hand(0, "R5/P1", "RT/W"), hand(1)])
    play(g, 0, "RT")
    before = views(g)
    with pytest.raises(IllegalAction) as err:
        g.act(seat, action)
    assert err.value.reason.strip()
    assert views(g) == before


# ------------------------------------------------------ hidden information


def _check_views(g) -> None:
    """Every view shows own active faces, rivals' far faces sorted, nothing else."""
    n = g.n
    for s in range(n):
        v = g.view(s)
        assert v["hand"] == g.hands[s]
        assert set(v["far"]) == set(range(n)) - {s}
        for r in v["far"]:
            assert v["far"][r] == sorted(g.fars[r])
        assert v["draw_far"] == (g.pile_far[-1] if g.pile_far else None)
        found = lists_in(v)
        allowed = [v["hand"]] + [v["far"][r] for r in v["far"]]
        forbidden = [g.fars[s], sorted(g.fars[s])]
        for r in range(n):
            if r != s:
                forbidden += [g.hands[r], sorted(g.hands[r])]
        for bad in forbidden:
            if bad and bad not in allowed:
                assert bad not in found, (s, bad)
        for e in v["events"]:
            if "cards" in e:
                assert e["type"] == "draw" and e["seat"] == s
        if "drawn" in v:
            assert v["phase"] == "drawn" and v["turn"] == s


def test_no_view_ever_shows_a_rivals_active_faces_or_own_far_faces():
    rng = random.Random(2024)
    steps = 0
    for players, seed in [(2, 11), (3, 12), (4, 13), (6, 14)]:
        g = new_game("colormatch", table="daynight", players=players, seed=seed)
        for _ in range(110):
            _check_views(g)
            if g.outcome is not None:
                break
            seat = g.to_act[0]
            g.act(seat, rng.choice(g.legal_actions(seat)))
            steps += 1
    assert steps >= 300
