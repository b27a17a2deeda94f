"""The console's side of a fair call: `c` plays and calls at once, a rival
who forgot shows `x: catch Bot 1 (2 s)`, and a missed call is logged as what it
is (never as a move the clock played). Real engine views through the wire."""

from __future__ import annotations

import pytest
from _console import push, rigged, seated_ui, text


def acts(intents: list) -> list[dict]:
    return [i[1] for i in intents if i[0] == "act"]


def two_left(table: str):
    """Seat 0 holds R6 and R7 with its turn (2 seats); each play leaves one card."""
    hands = [["R1", "R2", "R3", "R4", "R5", "R6", "R7"], ["R1", "R2", "R3", "R4", "R5", "R6", "R7"]]
    g = rigged(table, hands, "R8", first=0)
    for card in ("R1", "R2", "R3", "R4", "R5"):
        g.act(0, {"type": "play", "card": card})
        g.act(1, {"type": "play", "card": card})
    return g


@pytest.mark.parametrize("table", ["standard", "cards"])
def test_c_plays_the_selected_card_and_calls_at_once(table):
    g = two_left(table)
    ui = seated_ui(g, table=table)
    ui.sel = [i.code for i in ui.hand()].index("R6")
    screen = text(ui)
    assert "c plays red" in screen and "calls last card" in screen and "c play+call" in screen
    sent = acts(ui.press("c"))
    assert sent == [{"type": "play", "card": "R6", "call": True}]
    g.act(0, sent[0])
    push(ui, g)
    assert g.view(0)["windows"] == []
    assert any("called last card" in line for line in ui.log)


def test_enter_still_plays_without_the_call_and_tab_lists_both():
    g = two_left("standard")
    ui = seated_ui(g, table="standard")
    ui.sel = [i.code for i in ui.hand()].index("R6")
    assert acts(ui.press("enter")) == [{"type": "play", "card": "R6"}]
    ui2 = seated_ui(two_left("standard"), table="standard")
    ui2.press("tab")
    labels = [o[1] for o in ui2.picker.options]
    assert any(lbl.endswith("and call last card") for lbl in labels)


def test_a_rival_who_forgot_shows_whom_x_catches_and_the_time_left():
    g = two_left("cards")
    g.act(0, {"type": "play", "card": "R6", "call": True})
    g.act(1, {"type": "play", "card": "R6"})  # Bot 1 down to one card, no call
    g.act(1, {"type": "expire", "penalty": False})  # its call time ran out: catch time opens
    ui = seated_ui(g, table="cards")
    push(ui, g, timers=[{"seat": 1, "kind": "catch", "left": 2.2}])
    screen = text(ui)
    assert "x: catch Bot 1 (medium) (2 s)!" in screen, screen
    assert "x catch" in screen
    assert acts(ui.press("x")) == [{"type": "catch", "seat": 1}]


def test_a_missed_call_at_cards_is_not_logged_as_a_move_the_clock_played():
    g = two_left("cards")
    g.act(0, {"type": "play", "card": "R6"})  # no call
    g.act(1, {"type": "play", "card": "R6", "call": True})  # seat 0's turn again, its call window still open
    assert g.view(0)["turn"] == 0 and g.view(0)["windows"] == [{"seat": 0, "call": True, "catch": False}]
    ui = seated_ui(g, table="cards")
    push(ui, g, timers=[{"seat": 0, "kind": "move", "left": 30.0}, {"seat": 0, "kind": "call", "left": 0.5}])
    g.act(0, {"type": "expire", "penalty": True})  # the host: the call time ran out
    push(ui, g)
    assert not any("time ran out: the host played" in line for line in ui.log)
    assert any("missed the last-card call" in line for line in ui.log)


def test_a_pile_of_wild_fours_offers_no_challenge():
    """Under `stacking` only a lone +4 may be challenged: the prompt and the
    table said "c challenges it" over a pile of two, which the host refuses."""
    hands = [["R1", "R2", "R3", "G1", "G2", "G3", "B1"],
             ["W+4", "R4", "R5", "G4", "G5", "G6", "B2"],
             ["W+4", "Y1", "Y2", "Y3", "Y4", "Y5", "B3"]]
    g = rigged("standard", hands, "B5", first=1, options={"stacking": True})
    g.act(1, {"type": "play", "card": "W+4", "color": "R"})
    g.act(2, {"type": "play", "card": "W+4", "color": "R"})
    assert {a["type"] for a in g.legal_actions(0)} == {"accept"}
    ui = seated_ui(g, table="standard")
    prompt = ui.prompt_line(0.0)
    assert "accepts it (draw 8)" in prompt and "challenge" not in prompt
    assert "challenge" not in text(ui)
    lone = rigged("standard", hands, "B5", first=2, options={"stacking": True})
    lone.act(2, {"type": "play", "card": "W+4", "color": "R"})  # a lone +4 on seat 0: it may be challenged
    assert "challenge" in {a["type"] for a in lone.legal_actions(0)}
    assert "! challenges it" in seated_ui(lone, table="standard").prompt_line(0.0)


@pytest.mark.parametrize(("table", "verb"), [("standard", "passes"), ("classic", "keeps it")])
def test_a_card_that_cannot_play_after_a_draw_names_the_tables_word_for_keeping(table, verb):
    """With a drawn card to PLAY or not, Enter on another card says what the
    keys do in the table's words: "k keeps it" at a KEEP table, "k passes"
    at a PASS table (it said "keeps it" everywhere)."""
    hands = [["R1", "R2", "R3", "G1", "G2", "G3", "Y1"], ["Y2", "Y3", "Y4", "Y6", "Y7", "Y8", "Y9"]]
    g = rigged(table, hands, "B5", first=0, pile=("B7",))
    g.act(0, {"type": "draw"})
    assert g.view(0)["phase"] == "drawn"
    ui = seated_ui(g, table=table)
    ui.press("1")  # R1, which does not play
    ui.press("enter")
    assert ui.message.startswith("You drew ") and ui.message.endswith(f"k {verb}."), ui.message
