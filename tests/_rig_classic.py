"""Rigged deals for the scenario tests of the tables with the classic, siege
and Day & Night decks (`classic`, `daynight`, `siege`, and any table declared
with one of them: the deck and the hand size are read from the declaration).

`rig` builds a full, legal `deck=` list (top first) for `new_game`: the given
hands (7 cards at these tables) for seats 0..n-1, then the starter, then the given draw pile top
first, then every remaining card of the table's deck as a multiset remainder
(in the order of `classic_deck()` / `siege_deck()`). At Day & Night every card
is written `DAY/NIGHT`; the remainder pairs the remaining day faces (in
`day_faces()` order) with the remaining night faces (in `night_faces()` order).

`game` wraps it in `new_game` with seat `first` moving first; `moves`, `views`,
`draw_turn` and `play_all` keep the scenario tests short.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from lanmatch.rules import get_game, new_game
from lanmatch.rules.cards import day_faces, night_faces


def rigs(table: str) -> bool:
    """Does `rig` build this table's deck? Every table whose declared deck is
    not the standard one (`_rig_std` builds those); read from the declaration."""
    return get_game("colormatch").table(table).deck != "standard"


def _remainder(full: list[str], used: list[str], what: str) -> list[str]:
    """`full` minus the multiset `used`, in `full`'s order.

    Raises:
        ValueError: `used` asks for more copies of a card than `full` holds.
    """
    stock = Counter(full)
    need = Counter(used)
    over = {c: k for c, k in need.items() if k > stock[c]}
    if over:
        raise ValueError(f"the {what} do not hold that many of {over}")
    left = stock - need
    rest = []
    for c in full:
        if left[c]:
            left[c] -= 1
            rest.append(c)
    return rest


def rig(
    table: str,
    hands: list[list[str]],
    starter: str,
    pile: list[str] | tuple[str, ...] = (),
) -> list[str]:
    """The full deck (top first) dealing `hands`, then `starter`, then `pile`.

    Raises:
        ValueError: unknown table, a hand that is not 7 cards, a Day & Night
            card not written DAY/NIGHT, or more copies of a card (or face) than
            the deck holds.
    """
    spec = get_game("colormatch").table(table)
    if spec.deck == "standard":
        raise ValueError(f"this rig builds the classic, siege and Day & Night decks; {table!r} has the standard one")
    for s, h in enumerate(hands):
        if len(h) != spec.hand:
            raise ValueError(f"seat {s} must be dealt exactly {spec.hand} cards, got {len(h)}")
    head = [c for h in hands for c in h] + [starter] + list(pile)
    if spec.deck != "daynight":
        return head + _remainder(spec.full_deck(), head, f"{table} deck")
    pairs = [c.split("/") for c in head]
    if any(len(p) != 2 for p in pairs):
        raise ValueError("a Day & Night card is written DAY/NIGHT, e.g. R5/P+5")
    days = _remainder(day_faces(), [p[0] for p in pairs], "day faces")
    nights = _remainder(night_faces(), [p[1] for p in pairs], "night faces")
    return head + [f"{d}/{n}" for d, n in zip(days, nights, strict=True)]


def game(
    table: str,
    hands: list[list[str]],
    starter: str,
    pile: list[str] | tuple[str, ...] = (),
    *,
    first: int = 0,
    seed: int = 1,
):
    """A Color Match game at `table` dealt by `rig`, seat `first` moving first."""
    return new_game(
        "colormatch",
        table=table,
        players=len(hands),
        seed=seed,
        deck=rig(table, hands, starter, pile),
        first_seat=first,
    )


def moves(g, seat: int) -> set[str]:
    """`seat`'s legal actions written short: `play R5`, `play W G`, `draw`, `keep`, `color P`."""
    out = set()
    for a in g.legal_actions(seat):
        parts = [a["type"]]
        if "card" in a:
            parts.append(a["card"])
        if "color" in a:
            parts.append(a["color"])
        if "seat" in a:
            parts.append(str(a["seat"]))
        out.add(" ".join(parts))
    return out


def wild(card: str, colors: str = "RYGB") -> set[str]:
    """The short forms of playing the wild `card` once per color."""
    return {f"play {card} {c}" for c in colors}


def views(g) -> list[dict[str, Any]]:
    """Every seat's view, in seat order."""
    return [g.view(s) for s in range(len(g.view(0)["counts"]))]


def play(g, seat: int, card: str, color: str | None = None) -> None:
    """`seat` plays `card` (naming `color` for a wild)."""
    action: dict[str, Any] = {"type": "play", "card": card}
    if color is not None:
        action["color"] = color
    g.act(seat, action)


def play_all(g, plays: list[tuple]) -> None:
    """Apply `(seat, card)` or `(seat, card, color)` plays in order."""
    for p in plays:
        play(g, *p)


def draw_turn(g, seat: int) -> None:
    """`seat` draws one card and, if it could be played, keeps it."""
    g.act(seat, {"type": "draw"})
    if g.view(seat)["phase"] == "drawn":
        g.act(seat, {"type": "keep"})
