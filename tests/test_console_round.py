"""A Dominoes round's end (issue 15): the engine reveals every rack once the
round is over (`round_end` `hands`, the outcome's `hands`), and the console
shows them, with the pips and the points, in a layer at 80x24 until a key or
`ROUND_SECONDS`, then the next deal."""

from __future__ import annotations

import re

import pytest
from _console import push, seated_ui, text

from lanmatch.console.model import ROUND_SECONDS
from lanmatch.console.render import Words, round_end_lines, tile_words
from lanmatch.rules import new_game
from lanmatch.rules.dominoes import TABLES, domino_set

SIX = domino_set(6).tiles


def play(tile: str, end: str = "left") -> dict:
    return {"type": "play", "tile": tile, "end": end}


def out_deal() -> list[str]:
    """Seat 0 holds six doubles and 0-0; seat 1 answers each double down the line and keeps 6-4."""
    hands = ["6-6", "5-5", "4-4", "3-3", "2-2", "1-1", "0-0"], ["6-5", "5-4", "4-3", "3-2", "2-1", "1-0", "6-4"]
    named = [t for h in hands for t in h]
    return named + [t for t in SIX if t not in named]


OUT_PLAYS = [(0, "6-6"), (1, "6-5"), (0, "5-5"), (1, "5-4"), (0, "4-4"), (1, "4-3"), (0, "3-3"), (1, "3-2"),
             (0, "2-2"), (1, "2-1"), (0, "1-1"), (1, "1-0")]


def round_one_out(target: int = 100):
    g = new_game("dominoes", players=2, seed=1, options={"target": target}, deck=out_deal())
    for seat, tile in OUT_PLAYS:
        g.act(seat, play(tile))
    return g


def test_racks_are_revealed_only_once_the_round_is_over():
    g = round_one_out()
    before = [g.view(s) for s in range(2)]
    assert all("hands" not in e for v in before for e in v["events"])
    assert "6-4" not in repr(before[0]) and "0-0" not in repr({**before[1], "hand": []})
    events = g.act(0, play("0-0"))
    end = next(e for e in events if e["type"] == "round_end")
    assert end["hands"] == [[], ["6-4"]] and end["pips"] == [0, 10] and end["points"] == 10
    assert g.outcome is None and g.view(1)["round"] == 2
    assert any(e.get("hands") == [[], ["6-4"]] for e in g.watch_view()["events"])


def test_the_last_round_s_racks_are_in_the_outcome():
    g = round_one_out(target=10)
    g.act(0, play("0-0"))
    assert g.outcome["hands"] == [[], ["6-4"]] and g.outcome["winners"] == [0]


def dominoes_ui(g):
    return seated_ui(g, game="dominoes", table=None)


def test_the_round_screen_shows_every_rack_the_pips_and_the_points():
    g = round_one_out()
    ui = dominoes_ui(g)
    assert ui.overlay is None
    g.act(0, play("0-0"))
    push(ui, g, now=100.0)
    assert ui.mode() == "round"
    screen = text(ui, now=100.0)
    assert "Round 1 is over" in screen
    assert "You went out and score 10: the pips left in the others' racks (10)." in " ".join(screen.split())
    assert "+10   0 pips: out" in screen
    assert "10 pips: [6|4]" in screen, screen
    assert "Match points: You 10 · Bot 1 (medium) 0 (first to 100)" in screen
    assert "Round 2 is dealt: it shows in 8 s" in screen
    # alone with bots: the box holds the next deal (the host is asked to pause)
    assert ui.sends == [("send", "pause", {"on": True})] and ui.paused_by == "round"
    # a key closes it, and does nothing else but let the clocks run again
    assert ui.press("d") == [("send", "pause", {"on": False})] and ui.overlay is None and ui.paused_by is None
    assert "Round 1 is over" not in text(ui, now=101.0)
    assert ui.due(200.0) == []


def test_the_round_screen_goes_by_itself_after_a_few_seconds():
    g = round_one_out()
    ui = dominoes_ui(g)
    g.act(0, play("0-0"))
    push(ui, g, now=100.0)
    assert "Round 1 is over" in text(ui, now=100.0 + ROUND_SECONDS - 1)
    assert ui.due(100.0 + ROUND_SECONDS - 1) == []
    assert ui.due(100.0 + ROUND_SECONDS) == [("send", "pause", {"on": False})]  # the clocks go on by themselves
    later = text(ui, now=100.0 + ROUND_SECONDS)
    assert "Round 1 is over" not in later and "round 2" in later
    # the next key is the table's own
    assert ui.mode() == "table"
    before = ui.sel
    ui.press("right")
    assert ui.overlay is None and (ui.sel != before or len(ui.hand()) == 1)


def test_a_blocked_round_says_who_held_the_fewest_pips():
    words = Words(None, ["Ann", "Bot 1", "Bot 2"], 0, False)
    e = {"type": "round_end", "round": 3, "reason": "blocked", "winner": 1, "pips": [9, 4, 12], "points": 21,
         "scores": [0, 21, 5], "hands": [["6-3"], ["3-1"], ["6-6"]]}
    lines = round_end_lines(e, words, 74, 100)
    assert lines[0] == ("The line is blocked; Bot 1 holds the fewest pips (4) and scores 21: "
                        "the pips left in the others' racks (9 + 12).")
    tie = {**e, "winner": None, "pips": [4, 4, 12], "points": 0}
    assert round_end_lines(tie, words, 74)[0] == "The line is blocked; Ann and Bot 1 tie on 4 pips: nobody scores."
    one = {**e, "pips": [9, 1, 12], "hands": [["6-3"], ["1-0"], ["6-6"]]}
    assert any("   1 pip:  [1|0]" in x for x in round_end_lines(one, words, 74)), round_end_lines(one, words, 74)


@pytest.mark.parametrize("table", ["double-nine", "double-twelve"])
def test_a_big_set_s_round_screen_fits_80x24(table):
    """A rigged deck (the set in order) at 6 seats, first legal moves until round 1 ends."""
    tiles = list(domino_set(TABLES[table].top).tiles)
    g = new_game("dominoes", table=table, players=6, seed=3, options={"target": 1000}, deck=tiles[::-1])
    ui = seated_ui(g, game="dominoes", table=table)
    for _ in range(2000):
        if g.view(0)["round"] == 2 or g.outcome is not None:
            break
        seat = g.to_act[0]
        g.act(seat, g.legal_actions(seat)[0])
    assert g.outcome is None and g.view(0)["round"] == 2
    push(ui, g, now=5.0)
    screen = text(ui, now=5.0)
    end = ui.round_end
    assert "Round 1 is over" in screen and "Round 2 is dealt" in screen, screen
    for s, rack in enumerate(end["hands"]):
        assert f"{end['pips'][s]:>3} pips: " in screen
        if rack and len(rack) <= 6:
            assert " ".join(tile_words(t) for t in rack) in screen, screen
    assert "first to 1000)" in screen  # the match points wrap, never cut
    box = [ln for ln in screen.splitlines() if "│" in ln]
    assert not any("…" in ln for ln in box), screen
    flat = " ".join(" ".join(ln.replace("│", " ") for ln in box).split())
    assert re.search(rf"scores? {end['points']}: the pips left in the others' racks \(", flat), screen


def test_with_another_person_at_the_table_the_round_box_holds_nothing():
    g = round_one_out()
    ui = dominoes_ui(g)
    ui.room["seats"][1].update(kind="person", name="Bob")
    g.act(0, play("0-0"))
    push(ui, g, now=100.0)
    assert ui.mode() == "round" and ui.sends == [] and ui.paused_by is None
    assert ui.press("d") == [] and ui.due(200.0) == []



def test_the_round_box_wraps_its_lines_at_60_columns():
    """A play-test at 60x20 read "any key goes on to…": the box's last line
    was cut. Every line of a box wraps (docs/console.md)."""
    g = round_one_out()
    ui = dominoes_ui(g)
    g.act(0, play("0-0"))
    push(ui, g, now=100.0)
    screen = text(ui, now=100.0, width=60, height=20)
    box = [x for x in screen.splitlines() if "│" in x]
    joined = " ".join(x.strip(" │") for x in box)
    assert box and not any("…" in x for x in box), screen
    assert "Round 2 is dealt: it shows in 8 s, or" in " ".join(joined.split()), screen
