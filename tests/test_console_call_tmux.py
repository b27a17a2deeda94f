"""A fair last-card call in a real terminal (tmux, 80x24): `lanmatch play
--fast` (bots with no pause at all), played by keys until the person holds two
cards; they play one and call within a second, and no bot catches them.
Before the grace a Medium bot caught a person 45 ms after the play with
`--fast`."""

from __future__ import annotations

import re
import sys
import time

import pytest
from _console import NEED_TMUX, Tmux

ENV_KEYS = ("PATH", "HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "TERM", "LANG")


def _env(tmp_path) -> dict[str, str]:
    return {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path),
            "XDG_DATA_HOME": str(tmp_path / "share"), "TERM": "xterm-256color", "LANG": "C.UTF-8"}


def _mine(s: str) -> bool:
    return " ▶ You " in s and ("Your move" in s or "You drew" in s or "waits on you" in s or "on you:" in s)


def _play_to_two_cards(t: Tmux) -> str:
    """Keys for the person until it is their move with two cards and a play: the screen then."""
    for _ in range(150):
        screen = t.wait_for(lambda s: _mine(s) or "Game over" in s or "name a color" in s.lower(), timeout=20)
        if "Game over" in screen:
            t.keys("r")  # the room's creator deals the rematch
            t.wait_for(lambda s: "Game over" not in s, timeout=20)
            continue
        if "name a color" in screen.lower():
            t.keys("Enter")
        elif "Your hand: 2 cards" in screen and "and calls last card" in screen:
            return screen
        elif "You drew" in screen:
            t.keys("p")
        elif "Enter plays" in screen or "Enter answers" in screen:
            t.keys("Enter")
        elif "a accepts" in screen:
            t.keys("a")
        else:
            t.keys("d")
        time.sleep(0.05)
        t.wait_for(lambda s, before=screen: s != before, timeout=20)
    raise AssertionError("never held two cards with a play")


@NEED_TMUX
@pytest.mark.parametrize("table", ["standard", "cards"])
def test_a_person_who_calls_within_a_second_is_never_caught(tmp_path, table):
    cmd = f"{sys.executable} -m lanmatch play --table {table} --seats 3 --seed 5 --fast --name Ann"
    with Tmux(cmd, _env(tmp_path)) as t:
        _play_to_two_cards(t)
        t.keys("Enter")  # the plain play: one card left, the call not made yet
        if "name a color" in t.wait_for(lambda s: "ONE CARD left: press c" in s or "name a color" in s, 5):
            t.keys("Enter")  # a wild: its color
            t.wait_for(lambda s: "ONE CARD left: press c" in s, timeout=5)
        played = time.monotonic()
        t.keys("c")
        screen = t.wait_for(lambda s: "You called last card" in s, timeout=5)
        assert time.monotonic() - played < 1.5
        time.sleep(3.5)  # longer than any bot's reaction time
        after = t.screen()
        assert "caught You" not in screen + after and "You missed the last-card call" not in screen + after
        t.keys("q")
        t.keys("y")


@NEED_TMUX
def test_c_plays_and_calls_at_once_in_a_real_terminal(tmp_path):
    cmd = f"{sys.executable} -m lanmatch play --table standard --seats 3 --seed 8 --fast --name Ann"
    with Tmux(cmd, _env(tmp_path)) as t:
        _play_to_two_cards(t)
        t.keys("c")
        if "name a color" in t.wait_for(lambda s: "You called last card" in s or "name a color" in s, 5):
            t.keys("Enter")
            t.wait_for(lambda s: "You called last card" in s, timeout=5)
        assert re.search(r"You have one card left!", t.screen())
        time.sleep(3.0)
        assert "caught You" not in t.screen()
        t.keys("q")
        t.keys("y")
