"""Bots: a seat's view and legal actions in, one action out (SPEC section 7).

    from lanmatch.bots import make_bot
    bot = make_bot("hard", game="colormatch", table="classic", seat=2, seed=7)
    bot.observe(view)                 # after every change the seat can see
    action = bot.choose(view, legal)  # one of `legal`
    bot.declines(view, legal)         # out of turn: let a call, catch or jump-in pass?

A bot sees exactly what a player in its seat sees: nothing but the views it is
given and the legal actions. It holds its own seeded RNG, so a game with bots
replays exactly. Which bots a game gets is the game's declaration (`bots` in
`lanmatch.rules.registry`): Color Match's live in `colormatch` (with the
look-ahead simulator of the Hard bot in `lookahead`), Dominoes' in `dominoes`,
and a game that declares none gets the generic bots of `generic`; see
docs/bots.md.
"""

from __future__ import annotations

import importlib
import random
from typing import Any

from lanmatch.rules import get_game

LEVELS = ("easy", "medium", "hard")


class Bot:
    """Base bot: remembers nothing, picks a random legal action (Easy)."""

    level = "easy"

    def __init__(self, game: str, table: str | None, seat: int, seed: int = 0):
        self.game = game
        self.table = table
        self.seat = seat
        self.rng = random.Random(f"{game}:{table}:{seat}:{seed}")

    def observe(self, view: dict[str, Any]) -> None:
        """Take note of a view (the base bot keeps nothing)."""

    def declines(self, view: dict[str, Any], legal_actions: list[dict[str, Any]]) -> bool:
        """Out of turn (a last-card call, a catch, a jump-in): does the bot let
        this chance pass? The host asks before `choose` when the seat is not the
        one whose turn it is; a bot that declines does not act now. The base
        bot always takes its chance."""
        return False

    def choose(self, view: dict[str, Any], legal_actions: list[dict[str, Any]]) -> dict[str, Any]:
        """Return one of `legal_actions`.

        Raises:
            ValueError: `legal_actions` is empty (the seat may not act).
        """
        self.check_legal(legal_actions)
        return self.rng.choice(legal_actions)

    def check_legal(self, legal_actions: list[dict[str, Any]]) -> None:
        """Every `choose` starts here.

        Raises:
            ValueError: `legal_actions` is empty (the seat may not act).
        """
        if not legal_actions:
            raise ValueError(f"seat {self.seat} has no legal action to choose from")


def make_bot(level: str, game: str = "colormatch", table: str | None = None, seat: int = 0, seed: int = 0) -> Bot:
    """Build a bot of `level` for `game` (and `table`) sitting at `seat`.

    The game's declaration says where its bots live (`Game.bots`, a
    "module:function" factory called as `factory(level, table, seat, seed)`,
    imported on first use); a game that declares none gets the generic bots
    (`lanmatch.bots.generic`). Every bot gets partner sense
    (`lanmatch.bots.partners`). `table` is passed as the wire carries it: the
    game's default table for `None`, and `None` for a game whose only table
    is unnamed.

    Raises:
        ValueError: unknown level, game or table.
    """
    if level not in LEVELS:
        raise ValueError(f"unknown bot level {level!r}; expected one of {', '.join(LEVELS)}")
    spec = get_game(game)
    name = spec.table_name(table)
    # partner sense at a partners table (the view's `teams`)
    from lanmatch.bots.partners import partnered

    if spec.bots is None:
        from lanmatch.bots import generic

        return partnered(generic.make(level, name, seat, seed, game=spec.name))
    module, _, function = spec.bots.partition(":")
    factory = getattr(importlib.import_module(module), function)
    return partnered(factory(level, name, seat, seed))


__all__ = ["LEVELS", "Bot", "make_bot"]
