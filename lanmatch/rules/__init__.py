"""The pure rules engines behind one API (SPEC section 3).

    from lanmatch.rules import new_game, IllegalAction
    g = new_game("colormatch", table="classic", players=4, seed=7)
    g.to_act; g.legal_actions(seat); g.act(seat, action); g.view(seat); g.outcome

Nothing here does I/O, reads a clock or touches the global random generator:
each game holds its own seeded `random.Random`, so the same seed and the same
actions always give the same game.
"""

from __future__ import annotations

from typing import Any

from lanmatch.rules.errors import IllegalAction

GAMES = ("colormatch", "dominoes")


def new_game(
    game: str = "colormatch",
    table: str | None = None,
    players: int = 4,
    seed: int = 0,
    options: dict[str, Any] | None = None,
    deck: list[str] | None = None,
    first_seat: int | None = None,
):
    """Start a game.

    Raises:
        ValueError: unknown game or table, a player count the game does not
            seat, an unknown option, or a rigged deck that is not a full set.
    """
    if game == "colormatch":
        from lanmatch.rules.colormatch import ColorMatch

        return ColorMatch(
            table=table or "classic",
            players=players,
            seed=seed,
            options=options,
            deck=deck,
            first_seat=first_seat,
        )
    if game == "dominoes":
        from lanmatch.rules.dominoes import Dominoes

        if table not in (None, "dominoes", "draw"):
            raise ValueError(f"dominoes has no table {table!r}")
        return Dominoes(players=players, seed=seed, options=options, deck=deck)
    raise ValueError(f"unknown game {game!r}; expected one of {', '.join(GAMES)}")


__all__ = ["GAMES", "IllegalAction", "new_game"]
