"""Each table's own words (issue 15): the card names of the table's
declaration (its palette) in prompts, the log and the help, one casing; Day &
Night far faces with their color names. Real engine views through the wire."""

from __future__ import annotations

from _console import push, rigged, seated_ui, text, to_seat0

from lanmatch.console.screen import help_lines


def test_toll_log_says_flip_and_the_prompt_says_toll_4():
    hands = [["RR", "Y2", "G3", "B4", "B5", "G6", "Y7"], ["W+4", "Y3", "G1", "G2", "B1", "B2", "Y4"],
             ["R1", "Y5", "G5", "B6", "Y6", "G7", "B7"]]
    g = rigged("toll", hands, "R5", first=0)
    g.act(0, {"type": "play", "card": "RR"})  # a Flip: play turns counterclockwise, to seat 2
    ui = seated_ui(g, table="toll")
    assert "Flip: play now goes counterclockwise ↺" in ui.log
    assert not any(line.startswith("Reverse") for line in ui.log)
    assert "You played rose ● Flip" in ui.log  # toll's colors in lower case, as at every table
    g.act(2, {"type": "play", "card": "R1"})
    g.act(1, {"type": "play", "card": "W+4", "color": "B"})  # a Toll 4 on seat 0
    push(ui, g)
    screen = text(ui)
    assert "A Toll 4 waits on you: a accepts it (draw 4), ! challenges it" in screen
    assert "+4" not in screen.replace("draw 4", "")
    page = "\n".join(help_lines(ui))
    assert "accept a Toll 4" in page and "challenge a Toll 4" in page


def test_siege_with_nothing_to_answer_a_pile_does_not_ask_for_a_marked_card():
    hands = [["Y1", "Y2", "G3", "B4", "B5", "G6", "Y7"], ["R+2", "Y3", "G1", "G2", "B1", "B2", "Y4"]]
    g = rigged("siege", hands, "R5", first=1)
    g.act(1, {"type": "play", "card": "R+2"})  # a +2 pile waits on seat 0, which holds no +2, +4 or Shield
    ui = seated_ui(g, table="siege")
    screen = text(ui)
    assert "[marked]" not in screen
    assert "Penalty pile of 2 on you: nothing of yours answers it; d draws it" in screen


def test_daynight_far_faces_carry_their_color_names():
    hands = [["R1/P1", "R2/P2", "Y3/T3", "G4/O4", "B5/V5", "Y6/T6", "G7/O7"],
             ["WC/P+5", "R3/TA", "G1/V9", "G2/O8", "B1/P9", "B2/T9", "Y4/V8"],
             ["R4/O5", "Y5/P4", "G5/V4", "B6/T4", "Y7/O6", "G6/P6", "B7/V7"]]
    g = rigged("daynight", hands, "R5/V3", first=1)
    g.act(1, {"type": "play", "card": "WC", "color": "R"})
    to_seat0(g)
    screen = text(seated_ui(g, table="daynight"))
    lines = [x for x in screen.splitlines() if "far:" in x]
    assert lines and all(any(c in x for c in ("pink", "teal", "orange", "violet")) for x in lines), lines
