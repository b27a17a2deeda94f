"""Dominoes bots: Easy plays at random, Medium sheds weight with sense, Hard counts tiles.

    from lanmatch.bots import make_bot
    bot = make_bot("hard", game="dominoes", seat=1, seed=3)
    bot.observe(view)                  # after every change the seat can see
    action = bot.choose(view, legal)   # one of `legal`, the very dict given

A bot reads only its seat's view and the legal actions, never the engine.
Drawing and passing are forced in Dominoes (they are legal only when no tile
plays), so every level differs only in which play it picks:

- Easy: a random legal action.
- Medium: the heaviest tile that is safe, i.e. that leaves an end it can
  still follow; doubles (which fit only one pip) go early.
- Hard: Medium's sense plus memory. From the line and its own hand it knows
  which tiles are still unseen; from the numbered public events it knows which
  pips each rival could not follow (a rival that drew or passed facing ends
  [a, b] holds neither a nor b until it draws again). It prefers ends the next
  rival cannot follow, and when it is ahead on pips it blocks: it closes ends
  that no unseen tile can follow, since a blocked round goes to the lowest
  pip count. When behind, it keeps the line open instead. It weighs pips
  shed half as much as Medium (that measured better at 2, 3 and 4 players).

Medium and Hard break ties by the order of the legal actions, so their choice
depends only on the view and what they remember; the seeded RNG is Easy's.
"""

from __future__ import annotations

from math import comb
from typing import Any

from lanmatch.bots import Bot

ALL_TILES: tuple[tuple[int, int], ...] = tuple((hi, lo) for hi in range(7) for lo in range(hi + 1))
_SETS: dict[int, tuple[tuple[int, int], ...]] = {6: ALL_TILES}


def all_tiles(top: int) -> tuple[tuple[int, int], ...]:
    """Every tile of the double-`top` set (a view's `set`; 6 when it has none)."""
    tiles = _SETS.get(top)
    if tiles is None:
        tiles = _SETS[top] = tuple((hi, lo) for hi in range(top + 1) for lo in range(hi + 1))
    return tiles


def tile_pips(code: str) -> tuple[int, int]:
    """(high, low) pips of a tile code such as "6-4", "12-10" or, as laid, "3-6"."""
    a, _, b = code.partition("-")
    x, y = int(a), int(b)
    return (x, y) if x >= y else (y, x)


def ends_after(ends: list[int] | None, pips: tuple[int, int], end: str) -> tuple[int, int]:
    """The open ends after playing a tile with `pips` on `end` of a line with `ends`."""
    hi, lo = pips
    if not ends:
        return hi, lo
    left, right = ends
    if end == "left" or left == right:
        return (lo if hi == left else hi), right
    return left, (lo if hi == right else hi)


def chance_to_hold(pool: int, fitting: int, held: int) -> float:
    """Chance that `held` tiles drawn at random from `pool` include one of `fitting` ones."""
    if held > pool:
        return 1.0
    return 1.0 - comb(pool - fitting, held) / comb(pool, held)


class DominoesBot(Bot):
    """Easy: a random legal action."""

    level = "easy"

    def __init__(self, seat: int, seed: int = 0):
        super().__init__("dominoes", None, seat, seed)


class MediumBot(DominoesBot):
    """Medium: the heaviest safe tile; keeps ends it can follow."""

    level = "medium"

    def choose(self, view: dict[str, Any], legal_actions: list[dict[str, Any]]) -> dict[str, Any]:
        """Return the best of `legal_actions` for this seat (the given dict itself).

        Raises:
            ValueError: `legal_actions` is empty (the seat may not act).
        """
        self.check_legal(legal_actions)
        self.observe(view)
        plays = [a for a in legal_actions if a.get("type") == "play"]
        if not plays:
            return legal_actions[0]  # a draw or a pass is forced
        if len(plays) == 1:
            return plays[0]
        hand = [tile_pips(code) for code in view["hand"]]
        best, best_score = plays[0], float("-inf")
        for action in plays:
            score = self.score(view, hand, action)
            if score > best_score:
                best, best_score = action, score
        return best

    def score(self, view: dict[str, Any], hand: list[tuple[int, int]], action: dict[str, Any]) -> float:
        """How much this bot likes a play (higher is better)."""
        pips = tile_pips(action["tile"])
        left, right = ends_after(view["ends"], pips, action.get("end", "left"))
        rest = [t for t in hand if t != pips]
        follow = sum(1 for t in rest if left in t or right in t)
        return (
            pips[0] + pips[1]
            + (4 if pips[0] == pips[1] else 0)
            + (6 if follow else 0)
            + min(follow, 3)
        )


class HardBot(MediumBot):
    """Hard: Medium plus tile counting, rivals' missing pips and blocking when ahead."""

    level = "hard"
    #: Weights of the play score (Medium's weight, double and follow terms too).
    pip_weight = 0.5  # per pip shed (Medium: 1; lighter measured better for Hard)
    safe_bonus = 5.0  # the bot can still follow one of the ends it leaves
    odds_weight = 4.0  # per unit of chance-weighted rival ability to follow
    next_rival = 2.0  # how much the next seat's chance counts ...
    other_rival = 0.5  # ... and each later seat's
    lock_bonus = 12.0  # ends no unseen tile follows: a bonus when ahead, a malus when stuck too

    def __init__(self, seat: int, seed: int = 0):
        super().__init__(seat, seed)
        self.last_event = 0  # number of the latest event taken in
        self.missing: dict[int, set[int]] = {}  # rival seat -> pips it cannot follow

    def observe(self, view: dict[str, Any]) -> None:
        """Take in the public events of `view` not seen yet (by their number)."""
        for event in view.get("events", ()):
            n = event["n"]
            if n <= self.last_event:
                continue
            self.last_event = n
            kind, seat = event["type"], event.get("seat")
            if kind == "deal":
                self.missing = {}
            elif seat == self.seat:
                continue
            elif kind == "draw":
                # It held neither end; the tile it drew may carry any other pip.
                self.missing[seat] = set(event["ends"])
            elif kind == "pass":
                self.missing.setdefault(seat, set()).update(event["ends"])

    def score(self, view: dict[str, Any], hand: list[tuple[int, int]], action: dict[str, Any]) -> float:
        pips = tile_pips(action["tile"])
        if len(hand) == 1:
            return float("inf")  # going out wins the round
        left, right = ends_after(view["ends"], pips, action.get("end", "left"))
        new_ends = {left, right}
        rest = [t for t in hand if t != pips]
        follow = sum(1 for t in rest if left in t or right in t)
        seen = {tile_pips(code) for code in view["line"]} | set(hand)
        unseen = [t for t in all_tiles(view.get("set", 6)) if t not in seen]
        open_to_rivals = sum(1 for t in unseen if t[0] in new_ends or t[1] in new_ends)

        players, me = view["players"], view["seat"]
        counts = view["counts"]
        rival_odds = 0.0  # chance-weighted: how likely rivals can follow the new ends
        rival_pips = []
        for step in range(1, players):
            rival = (me + step) % players
            missing = self.missing.get(rival, set())
            pool = [t for t in unseen if t[0] not in missing and t[1] not in missing]
            fits = sum(1 for t in pool if t[0] in new_ends or t[1] in new_ends)
            held = counts[rival]
            p = 0.0 if new_ends <= missing else chance_to_hold(len(pool), fits, held)
            rival_odds += p * (self.next_rival if step == 1 else self.other_rival)
            average = sum(a + b for a, b in pool) / len(pool) if pool else 6.0
            rival_pips.append(held * average)

        my_pips_after = view["pips"] - pips[0] - pips[1]
        ahead = my_pips_after < min(rival_pips)
        score = (
            self.pip_weight * (pips[0] + pips[1])
            + (4 if pips[0] == pips[1] else 0)
            + (self.safe_bonus if follow else 0)
            + min(follow, 3)
            - self.odds_weight * rival_odds
        )
        if open_to_rivals == 0:  # nobody else can follow: a lock
            if ahead:
                score += self.lock_bonus
            elif not follow:
                score -= self.lock_bonus  # a block we would lose
        return score


def make(level: str, table: str | None, seat: int, seed: int = 0) -> Bot:
    """A Dominoes bot of `level` ("easy", "medium" or "hard") for `seat`
    (Dominoes has a single table: `table` is not read).

    Raises:
        ValueError: unknown level.
    """
    classes = {"easy": DominoesBot, "medium": MediumBot, "hard": HardBot}
    if level not in classes:
        raise ValueError(f"unknown bot level {level!r}; expected easy, medium or hard")
    return classes[level](seat, seed)
