"""The console's pause (issue 15): alone with bots, `?` and `p` stop the
clocks (the host's `pause`), and the screen says so and stops counting; with
another person at the table they run on, and the help says so. 80x24."""

from __future__ import annotations

import re

from _console import push, rigged, room_msg, seated_ui, text, to_seat0

H0 = ["R1", "R2", "R3", "G4", "B5", "Y6", "R7"]
H1 = ["G1", "G2", "B3", "Y4", "R5", "B6", "Y7"]
H2 = ["Y1", "Y2", "G3", "B4", "Y5", "G6", "B7"]

PAUSE, RESUME = ("send", "pause", {"on": True}), ("send", "pause", {"on": False})


def alone():
    g = rigged("classic", [H0, H1, H2], "R9", first=0)
    return g, seated_ui(g)


def with_bob():
    g, ui = alone()
    room = room_msg(3)
    room["room"]["seats"][1].update(name="Bob", kind="person")
    ui.on_message(room, 0.0)
    return g, ui


def paused(ui, g, now: float = 0.0) -> None:
    msg = push(ui, g, now=now)
    ui.on_message({**msg, "paused": True}, now)


def clock(screen: str) -> str:
    m = re.search(r"\((\d+) s\)", screen)
    return m.group(1) if m else ""


def test_help_stops_the_clocks_alone_with_bots_and_closing_it_starts_them():
    g, ui = alone()
    assert ui.alone_with_bots()
    assert ui.press("?") == [PAUSE]
    paused(ui, g, now=1.0)
    screen = text(ui, now=1.0)
    assert "The clocks are stopped while this help is open" in " ".join(screen.split())
    assert ui.press("x") == [RESUME] and ui.overlay is None and ui.paused_by is None


def test_p_pauses_and_the_screen_stops_counting():
    g, ui = alone()
    assert clock(text(ui, now=0.0)) == "30" and clock(text(ui, now=5.0)) == "25"
    assert ui.press("p") == [PAUSE] and "Paused: no clock runs" in ui.message
    paused(ui, g, now=5.0)
    first = text(ui, now=5.0)
    later = text(ui, now=500.0)
    assert clock(first) == clock(later) == "30"
    assert "PAUSED" in first.splitlines()[0]
    assert "PAUSED, no clock runs (p goes on). Your move (30 s)" in later
    assert "p go on (paused)" in later  # the key bar tells the way back
    assert ui.press("p") == [RESUME] and ui.paused_by is None
    assert "The clocks run again." in ui.message


def test_a_move_while_paused_goes_on_by_itself():
    g, ui = alone()
    ui.press("p")
    paused(ui, g)
    intents = ui.press("enter")
    assert [i[0] for i in intents] == ["act"] and ui.paused_by is None
    assert ui.press("?") == [PAUSE]  # help pauses again, and its close resumes
    assert ui.press("q") == [RESUME]


def test_p_plays_a_drawn_card_and_P_pauses_then():
    g = rigged("classic", [["Y1", "Y2", "G3", "B4", "B5", "G6", "Y7"], H1], "R5", first=0, pile=("R7",))
    ui = seated_ui(g)
    g.act(0, {"type": "draw"})
    push(ui, g)
    assert [i[0] for i in ui.press("p")] == ["act"]
    ui.sent_sid = None
    assert ui.press("P") == [PAUSE]


def test_with_another_person_the_clocks_run_on_and_the_help_says_so():
    g, ui = with_bob()
    assert not ui.alone_with_bots()
    assert ui.press("?") == []
    screen = " ".join(text(ui).split())
    assert "p pauses the clocks alone with bots; with people they run on." in screen
    assert ui.press("x") == []
    assert ui.press("p") == [] and "With other people at the table the clocks run on" in ui.message
    assert clock(text(ui, now=4.0)) == "26"


def test_no_pause_once_the_game_is_over_or_for_a_watcher():
    g, ui = alone()
    ui.seat = None
    assert not ui.alone_with_bots()
    g2 = rigged("classic", [H0, H1, H2], "R9", first=1)
    to_seat0(g2)
    ui2 = seated_ui(g2)
    ui2.msg = {**ui2.msg, "view": {**ui2.msg["view"], "outcome": {"winners": [1], "points": [0, 0, 0]}}}
    assert not ui2.alone_with_bots()
