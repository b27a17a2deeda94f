"""The pure rules engines behind one API (SPEC section 3).

    from lanmatch.rules import new_game, IllegalAction
    g = new_game("colormatch", table="classic", players=4, seed=7)
    g.to_act; g.legal_actions(seat); g.act(seat, action); g.view(seat); g.outcome

Nothing here does I/O, reads a clock or touches the global random generator:
each game holds its own seeded `random.Random`, so the same seed and the same
actions always give the same game. Which games and tables exist, and what
each declares, is the registry (`lanmatch.rules.registry`, re-exported here).
"""

from __future__ import annotations

from typing import Any

from lanmatch.rules.errors import IllegalAction
from lanmatch.rules.registry import (
    GAMES,
    NAMED_TABLES,
    TABLE_NAMES,
    Game,
    TableInfo,
    find_table,
    game_title,
    get_game,
    mode_of,
    register,
    register_table,
    title_of,
    unregister,
    unregister_table,
)


def new_game(
    game: str = "colormatch",
    table: str | None = None,
    players: int = 4,
    seed: int = 0,
    options: dict[str, Any] | None = None,
    deck: list[str] | None = None,
    first_seat: int | None = None,
):
    """Start a game at one of its tables (`None`: the game's default table).

    Raises:
        ValueError: unknown game or table, a player count the game does not
            seat, an unknown option, or a rigged deck that is not a full set.
    """
    g = get_game(game)
    spec = g.table(table)
    return g.make(spec.name, players, seed, options, deck, first_seat)


__all__ = [
    "GAMES",
    "NAMED_TABLES",
    "TABLE_NAMES",
    "Game",
    "IllegalAction",
    "TableInfo",
    "find_table",
    "game_title",
    "get_game",
    "mode_of",
    "new_game",
    "register",
    "register_table",
    "title_of",
    "unregister",
    "unregister_table",
]
