"""The full-screen console with its real parts: prompt_toolkit, trio as its
guest, a host over TCP on 127.0.0.1, mDNS bound to 127.0.0.1, and tmux.

Headless runs use prompt_toolkit's pipe input with a `Vt100_Output` writing to
a string at 80x24 (RECIPES); every wait is bounded (`until`, `wait_for`).
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import re
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable

import pytest
import trio
from _console import NEED_TMUX, Tmux, line_starting, stop_process
from _net import LOOPBACK, RawPeer, seated, start_host

from lanmatch import cli
from lanmatch.console import app
from lanmatch.console.app import Session, build_app, join_net, join_profile, play_net, run_session
from lanmatch.console.model import Console
from lanmatch.console.screen import render_screen, screen_text
from lanmatch.net.client import BotNode
from lanmatch.net.discovery import Browser
from lanmatch.net.tls import short_fingerprint
from lanmatch.rules import new_game
from lanmatch.store import Store

ENV = {**os.environ, "PYTHONUNBUFFERED": "1"}


def play_args(**kw) -> argparse.Namespace:
    base = dict(game="colormatch", table="classic", seats=3, bots="medium", clock=None, lan=False, bind=None,
                name="Ann", seed=3, fast=True, lines=False)
    base.update(kw)
    return argparse.Namespace(**base)


async def until(pred: Callable[[], bool], what: str, timeout: float = 10.0) -> None:
    """Wait (asyncio side) until `pred()` holds; fail after `timeout` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not pred():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


def headless(make: Callable[[], Session], script: Callable[[Session, object], Awaitable[None]]) -> tuple[Session, str]:
    """Run a session on pipe input and an 80x24 string terminal while `script` drives it."""
    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.data_structures import Size
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output.vt100 import Vt100_Output

    out = io.StringIO()
    holder: dict = {}
    with create_pipe_input() as inp, create_app_session(
        input=inp, output=Vt100_Output(out, lambda: Size(rows=24, columns=80), term="xterm")
    ):
        session = make()
        holder["s"] = session

        async def main() -> None:
            task = asyncio.ensure_future(session.run())
            try:
                await script(session, inp)
            finally:
                if not task.done():
                    session.quit()
                await asyncio.wait_for(task, 15)

        asyncio.run(main())
    return holder["s"], out.getvalue()


def seat_actions(session: Session, room: str) -> list[dict]:
    ref = session.host.rooms[room].room.referee
    return [action for _t, seat, action, by in ref.log if seat == 0 and by == "seat"]


# ------------------------------------------------------------------ keys through prompt_toolkit


def test_key_bindings_send_every_key_to_the_model_and_its_intents_out():
    """Right moves the selection, Enter plays the selected card (with the state
    id), d draws, Ctrl-C quits: through the real key processor."""
    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    g = new_game("colormatch", table="classic", players=3, seed=3)
    while g.view(0)["turn"] != 0:
        s = g.view(0)["turn"]
        g.act(s, g.legal_actions(s)[0])
    ui = Console("Ann", kind="play")
    ui.on_message({"type": "seated", "room": "T", "seat": 0, "token": "0" * 32}, 0.0)
    v = g.view(0)
    ui.on_message({"type": "view", "room": "T", "state_id": v["step"], "view": v, "legal": g.legal_actions(0),
                   "timers": [], "autopilot": []}, 0.0)
    got: list = []
    with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
        holder: dict = {}

        def dispatch(intents):
            got.extend(intents)
            if ("quit",) in intents:
                holder["app"].exit()

        app = build_app(ui, dispatch)
        holder["app"] = app
        start = ui.sel
        inp.send_text("\x1b[C")  # Right
        inp.send_text("\x1b[D")  # Left: back to the playable card the turn started on
        inp.send_text("\r")  # Enter
        inp.send_text("d")
        inp.send_text("\x03")  # Ctrl-C
        asyncio.run(app.run_async())
    item = ui.hand()[start]
    assert item.playable
    assert got[0] == ("act", item.plays[0], v["step"])
    assert got[-1] == ("quit",)
    assert len(got) == 2  # d in the same state is not sent twice


@pytest.mark.parametrize("no_color", [False, True])
def test_the_screen_at_80x24_keeps_shapes_and_words_and_no_color_drops_the_colors(monkeypatch, no_color):
    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.data_structures import Size
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output.vt100 import Vt100_Output

    if no_color:
        monkeypatch.setenv("NO_COLOR", "1")
    else:
        monkeypatch.delenv("NO_COLOR", raising=False)
    g = new_game("colormatch", table="classic", players=3, seed=3)
    ui = Console("Ann", kind="play")
    ui.on_message({"type": "seated", "room": "T", "seat": 0, "token": "0" * 32}, 0.0)
    v = g.view(0)
    ui.on_message({"type": "view", "room": "T", "state_id": v["step"], "view": v, "legal": g.legal_actions(0),
                   "timers": [], "autopilot": []}, 0.0)
    out = io.StringIO()
    with create_pipe_input() as inp, create_app_session(
        input=inp, output=Vt100_Output(out, lambda: Size(rows=24, columns=80), term="xterm-256color")
    ):
        app = build_app(ui, lambda intents: app.exit() if ("quit",) in intents else None)

        async def main() -> None:
            task = asyncio.ensure_future(app.run_async())
            await until(lambda: "Top card" in out.getvalue(), "the first screen")
            inp.send_text("\x03")
            await asyncio.wait_for(task, 5)

        asyncio.run(main())
    raw = out.getvalue()
    plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", raw)
    top = g.view(0)["top"]
    from lanmatch.rules.cards import describe

    assert f"Top card: {describe(top, 'classic')}" in plain
    colors = re.findall(r"\x1b\[[0-9;]*(?:3[1-7]|9[1-7]|38;5;208)m", raw)
    assert (not colors) if no_color else colors


# ------------------------------------------------------------------ quick play over real TCP


def test_quick_play_seats_you_deals_the_seeded_game_and_plays_your_keys(tmp_path, monkeypatch):
    """`lanmatch play --seed 3 --fast`, headless: an in-process host over TCP,
    3 seats (you + 2 Medium bots), the deal of seed 3, and the moves you key.
    Quick play is practice: no store, no profile, nothing written to the
    user's data or config directories."""
    for var in ("XDG_DATA_HOME", "XDG_CONFIG_HOME"):
        (tmp_path / var).mkdir()
        monkeypatch.setenv(var, str(tmp_path / var))
    args = play_args()

    async def script(session: Session, inp) -> None:
        ui = session.ui
        await until(lambda: ui.screen == "table" and ui.view is not None, "the table")
        for move in range(3):
            await until(lambda: bool(ui.legal) and ui.my_turn() and ui.sent_sid is None, f"my turn {move}")
            item = ui.selected()
            if item is not None and item.playable and len(item.plays) == 1:
                want, key = item.plays[0], "\r"
            else:
                want, key = next(a for a in ui.legal if a["type"] in ("draw", "keep", "pass")), "d"
            before = len(seat_actions(session, "Quick play"))
            inp.send_text(key)
            await until(lambda before=before: len(seat_actions(session, "Quick play")) > before, "the host got it")
            assert seat_actions(session, "Quick play")[-1] == want
        inp.send_text("q")
        inp.send_text("y")

    session, raw = headless(lambda: Session(Console("Ann", kind="play"), lambda s, n: play_net(s, n, args)), script)
    room = session.host.rooms["Quick play"]
    assert room.room.n == 3 and [s["kind"] for s in room.public()["seats"]] == ["person", "bot", "bot"]
    assert room.room.referee.clock == 30.0
    assert len(seat_actions(session, "Quick play")) == 3
    assert room.room.referee.seed == 3  # --seed 3: the deal of seed 3
    assert "Your hand:" in raw and "Top card:" in raw and "Recent moves" in raw
    assert session.quitting
    assert session.host.store is None and session.profile is None and session.ui.balance is None
    assert not session.ui.coins_host and "coins" not in raw
    assert list((tmp_path / "XDG_DATA_HOME").iterdir()) == [] and list((tmp_path / "XDG_CONFIG_HOME").iterdir()) == []


def test_quick_play_dominoes_with_two_seats_and_a_clock():
    args = play_args(game="dominoes", table=None, seats=2, clock=60, seed=4)

    async def script(session: Session, inp) -> None:
        ui = session.ui
        await until(lambda: bool(ui.legal) and ui.my_turn(), "my turn")
        inp.send_text("\t")  # every move, then the first
        await until(lambda: ui.picker is not None, "the moves")
        inp.send_text("\r")
        await until(lambda: len(seat_actions(session, "Quick play")) == 1, "the host got it")
        inp.send_text("\x03")

    session, raw = headless(lambda: Session(Console("Ann", kind="play"), lambda s, n: play_net(s, n, args)), script)
    room = session.host.rooms["Quick play"].room
    assert room.game == "dominoes" and room.n == 2 and room.referee.clock == 60.0
    assert "Boneyard" in raw and "Your rack" in raw


@pytest.mark.parametrize("flags", [["--table", "double-nine"], ["--game", "dominoes", "--table", "double-nine"]])
def test_quick_play_deals_the_domino_set_asked_for(flags):
    """`lanmatch play --table double-nine --seats 5` (a set names its game):
    the room is the double-nine's, five seats, titled with the set (the
    console made a double-six room, which refused five seats and crashed it)."""
    from lanmatch.cli import _check_table, build_parser

    parser = build_parser()
    parsed = parser.parse_args(["play", *flags, "--seats", "5"])
    _check_table(parser, "play", parsed)
    args = play_args(game=parsed.game, table=parsed.table, seats=5)

    async def script(session: Session, inp) -> None:
        await until(lambda: session.ui.screen == "table" and session.ui.view is not None, "the table")
        inp.send_text("\x03")

    session, raw = headless(lambda: Session(Console("Ann", kind="play"), lambda s, n: play_net(s, n, args)), script)
    room = session.host.rooms["Quick play"].room
    assert (room.game, room.table, room.n) == ("dominoes", "double-nine", 5)
    assert "Dominoes · Double-nine" in raw


def test_quick_play_on_the_lan_is_advertised_and_a_bot_node_can_take_a_seat():
    """`--lan --bind 127.0.0.1`: the room waits, it is found over mDNS on
    loopback, a bot node joins it over TCP, and `s` starts the game."""
    with socket.socket() as probe:  # a free port, asked for by --port (a friend's address stays the same)
        probe.bind((LOOPBACK, 0))
        port = probe.getsockname()[1]
    args = play_args(lan=True, bind=LOOPBACK, seats=3, port=port)
    found: dict = {}

    async def net(session: Session, nursery: trio.Nursery) -> None:
        await play_net(session, nursery, args)

        async def look() -> None:
            async with Browser([LOOPBACK]) as browser:
                host = await browser.first(15, want=lambda h: h.port == session.port)
            found["host"] = host
            if host is not None:
                node = BotNode("easy", room=session.ui.room["name"] if session.ui.room else None, seed=1,
                               name="visitor")
                found["node"] = node
                nursery.start_soon(node.run, (host.address, host.port))

        nursery.start_soon(look)

    async def script(session: Session, inp) -> None:
        ui = session.ui
        await until(lambda: ui.screen == "waiting" and ui.room is not None, "the waiting room")
        assert "s start" in ui.keys_line()
        await until(lambda: "node" in found or found.get("host", 0) is None, "mDNS", timeout=20)
        assert found["host"] is not None
        await until(lambda: any(s.get("name") == "visitor" for s in (ui.room or {}).get("seats", [])), "the visitor")
        inp.send_text("s")
        await until(lambda: ui.screen == "table" and ui.view is not None, "the table")
        inp.send_text("\x03")

    session, raw = headless(lambda: Session(Console("Ann", kind="play"), net), script)
    actor = next(iter(session.host.rooms.values()))
    seats = actor.public()["seats"]
    assert seats[0]["name"] == "Ann" and seats[1]["name"] == "visitor" and seats[2]["kind"] == "bot"
    assert actor.room.games == 1
    fp = session.host.fingerprint
    assert session.port == port
    assert session.ui.banner == f"Friends: lanmatch join {LOOPBACK}:{session.port} · key {short_fingerprint(fp)}"
    assert found["host"].txt["fp"] == fp  # the advert names the certificate
    assert found["node"].fingerprint == fp


async def test_create_room_with_a_seed_deals_that_seed_over_the_wire(nursery):
    """`Host.create_room(seed=...)` (what `lanmatch play --seed` uses): game k of
    the room is dealt from seed + k - 1, so two rooms with one seed deal alike."""
    from _net import RawPeer

    host = await start_host(nursery)
    hands = []
    for name in ("a", "b", "c"):
        host.create_room(name, game="colormatch", table="classic", seats=3, seed=None if name == "c" else 11)
        p = await RawPeer.open(host.port)
        await p.hello(f"p{name}")
        await p.send({"type": "join", "room": name, "seat": 0})
        await p.expect("seated")
        await p.send({"type": "start"})
        hands.append(sorted((await p.expect("view"))["view"]["hand"]))
        await p.aclose()
    assert host.rooms["a"].room.referee.seed == 11
    assert hands[0] == hands[1] == sorted(new_game("colormatch", table="classic", players=3, seed=11).view(0)["hand"])
    assert host.rooms["c"].room.referee.seed != 11


# ------------------------------------------------------------------ the lobby, in process


def test_join_by_address_creates_a_room_with_the_form_starts_it_plays_and_leaves():
    holder: dict = {}

    async def net(session: Session, nursery: trio.Nursery) -> None:
        host = await start_host(nursery)
        holder["host"] = host
        session.host = host
        await join_net(session, nursery, argparse.Namespace(address=f"{LOOPBACK}:{host.port}", bind=None))

    async def script(session: Session, inp) -> None:
        ui = session.ui
        await until(lambda: ui.screen == "rooms", "the rooms")
        inp.send_text("n")
        await until(lambda: ui.screen == "form", "the form")
        inp.send_text("\r")  # create with the defaults: Ann's table, Classic, 4 seats
        await until(lambda: ui.screen == "waiting" and ui.seat == 0, "the waiting room")
        assert ui.room["creator"] == 0
        inp.send_text("s")
        await until(lambda: bool(ui.legal) and ui.my_turn(), "my turn")
        inp.send_text("d" if not ui.selected().playable else "\r")
        await until(lambda: len(seat_actions(session, "Ann's table")) == 1, "the host got it")
        holder["room"] = holder["host"].rooms["Ann's table"].room
        inp.send_text("L")
        await until(lambda: ui.overlay == "confirm_leave", "leave?")
        inp.send_text("y")
        await until(lambda: ui.screen == "rooms" and ui.seat is None, "back at the rooms")
        # issue 13: a game every person left is abandoned and its room closes
        # (it used to stay listed for ever, bots playing bots)
        await until(lambda: "Ann's table" not in holder["host"].rooms, "the room closed")
        inp.send_text("r")
        await until(lambda: not any(r["name"] == "Ann's table" for r in ui.rooms), "the room list without it")
        inp.send_text("q")

    session, raw = headless(lambda: Session(Console("Ann", kind="join"), net), script)
    room = holder["room"]
    assert room.n == 4 and room.table == "classic" and room.games == 1
    assert "Rooms at" in raw


def test_a_dropped_connection_comes_back_to_the_same_seat_and_says_so():
    """SPEC 11.2: the console reconnects with its seat token and picks up the
    same seat and hand; the log says so."""
    holder: dict = {}

    async def net(session: Session, nursery: trio.Nursery) -> None:
        host = await start_host(nursery)
        holder["host"] = host
        session.host = host
        host.create_room("R", game="colormatch", table="siege", seats=3, bot_level="easy", clock=90)
        await join_net(session, nursery, argparse.Namespace(address=f"{LOOPBACK}:{host.port}", bind=None))

    async def script(session: Session, inp) -> None:
        ui = session.ui
        await until(lambda: ui.screen == "rooms" and ui.rooms, "the rooms")
        inp.send_text("\r")
        await until(lambda: ui.picker is not None, "the seat picker")
        inp.send_text("1")
        await until(lambda: ui.seat == 1 and ui.screen == "waiting", "seat 1")
        inp.send_text("s")
        await until(lambda: ui.view is not None and ui.screen == "table", "the table")
        hand = sorted(ui.view["hand"])
        token = session.client.token
        session.client.conn.close("test: the Wi-Fi dropped")
        await until(lambda: ui.status != "", "the drop noticed")
        await until(lambda: ui.status == "" and "Connected again" in ui.message, "back")
        await until(lambda: ui.view is not None, "the view again")
        assert ui.seat == 1 and session.client.token == token
        assert sorted(ui.view["hand"]) == hand  # at Siege only your own draws add cards
        assert any("Connected again" in line for line in ui.log)
        inp.send_text("q")
        inp.send_text("y")

    session, _raw = headless(lambda: Session(Console("Ann", kind="join"), net), script)
    seats = holder["host"].rooms["R"].public()["seats"]
    assert seats[1]["name"] == "Ann"


def test_a_watchers_dropped_connection_comes_back_watching_with_its_password():
    """A watcher whose connection drops is watching the same table again once
    it is back, the room's password said again for it; the line says so. (It
    used to stay on a frozen table, told "Connected again.", watching nothing.)"""
    holder: dict = {}

    async def net(session: Session, nursery: trio.Nursery) -> None:
        host = await start_host(nursery)
        holder["host"] = host
        session.host = host
        host.create_room("R", game="colormatch", table="classic", seats=2, bot_level="easy", clock=90,
                         password="pw")
        bob = await seated(host.port, "R", "Bob", seat=0, password="pw")
        await bob.send({"type": "start"})
        await bob.expect("view")
        nursery.start_soon(_listen, bob)
        await join_net(session, nursery, argparse.Namespace(address=f"{LOOPBACK}:{host.port}", bind=None))

    def watchers() -> list[str]:
        return [p.name for p in holder["host"].rooms["R"].spectators]

    async def script(session: Session, inp) -> None:
        ui = session.ui
        await until(lambda: ui.screen == "rooms" and ui.rooms, "the rooms")
        inp.send_text("w")
        await until(lambda: ui.prompt is not None, "the password prompt")
        inp.send_text("pw\r")
        await until(lambda: ui.watching and ui.screen == "table" and ui.view is not None, "watching the table")
        assert watchers() == ["Ann"]
        step = ui.view["step"]
        session.client.conn.close("test: the Wi-Fi dropped")
        await until(lambda: ui.status != "", "the drop noticed")
        await until(lambda: ui.status == "" and watchers() == ["Ann"], "watching again")
        await until(lambda: ui.screen == "table" and ui.view is not None, "the table again")
        assert ui.watching and ui.seat is None and ui.view["step"] >= step
        assert "Connected again" in ui.message and "watch" in ui.message, ui.message
        inp.send_text("q")
        inp.send_text("y")

    headless(lambda: Session(Console("Ann", kind="join"), net), script)


async def _listen(peer: RawPeer) -> None:
    """Read what the host sends `peer` until it closes (or the test's nursery ends); then close."""
    try:
        while await peer.recv(3600) is not None:
            pass
    finally:
        await trio.aclose_forcefully(peer.stream)


# ------------------------------------------------------------------ profiles and coin rooms


def test_the_profile_file_is_made_once_with_mode_0600_and_another_name_gets_its_own(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    first, name, note = join_profile("Ann")
    path = tmp_path / "config" / "lanmatch" / "profile.json"
    assert name == "Ann" and note == "" and first == json.loads(path.read_text())
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert join_profile(None)[:2] == (first, "Ann")  # without --name: the saved profile and its name
    assert join_profile("ann")[0] == first  # names match without regard to case
    bea, name, _note = join_profile("Bea")  # another name: its own profile, the saved one kept
    assert name == "Bea" and bea["key"] != first["key"] and json.loads(path.read_text()) == first
    assert join_profile("Bea")[0] == bea
    assert stat.S_IMODE(app.profile_file_for("Bea").stat().st_mode) == 0o600
    none, name, note = join_profile("A name too long for profiles")
    assert none is None and name == "A name too long for profiles" and "1-24 characters" in note


def joining_with_profile(store: Store, profile: dict, name: str):
    """A `lanmatch join` session with `profile`, at a host (on 127.0.0.1) that keeps `store`."""

    async def net(session: Session, nursery: trio.Nursery) -> None:
        host = await start_host(nursery, store=store)
        session.host = host
        await join_net(session, nursery, argparse.Namespace(address=f"{LOOPBACK}:{host.port}", bind=None))

    def make() -> Session:
        session = Session(Console(name, kind="join"), net)
        session.profile = profile
        return session

    return make


def test_join_brings_its_profile_plays_a_coin_room_and_pays_the_stake_and_the_fee(tmp_path, monkeypatch):
    """A host with a store on 127.0.0.1: the console says hello with its
    profile (made now, 0600, under XDG_CONFIG_HOME), creates a coin room of
    stake 50 with the form, confirms, starts with bots: the stake is posted
    (1,000 -> 950, a line in the log); leaving warns, the second L leaves and
    the fee is charged (950 -> 945)."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    store = Store.open_dir(tmp_path / "data", lock=True, durable=False)
    profile, name, _note = join_profile("Ann")
    path = tmp_path / "config" / "lanmatch" / "profile.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600

    make = joining_with_profile(store, profile, name)

    async def script(session: Session, inp) -> None:
        ui = session.ui
        await until(lambda: ui.screen == "rooms" and ui.balance == 1000, "welcomed with 1,000 coins")
        inp.send_text("n")
        await until(lambda: ui.screen == "form", "the form")
        inp.send_text("\x1b[B" * ui.form.rows().index("stake"))
        await until(lambda: ui.form.current() == "stake", "the stake row")
        inp.send_text("\x1b[C" * 3)  # practice -> 10 -> 25 -> 50
        await until(lambda: ui.form.stake == 50, "a stake of 50")
        inp.send_text("\r")
        await until(lambda: ui.overlay == "confirm_stake", "create for a stake of 50?")
        inp.send_text("\r")
        await until(lambda: ui.screen == "waiting" and ui.seat == 0 and ui.room is not None, "the waiting room")
        assert ui.room["kind"] == "coins" and ui.room["stake"] == 50 and ui.balance == 1000
        inp.send_text("s")
        await until(lambda: ui.screen == "table" and ui.balance == 950, "the stake posted")
        assert "You posted the stake: -50 coins (balance 950)" in ui.log
        assert "950 coins" in screen_text(render_screen(ui, 0.0)).splitlines()[0]
        inp.send_text("L")
        await until(lambda: ui.overlay == "confirm_leave", "the warning")
        assert "forfeit, plus a fee of 5 coins" in screen_text(render_screen(ui, 0.0))
        inp.send_text("L")
        await until(lambda: ui.screen == "rooms" and ui.balance == 945, "left, the fee charged")
        assert "-5 coins (balance 945)" in ui.message
        inp.send_text("q")

    try:
        session, _raw = headless(make, script)
        (ann,) = store.profiles()
        assert ann.name == "Ann" and store.balance(ann.id) == 945
        assert store.check() == []
    finally:
        store.close()


def test_a_name_taken_at_the_host_is_one_line_and_leaves_practice_rooms(tmp_path, monkeypatch):
    """Another machine's profile holds the name 'Ann' at this host: the
    console is told in one line (with --name), keeps its connection and offers
    practice only."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    store = Store.open_dir(tmp_path / "data", lock=True, durable=False)
    store.profile("Ann", "f" * 32, 0.0)  # someone else's Ann
    profile, name, _note = join_profile("Ann")

    make = joining_with_profile(store, profile, name)

    async def script(session: Session, inp) -> None:
        ui = session.ui
        await until(lambda: ui.screen == "rooms" and "--name" in ui.message, "the refusal")
        assert ui.message == "'Ann' is another player's name here: practice only. For coins: --name OTHER"
        assert ui.coins_host and ui.balance is None and ui.form.stakes == ()
        assert "No profile at this host (the name is another player's)" in screen_text(render_screen(ui, 0.0))
        inp.send_text("q")

    try:
        headless(make, script)
    finally:
        store.close()


# ------------------------------------------------------------------ errors


def test_an_unexpected_error_is_logged_and_told_in_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    async def broken(session: Session, nursery: trio.Nursery) -> None:
        await trio.sleep(0.05)
        raise ZeroDivisionError("a bug of ours")

    with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
        rc = run_session(Session(Console("Ann", kind="play"), broken), "lanmatch play")
    assert rc == 1
    log = tmp_path / "lanmatch" / "console.log"
    captured = capsys.readouterr()
    assert captured.err.strip() == f"lanmatch play: something went wrong (ExceptionGroup); the details are in {log}"
    assert "Traceback" not in captured.out + captured.err
    assert "ZeroDivisionError: a bug of ours" in log.read_text()


def test_quick_play_that_cannot_listen_says_so_in_one_line(capsys):
    """`--lan --bind` an address this machine does not have (TEST-NET-1: only a
    bind is tried, nothing is sent): one line, exit status 1."""
    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    args = play_args(lan=True, bind="192.0.2.1")
    with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
        session = Session(Console("Ann", kind="play"), lambda s, n: play_net(s, n, args))
        rc = run_session(session, "lanmatch play")
    assert rc == 1
    err = capsys.readouterr().err
    assert err.startswith("lanmatch play: cannot listen on 192.0.2.1:0: ") and err.count("\n") == 1, err


def test_play_and_join_flags_are_checked_in_one_line_and_help_names_the_log(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    for argv, says in (
        (["play", "--clock", "17"], "--clock is 15, 20, 30, 45, 60, 90 or 600 seconds, not 17"),
        (["play", "--bind", "127.0.0.1"], "--bind goes with --lan"),
        (["join", "nowhere:notaport"], "the port must be a number"),
        (["join"], "the lobby needs a terminal"),
    ):
        with pytest.raises(SystemExit) as ex:
            cli.main(argv)
        assert ex.value.code == 2
        err = capsys.readouterr().err
        assert says in err and err.count("\n") == 1, err
    for command in ("play", "join"):
        with pytest.raises(SystemExit):
            cli.main([command, "--help"])
        assert str(tmp_path / "lanmatch" / "console.log") in capsys.readouterr().out


# ------------------------------------------------------------------ real terminals


def _env(tmp_path) -> dict[str, str]:
    return {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path),
            "TERM": "xterm-256color", "LANG": "C.UTF-8"}


def _hand(screen: str) -> str:
    lines = screen.splitlines()
    at = next((k for k, line in enumerate(lines) if "Your hand:" in line), None)
    return "" if at is None else "\n".join(lines[at : at + 3])


@NEED_TMUX
def test_lanmatch_play_in_a_real_terminal_plays_moves_and_the_clock_runs(tmp_path):
    """tmux runs `lanmatch play` at 80x24: the hand, the top card and your clock
    show; keys play several moves and the hand, the top card and the clock change."""
    with Tmux(f"{sys.executable} -m lanmatch play --seed 3 --fast --name Ann", _env(tmp_path)) as t:
        screen = t.wait_for(lambda s: "Your move (" in s)
        top = line_starting(screen, " Top card: ")
        assert re.match(r" Top card: (red|yellow|green|blue) [●◆▲■] ", top), top
        assert "Your hand: 7 cards" in screen and "[" in _hand(screen)
        clock = re.search(r"Your move \((\d+) s\)", screen).group(1)
        t.wait_for(lambda s: (m := re.search(r"Your move \((\d+) s\)", s)) is not None and m.group(1) != clock)
        tops, hands = {top}, {_hand(screen)}
        for _move in range(4):
            screen = t.wait_for(lambda s: " ▶ You " in s and "Tab all moves" in s)  # my decision
            before = _hand(screen)
            if "p PLAY it" in screen:  # the prompt of a drawn card (p elsewhere pauses)
                t.keys("p")
            elif "Enter plays" in screen or "Enter answers" in screen:
                t.keys("Enter")
            else:
                t.keys("d")
            screen = t.wait_for(lambda s, before=before: _hand(s) not in ("", before))
            hands.add(_hand(screen))
            tops.add(line_starting(screen, " Top card: "))
        assert len(hands) >= 4 and len(tops) >= 2
        assert "You played" in t.screen() or "You drew" in t.screen()
        t.keys("q")
        t.wait_for(lambda s: "Leave the table?" in s)
        t.keys("y")
        t.wait_for_exit_line("You left the table. Bye!")
    assert not (tmp_path / "lanmatch" / "console.log").exists()


@NEED_TMUX
def test_lanmatch_join_in_a_real_terminal_finds_a_host_over_mdns_and_takes_a_seat(tmp_path):
    """A `lanmatch host` advertised on 127.0.0.1; `lanmatch join --bind
    127.0.0.1` lists it, opens it, takes a seat in its room and starts the game."""
    name = f"lm-join-{os.getpid()}"
    # the host keeps (and resumes) its matches in a store: a private one, or the
    # match stopped mid-game here would be resumed by the next host on this machine
    private = {**ENV, "HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "share"), "XDG_CACHE_HOME": str(tmp_path)}
    host = subprocess.Popen(
        [sys.executable, "-m", "lanmatch", "host", "--name", name, "--bind", LOOPBACK, "--room", "R",
         "--seats", "3", "--bots", "easy", "--data", str(tmp_path / "data")],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=private,
    )
    try:
        assert host.stdout is not None
        assert host.stdout.readline().startswith(b"listening ")
        cmd = f"{sys.executable} -m lanmatch join --bind {LOOPBACK} --name Bea"
        with Tmux(cmd, _env(tmp_path)) as t:
            t.wait_for(lambda s: name in s, timeout=20)
            for _ in range(16):  # other hosts may be advertised on loopback too: choose ours
                if any(line.startswith(" ▶") and name in line for line in t.screen().splitlines()):
                    break
                t.keys("Down")
                time.sleep(0.1)
            t.keys("Enter")
            t.wait_for(lambda s: "Rooms at" in s and " R " in s and name in s)
            t.keys("Enter")
            t.wait_for(lambda s: "A seat at R" in s)
            t.keys("f")
            screen = t.wait_for(lambda s: "Room R" in s and "You" in s)
            assert "Press s to start" in screen
            t.keys("s")
            screen = t.wait_for(lambda s: "Your hand:" in s and "Top card:" in s)
            assert "Color Match · Classic · R" in screen
            t.keys("q")
            t.keys("y")
            t.wait_for_exit_line("Bye!")
    finally:
        stop_process(host)

