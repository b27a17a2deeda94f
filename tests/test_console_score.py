"""Scores that explain themselves (issue 15): the end screen states the
table's scoring rule in one line (its declaration's `scoring_rule`) and each
seat's points with the cards that made them, at 80x24."""

from __future__ import annotations

import re

import pytest
from _console import rigged, room_msg, seated_ui, text

from lanmatch.rules.colormatch import TABLES

RED = ["R1", "R2", "R3", "R4", "R6", "R7", "R9"]
OTHERS = [["Y8", "Y9", "G8", "G9", "B8", "YS", "GR"], ["B9", "Y8", "G8", "BS", "YR", "G9", "B8"]]


def seat0_goes_out(table: str):
    """Three seats; seat 0 sheds its reds while the others draw (and decline what they drew)."""
    g = rigged(table, [list(RED), *[list(h) for h in OTHERS]], "R0", first=0)
    reds = iter(RED)
    for _ in range(200):
        if g.outcome is not None:
            return g
        seat = g.view(0)["turn"]
        if seat == 0:
            g.act(0, {"type": "play", "card": next(reds)})
        elif g.view(seat)["phase"] == "drawn":
            g.act(seat, {"type": TABLES[table].decline})
        else:
            g.act(seat, {"type": "draw"})
    raise AssertionError("seat 0 never went out")


def end_screen(table: str) -> tuple[object, str]:
    g = seat0_goes_out(table)
    ui = seated_ui(g, table=table)
    ui.on_message(room_msg(3, table=table, state="over", creator=0), 1.0)
    return g, text(ui, width=80, height=24)


def test_every_table_declares_its_scoring_rule_in_one_line():
    for name, spec in TABLES.items():
        assert spec.scoring_rule and len(spec.scoring_rule) < 160, name
        if spec.scoring == "classic":
            assert "minus its own" in spec.scoring_rule, name


@pytest.mark.parametrize("table", ["classic", "siege"])
def test_classic_scoring_says_others_minus_own_for_every_seat(table):
    g, screen = end_screen(table)
    flat = " ".join(screen.split())
    assert "Scoring: Each seat scores what the others hold: all points minus its own." in flat
    points = g.outcome["points"]
    held = [sum(TABLES[table].card_points(c) for c in h) for h in g.outcome["hands"]]
    for p in points:
        m = re.search(rf" {p} = (\d+) held in all − (\d+) own", screen)
        assert m, screen
        assert int(m.group(1)) - int(m.group(2)) == p and int(m.group(1)) == sum(held)
    assert f"held ({held[1]}):" in screen and f"held ({held[2]}):" in screen


def test_winner_scoring_says_the_winner_takes_what_the_others_hold():
    g, screen = end_screen("standard")
    flat = " ".join(screen.split())
    assert "Scoring: The winner scores the others' cards" in flat
    assert f"{g.outcome['points'][0]} = what the others hold" in screen
    assert "You won!" in screen
