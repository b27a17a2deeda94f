"""The console's key map (lanmatch/console/keymap.py): every key in it is
bound through prompt_toolkit and shown on some screen, and the handlers, the
key bar, the boxes and the help are all read from it.

The states toured here are real: engine views of rigged deals, through the
wire encoding, into `Console`, drawn by `render_screen`.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest
from _console import coin_lobby, coin_rooms, push, rigged, room_msg, seated_ui, to_seat0

from lanmatch.console import keymap
from lanmatch.console.app import build_app
from lanmatch.console.keymap import ANY, DIGIT, TEXT, Key
from lanmatch.console.model import Console, HostRow
from lanmatch.console.screen import help_lines, render_screen, screen_text
from lanmatch.rules import new_game

# what a terminal sends for each named key (xterm)
SEQUENCES = {"left": "\x1b[D", "right": "\x1b[C", "up": "\x1b[A", "down": "\x1b[B", "enter": "\r", "tab": "\t",
             "s-tab": "\x1b[Z", "backspace": "\x7f", "home": "\x1b[H", "end": "\x1b[F", "escape": "\x1b",
             "c-c": "\x03", "pageup": "\x1b[5~", "pagedown": "\x1b[6~"}


class Recorder(Console):
    """A console that records the keys it is given and does nothing with them."""

    def __init__(self) -> None:
        super().__init__("Ann", kind="play")
        self.got: list[str] = []

    def press(self, key: str) -> list:
        self.got.append(key)
        return [("quit",)] if key == "c-c" else []


def test_every_key_of_the_map_is_bound_through_prompt_toolkit():
    """Each named key of the map, sent as a terminal sends it, reaches
    `Console.press` by its name; so does every character the map names."""
    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    named = keymap.named_keys()
    assert set(named) <= set(SEQUENCES), "a new named key: add what the terminal sends for it here"
    chars = sorted({key for k in keymap.KEYS for key in k.keys if len(key) == 1})
    assert {"d", "?", "!", "L", " "} <= set(chars)
    ui = Recorder()
    with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
        app = build_app(ui, lambda intents: app.exit() if ("quit",) in intents else None)

        async def main() -> None:
            task = asyncio.ensure_future(app.run_async())
            for key in named:
                if key != "c-c":
                    inp.send_text(SEQUENCES[key])
                    await asyncio.sleep(0.3 if key == "escape" else 0.01)  # Esc alone waits out ttimeoutlen
            inp.send_text("".join(chars) + "7")
            inp.send_text(SEQUENCES["c-c"])
            await asyncio.wait_for(task, 10)

        asyncio.run(main())
    assert ui.got == [k for k in named if k != "c-c"] + chars + ["7", "c-c"]


# ------------------------------------------------------------------ a tour of every mode


def _table(table: str, hands: list, starter: str, *, first: int, kind: str = "play", **moves):
    g = rigged(table, hands, starter, first=first, pile=moves.pop("pile", ()))
    for seat, action in moves.pop("acts", ()):
        g.act(seat, action)
    return g, seated_ui(g, table=table, kind=kind)


H1 = ["Y1", "Y2", "G3", "B4", "B5", "G6", "Y7"]
H2 = ["Y3", "G1", "G2", "B1", "B2", "Y4", "B3"]


def tour() -> list[Console]:
    """Consoles in every mode of the map, with each key's condition met somewhere."""
    out = []
    g = new_game("colormatch", table="classic", players=3, seed=3)
    to_seat0(g)
    for kind in ("play", "join"):
        ui = seated_ui(g, kind=kind)
        out.append(ui)
        for layer in ("?", "tab", "q"):  # help, a picker, "leave?"
            other = seated_ui(g, kind=kind)
            other.press(layer)
            out.append(other)
    ui = seated_ui(g, kind="join")
    ui.press("L")
    out.append(ui)
    ui = seated_ui(g)  # the move history scrolled back
    ui.add_log([f"move {k}" for k in range(200)])  # (longer than the pane of the 200x60 screen below)
    ui.press("[")
    out.append(ui)
    ui = seated_ui(g)  # a Dominoes round's end (tests/test_console_round.py plays one)
    ui.round_end, ui.round_until, ui.overlay = {"round": 1, "pips": [0, 3, 4], "hands": [[], ["2-1"], ["4-0"]]}, 1e9, "round"
    out.append(ui)
    out.append(_table("classic", [H1, H2], "R5", first=0, pile=("R7",), acts=[(0, {"type": "draw"})])[1])  # p, k
    out.append(_table("toll", [H1, H2], "R5", first=0, pile=("R7",), acts=[(0, {"type": "draw"})])[1])  # s
    out.append(_table("standard", [H1, H2, ["W+4", "G4", "B6", "Y5", "G5", "B7", "Y6"]], "R5", first=2,
                      acts=[(2, {"type": "play", "card": "W+4", "color": "B"})])[1])  # a, !
    out.append(_table("standard", [H1, H2], "W", first=0)[1])  # n (a Wild starter)
    same = ["R1", "R2", "R3", "R4", "R5", "R6", "R7"]
    acts = [(s, {"type": "play", "card": c}) for c in ("R1", "R2", "R3", "R4", "R5") for s in (0, 1)]
    out.append(_table("cards", [same, same], "R8", first=0, acts=[*acts, (0, {"type": "play", "card": "R6"})])[1])
    g2, ui = _table("cards", [same, same], "R8", first=0, acts=[*acts, (0, {"type": "play", "card": "R6"}),
                                                                   (0, {"type": "call"}),
                                                                   (1, {"type": "play", "card": "R6"}),
                                                                   (1, {"type": "expire", "penalty": False})])
    out.append(ui)  # x
    over = rigged("classic", [same, ["Y1", "Y2", "Y3", "Y4", "Y5", "Y6", "Y7"]], "R8", first=0)
    for card in same:
        over.act(0, {"type": "play", "card": card})
        if over.outcome is None:
            over.act(1, {"type": "draw"})
            if over.view(1)["phase"] == "drawn":
                over.act(1, {"type": "keep"})
    for creator in (0, 1):
        ui = seated_ui(over, kind="join", creator=creator)
        ui.on_message(room_msg(2, state="over", creator=creator), 1.0)
        out.append(ui)  # r, L
    for kind in ("play", "join"):  # the waiting room, and connecting
        ui = Console("Ann", kind=kind)
        ui.on_message({"type": "seated", "room": "R", "seat": 0, "token": "0" * 32}, 0.0)
        ui.on_message(room_msg(3, state="open", creator=0), 0.0)
        out.append(ui)
        out.append(Console("Ann", kind="play") if kind == "play" else _connecting())
    away = Console("Ann", kind="join")  # a deal while a person is away: "deal without them?"
    away.on_message({"type": "seated", "room": "R", "seat": 0, "token": "0" * 32}, 0.0)
    waiting = room_msg(3, state="open", creator=0)
    waiting["room"]["seats"][1] = {"seat": 1, "name": "Bob", "kind": "person", "connected": False}
    away.on_message(waiting, 0.0)
    away.press("s")
    out.append(away)
    for kind in ("play", "join"):  # a host that stopped answering: the lobby, or more waiting
        gone = seated_ui(g, kind=kind)
        gone.host_gone()
        out.append(gone)
    watcher = Console("Ann", kind="join")  # a watcher offered a seat between games: j, t, e, M
    watcher.on_message({"type": "watching", "room": "R"}, 0.0)
    over_room = room_msg(3, state="over", creator=1)
    over_room["room"].update(free=1, open_seats=[0], watchers=["Ann"], spectators=1)
    watcher.on_message(over_room, 0.0)
    out.append(watcher)
    lobby = Console("Ann")
    lobby.set_hosts([HostRow("Kitchen", "10.0.0.2", 7070, "2", "3", "colormatch,dominoes", True)])
    out.append(lobby)
    typing = Console("Ann")
    typing.press("tab")
    out.append(typing)
    rooms = coin_lobby()
    rooms.on_message({"type": "rooms", "rooms": coin_rooms()}, 0.0)
    out.append(rooms)
    for keys in (["enter"], ["enter", "enter"], ["n"]):  # the stake, the password, the form
        ui = coin_lobby()
        ui.on_message({"type": "rooms", "rooms": coin_rooms()}, 0.0)
        for key in keys:
            ui.press(key)
        out.append(ui)
    return out


def _connecting() -> Console:
    ui = Console("Ann")
    ui.begin_connect("10.0.0.2", 7070, "Kitchen")
    return ui


def _seen(ui: Console) -> str:
    """Everything on screen, and the help of the table or the lobby beside it."""
    wide = screen_text(render_screen(ui, 0.0, 200, 60))
    return wide + "\n" + "\n".join(help_lines(ui)) if ui.screen == "table" and ui.view else wide


def test_every_key_of_the_map_is_shown_in_a_key_bar_a_box_or_the_help():
    consoles = tour()
    assert {ui.mode() for ui in consoles} == {m for k in keymap.KEYS for m in k.modes} - {"any"}
    bars: set[int] = set()
    helps: set[int] = set()
    for ui in consoles:
        seen = _seen(ui).lower()
        for n, k in enumerate(keymap.KEYS):
            here = ui.mode() in k.modes or ui.screen_mode() in k.modes or "any" in k.modes
            if k.bar and here and k.shows(ui) and k.bar_text(ui).lower() in seen:
                bars.add(n)
            if k.help and ui.kind in k.kinds:
                words = k.help[1].format(**ui.pieces().words)
                if f"{k.help[0]}  {words}".lower() in seen or f"{k.help[0]:<6} {words}".lower() in seen:
                    helps.add(n)
    for n, k in enumerate(keymap.KEYS):
        if k.keys == (TEXT, "backspace") and not k.bar:
            continue  # a text field: it takes what is typed
        assert k.bar or k.help, f"{k.does} has no words"
        if k.bar:
            assert n in bars, f"{k.keys} ({k.does}) never shows {k.bar!r}"
        if k.help:
            assert n in helps, f"{k.keys} ({k.does}) is not in the help"


def test_the_handlers_the_key_bar_and_the_help_are_read_from_the_map(monkeypatch):
    """Change the map and the console changes with it: a key's words, a new
    key, a key taken away."""
    g = rigged("classic", [H1, H2], "R5", first=0, pile=("R7",))
    ui = seated_ui(g)
    before = screen_text(render_screen(ui, 0.0))
    flat = " ".join("\n".join(help_lines(ui)).split())
    assert " d draw · " in before and "d draw (or take a penalty pile)" in flat and "k KEEP it" in flat
    assert ui.press("k") == [] and "no drawn card to keep" in ui.message
    keys = []
    for k in keymap.KEYS:
        if k.does == "draw":
            keys.append(replace(k, bar="d DRAW IT", help=("d", "draw, as the map now says")))
            keys.append(Key(("z",), "draw", ("table",), "z draws too", ("z", "draw, the new way"), k.when,
                            k.shown))
        elif k.does != "keep":
            keys.append(k)
    monkeypatch.setattr(keymap, "KEYS", tuple(keys))
    after = screen_text(render_screen(ui, 0.0))
    assert " d DRAW IT · z draws too · " in after and " d draw · " not in after
    page = "\n".join(help_lines(ui))
    flat = " ".join(page.split())
    assert "d draw, as the map now says" in flat and "z draw, the new way" in flat
    assert "k KEEP it" not in flat
    assert ui.press("z") == [("act", {"type": "draw"}, g.view(0)["step"])]
    ui.sent_sid = None
    ui.say("")
    assert ui.press("k") == [] and ui.message == ""  # no key keeps any more
    ui.press("q")
    assert "y leave · any other key stays" in screen_text(render_screen(ui, 0.0))
    monkeypatch.setattr(keymap, "KEYS", tuple(replace(k, bar="y goes") if k.does == "quit_now" and
                                              k.modes == ("confirm_quit",) else k for k in keymap.KEYS))
    assert "y goes · any other key stays" in screen_text(render_screen(ui, 0.0))


@pytest.mark.parametrize("table", ["classic", "standard", "cards"])
def test_the_help_lists_the_keys_of_the_tables_moves_only(table):
    """`Key.needs`: the help of a table without +4 challenges or last-card
    calls does not offer their keys; the table's own brief follows."""
    g = new_game("colormatch", table=table, players=3, seed=3)
    to_seat0(g)
    page = "\n".join(help_lines(seated_ui(g, table=table)))
    spec = g.spec
    assert ("challenge a " in page) == bool(spec.challenge)  # a +4 Wild, a Toll 4: the table's own name
    assert ("call your last card" in page) == bool(spec.call)
    assert ("KEEP it" in page) == (spec.decline == "keep")
    assert spec.brief.split()[0] in page and "choose a card" in page


def test_a_wildcard_entry_comes_after_the_keys_named():
    """`find`: a named key before a digit, a digit before any character, any
    character before any key; `any` entries (Ctrl-C) before all."""
    ui = Console("Ann")
    ui.press("tab")  # the address field: it takes what is typed
    assert keymap.find(ui, "q").does == "address_type"
    assert keymap.find(ui, "enter").does == "address_connect"
    assert keymap.find(ui, "c-c").does == "quit_now"
    g = new_game("colormatch", table="classic", players=3, seed=3)
    to_seat0(g)
    ui = seated_ui(g)
    ui.press("tab")
    assert keymap.find(ui, "q").does == "close" and keymap.find(ui, "7").does == "pick"
    assert DIGIT in keymap.find(ui, "7").keys and ANY not in keymap.find(ui, "7").keys
    push(ui, g)
    ui.picker = None
    ui.press("?")
    assert keymap.find(ui, "d").does == "close" and keymap.find(ui, "c-c").does == "quit_now"


def test_the_help_lists_every_key_whole_at_80_columns():
    """(Seen: the chat keys' words ran past their column and were cut with '…'.)"""
    from _console import seated_ui, text, to_seat0

    from lanmatch.rules import new_game

    g = new_game("colormatch", table="classic", players=3, seed=3)
    to_seat0(g)
    ui = seated_ui(g, kind="join")  # (at a host: the chat keys are listed; quick play alone lists none)
    ui.press("?")
    screen = text(ui)
    keys = screen[screen.index("Keys"):screen.index("The rules in brief")]
    assert keys.count("│") >= 8 and not any(line.rstrip(" │").endswith("…") for line in keys.splitlines()), keys
    for words in ("chat: a line to the room", "mute a seat or the watchers", "rematch when the game is over"):
        assert words in keys
