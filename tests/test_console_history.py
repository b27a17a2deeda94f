"""The move history (issue 15): it scrolls back and forth (PgUp/PgDn, [ ]),
its long lines wrap instead of being cut, and the table marks the piece just
played. Model tests at 80x24."""

from __future__ import annotations

from _console import dominoes_with_a_line, push, rigged, seated_ui, text

from lanmatch.console.screen import _plain, ansi_fragments, line_len, screen_text, wrap

H0 = ["R1", "R2", "R3", "G4", "B5", "Y6", "R7"]
H1 = ["G1", "G2", "B3", "Y4", "R5", "B6", "Y7"]


def played_once():
    g = rigged("classic", [H0, H1], "R9", first=1)
    g.act(1, {"type": "play", "card": "R5"})
    return g


def test_a_long_log_line_wraps_and_nothing_is_cut():
    g = played_once()
    ui = seated_ui(g)
    long = "You drew " + " · ".join(f"green ▲ {k}" for k in range(10)) + " · the end"
    ui.add_log([long])
    screen = text(ui)
    flat = " ".join(screen.split())
    assert "green ▲ 8 · green ▲ 9 · the end" in flat, screen
    assert "…" not in screen


def test_wrap_keeps_styles_and_indents_the_rows_after_the_first():
    line = ansi_fragments(" \x1b[32mgreen ▲ 8\x1b[0m · " * 6)
    rows = wrap(line, 30)
    assert len(rows) > 1 and all(line_len(r) <= 30 for r in rows)
    assert screen_text(rows[1:2]).startswith("   green")
    assert any("class:green" in s or "green" in s for r in rows for s, _t in r if s)
    assert wrap(_plain("short"), 30) == [_plain("short")]


def many_moves(n: int = 60):
    g = played_once()
    ui = seated_ui(g)
    ui.add_log([f"Move {k}: something happened" for k in range(1, n + 1)])
    return ui


def test_the_history_scrolls_back_and_forth():
    ui = many_moves()
    latest = text(ui)
    assert "Move 60:" in latest and "Recent moves (PgUp or [ scrolls back)" in latest
    assert "Move 40:" not in latest
    ui.press("[")
    back = text(ui)
    assert "Move 60:" not in back and "scrolled back" in back and "[ ] history" in back
    first = int(back.split("Moves ")[1].split("-")[0])
    ui.press("pageup")
    further = text(ui)
    assert int(further.split("Moves ")[1].split("-")[0]) < first
    for _ in range(100):  # never past the first line
        ui.press("[")
    top = text(ui)
    assert "Move 1:" in top or "dealt" in top
    ui.press("]")
    ui.press("pagedown")
    for _ in range(100):
        ui.press("]")
    assert "Move 60:" in text(ui) and ui.log_back == 0


def test_new_moves_do_not_move_a_history_scrolled_back():
    ui = many_moves()
    ui.press("[")
    before = text(ui)
    shown = [ln for ln in before.splitlines() if ln.startswith(" Move ")]
    ui.add_log(["Move 61: one more", "Move 62: and another"])
    after = text(ui)
    assert [ln for ln in after.splitlines() if ln.startswith(" Move ")] == shown
    assert "Move 62" not in after


def test_the_help_tells_the_history_keys():
    ui = many_moves()
    ui.press("?")
    assert "PgUp/PgDn or [ ]  scroll the move history back and forth" in text(ui)


def test_the_top_card_says_who_just_played_it():
    g = played_once()
    ui = seated_ui(g)
    screen = text(ui)
    assert "Top card: red ■ 5 (just played by Bot 1 (medium))" in screen or "(just played by Bot 1" in screen, screen
    g.act(0, {"type": "play", "card": "R1"})
    push(ui, g)
    assert "(you just played it)" in text(ui)


def test_the_starter_is_not_marked_as_played():
    g = rigged("classic", [H0, H1], "R9", first=0)
    ui = seated_ui(g)
    assert "just played" not in text(ui)


def test_dominoes_marks_the_tile_just_played():
    g = dominoes_with_a_line()
    ui = seated_ui(g, game="dominoes", table=None)
    screen = text(ui)
    last = [e for e in g.view(0)["events"] if e["type"] == "play"][-1]
    a, b = last["tile"].split("-")
    assert f"just played: [{a}|{b}] by " in screen or f"just played: [{b}|{a}] by " in screen, screen
