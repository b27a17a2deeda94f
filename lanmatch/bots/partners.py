"""Partner sense for every bot: at a partners table the bot knows its partner.

How this works. `make_bot` hands every bot a class that puts
`PartnerAware` in front of its own (`partnered`), so a bot of any level and
game keeps its play and only sees fewer choices where partners are played
(the view's `teams`, rules/teams.py). `partner_legal` narrows the legal
actions before the bot's own `choose` (and `declines`) look at them:

1. **No attack on the partner** when another choice exists: no catch of the
   partner's missed last-card call, no 7-0 swap with the partner, no
   penalty (+2/+4/Skip/Color Hunt, a table's equivalents) whose victim, the
   next seat after the play in the direction it leaves, is the partner, no
   play that sends a Bomb's blast onto the partner.
2. **Help the partner about to go out** (2 cards or tiles or fewer, the
   bot itself not going out): Color Match prefers a play that hands the turn
   straight to the partner (a Skip over the opponent between them, or a
   penalty that skips its victim at a table where penalties are dealt at
   once: a colored +2, never a Wild +4); Dominoes prefers plays that leave
   an end the partner has not shown it lacks (a partner that drew or
   passed facing ends [a, b] holds neither until it plays again).

What remains is the bot's own choice. A bot that judges simulated worlds
(Hard's look-ahead) counts a world its partner wins as a win for itself
(`PartnerJudge`). A view without `teams` changes nothing.
"""

from __future__ import annotations

from typing import Any

from lanmatch.rules import cards as C
from lanmatch.rules import find_table
from lanmatch.rules import teams as T

ABOUT_TO_GO_OUT = 2  # the partner holds this many cards or tiles or fewer
_PENALTY_SYMS = frozenset({"S", "+2", "+4", "+1", "+5"})
_SKIPPING = frozenset({"S"})


def _sym(card: str | None) -> str | None:
    if not card:
        return None
    try:
        return "+4" if card == "W+4" else C.symbol_of(card)
    except (KeyError, ValueError, IndexError):
        return None


def victim(view: dict[str, Any], action: dict[str, Any]) -> int | None:
    """The seat a Color Match play penalises (the next seat after it, in the
    direction the play leaves), or None for a play that penalises nobody."""
    if action.get("type") != "play":
        return None
    card = action.get("card")
    sym = _sym(card)
    if sym not in _PENALTY_SYMS and card != "WH":
        return None
    n, me, d = view["players"], view["seat"], view.get("direction", 1)
    return (me + d) % n


def _blast(view: dict[str, Any], action: dict[str, Any]) -> int | None:
    """Where a Bomb's blast lands after `action` (plain play after it), if a fuse burns."""
    fuse = view.get("fuse")
    card = action.get("card") if action.get("type") == "play" else None
    sym = _sym(card)
    if "blast" not in view or (fuse is None and sym != "B"):  # only a table with Bombs shows `blast`
        return None
    from lanmatch.bots.colormatch import blast_target

    return blast_target(view["players"], view["seat"], view.get("direction", 1), fuse, sym)


def hurts_partner(view: dict[str, Any], action: dict[str, Any], mate: int) -> bool:
    """Does `action` attack the partner `mate`?"""
    typ = action.get("type")
    if typ == "catch":
        return action.get("seat") == mate
    if action.get("swap_with") == mate:
        return True
    if "card" not in action:  # a tile (Dominoes) attacks nobody
        return False
    return victim(view, action) == mate or _blast(view, action) == mate


def _helps_colormatch(view: dict[str, Any], action: dict[str, Any], mate: int) -> bool:
    if action.get("type") != "play":
        return False
    sym = _sym(action.get("card"))
    n, me, d = view["players"], view["seat"], view.get("direction", 1)
    if (me + 2 * d) % n != mate:
        return False
    if sym in _SKIPPING:
        return True
    spec = find_table(view.get("game") or "", view.get("table"))
    queued = (view.get("options") or {}).get("stacking") or getattr(spec, "queue", True)  # a pile waits: the victim may pass it on
    return not queued and sym in ("+2", "+1", "+5")  # not a Wild +4: it may be a bluff, and it is worth keeping


def _mate_lacks(view: dict[str, Any], mate: int) -> set[int]:
    """The pips the partner showed it lacks since it last played (Dominoes)."""
    lacks: set[int] = set()
    for e in view.get("events") or ():
        if e.get("seat") != mate:
            if e.get("type") == "deal":
                lacks = set()
            continue
        if e.get("type") == "play":
            lacks = set()
        elif e.get("type") in ("draw", "pass") and e.get("ends"):
            lacks |= {p for p in e["ends"] if p is not None}
    return lacks


def _helps_dominoes(view: dict[str, Any], action: dict[str, Any], mate: int) -> bool:
    if action.get("type") != "play":
        return False
    from lanmatch.bots.dominoes import ends_after, tile_pips

    lacks = _mate_lacks(view, mate)
    if not lacks:
        return False
    after = ends_after(view.get("ends"), tile_pips(action["tile"]), action.get("end") or "left")
    return any(p not in lacks for p in after)


def partner_legal(view: dict[str, Any], legal: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The legal actions a partner-aware bot chooses among (the very dicts given)."""
    teams = view.get("teams")
    me = view.get("seat")
    if not teams or type(me) is not int or view.get("players") != T.SEATS or not legal:
        return legal
    mate = T.partner(me)
    kind = [a for a in legal if not hurts_partner(view, a, mate)]
    if not kind:
        return legal if any(a.get("type") != "catch" for a in legal) else []
    counts = view.get("counts") or []
    hand = view.get("hand") or []
    if mate < len(counts) and counts[mate] <= ABOUT_TO_GO_OUT and len(hand) > 1 and view.get("turn") == me:
        helps = _helps_colormatch if "top" in view else _helps_dominoes  # Color Match views show a `top` card
        helping = [a for a in kind if helps(view, a, mate)]
        if helping:
            return helping
    return kind


class PartnerAware:
    """Put in front of a bot's class by `partnered`: narrows the legal actions
    at a partners table (`partner_legal`) before the bot's own choice."""

    def declines(self, view: dict[str, Any], legal_actions: list[dict[str, Any]]) -> bool:
        kind = partner_legal(view, legal_actions)
        if not kind:
            return True  # the only chance was to catch the partner: let it pass
        return super().declines(view, kind)  # type: ignore[misc]

    def choose(self, view: dict[str, Any], legal_actions: list[dict[str, Any]]) -> dict[str, Any]:
        teams = view.get("teams") and view.get("players") == T.SEATS and type(view.get("seat")) is int
        self.mate = T.partner(view["seat"]) if teams else None
        return super().choose(view, partner_legal(view, legal_actions) or legal_actions)  # type: ignore[misc]


class PartnerJudge(PartnerAware):
    """For a bot that judges simulated worlds (Hard's look-ahead, `judge(w,
    me)`): a world the partner wins is a world the team wins, and an
    unfinished one is worth the seat's chance plus its partner's."""

    mate: int | None = None

    def judge(self, w: Any, me: int) -> float:
        mate = self.mate
        judge = super().judge  # type: ignore[misc]
        if mate is None or getattr(w, "n", 0) != T.SEATS:
            return judge(w, me)
        if w.over:
            return 1.0 if (me in w.winners or mate in w.winners) else 0.0
        return judge(w, me) + judge(w, mate)


_CLASSES: dict[type, type] = {}


def partnered(bot: Any) -> Any:
    """The same bot, its class with `PartnerAware` in front (made once per class)."""
    cls = type(bot)
    if isinstance(bot, PartnerAware):
        return bot
    made = _CLASSES.get(cls)
    if made is None:
        front = PartnerJudge if hasattr(cls, "judge") else PartnerAware
        made = _CLASSES[cls] = type(cls.__name__, (front, cls), {"__module__": cls.__module__,
                                                                        "__qualname__": cls.__qualname__})
    bot.__class__ = made
    return bot
