"""The console draws a table or a game it has never heard of from the
declarations alone (issue #12): a new Color Match table and a tiny third game,
both declared in this file only, are rendered through the console's model
and screen at 80x24 and played key by key to their end.
"""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from _console import push, room_msg, seated_ui, text, wire

from lanmatch.console.model import Console, RoomForm, bool_options
from lanmatch.console.render import render_outcome, render_table
from lanmatch.console.screen import help_lines
from lanmatch.rules import (
    GAMES,
    Game,
    TableInfo,
    new_game,
    register,
    register_table,
    unregister,
    unregister_table,
)
from lanmatch.rules.colormatch import TABLES

BRIEF = "A test table: the Classic deck, told in Toll's words."


@pytest.fixture
def testtable():
    register_table("colormatch", replace(TABLES["classic"], name="testtable", title="Test Table", palette="toll",
                                         brief=BRIEF))
    yield "testtable"
    unregister_table("colormatch", "testtable")


def play_through(ui: Console, g, seat_keys: int = 400) -> list[str]:
    """Play `g` to its end: the console's seat (0) by its keys (Enter plays the
    selected piece, else d, else Tab and the first move), the others by their
    first legal action; every screen drawn at 80x24. Returns the screens."""
    screens = []
    for _ in range(seat_keys):
        if g.outcome is not None:
            break
        if 0 in g.to_act and g.legal_actions(0):
            item = ui.selected()
            intents = ui.press("enter") if item is not None and item.playable else ui.press("d")
            if not intents:
                ui.press("tab")
                intents = ui.press("enter")
            ((kind, action, state_id),) = intents[:1] or [("act", g.legal_actions(0)[0], None)]
            assert kind == "act" and action in g.legal_actions(0)
            g.act(0, action)
        else:
            seat = next(s for s in g.to_act if g.legal_actions(s))
            g.act(seat, g.legal_actions(seat)[0])
        push(ui, g)
        screens.append(text(ui))
    assert g.outcome is not None, "the game did not end"
    return screens


# ------------------------------------------------------------------ a new Color Match table


def test_a_new_color_match_table_is_drawn_from_its_declaration(testtable):
    g = new_game("colormatch", table=testtable, players=3, seed=3)
    while g.view(0)["turn"] != 0:
        s = g.view(0)["turn"]
        g.act(s, g.legal_actions(s)[0])
    ui = seated_ui(g, table=testtable)
    screen = text(ui)
    assert screen.splitlines()[0].startswith(" Color Match · Test Table · Test table")
    assert "Top card: " in screen and "Your hand: " in screen
    words = ("rose ●", "amber ◆", "teal ▲", "violet ■")  # Toll's palette, on Classic's cards
    assert any(w in line for w in words for line in screen.splitlines() if line.startswith(" Top card: "))
    hand_rows = screen.split("Your hand: ", 1)[1]
    assert sum(hand_rows.count(w) for w in words) + hand_rows.count("Shift") >= 3
    assert not any(w in screen for w in ("red ●", "yellow ◆", "green ▲", "blue ■"))  # not Classic's words
    ui.press("?")
    page = "\n".join(help_lines(ui))
    assert "docs/rules/testtable.md" in page
    assert " ".join(BRIEF.split()) in " ".join(page.split())
    assert "Match the top card" in page and "KEEP it" in page  # the game's brief; Classic's decline
    assert "The rules in brief" in text(ui)
    ui.press("x")
    line = render_table(g.view(0), g.legal_actions(0), testtable)
    assert line.startswith("Color Match · Test Table table") and any(w in line for w in words)
    screens = play_through(ui, g)
    assert all(s.splitlines()[0].startswith(" Color Match · Test Table") for s in screens)
    assert "Points:" in screens[-1] and "r rematch" in screens[-1]
    assert "Game over" in render_outcome(g.outcome, g.view(0), testtable)


def test_the_lobby_offers_and_lists_a_new_table(testtable):
    form = RoomForm(name="R")
    seen = []
    for _ in range(len(TABLES)):
        form.change("table", 1)
        seen.append(form.value_text("table"))
    assert "Test Table" in seen
    while form.table != testtable:
        form.change("table", 1)
    assert form.message()["table"] == testtable and form.value_text("clock") == "table default (30 s)"
    ui = Console("Ann")
    ui.begin_connect("10.0.0.2", 7070, "Kitchen")
    ui.on_message({"type": "welcome", "seq": 1, "protocol": 1, "host": "Kitchen", "server": "x"}, 0.0)
    ui.on_message({"type": "rooms", "rooms": [{"name": "New", "game": "colormatch", "table": testtable, "seats": 3,
                                               "free": 2, "state": "open", "clock": 30, "mode": "single",
                                               "password": False, "bots": "easy"}]}, 0.0)
    assert "Color Match · Test Ta" in text(ui)  # the Game column holds 21 characters


# ------------------------------------------------------------------ a third game, drawn plainly


class Duel:
    """Token Duel, two seats: each holds three tokens (1-9); the leader plays
    one, the other answers; the higher token wins the round; three rounds."""

    def __init__(self, seed: int):
        rng = random.Random(seed)
        tokens = rng.sample([str(n) for n in range(1, 10)], 6)
        self.hands = [tokens[:3], tokens[3:]]
        self.scores = [0, 0]
        self.played: list[str] = []
        self.turn = 0
        self.lead = 0
        self.round = 1
        self.step = 0
        self.events: list[dict[str, Any]] = [{"n": 1, "type": "deal", "first": 0}]
        self.outcome: dict[str, Any] | None = None

    @property
    def to_act(self) -> list[int]:
        return [] if self.outcome is not None else [self.turn]

    def legal_actions(self, seat: int) -> list[dict[str, Any]]:
        if seat not in self.to_act:
            return []
        return [{"type": "play", "token": t} for t in self.hands[seat]]

    def _event(self, **e: Any) -> dict[str, Any]:
        e["n"] = self.events[-1]["n"] + 1
        self.events.append(e)
        return e

    def act(self, seat: int, action: dict[str, Any]) -> list[dict[str, Any]]:
        if action not in self.legal_actions(seat):
            raise ValueError(f"illegal {action}")
        start = len(self.events)
        self.step += 1
        self.hands[seat].remove(action["token"])
        self.played.append(action["token"])
        self._event(type="play", seat=seat, token=action["token"])
        self.turn = 1 - seat
        if len(self.played) == 2:
            a, b = (int(x) for x in self.played)
            winner = self.lead if a > b else 1 - self.lead
            self.scores[winner] += 1
            self._event(type="round_won", seat=winner, round=self.round)
            self.played, self.lead, self.turn = [], winner, winner
            self.round += 1
            if not self.hands[0]:
                best = max(self.scores)
                self.outcome = {"winners": [s for s in (0, 1) if self.scores[s] == best], "points": list(self.scores),
                                "reason": "out"}
        return self.events[start:]

    def view(self, seat: int) -> dict[str, Any]:
        return {"game": "duel", "table": None, "seat": seat, "step": self.step, "hand": list(self.hands[seat]),
                "counts": [len(h) for h in self.hands], "turn": self.turn, "to_act": self.to_act,
                "scores": list(self.scores), "played": list(self.played), "round": self.round,
                "events": [dict(e) for e in self.events[-16:]], "outcome": self.outcome}


@pytest.fixture
def duel():
    register(Game(name="duel", title="Token Duel", min_players=2, max_players=2, guest_max_players=2,
                  tables={"duel": TableInfo(name="duel", title="Token Duel")},
                  make=lambda table, players, seed, options, deck, first_seat: Duel(seed),
                  named_tables=False, brief=("Play one token a turn; the higher of the two wins the round.",)))
    yield "duel"
    unregister("duel")


def test_a_game_the_console_does_not_know_is_drawn_plainly_and_played_to_its_end(duel):
    g = new_game(duel, players=2, seed=5)
    ui = seated_ui(g, game=duel, table=None)
    screen = text(ui)
    hand = g.view(0)["hand"]
    assert screen.splitlines()[0].startswith(" Token Duel · Test table")
    assert "You             3 pieces  score 0" in screen and "Turn: You" in screen and "Round: 1" in screen
    assert "Your hand: 3 pieces, 3 playable [in brackets]" in screen
    assert all(f"[{t}]" in screen for t in hand)
    assert f"Your move (30 s): Enter plays {hand[0]}." in screen
    assert "Enter play · ←→/1-9 choose · Tab all moves · ? help · q quit" in screen
    ui.press("tab")
    assert [label for _h, label, _i in ui.picker.options] == [f"play {t}" for t in hand]
    ui.press("escape")
    ui.press("?")
    page = "\n".join(help_lines(ui))
    assert "choose a piece" in page and "Play one token a turn" in page and "docs/rules/duel.md" in page
    assert "penalty" not in page and "+4" not in page  # no Color Match keys
    ui.press("?")
    ui.press("right")
    assert ui.press("enter") == [("act", {"type": "play", "token": hand[1]}, g.view(0)["step"])]
    screens = play_through(ui, g)
    assert any("Bot 1 (medium): play (token " in s for s in screens)
    assert any(": round won (round 1)" in s for s in screens)
    assert any("Played: " in s for s in screens)
    ui.on_message(room_msg(2, game=duel, table=None, state="over", creator=0), 1.0)
    last = text(ui)
    assert "Game over." in last and "Points:" in last and "r rematch" in last
    assert ui.press("r") == [("send", "rematch", {})]
    assert render_table(g.view(0), [], None).startswith("Token Duel table")


def test_a_view_of_a_game_this_console_has_not_registered_is_still_drawn():
    """A host may run a game this peer does not know: the plain rendering."""
    v = {"game": "colormatch", "table": "classic", "seat": 0, "step": 1, "hand": ["a", "b"], "counts": [2, 2],
         "turn": 0, "to_act": [0], "events": [], "outcome": None, "stones": 5}
    ui = Console("Ann", kind="play")
    ui.on_message({"type": "seated", "room": "T", "seat": 0, "token": "0" * 32}, 0.0)
    ui.on_message({"type": "view", "room": "T", "state_id": 1, "legal": [{"type": "take", "count": 2}],
                   "timers": [], "autopilot": [], "view": wire({**v, "game": "colormatch"})}, 0.0)
    ui.msg["view"]["game"] = "nim"  # not registered here
    screen = text(ui)
    assert "Stones: 5" in screen and "Your hand: 2 pieces" in screen and "Tab all moves" in screen
    ui.press("tab")
    assert ui.picker.options[0][1] == "take 2"


def test_every_house_option_a_table_accepts_has_its_games_words():
    """The new-room form shows each on/off option in words its game declares
    (`Game.option_titles`), never by its name (a play-test read "option seven_o")."""
    for name, game in GAMES.items():
        for table in game.tables:
            for option in bool_options(name, table):
                assert game.option_titles.get(option), (name, table, option)


def test_the_rules_page_the_help_names_exists_for_every_table():
    """The help's "Every rule of this table: docs/rules/...md" comes from the
    game's declaration (`Game.rules_doc`); a play of double-nine named a
    docs/rules/double-nine.md that is not there (Dominoes' sets share one page)."""
    root = Path(__file__).resolve().parents[1]
    for name, game in GAMES.items():
        for table in game.tables:
            page = game.rules_doc(table)
            assert (root / page).is_file(), (name, table, page)
            g = new_game(name, table=table, players=game.seat_range(table)[0], seed=1)
            ui = seated_ui(g, game=name, table=game.table_name(table))
            ui.press("?")
            assert f"Every rule of this table: {page}" in "\n".join(map(str, help_lines(ui))), (name, table)


@pytest.mark.parametrize(("winners", "says"), [([], "Game over (blocked: nobody could move)."),
                                                ([1], "Game over (blocked: nobody could move, lowest points won).")])
def test_a_blocked_round_says_lowest_won_only_when_someone_won(winners, says):
    """At `cards` a blocked round is drawn (and with partners equal lowest hands
    win nothing): the end screen said "lowest points won" over "Nobody won"."""
    view = new_game("colormatch", table="cards", players=3, seed=1).view(0)
    outcome = {"winners": winners, "reason": "blocked", "points": [0, 5 if winners else 0, 0]}
    first = render_outcome(outcome, view).splitlines()[0]
    assert first == says
