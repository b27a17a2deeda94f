"""Quick play (`lanmatch play`): the text of a table, the input loop, a real terminal.

Three layers, as STYLE example 7 asks: `render_table` is a pure function
tested on rigged and seeded games of every table and of Dominoes; the real
prompt_toolkit loop is driven headlessly (`create_pipe_input` +
`DummyOutput`); and one test plays in a real terminal through tmux.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys

import pytest
from _console import (
    NEED_TMUX,
    Tmux,
    bomb_lit_one_card_each,
    dominoes_with_a_line,
    line_starting,
    rigged,
    to_seat0,
)
from _declared import testtable  # noqa: F401 (a fixture)

from lanmatch import cli
from lanmatch.console import quick
from lanmatch.console.quick import BadInput, QuickGame, parse_choice, run_quick
from lanmatch.console.render import palette_of, render_table
from lanmatch.rules import GAMES, new_game
from lanmatch.rules.cards import PALETTES, describe

TABLES = tuple(GAMES["colormatch"].tables)  # every Color Match table the registry declares
NAMES = ["You", "Bot 1 (medium)", "Bot 2 (medium)", "Bot 3 (medium)", "Bot 4 (medium)", "Bot 5 (medium)"]
# a card code standing alone in the text (the console writes cards in words only)
RAW_CODE = re.compile(r"(?<![\w+])(?:[RYGBPTOV](?:[0-9]|S|R|\+[1245]|B|H|T|A)|W\+4|WC|WH)(?![\w+])")


def render0(g, table: str | None) -> tuple[str, dict, list]:
    v = g.view(0)
    legal = g.legal_actions(0)
    return render_table(v, legal, table, names=NAMES[: len(v["counts"])], width=100), v, legal


def color_words(letter: str, table: str) -> str:
    palette = PALETTES.get(palette_of(table), PALETTES["classic"])  # (the table's declared palette)
    name, shape = palette["colors"].get(letter) or PALETTES["classic"]["colors"][letter]
    return f"{name} {shape}"


def assert_table_text(g, table: str) -> str:
    """The hand, the top card and every numbered legal action show in words; no codes, no rival cards."""
    text, v, legal = render0(g, table)
    for card in v["hand"]:
        assert describe(card, table) in text
    assert f"Top card: {describe(v['top'], table)}" in text
    assert legal, "seat 0 should have something to do"
    for i, a in enumerate(legal, 1):
        if a["type"] == "play":
            want = f"{i}  play {describe(a['card'], table)}"
            if "color" in a:
                want += f", name {color_words(a['color'], table)}"
        else:
            want = f"{i}  {a['type']}" if a["type"] not in ("color",) else f"{i}  name {color_words(a['color'], table)}"
        assert want in text, (want, text)
    assert not RAW_CODE.findall(text), RAW_CODE.findall(text)
    # no rival's hidden card shows: faces seat 0 cannot see must not be written
    seen = set(v["hand"]) | {v["top"]}
    for e in v["events"]:
        seen.update(x for x in (e.get("card"), e.get("top")) if x)
        seen.update(e.get("cards") or [])
    for faces in (v.get("far") or {}).values():
        seen.update(faces)
    if v.get("draw_far"):
        seen.add(v["draw_far"])
    for s in range(1, len(v["counts"])):
        for card in g.hands[s]:
            if card[0] != "W" and card not in seen:
                assert describe(card, table) not in text, f"seat {s}'s hidden {card} shows"
    return text


# ------------------------------------------------------------------ render_table, per table


@pytest.mark.parametrize("table", TABLES)
@pytest.mark.parametrize("seed", [3, 11])
def test_render_seeded_game_at_every_table_shows_hand_top_and_numbered_actions(table, seed):
    g = new_game("colormatch", table=table, players=4, seed=seed)
    for k in range(3):  # the opening, then a few rounds of play later
        to_seat0(g)
        if g.outcome is not None:
            break
        text = assert_table_text(g, table)
        assert "Your hand (" in text and "Your move:" in text
        assert "Turn: You" in text
        g.act(0, g.legal_actions(0)[k % len(g.legal_actions(0))])


def test_render_classic_penalty_waiting_on_you():
    hands = [
        ["R+2", "Y1", "Y2", "G3", "B4", "B5", "G6"],
        ["R+2", "Y3", "G1", "G2", "B1", "B2", "Y4"],
        ["B+2", "Y5", "G4", "B3", "Y6", "G5", "B6"],
    ]
    g = rigged("classic", hands, "R5", first=1)
    g.act(1, {"type": "play", "card": "R+2"})
    g.act(2, {"type": "play", "card": "B+2"})
    text = assert_table_text(g, "classic")
    assert "Penalty waiting: 4 cards (+2 pile) on You" in text
    assert "draw the 4 penalty cards" in text
    assert "play red ● +2" in text
    assert "Bot 1 (medium) played red ● +2" in text and "Bot 2 (medium) played blue ■ +2" in text


def test_render_classic_bomb_fuse_and_one_card_banner():
    g = bomb_lit_one_card_each()
    text = assert_table_text(g, "classic")
    assert "Bomb fuse: 3 hand-offs left" in text
    assert "*** ONE CARD: You, Bot 1 (medium) ***" in text
    assert "ONE CARD!" in text
    assert "yellow ◆ Bomb" not in text  # nobody holds it where seat 0 could see


def test_render_siege_standing_shield():
    hands = [
        ["Y1", "Y2", "G3", "B4", "B5", "G6", "Y7"],
        ["RH", "Y3", "G1", "G2", "B1", "B2", "Y4"],
    ]
    g = rigged("siege", hands, "R5", first=1)
    g.act(1, {"type": "play", "card": "RH"})
    text = assert_table_text(g, "siege")
    assert "Shields standing: Bot 1 (medium)" in text
    assert "Shield standing" in text.splitlines()[2]  # on Bot 1's seat line


def test_render_daynight_faces_far_sides_and_midnight_clock():
    hands = [
        ["R1/P1", "R2/P2", "Y3/T3", "G4/O4", "B5/V5", "Y6/T6", "G7/O7"],
        ["WC/P+5", "R3/TA", "G1/V9", "G2/O8", "B1/P9", "B2/T9", "Y4/V8"],
        ["R4/O5", "Y5/P4", "G5/V4", "B6/T4", "Y7/O6", "G6/P6", "B7/V7"],
    ]
    g = rigged("daynight", hands, "R5/V3", first=1)
    g.act(1, {"type": "play", "card": "WC", "color": "R"})
    to_seat0(g)
    text = assert_table_text(g, "daynight")
    assert "Face up: the DAY side" in text
    assert "Midnight Clock: the table turns over in" in text
    assert "far side: " in text
    v = g.view(0)
    for faces in v["far"].values():
        for face in faces:
            assert describe(face, "daynight") in text  # rivals' far faces, in words
    assert "teal ◇ 4" in text  # Bot 2's far face of its blue ■ 6, whose day face stays hidden


def test_render_toll_uses_its_palette_names():
    hands = [
        ["RS", "R+2", "W", "W+4", "RR", "Y1", "G2"],
        ["Y3", "G1", "G3", "B1", "B2", "Y4", "B3"],
    ]
    g = rigged("toll", hands, "R5", first=0)
    text = assert_table_text(g, "toll")
    for words in ("rose ● Bypass", "rose ● Toll 2", "rose ● Flip", "play Shift, name violet ■", "play Toll 4, name teal ▲"):
        assert words in text
    assert "Color Match · Toll table" in text


def test_render_standard_plus4_challenge():
    hands = [
        ["Y1", "Y2", "G3", "B4", "B5", "G6", "Y7"],
        ["Y3", "G1", "G2", "B1", "B2", "Y4", "B3"],
        ["W+4", "G4", "B6", "Y5", "G5", "B7", "Y6"],
    ]
    g = rigged("standard", hands, "R5", first=2)
    g.act(2, {"type": "play", "card": "W+4", "color": "B"})
    text = assert_table_text(g, "standard")
    assert "1  accept the +4 Wild (draw 4)" in text
    assert "2  challenge the +4 Wild" in text
    assert "A +4 Wild waits on you" in text
    assert "Bot 2 (medium) played +4 Wild, naming blue ■" in text


def test_render_cards_last_card_window_call_and_catch():
    hands = [
        ["R1", "R2", "R3", "R4", "R5", "R6", "R7"],
        ["R1", "R2", "R3", "R4", "R5", "R6", "R7"],
    ]
    g = rigged("cards", hands, "R8", first=0)
    for card in ("R1", "R2", "R3", "R4", "R5"):
        g.act(0, {"type": "play", "card": card})
        g.act(1, {"type": "play", "card": card})
    g.act(0, {"type": "play", "card": "R6"})  # one card left: seat 0 may call
    text, v, legal = render0(g, "cards")
    assert {"type": "call"} in legal
    assert "call last card" in text and "Last card: You have one card and may call it" in text
    assert "blue ★" in render_table(v, legal, "cards") or "red ● 7" in text
    g.act(0, {"type": "call"})
    g.act(1, {"type": "play", "card": "R6"})
    g.act(1, {"type": "expire", "penalty": False})  # Bot 1 did not call
    text = assert_table_text(g, "cards")
    assert "catch Bot 1 (medium) (they draw 2)" in text
    assert "Bot 1 (medium) did not call last card: catch!" in text
    assert "Color Match · Color Cards table" in text


def test_render_dominoes_line_ends_rack_and_scores():
    g = dominoes_with_a_line()
    v = g.view(0)
    legal = g.legal_actions(0)
    text = render_table(v, legal, None, names=NAMES[:3])
    for tile in v["hand"]:
        a, b = tile.split("-")
        assert f"[{a}|{b}]" in text
    for tile in v["line"]:
        a, b = tile.split("-")
        assert f"[{a}|{b}]" in text
    assert f"Open ends: left {v['ends'][0]} · right {v['ends'][1]}" in text
    assert f"Boneyard: {v['boneyard']} tiles" in text
    assert "score 0" in text and "first to 100 points" in text
    for i, a in enumerate(legal, 1):
        assert f"{i:>2}  {a['type']}" in text
    assert f"Your rack ({len(v['hand'])} tiles, {v['pips']} pips)" in text


def test_render_paints_colors_only_when_asked():
    g = new_game("colormatch", table="classic", players=3, seed=3)
    to_seat0(g)
    v, legal = g.view(0), g.legal_actions(0)
    assert "\x1b[" not in render_table(v, legal, "classic")
    painted = render_table(v, legal, "classic", color=True)
    assert "\x1b[" in painted
    assert re.sub(r"\x1b\[[0-9;]*m", "", painted) == render_table(v, legal, "classic")


# ------------------------------------------------------------------ input parsing


def test_parse_choice_numbers_keys_and_mistakes():
    legal = [{"type": "play", "card": "R5"}, {"type": "draw"}]
    assert parse_choice("1", legal) == ("action", 0)
    assert parse_choice(" 2 \n", legal) == ("action", 1)
    assert parse_choice("d", legal) == ("action", 1)
    assert parse_choice("?", legal) == ("help", None)
    assert parse_choice("q", legal) == ("quit", None)
    for bad, says in (("3", "no action 3"), ("", "Type the number"), ("play", "not an action")):
        with pytest.raises(BadInput, match=says):
            parse_choice(bad, legal)
    with pytest.raises(BadInput, match="nothing to draw"):
        parse_choice("d", [{"type": "call"}])
    assert parse_choice("", [{"type": "call"}], window=True) == ("other", None)


# ------------------------------------------------------------------ the loop, scripted


class Script:
    """An asker that answers from a list, then ends the input."""

    def __init__(self, answers):
        self.answers = list(answers)
        self.asked: list[str] = []

    def ask(self, message, options, check):
        self.asked.append(message)
        if not self.answers:
            raise EOFError
        text = self.answers.pop(0)
        check(text)
        return text


def _cards_game(answers):
    out = io.StringIO()
    q = QuickGame("colormatch", "cards", 2, "hard", 1, out=out, asker=Script(answers), pause=0)
    hands = [["R1", "R2", "R3", "R4", "R5", "R6", "R7"], ["R1", "R2", "R3", "R4", "R5", "R6", "Y7"]]
    q.g = rigged("cards", hands, "R8", first=0)
    return q, out


def _play_to_one_card(q):
    for card in ("R1", "R2", "R3", "R4", "R5"):
        q._act(0, {"type": "play", "card": card})
        q._act(1, {"type": "play", "card": card})


def test_cards_person_missing_the_call_draws_two():
    q, out = _cards_game(["1", "x"])  # play red ● 6 (leaves one card), then not "call"
    _play_to_one_card(q)
    q.step()  # the person's turn: 1 = play red ● 6
    assert q.g.view(0)["counts"][0] == 1
    q.step()  # the window prompt: anything else misses the call
    assert q.g.view(0)["counts"][0] == 3
    assert "You missed the last-card call and drew 2" in out.getvalue()


def test_cards_person_calls_last_card():
    q, out = _cards_game(["1", "1"])
    _play_to_one_card(q)
    q.step()
    q.step()
    assert "You called last card" in out.getvalue()
    assert q.g.view(0)["windows"] == []


def test_cards_bot_that_forgets_can_be_caught_and_the_window_closes():
    q, out = _cards_game(["2"])  # at the person's turn: 1 play red ● 7, 2 catch Bot 1
    q.bots[1].declines = lambda view, legal: True  # the bot lets its call pass
    _play_to_one_card(q)
    q._act(0, {"type": "play", "card": "R6"})
    q._act(0, {"type": "call"})
    q._act(1, {"type": "play", "card": "R6"})  # Bot 1 down to one card
    q.step()  # the console: Bot 1 did not call -> expire(penalty=False)
    assert q.g.view(0)["windows"] == [{"seat": 1, "call": False, "catch": True}]
    q.step()  # the person's turn, with the catch among the actions
    assert "2  catch Bot 1 (hard) (they draw 2)" in out.getvalue()
    assert "You caught Bot 1 (hard), who drew 2" in out.getvalue()
    assert q.g.view(0)["counts"][1] == 3


def test_standard_a_call_let_pass_is_left_to_the_next_player():
    out = io.StringIO()
    q = QuickGame("colormatch", "standard", 2, "medium", 1, out=out, asker=Script(["1", ""]), pause=0)
    hands = [["R1", "R2", "R3", "R4", "R5", "R6", "R7"], ["R1", "R2", "R3", "R4", "R5", "R6", "Y7"]]
    q.g = rigged("standard", hands, "R8", first=0)
    _play_to_one_card(q)
    q.step()  # the person's turn: 1 = play red ● 6, one card left
    assert q.g.view(0)["windows"] == [{"seat": 0, "call": True, "catch": True}]
    q.step()  # the call prompt: Enter lets it pass
    assert "call last card" in out.getvalue()
    assert q.g.view(0)["windows"] and 0 in q.offered
    q.step()  # Bot 1's turn: whatever it does closes the window (standard)
    assert q.g.view(0)["windows"] == []


def test_a_bot_keeping_the_turn_with_one_card_calls_before_the_person_may_catch_it():
    """Two seats at `standard`: Bot 1's Skip leaves it one card and the turn.
    As at the host, the window's owner has the first chance at its own call:
    the person is not offered a catch of a bot that has not yet had it."""
    out = io.StringIO()
    q = QuickGame("colormatch", "standard", 2, "medium", 1, out=out, asker=Script([]), pause=0)
    hands = [["R1", "R2", "R3", "R4", "R5", "G1", "G2"], ["R1", "R2", "R3", "R4", "R5", "RS", "Y7"]]
    q.g = rigged("standard", hands, "R8", first=1)
    for card in ("R1", "R2", "R3", "R4", "R5"):
        q._act(1, {"type": "play", "card": card})
        q._act(0, {"type": "play", "card": card})
    q.step()  # Bot 1 plays its Skip: one card left, its turn again
    assert q.g.view(0)["windows"] == [{"seat": 1, "call": True, "catch": True}] and q.g.view(0)["turn"] == 1
    q.step()  # its call comes first (the Script would end the input if the person were asked)
    assert "Bot 1 (medium) called last card" in out.getvalue()
    assert "did not call last card" not in out.getvalue()


def test_a_bot_choosing_an_illegal_action_does_not_end_the_game(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    q = QuickGame("colormatch", "classic", 3, "medium", 3, out=io.StringIO(), asker=Script([]), pause=0)
    for bot in q.bots.values():
        bot.choose = lambda view, legal: {"type": "dance"}
    g = q.g
    to_seat0(g)
    g.act(0, g.legal_actions(0)[0])
    q.g = g  # the referee takes the game over as it now stands (the same bots)
    step = q.g.view(0)["step"]
    q.step()  # a bot's turn: its bad choice is logged and its first legal action played
    assert q.g.view(0)["step"] == step + 1
    assert "dance" in (tmp_path / "lanmatch" / "console.log").read_text()


# ------------------------------------------------------------------ the real prompt_toolkit loop


def _headless(args, text: str, **kw) -> tuple[int, str]:
    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    out = io.StringIO()
    with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
        inp.send_text(text)
        inp.close()  # after the scripted keys the input ends (EOF), so nothing can hang
        rc = run_quick(*args, fast=True, out=out, asker=quick.PromptAsker(), **kw)
    return rc, out.getvalue()


def test_headless_prompt_loop_plays_a_whole_classic_game():
    rc, text = _headless(("colormatch", "classic", 3, "medium", 3), "1\n" * 400)
    assert rc == 0
    assert "Game over" in text, text[-2000:]
    assert "Points:" in text and "Thanks for playing." in text
    assert "Traceback" not in text


def test_headless_prompt_loop_cards_with_easy_bots_and_dominoes():
    rc, text = _headless(("colormatch", "cards", 3, "easy", 2), "1\n" * 400)
    assert rc == 0 and "Game over" in text, text[-2000:]
    rc, text = _headless(("dominoes", None, 2, "medium", 4), "1\n" * 600)
    assert rc == 0 and "Match over (first to 100 points)" in text, text[-2000:]


def test_headless_help_bad_input_and_quit():
    rc, text = _headless(("colormatch", "classic", 3, "medium", 3), "?\nq\n")
    assert rc == 0
    assert "The full rules of this table: docs/rules/classic.md" in text
    assert text.rstrip().endswith("You left the table. Bye!")


def test_headless_ctrl_d_leaves_in_oneline_starting():
    rc, text = _headless(("colormatch", "classic", 3, "medium", 3), "\x04")
    assert rc == 0
    assert text.rstrip().endswith("You left the table (Ctrl-D, or the input ended). Bye!")


def test_no_color_turns_ansi_colors_off(monkeypatch):
    class Tty(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    assert quick._want_color(Tty()) is True
    assert quick._want_color(io.StringIO()) is False
    monkeypatch.setenv("NO_COLOR", "1")
    assert quick._want_color(Tty()) is False


def test_unexpected_error_is_logged_and_told_in_oneline_starting(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))

    def boom(self):
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(QuickGame, "step", boom)
    out = io.StringIO()
    rc = run_quick("colormatch", "classic", 3, "medium", 3, fast=True, out=out, asker=Script([]))
    assert rc == 1
    log = tmp_path / "lanmatch" / "console.log"
    assert out.getvalue().strip() == f"lanmatch play: something went wrong (ZeroDivisionError); the details are in {log}"
    assert "Traceback" in log.read_text() and "a bug" in log.read_text()


# ------------------------------------------------------------------ the command line


def test_play_flags_are_checked_in_oneline_starting(capsys):
    for argv, says in (
        (["play", "--seats", "7"], "Color Match · Classic seats 2 to 6 players, not 7"),
        (["play", "--game", "dominoes", "--seats", "5"], "Dominoes seats 2 to 4 players, not 5"),
        (["play", "--game", "dominoes", "--table", "toll"], "Dominoes has no table 'toll'; expected one of dominoes, double-nine"),
        (["play", "--bots", "expert"], "invalid choice"),
    ):
        with pytest.raises(SystemExit) as ex:
            cli.main(argv)
        assert ex.value.code == 2
        err = capsys.readouterr().err
        assert says in err and err.count("\n") == 1, err


def test_play_help_describes_the_flags(capsys):
    with pytest.raises(SystemExit):
        cli.main(["play", "--help"])
    text = capsys.readouterr().out
    for words in ("--game", "--table", "--seats", "--bots", "--seed", "--fast", "--clock", "--lan", "Classic", "Medium"):
        assert words in text


def test_line_mode_says_the_clock_needs_the_full_console_in_one_line(monkeypatch, capsys):
    """Without a terminal (as here, under pytest) `lanmatch play` is the line mode:
    --clock gets one line on stderr, and the game goes on."""
    seen = {}
    monkeypatch.setattr(quick, "main_play", lambda args: seen.setdefault("args", args) and 0)
    assert cli.main(["play", "--clock", "30", "--seed", "5"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "needs the full-screen console" in err[0]
    args = seen["args"]
    assert (args.game, args.table, args.seats, args.bots, args.seed) == ("colormatch", "classic", 3, "medium", 5)


def test_lan_without_a_terminal_is_refused_in_one_line(monkeypatch, capsys):
    """Issue 14: `play --lan` without a terminal used to say it needs the console
    and then play in line mode anyway (friends joined a table nobody could see)."""
    seen = {}
    monkeypatch.setattr(quick, "main_play", lambda args: seen.setdefault("args", args) and 0)
    with pytest.raises(SystemExit) as ex:
        cli.main(["play", "--lan", "--seed", "5"])
    assert ex.value.code == 2 and not seen
    err = capsys.readouterr().err
    assert err.startswith("lanmatch play: --lan needs the full-screen console") and err.count("\n") == 1, err


# ------------------------------------------------------------------ a real terminal


@NEED_TMUX
def test_line_mode_in_a_real_terminal_shows_the_hand_and_top_card_and_they_change(tmp_path):
    """`lanmatch play --lines`: the line console (the referee in-process) in tmux."""
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path), "TERM": "xterm-256color", "LANG": "C.UTF-8"}
    with Tmux(f"{sys.executable} -m lanmatch play --lines --fast --seed 3", env, width=100, height=30) as t:
        before = t.wait_for(lambda s: "Your move [" in s)
        hand, top = line_starting(before, "Your hand ("), line_starting(before, "Top card: ")
        assert hand and "Your hand (7 cards): " in hand
        assert top and re.search(r"Top card: (red|yellow|green|blue) [●◆▲■] ", top), top
        assert "1  play " in before
        t.keys("1", "Enter")
        after = t.wait_for(lambda s: "Your move [" in s and line_starting(s, "Your hand (") not in ("", hand))
        assert line_starting(after, "Your hand (") != hand
        assert line_starting(after, "Top card: ") and line_starting(after, "Top card: ") != top
        assert "You played" in after
        t.keys("q", "Enter")
        t.wait_for_exit_line("You left the table. Bye!")


# ------------------------------------------------------------------ whole games through a pipe


def _piped(lines: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "lanmatch", "play", "--lines", "--fast", *args],
        input=lines, capture_output=True, text=True, timeout=120,
    )


@pytest.mark.parametrize("game, table", [(g, t) for g in GAMES for t in GAMES[g].tables])
def test_line_mode_plays_a_whole_game_at_every_table_through_a_pipe(game, table):
    """`lanmatch play --lines < moves`: the person types 1 (or Enter, which
    lets a last-card window go) until the game is over, at every table of
    every game the registry declares."""
    args = ["--game", game, "--seed", "4", "--seats", "3", "--bots", "easy"]
    if GAMES[game].named_tables:
        args += ["--table", table]
    out = _piped("\n1\n" * 800, *args)
    assert out.returncode == 0, out.stderr
    assert re.search(r"(Game|Match) over", out.stdout), out.stdout[-2000:]
    assert "Thanks for playing." in out.stdout and "Traceback" not in out.stdout + out.stderr


@pytest.mark.usefixtures("testtable")
def test_line_mode_plays_a_table_declared_in_a_test_through_a_pipe(monkeypatch):
    """A table the console never heard of: its help is its declaration's,
    its last-card windows are timed because it says so."""
    read, write = os.pipe()
    os.write(write, b"?\n" + b"\n1\n" * 800)
    os.close(write)
    with os.fdopen(read) as pipe:
        monkeypatch.setattr(sys, "stdin", pipe)
        out = io.StringIO()
        rc = run_quick("colormatch", "testtable", 3, "easy", 4, fast=True, out=out, asker=quick.LineAsker(out))
    text = out.getvalue()
    assert rc == 0 and "Game over" in text and "Thanks for playing." in text, text[-2000:]
    assert "Classic piles, with last-card calls timed as at Color Cards." in text
    assert "The full rules of this table: docs/rules/testtable.md" in text
    assert "did not call last card: catch!" in text or "missed the last-card call" in text
