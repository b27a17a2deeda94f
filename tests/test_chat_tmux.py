"""Chat between two consoles in real terminals (tmux, 80x24), over a real host.

`lanmatch host` on 127.0.0.1 with a 2-seat room; Ann and Bob each run
`lanmatch join 127.0.0.1:PORT` (their own HOME), sit, and the game starts.
Ann types a line (`t`), Bob sees it in his log; Bob sends an emote (`e`,
`g`), Ann sees it; Ann mutes Bob (`M`, his seat) and his next line is not
shown to her, while Bob still sees his own. Cat comes late: Enter on the
playing room offers to watch it; she watches, the players' tables say
"Watching: Cat" (hers "Watching: You"), and her emote reaches them both.
"""

from __future__ import annotations

import os
import re
import selectors
import subprocess
import sys
import time

import pytest
from _console import NEED_TMUX, Tmux, stop_process


def _env(home) -> dict[str, str]:
    home.mkdir(parents=True, exist_ok=True)
    return {"PATH": "/usr/bin:/bin", "HOME": str(home), "XDG_CACHE_HOME": str(home / "cache"),
            "XDG_DATA_HOME": str(home / "share"), "XDG_CONFIG_HOME": str(home / "config"),
            "TERM": "xterm-256color", "LANG": "C.UTF-8"}


def _host(tmp_path) -> tuple[subprocess.Popen, int]:
    env = dict(os.environ, **_env(tmp_path / "host"))
    proc = subprocess.Popen(
        [sys.executable, "-m", "lanmatch", "host", "--bind", "127.0.0.1", "--no-mdns", "--no-store", "--port", "0",
         "--name", "chat-test", "--room", "R", "--seats", "2", "--clock", "600"],
        stdout=subprocess.PIPE, stderr=open(tmp_path / "host.log", "wb"), env=env,  # noqa: SIM115
    )
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    line = b""
    deadline = time.monotonic() + 20
    while not line.endswith(b"\n"):
        if time.monotonic() > deadline or proc.poll() is not None:
            stop_process(proc)
            pytest.fail("the host never said 'listening'")
        if sel.select(timeout=0.5):
            line += os.read(proc.stdout.fileno(), 1)
    sel.close()
    m = re.match(rb"listening \S+:(\d+)", line.strip())
    assert m, line
    return proc, int(m.group(1))


def _sit(t: Tmux) -> None:
    t.wait_for(lambda s: " R " in s or "R  " in s, timeout=20)  # the room list
    t.keys("Enter")
    t.wait_for(lambda s: "A seat at R" in s, timeout=10)
    t.keys("f")


def _type(t: Tmux, text: str) -> None:
    t.keys("t")
    t.wait_for(lambda s: "Say to the room" in s, timeout=10)
    t.keys("-l", text)
    t.keys("Enter")


@NEED_TMUX
def test_two_consoles_chat_emote_and_mute_over_a_real_host(tmp_path):
    host, port = _host(tmp_path)
    try:
        cmd = f"{sys.executable} -m lanmatch join 127.0.0.1:{port} --name"
        with Tmux(f"{cmd} Ann", _env(tmp_path / "ann")) as ann, Tmux(f"{cmd} Bob", _env(tmp_path / "bob")) as bob:
            _sit(ann)
            ann.wait_for(lambda s: "Room R" in s, timeout=10)
            _sit(bob)
            for t in (ann, bob):  # the room is full: the game starts
                t.wait_for(lambda s: "Recent moves" in s, timeout=20)
            _type(ann, "hello Bob, good luck")
            bob.wait_for(lambda s: "Ann says: hello Bob, good luck" in s, timeout=10)
            ann.wait_for(lambda s: "You say: hello Bob, good luck" in s, timeout=10)
            bob.keys("e")
            bob.wait_for(lambda s: "Say quickly" in s, timeout=10)
            bob.keys("g")
            ann.wait_for(lambda s: "Bob says: Good game!" in s, timeout=10)
            ann.keys("M")
            ann.wait_for(lambda s: "Mute or unmute" in s, timeout=10)
            seat = re.search(r"seat (\d) Bob \(shown\)", ann.screen())
            assert seat, ann.screen()
            ann.keys(seat.group(1))
            ann.wait_for(lambda s: "Bob: muted" in s, timeout=10)
            _type(bob, "are you there")
            bob.wait_for(lambda s: "You say: are you there" in s, timeout=10)
            _type(ann, "still talking")
            bob.wait_for(lambda s: "Ann says: still talking" in s, timeout=10)
            ann.wait_for(lambda s: "You say: still talking" in s, timeout=10)
            assert "are you there" not in ann.screen()  # Bob's line came before Ann's: it was hidden
            with Tmux(f"{cmd} Cat", _env(tmp_path / "cat")) as cat:  # a late comer: the room plays
                cat.wait_for(lambda s: " R " in s or "R  " in s, timeout=20)
                cat.keys("Enter")
                cat.wait_for(lambda s: "R is playing" in s and "watch it" in s, timeout=10)
                cat.keys("w")
                cat.wait_for(lambda s: "Spectating" in s and "Watching: You" in s, timeout=20)
                ann.wait_for(lambda s: "Watching: Cat" in s, timeout=10)
                cat.keys("e")
                cat.wait_for(lambda s: "Say quickly" in s, timeout=10)
                cat.keys("n")
                bob.wait_for(lambda s: "Cat (watching) says: Nice one!" in s, timeout=10)
                ann.wait_for(lambda s: "Cat (watching) says: Nice one!" in s, timeout=10)
    finally:
        stop_process(host)
