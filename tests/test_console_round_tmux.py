"""Real terminals (tmux, 80x24): a Dominoes round's end shows every rack,
the pips and the points over the next deal until a key; `p` pauses the
clock at a table of bots alone (issue 15)."""

from __future__ import annotations

import re
import sys
import time

from _console import NEED_TMUX, Tmux

ENV = {"PATH": "/usr/bin:/bin", "TERM": "xterm-256color", "LANG": "C.UTF-8"}


def _env(tmp_path) -> dict[str, str]:
    return {**ENV, "HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "share")}


def _picker(screen: str) -> bool:
    return "Enter or its key picks" in screen


@NEED_TMUX
def test_a_dominoes_round_end_shows_every_rack_until_a_key(tmp_path):
    cmd = f"{sys.executable} -m lanmatch play --game dominoes --seed 4 --fast --seats 2 --name Ann"
    with Tmux(cmd, _env(tmp_path)) as t:
        screen = t.wait_for(lambda s: "Your move (" in s or "Waiting for" in s, timeout=20)
        for _ in range(300):
            screen = t.wait_for(lambda s: "Round 1 is over" in s or "Your move (" in s or _picker(s), timeout=20)
            if "Round 1 is over" in screen:
                break
            before = screen
            if _picker(screen) or "plays" in screen.split("Your move (", 1)[1].split("\n", 1)[0]:
                t.keys("Enter")
            elif "d draws" in screen:
                t.keys("d")
            else:
                t.keys("s")
            t.wait_for(lambda s, before=before: s != before, timeout=20)
        else:
            raise AssertionError("round 1 never ended")
        box = [ln for ln in screen.splitlines() if "│" in ln]
        text = " ".join(" ".join(ln.split("│")[1:-1]) for ln in box)
        assert "score" in text and "the pips left in the others' racks" in text or "nobody scores" in text, screen
        racks = [ln for ln in box if " pips: " in ln]
        assert len(racks) >= 2 and any("You" in ln for ln in racks) and any("Bot 1" in ln for ln in racks), screen
        assert any(re.search(r"pips: (\[\d+\|\d+\] ?)+", ln) for ln in racks), screen  # a rack's tiles revealed
        assert "Match points: You " in text and "Round 2 is dealt" in text
        t.keys("z")  # any key: the next deal
        after = t.wait_for(lambda s: "Round 1 is over" not in s, timeout=10)
        assert "round 2" in after.splitlines()[0]
        t.keys("q")
        t.keys("y")
        t.wait_dead(timeout=15)


@NEED_TMUX
def test_p_pauses_the_clock_alone_with_bots(tmp_path):
    with Tmux(f"{sys.executable} -m lanmatch play --seed 3 --fast --name Ann", _env(tmp_path)) as t:
        t.wait_for(lambda s: "Your move (" in s, timeout=20)
        t.keys("p")
        screen = t.wait_for(lambda s: "PAUSED, no clock runs" in s, timeout=10)
        assert "PAUSED" in screen.splitlines()[0]
        clock = re.search(r"Your move \((\d+) s\)", screen).group(1)
        time.sleep(2.5)  # more than two seconds of the clock: it does not move
        still = t.screen()
        assert re.search(r"Your move \((\d+) s\)", still).group(1) == clock, still
        t.keys("p")
        t.wait_for(lambda s: "PAUSED" not in s, timeout=10)
        t.wait_for(lambda s: (m := re.search(r"Your move \((\d+) s\)", s)) is not None and m.group(1) != clock,
                   timeout=10)
        t.keys("?")  # the help pauses too, and says so
        screen = t.wait_for(lambda s: "The clocks are stopped while this help is open" in s, timeout=10)
        t.keys("x")
        t.wait_for(lambda s: "Help" not in s and "PAUSED" not in s, timeout=10)
        t.keys("q")
        t.keys("y")
        t.wait_dead(timeout=15)
