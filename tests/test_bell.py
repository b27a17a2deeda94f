"""The turn bell (docs/console.md, "The turn bell"): BEL, and a desktop
notification through the terminal's escape where it has one, when the turn
comes to you after others moved and when a catch window opens for you;
`--quiet` turns it off.

The model notes the bells (`Console.bells`), `bell.py` picks the escape from
the environment, and in a real terminal (tmux, the pane's output piped to a
file) the BEL byte reaches the pane, and never with `--quiet`.
"""

from __future__ import annotations

import subprocess
import sys
import time

from _console import NEED_TMUX, ROOM, Tmux, push, rigged, seated_ui

from lanmatch.console.bell import BEL, notify_escape, notify_kind

H0 = ["R1", "R2", "R3", "G4", "G5", "B6", "Y7"]
H1 = ["R4", "R5", "R6", "G1", "G2", "B3", "Y4"]


def test_the_bell_rings_when_the_turn_comes_back_after_another_seat_moved():
    g = rigged("classic", [H0, H1], "R9", first=1)
    ui = seated_ui(g)
    assert ui.bells == []  # the deal: seat 1 moves first, nothing for you yet
    g.act(1, {"type": "play", "card": "R4"})
    push(ui, g)
    assert ui.bells == [(ROOM, "Your turn.")]
    ui.bells.clear()
    g.act(0, {"type": "play", "card": "R1"})
    push(ui, g)
    assert ui.bells == []  # your own move: no bell


def test_no_bell_when_the_turn_stays_yours_nor_for_the_first_deal():
    g = rigged("classic", [H0, H1], "R9", first=0)
    ui = seated_ui(g)
    assert ui.bells == []  # you move first: nobody moved before you
    g.act(0, {"type": "draw"})
    push(ui, g)
    assert ui.bells == []  # you drew: still your decision, no bell


def test_the_bell_rings_when_a_catch_window_opens_for_you():
    g = rigged("classic", [H0, H1], "R9", first=1)
    ui = seated_ui(g)
    v = g.view(0)
    msg = {"type": "view", "seq": 2, "room": ROOM, "state_id": v["step"] + 1, "view": {**v, "step": v["step"] + 1},
           "legal": [{"type": "catch", "seat": 1}], "timers": [], "autopilot": []}
    ui.on_message(msg, 0.0)
    assert ui.bells == [(ROOM, "A rival did not call the last card: catch it!")]
    ui.bells.clear()
    ui.on_message({**msg, "state_id": v["step"] + 2, "view": {**v, "step": v["step"] + 2}}, 0.0)
    assert ui.bells == []  # the same window still open: one bell


def test_a_watcher_hears_no_bell():
    g = rigged("classic", [H0, H1], "R9", first=1)
    ui = seated_ui(g)
    ui.seat, ui.watching = None, True
    g.act(1, {"type": "play", "card": "R4"})
    push(ui, g, seat=0)
    assert ui.bells == []


def test_the_notification_escape_is_the_terminals_own_and_never_a_second_bell():
    assert notify_kind({"TERM": "foot"}) == "777"
    assert notify_kind({"TERM": "xterm-256color", "TERM_PROGRAM": "WezTerm"}) == "777"
    assert notify_kind({"TERM": "xterm-256color", "VTE_VERSION": "7600"}) == "777"
    assert notify_kind({"TERM": "xterm-256color", "TERM_PROGRAM": "iTerm.app"}) == "9"
    assert notify_kind({"TERM": "xterm-256color"}) is None
    assert notify_kind({"TERM": "screen", "TMUX": "/tmp/t,1,0", "TERM_PROGRAM": "WezTerm"}) is None
    assert notify_kind({"TERM": "linux", "LANMATCH_NOTIFY": "9"}) == "9"
    assert notify_kind({"TERM": "foot", "LANMATCH_NOTIFY": "off"}) is None
    esc = notify_escape("Kit;chen\x1b", "Your turn.", {"TERM": "foot"})
    assert esc == "\x1b]777;notify;Kit chen ;Your turn.\x1b\\"
    assert notify_escape("R", "Your turn.", {"TERM_PROGRAM": "iTerm.app"}) == "\x1b]9;R: Your turn.\x1b\\"
    assert BEL not in esc and notify_escape("R", "x", {}) == ""


# ------------------------------------------------------------------ a real terminal


def _env(tmp_path) -> dict[str, str]:
    return {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path),
            "XDG_DATA_HOME": str(tmp_path / "share"), "XDG_CONFIG_HOME": str(tmp_path / "config"),
            "TERM": "xterm-256color", "LANG": "C.UTF-8"}


def _mine(s: str) -> bool:
    return " ▶ You " in s and ("Your move" in s or "You drew" in s or "on you" in s)


def _play_moves(t: Tmux, moves: int) -> None:
    """Make `moves` moves of the person's (bounded waits)."""
    for _ in range(moves):
        screen = t.wait_for(lambda s: _mine(s) or "Game over" in s or "name a color" in s.lower(), timeout=20)
        if "Game over" in screen:
            return
        if "name a color" in screen.lower():
            t.keys("Enter")
        elif "You drew" in screen:
            t.keys("p")
        elif "Enter plays" in screen or "Enter answers" in screen:
            t.keys("Enter")
        else:
            t.keys("d")
        t.wait_for(lambda s, before=screen: s != before, timeout=20)


def _piped(t: Tmux, path) -> None:
    subprocess.run([*t.base, "pipe-pane", "-t", t.name, f"cat >> {path}"], check=True, timeout=5)


def _bytes_until(path, pred, timeout: float) -> bytes:
    deadline = time.monotonic() + timeout
    data = b""
    while time.monotonic() < deadline:
        data = path.read_bytes() if path.exists() else b""
        if pred(data):
            return data
        time.sleep(0.1)
    return data


@NEED_TMUX
def test_the_bell_byte_reaches_the_pane_when_the_turn_comes_back(tmp_path):
    out = tmp_path / "pane.out"
    cmd = (f"env LANMATCH_NOTIFY=777 {sys.executable} -m lanmatch play --table classic --seats 2 --seed 5 --fast "
           "--name Ann")
    with Tmux(cmd, _env(tmp_path)) as t:
        _piped(t, out)
        t.wait_for(lambda s: " ▶ " in s, timeout=20)
        _play_moves(t, 3)
        data = _bytes_until(out, lambda d: b"\x07" in d, 10)
        t.keys("q")
        t.keys("y")
    assert b"\x07" in data
    assert b"\x1b]777;notify;Quick play;Your turn.\x1b\\" in data  # and the notification, asked for


@NEED_TMUX
def test_quiet_sends_no_bell(tmp_path):
    out = tmp_path / "pane.out"
    cmd = (f"env LANMATCH_NOTIFY=777 {sys.executable} -m lanmatch play --table classic --seats 2 --seed 5 --fast "
           "--name Ann --quiet")
    with Tmux(cmd, _env(tmp_path)) as t:
        _piped(t, out)
        t.wait_for(lambda s: " ▶ " in s, timeout=20)
        _play_moves(t, 3)
        t.wait_for(lambda s: _mine(s) or "Game over" in s, timeout=20)  # the turn came back (or the game ended)
        time.sleep(0.5)
        data = out.read_bytes() if out.exists() else b""
        t.keys("q")
        t.keys("y")
    assert data and b"\x07" not in data and b"]777;" not in data


def test_quiet_is_a_flag_of_play_and_join():
    from lanmatch.cli import build_parser

    p = build_parser()
    assert p.parse_args(["play", "--quiet"]).quiet and not p.parse_args(["play"]).quiet
    assert p.parse_args(["join", "--quiet", "127.0.0.1:7272"]).quiet and not p.parse_args(["join"]).quiet


def test_the_session_rings_bel_and_the_escape_and_nothing_when_quiet():
    """`Session.ring` writes what the model noted to the terminal's output (and clears it)."""
    from io import StringIO

    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.data_structures import Size
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output.vt100 import Vt100_Output

    from lanmatch.console.app import Session
    from lanmatch.console.model import Console

    async def net(session, nursery):
        return None

    for quiet in (False, True):
        buf = StringIO()
        out = Vt100_Output(buf, lambda: Size(rows=24, columns=80), term="xterm")
        with create_pipe_input() as inp, create_app_session(input=inp, output=out):
            ui = Console("Ann", kind="play")
            session = Session(ui, net)
            session.quiet = quiet
            session.env = {"TERM": "foot"}
            ui.bells.append(("Kitchen", "Your turn."))
            session.ring()
            assert ui.bells == []
        written = buf.getvalue()
        if quiet:
            assert "\a" not in written and "777" not in written
        else:
            assert written.endswith("\a\x1b]777;notify;Kitchen;Your turn.\x1b\\"), repr(written)
