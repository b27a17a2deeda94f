"""Helpers shared by the console tests: rigged Color Match deals, a real
terminal through tmux, and model views from the engine.

`rigged` deals fixed 7-card hands (and the rest of the deck in order);
`to_seat0` plays first legal actions until seat 0 has the turn; `sheds_reds`
plays seat 0's red hand out;
`seated_ui` seats a `Console` at seat 0 of an engine game and `push` sends it
that seat's view through the wire encoding; `text` draws its screen. `Tmux` runs a
command in a private tmux server (its own socket, killed at the end) and reads
the screen with `capture-pane`; every wait is bounded in time.
"""

from __future__ import annotations

import shutil
import subprocess
import time
import uuid
from collections import Counter
from typing import Any

import msgpack
import pytest

from lanmatch.console.model import Console
from lanmatch.console.screen import render_screen, screen_text
from lanmatch.protocol import view_from_wire, view_to_wire
from lanmatch.rules import get_game, new_game
from lanmatch.rules.cards import day_faces, night_faces

NEED_TMUX = pytest.mark.skipif(
    shutil.which("tmux") is None,
    reason="TMUX IS NOT INSTALLED: the real-terminal console test did not run (.ci/run installs it)",
)


# ------------------------------------------------------------------ rigging


def _rest(full: list[str], used: list[str]) -> list[str]:
    left = Counter(full) - Counter(used)
    out = []
    for c in full:
        if left[c]:
            left[c] -= 1
            out.append(c)
    return out


def rigged(table: str, hands: list[list[str]], starter: str, *, first: int, pile: tuple = (), options=None):
    """A game at `table` dealing `hands` (7 cards each), `starter`, then `pile`."""
    head = [c for h in hands for c in h] + [starter, *pile]
    spec = get_game("colormatch").table(table)  # (the deck as the table declares it)
    if spec.deck == "daynight":
        pairs = [c.split("/") for c in head]
        days = _rest(day_faces(), [p[0] for p in pairs])
        nights = _rest(night_faces(), [p[1] for p in pairs])
        deck = head + [f"{d}/{n}" for d, n in zip(days, nights, strict=True)]
    else:
        deck = head + _rest(spec.full_deck(), head)
    return new_game("colormatch", table=table, players=len(hands), seed=1, deck=deck, first_seat=first,
                    options=options or {})


def to_seat0(g, limit: int = 400) -> None:
    """Play the first legal action of whoever acts until seat 0 has the turn."""
    for _ in range(limit):
        if g.outcome is not None:
            return
        v = g.view(0)
        if v["turn"] == 0:
            return
        seat = v["turn"]
        g.act(seat, g.legal_actions(seat)[0])


def sheds_reds(g) -> None:
    """Seat 0 plays R1..R7 in turn while seat 1 draws (and keeps): seat 0 goes out."""
    for card in ("R1", "R2", "R3", "R4", "R5", "R6", "R7"):
        g.act(0, {"type": "play", "card": card})
        if g.outcome is None:
            g.act(1, {"type": "draw"})
            if g.view(1)["phase"] == "drawn":
                g.act(1, {"type": "keep"})


def bomb_lit_one_card_each():
    """Classic, 2 seats: both shed to one card and seat 1's Bomb is lit (fuse 3)."""
    hands = [["R1", "R2", "R3", "R4", "R5", "R6", "R7"], ["R1", "R2", "R3", "R4", "R5", "R6", "RB"]]
    g = rigged("classic", hands, "R8", first=0)
    for card in ("R1", "R2", "R3", "R4", "R5"):
        g.act(0, {"type": "play", "card": card})
        g.act(1, {"type": "play", "card": card})
    g.act(0, {"type": "play", "card": "R6"})
    g.act(1, {"type": "play", "card": "RB"})
    return g


def dominoes_with_a_line(seed: int = 7, players: int = 3):
    """A Dominoes game played (first legal actions) until seat 0 has the turn
    with tiles on the line."""
    g = new_game("dominoes", players=players, seed=seed)
    for _ in range(200):
        v = g.view(0)
        if v["turn"] == 0 and v["line"]:
            break
        g.act(v["turn"], g.legal_actions(v["turn"])[0])
    return g


# ------------------------------------------------------------------ the model, fed engine views


ROOM = "Test table"


def wire(view: dict) -> dict:
    """The view as a peer receives it (msgpack and back, `far` keys restored)."""
    return view_from_wire(msgpack.unpackb(msgpack.packb(view_to_wire(view)), strict_map_key=True))


def room_msg(n: int, *, game: str = "colormatch", table: str | None = "classic", state: str = "playing",
             creator: int | None = None, tally: dict | None = None, games: int = 1) -> dict:
    seats = [{"seat": 0, "name": "Ann", "kind": "person", "connected": True}]
    seats += [{"seat": s, "name": f"Bot {s} (medium)", "kind": "bot", "connected": True} for s in range(1, n)]
    return {"type": "room", "room": {
        "name": ROOM, "game": game, "table": table, "free": 0, "state": state, "clock": 30, "mode": "single",
        "password": False, "bots": "medium", "seats": seats, "options": {}, "spectators": 0, "games": games,
        "creator": creator, "tally": tally or {"wins": [0] * n, "points": [0] * n}}}


def push(ui: Console, g, now: float = 0.0, timers: list | None = None, seat: int = 0) -> dict:
    """Send seat `seat`'s current view of engine game `g` to the model."""
    v = g.view(seat)
    msg = {"type": "view", "seq": 1, "room": ROOM, "state_id": v["step"], "view": wire(v),
           "legal": g.legal_actions(seat) if g.outcome is None else [],
           "timers": timers if timers is not None else [{"seat": v.get("turn"), "kind": "move", "left": 30.0}],
           "autopilot": []}
    ui.on_message(msg, now)
    return msg


def seated_ui(g, *, game: str = "colormatch", table: str | None = "classic", kind: str = "play",
              creator: int | None = None) -> Console:
    ui = Console("Ann", kind=kind)
    n = len(g.view(0)["counts"])
    ui.on_message({"type": "seated", "room": ROOM, "seat": 0, "token": "0" * 32}, 0.0)
    ui.on_message(room_msg(n, game=game, table=table, creator=creator), 0.0)
    push(ui, g)
    return ui


def text(ui: Console, now: float = 0.0, width: int = 80, height: int = 24) -> str:
    lines = render_screen(ui, now, width, height)
    assert len(lines) == height
    out = screen_text(lines)
    assert all(len(x) <= width for x in out.splitlines()), out
    return out


def coin_lobby(balance: int | None = 1000, coins: bool = True) -> Console:
    """A lobby at a host with a store (`coins`), welcomed with a profile holding `balance`."""
    ui = Console("Ann")
    ui.begin_connect("10.0.0.2", 7070, "Kitchen")
    profile = {"name": "Ann", "balance": balance} if balance is not None else None
    ui.on_message({"type": "welcome", "seq": 1, "protocol": 1, "host": "Kitchen", "server": "x", "coins": coins,
                   "profile": profile}, 0.0)
    return ui


def coin_rooms() -> list[dict]:
    return [{"name": "Pot", "game": "colormatch", "table": "classic", "seats": 3, "free": 2, "state": "open",
             "clock": 30, "mode": "single", "password": True, "bots": "medium", "kind": "coins", "stake": 50},
            {"name": "Free", "game": "dominoes", "table": None, "seats": 2, "free": 1, "state": "open",
             "clock": 90, "mode": "single", "password": False, "bots": "easy", "kind": "practice", "stake": 0}]


# ------------------------------------------------------------------ a real terminal


class Tmux:
    """One command in a private tmux server: `with Tmux(cmd, env) as t: t.wait_for(...)`."""

    def __init__(self, cmd: str, env: dict[str, str], *, width: int = 80, height: int = 24):
        self.sock = f"lanmatch-test-{uuid.uuid4().hex[:8]}"
        self.name = "t"
        self.cmd = cmd
        self.env = env
        self.size = (width, height)
        self.base = ["tmux", "-L", self.sock, "-f", "/dev/null"]

    def __enter__(self) -> Tmux:
        w, h = self.size
        subprocess.run([*self.base, "new-session", "-d", "-x", str(w), "-y", str(h), "-s", self.name, self.cmd],
                       env=self.env, check=True, timeout=10)
        subprocess.run([*self.base, "set-option", "-t", self.name, "remain-on-exit", "on"], check=True, timeout=5)
        return self

    def __exit__(self, *exc: Any) -> None:
        subprocess.run([*self.base, "kill-server"], capture_output=True, timeout=10)

    def dead(self) -> bool:
        """Has the pane's command ended (the pane stays, `remain-on-exit`)?"""
        r = subprocess.run([*self.base, "display-message", "-p", "-t", self.name, "#{pane_dead}"],
                           capture_output=True, text=True, timeout=5)
        return r.stdout.strip() == "1"

    def wait_dead(self, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while not self.dead():
            if time.monotonic() > deadline:
                raise AssertionError(f"the command never ended; the screen shows:\n{self.screen()}")
            time.sleep(0.1)

    def respawn(self, cmd: str) -> None:
        """Run `cmd` in the pane again (after the last command died)."""
        subprocess.run([*self.base, "respawn-pane", "-k", "-t", self.name, cmd], env=self.env, check=True, timeout=10)

    def keys(self, *keys: str) -> None:
        subprocess.run([*self.base, "send-keys", "-t", self.name, *keys], check=True, timeout=5)

    def screen(self) -> str:
        return pane(self.sock, self.name)

    def wait_for(self, pred, timeout: float = 10.0) -> str:
        return wait_for(self.sock, self.name, pred, timeout)

    def wait_for_exit_line(self, text: str, timeout: float = 10.0) -> str:
        """Wait until `text` was printed, in the visible screen or the history
        (tmux's "Pane is dead" notice may scroll the last line away)."""
        return wait_for(self.sock, self.name, lambda s: text in s, timeout, history=True)


def stop_process(proc: subprocess.Popen) -> None:
    """Stop a process the test started: terminate, then kill if it lingers (10 s)."""
    if proc.poll() is None:
        proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def pane(sock: str, name: str, history: bool = False) -> str:
    extra = ["-S", "-"] if history else []
    r = subprocess.run(
        ["tmux", "-L", sock, "capture-pane", "-p", *extra, "-t", name], capture_output=True, text=True, timeout=5
    )
    return r.stdout


def wait_for(sock: str, name: str, pred, timeout: float = 10.0, history: bool = False) -> str:
    """Poll the screen until `pred(screen)` holds; fails after `timeout` seconds, showing the screen."""
    deadline = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < deadline:
        screen = pane(sock, name, history)
        if pred(screen):
            return screen
        time.sleep(0.1)
    raise AssertionError(f"the screen never got there; it shows:\n{screen}")


def line_starting(screen: str, start: str) -> str:
    """The first line of `screen` that starts with `start` ('' if none)."""
    return next((ln for ln in screen.splitlines() if ln.startswith(start)), "")
