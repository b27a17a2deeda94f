"""Generic bots: what a game that declares no bots of its own gets.

    from lanmatch.bots import make_bot
    bot = make_bot("medium", game="mygame", seat=1, seed=3)   # Game.bots is None

How this works. These bots know nothing of the game but its legal actions
(SPEC section 3: dicts with a `type`). Every level plays a legal action drawn
with the bot's own seeded `random.Random`, so a game replays. Easy takes any
of them. Medium and Hard prefer any other action to drawing or passing (the
action types `draw` and `pass`, which every game of lanmatch names so) when
something else is legal. Out of turn (`declines`), Easy lets a chance pass
half the time; Medium and Hard take every chance that offers more than a
draw or a pass. A game that wants more sense declares its own bots
(docs/adding-a-game.md).
"""

from __future__ import annotations

from typing import Any

from lanmatch.bots import LEVELS, Bot

PASSIVE = frozenset({"draw", "pass"})  # action types a bot with any sense avoids while it has another


def _active(legal_actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [a for a in legal_actions if a.get("type") not in PASSIVE]


class GenericBot(Bot):
    """Easy: a random legal action; lets an out-of-turn chance pass half the time."""

    level = "easy"

    def declines(self, view: dict[str, Any], legal_actions: list[dict[str, Any]]) -> bool:
        return self.rng.random() < 0.5


class GenericMediumBot(GenericBot):
    """Medium (and Hard): a random legal action other than a draw or a pass,
    when there is one; takes every out-of-turn chance that offers one."""

    level = "medium"

    def declines(self, view: dict[str, Any], legal_actions: list[dict[str, Any]]) -> bool:
        return not _active(legal_actions)

    def choose(self, view: dict[str, Any], legal_actions: list[dict[str, Any]]) -> dict[str, Any]:
        """Return one of `legal_actions` (a draw or a pass only when nothing else is legal).

        Raises:
            ValueError: `legal_actions` is empty (the seat may not act).
        """
        self.check_legal(legal_actions)
        return self.rng.choice(_active(legal_actions) or legal_actions)


class GenericHardBot(GenericMediumBot):
    level = "hard"


def make(level: str, table: str | None, seat: int, seed: int = 0, game: str = "") -> Bot:
    """A generic bot of `level` for `game` (and `table`) at `seat`.

    Raises:
        ValueError: unknown level.
    """
    classes = {"easy": GenericBot, "medium": GenericMediumBot, "hard": GenericHardBot}
    if level not in classes:
        raise ValueError(f"unknown bot level {level!r}; expected one of {', '.join(LEVELS)}")
    return classes[level](game, table, seat, seed)
