"""The generic bots: what `make_bot` builds for a game that declares no bots.

A game is registered here, in the test file alone, with `bots=None` (on the
Color Match and Dominoes engines under other names), and played to its end
by generic bots of every level: every choice legal, Medium and Hard never
drawing or passing while something else is legal, the same seed giving the
same game.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest

from lanmatch.bots import LEVELS, make_bot
from lanmatch.bots.generic import GenericBot
from lanmatch.rules import get_game, new_game, register, unregister
from lanmatch.sim import play_game


@pytest.fixture
def plain_games():
    """Two games without bots of their own: Color Match's and Dominoes' engines."""
    register(replace(get_game("colormatch"), name="plaincards", title="Plain Cards", bots=None))
    register(replace(get_game("dominoes"), name="plaintiles", title="Plain Tiles", bots=None))
    yield ("plaincards", "plaintiles")
    unregister("plaincards")
    unregister("plaintiles")


class Watched:
    """A bot whose choices are checked legal and logged with what was legal."""

    def __init__(self, bot, log: list):
        self.bot, self.log = bot, log

    def observe(self, view: dict[str, Any]) -> None:
        self.bot.observe(view)

    def declines(self, view: dict[str, Any], legal: list[dict[str, Any]]) -> bool:
        return self.bot.declines(view, legal)

    def choose(self, view: dict[str, Any], legal: list[dict[str, Any]]) -> dict[str, Any]:
        action = self.bot.choose(view, legal)
        assert action in legal, f"{self.bot.level} chose {action}, not among {legal}"
        self.log.append((self.bot.level, action, legal))
        return action


def _play(game: str, table: str | None, levels: list[str], seed: int, options: dict | None = None):
    g = new_game(game, table=table, players=len(levels), seed=seed, options=options)
    log: list = []
    bots = [Watched(make_bot(lv, game=game, table=table, seat=s, seed=seed), log) for s, lv in enumerate(levels)]
    play_game(g, bots, table, max_steps=5000)
    return g, log


def test_a_game_without_bots_gets_the_generic_ones(plain_games):
    cards, tiles = plain_games
    for level in LEVELS:
        for game, table in ((cards, "siege"), (tiles, None)):
            bot = make_bot(level, game=game, table=table, seat=1, seed=3)
            assert isinstance(bot, GenericBot) and bot.level == level and bot.seat == 1 and bot.game == game
    assert make_bot("easy", game=cards).table == "classic"  # the game's default table
    assert make_bot("easy", game=tiles).table is None  # its only table is unnamed
    with pytest.raises(ValueError):
        make_bot("easy", game=cards, table="poker")
    with pytest.raises(ValueError):
        make_bot("grandmaster", game=cards)
    with pytest.raises(ValueError):
        make_bot("easy", game=tiles).choose({}, [])


@pytest.mark.parametrize("players", [2, 3, 4])
def test_generic_bots_play_every_game_to_its_end_legally(plain_games, players):
    cards, tiles = plain_games
    levels = [LEVELS[s % 3] for s in range(players)]
    for seed in range(3):
        for game, table, options in ((cards, "standard", {"jump_in": True}), (cards, "cards", None),
                                     (cards, "daynight", None), (tiles, None, None)):
            g, log = _play(game, table, levels, seed, options)
            assert g.outcome is not None, (game, table, seed)
            assert {lv for lv, _a, _l in log} == set(levels)


def test_medium_and_hard_never_draw_or_pass_while_something_else_is_legal(plain_games):
    cards, _tiles = plain_games
    easy_drew_with_a_play = 0
    checked = 0
    for seed in range(4):
        _g, log = _play(cards, "standard", ["medium", "hard", "easy"], seed)
        for level, action, legal in log:
            other = [a for a in legal if a["type"] not in ("draw", "pass")]
            if level == "easy":
                easy_drew_with_a_play += bool(other) and action["type"] == "draw"
            elif other:
                checked += 1
                assert action["type"] not in ("draw", "pass"), (level, action, legal)
    assert checked > 50
    assert easy_drew_with_a_play > 0  # Easy does not care: the preference is Medium's and Hard's


def test_generic_bots_replay_from_their_seed(plain_games):
    cards, tiles = plain_games
    for game, table in ((cards, "classic"), (tiles, None)):
        a, log_a = _play(game, table, ["easy", "medium", "hard"], 5)
        b, log_b = _play(game, table, ["easy", "medium", "hard"], 5)
        assert log_a == log_b and a.outcome == b.outcome
    state = random.getstate()
    _play(cards, "classic", ["easy", "medium"], 6)
    assert random.getstate() == state  # each bot draws from its own generator only
    picks = {
        make_bot("easy", game=cards, table="classic", seat=0, seed=s).choose({}, [{"type": "play", "card": f"R{k}"} for k in range(9)])["card"]
        for s in range(12)
    }
    assert len(picks) > 1  # the seed, not the order of the list, picks


def test_declines_out_of_turn(plain_games):
    cards, _tiles = plain_games
    view = {"seat": 0, "turn": 1, "phase": "turn"}
    call, catch, idle = [{"type": "call"}], [{"type": "catch", "seat": 2}], [{"type": "pass"}]
    easy = [make_bot("easy", game=cards, table="cards", seat=0, seed=s).declines(view, call) for s in range(60)]
    assert any(easy) and not all(easy)  # Easy lets a chance pass now and then
    for level in ("medium", "hard"):
        for s in range(20):
            bot = make_bot(level, game=cards, table="cards", seat=0, seed=s)
            assert not bot.declines(view, call) and not bot.declines(view, catch)
            assert bot.declines(view, idle)  # nothing to gain by acting out of turn


def test_generic_calls_and_catches_at_a_last_card_window(plain_games):
    """A Medium generic bot whose last-card window opens calls it, and its
    rivals catch when they may (a game of them at `standard`)."""
    cards, _tiles = plain_games
    seen = set()
    for seed in range(6):
        _g, log = _play(cards, "standard", ["medium", "medium", "hard"], seed)
        for _level, action, legal in log:
            types = {a["type"] for a in legal}
            if "call" in types or "catch" in types:
                seen.add(action["type"])
                assert action["type"] not in ("draw", "pass")
    assert seen & {"call", "catch"}
