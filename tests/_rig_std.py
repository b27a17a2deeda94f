"""Rigged deals for the `standard`, `toll` and `cards` scenario tests.

`rig` builds a full, legal `deck=` list (top first) for `new_game`: the given
hands for seats 0..n-1 (exactly 7 cards each, as the deal takes them), then the
starter, then the given draw pile top first, then every remaining card of the
108-card deck in `standard_deck()` order. `game` wraps it in `new_game`.

`views` supports the bad-input tests (every seat's view before and after a
refused action must be identical); `shed_to_one`, `draw_out`, `blocked_deal`
and `block` set up the last-card, reshuffle and blocked-round scenarios.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from lanmatch.rules import new_game
from lanmatch.rules.cards import standard_deck

HAND = 7


def rig(
    table: str,
    hands: list[list[str]],
    top: str,
    pile: list[str] | tuple[str, ...] = (),
    players: int | None = None,
) -> list[str]:
    """The full deck (top first) that deals `hands`, turns `top`, then `pile`.

    Raises:
        ValueError: a hand is not 7 cards, `players` does not match the hands,
            or more copies of a card are asked for than the deck holds.
    """
    if table not in ("standard", "toll", "cards"):
        raise ValueError(f"rig builds standard-deck tables only, not {table!r}")
    n = len(hands) if players is None else players
    if n != len(hands):
        raise ValueError(f"{n} players need {n} hands, got {len(hands)}")
    for s, h in enumerate(hands):
        if len(h) != HAND:
            raise ValueError(f"seat {s} must be dealt exactly {HAND} cards, got {len(h)}")
    head = [c for h in hands for c in h] + [top] + list(pile)
    stock = Counter(standard_deck())
    need = Counter(head)
    over = {c: k for c, k in need.items() if k > stock[c]}
    if over:
        raise ValueError(f"the deck does not hold that many of {over}")
    left = stock - need
    rest = []
    for c in standard_deck():
        if left[c]:
            left[c] -= 1
            rest.append(c)
    return head + rest


def game(
    table: str,
    hands: list[list[str]],
    top: str,
    pile: list[str] | tuple[str, ...] = (),
    *,
    first: int = 0,
    options: dict[str, Any] | None = None,
    seed: int = 1,
):
    """A Color Match game at `table` dealt by `rig`, seat `first` moving first."""
    return new_game(
        "colormatch",
        table=table,
        players=len(hands),
        seed=seed,
        options=options or {},
        deck=rig(table, hands, top, pile),
        first_seat=first,
    )


def views(g) -> list[dict[str, Any]]:
    """Every seat's view, in seat order."""
    return [g.view(s) for s in range(len(g.view(0)["counts"]))]


def play(g, seat: int, card: str, color: str | None = None, swap_with: int | None = None):
    """Act a `play` of `card` for `seat` (with `color` / `swap_with` when given)."""
    action: dict[str, Any] = {"type": "play", "card": card}
    if color is not None:
        action["color"] = color
    if swap_with is not None:
        action["swap_with"] = swap_with
    return g.act(seat, action)


def do(g, who: int, typ: str, /, **fields: Any):
    """Act `{"type": typ, **fields}` for seat `who`."""
    return g.act(who, {"type": typ, **fields})


# --- the shed: seat 0 plays down to its last card while seats 1 and 2 draw ---
#
# Seat 0 holds SHED + [last] and plays SHED onto the starter R5 (the top then
# reads R8, active color red). Seats 1 and 2 hold cards that can never be
# played on that run (no red, no wild, no 1-6 or 8) and draw one QUIET card
# each between seat 0's plays, so the scenario is legal at every table,
# including `cards` where you draw only without a legal card.

SHED = ["R1", "R2", "R3", "R4", "R6", "R8"]
SHED_TOP = "R5"
HAND1 = ["Y7", "Y9", "YS", "YR", "Y+2", "Y0", "G7"]  # 83 points
HAND2 = ["G9", "GS", "GR", "G+2", "G0", "B7", "B9"]  # 85 points
QUIET = ["Y7", "Y9", "G7", "G9", "B7", "B9", "YS", "GS", "BS", "YR"]
# seat 1 draws Y7 G7 B7 YS BS (61 points), seat 2 draws Y9 G9 B9 GS YR (67)


def shed_to_one(
    table: str,
    last: str = "R7",
    hand1: list[str] | None = None,
    hand2: list[str] | None = None,
    extra: list[str] | tuple[str, ...] = (),
    options: dict[str, Any] | None = None,
):
    """Three seats; seat 0 has just played its second-to-last card.

    Afterwards seat 0 holds `[last]`, seat 1 (to act) and seat 2 hold 12 cards
    each (144 and 152 points with the default hands), the top is R8 (red), and
    the draw pile continues with `extra`.
    """
    g = game(
        table,
        [SHED + [last], list(hand1 or HAND1), list(hand2 or HAND2)],
        SHED_TOP,
        QUIET + list(extra),
        options=options,
    )
    for i, card in enumerate(SHED):
        play(g, 0, card)
        if i < len(SHED) - 1:
            do(g, 1, "draw")
            do(g, 2, "draw")
    return g


# --- draining the draw pile ---


def draw_out(g) -> list[str]:
    """Let the seat to act draw (and pass a playable draw) until the pile is empty.

    Returns the cards drawn, in order (read from each drawer's own hand).
    """
    got = []
    for _ in range(200):
        if g.view(0)["draw_pile"] == 0:
            return got
        seat = g.view(0)["turn"]
        do(g, seat, "draw")
        got.append(g.view(seat)["hand"][-1])
        if g.view(seat)["phase"] == "drawn":
            do(g, seat, "pass")
    raise AssertionError("the draw pile did not run out")


def blocked_deal(table: str, sets: list[list[str]], first: int, top: str, **kw: Any):
    """A game whose seats end up holding exactly `sets` once the pile is drawn out.

    Each seat is dealt the first 7 cards of its set; the rest of its set is laid
    in the draw pile where its turns will draw them (seats draw one card a turn
    from `first` on, clockwise). `sets` plus `top` must be the whole deck.

    Raises:
        ValueError: the sets do not fit that drawing order.
    """
    n = len(sets)
    queues = [list(s[HAND:]) for s in sets]
    pile: list[str] = []
    seat = first
    while any(queues):
        if not queues[seat]:
            raise ValueError(f"seat {seat} runs out of cards to draw before the others")
        pile.append(queues[seat].pop(0))
        seat = (seat + 1) % n
    if len(pile) + HAND * n + 1 != len(standard_deck()):
        raise ValueError("the sets and the top must make up the whole deck")
    return game(table, [list(s[:HAND]) for s in sets], top, pile, first=first, **kw)


# --- blocked rounds: the whole deck ends up in the hands ---

NUMS = [c + str(k) for c in "RYGB" for k in range(1, 10)]  # 36 cards, 180 points
ACTIONS = [c + s for c in "RYGB" for s in ("S", "R", "+2")] * 2  # 24 cards, 480 points
WILDS = ["W"] * 4 + ["W+4"] * 4  # 8 cards, 400 points


def block(g, first_passer: int):
    """Draw the pile out, then let three seats pass in turn; return the outcome."""
    draw_out(g)
    v = g.view(0)
    assert (v["draw_pile"], v["discards"], v["turn"]) == (0, 1, first_passer)
    n = v["players"]
    for k in range(n):
        assert g.outcome is None, f"the round ended after only {k} passes"
        do(g, (first_passer + k) % n, "pass")
    return g.outcome
