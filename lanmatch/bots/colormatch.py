"""Color Match bots: Easy, Medium and Hard (SPEC section 7).

    from lanmatch.bots import make_bot
    bot = make_bot("hard", game="colormatch", table="classic", seat=2, seed=7)
    bot.observe(view)                  # after every change the seat can see
    action = bot.choose(view, legal)   # one of `legal`
    bot.declines(view, legal)          # out of turn: let a call/catch/jump-in pass?

How this works. A bot reads nothing but its seat's views and the legal
actions. `observe` feeds the numbered public events of each view into a
`Memory` (each event is taken in once, by its number), which keeps what a
careful player at the table would keep: the active color as it changed, the
cards gone to the discard pile, standing Shields, the color in force when a
+4 was played, how often each seat's +4 turned out a bluff, and (used by Hard)
what each rival showed it lacked (a seat that drew a card of its own accord
held nothing of the active color, nothing of the top symbol and no wild) and
the rivals' cards it has seen by face (Day & Night flips, a shown hand).

- **Easy** picks a random legal action, but never a bluffed +4 where a
  challenge exists (`honest`), and forgets a last-card call now and then
  (`declines`).
- **Medium** scores each legal action with table sense (docs/bots.md has the
  table): sheds its best-scoring card, saves wilds for need, stacks on a
  waiting pile, holds Skip/Reverse/+2 (and the tables' equivalents) for a
  next seat with 3 or fewer cards, names the color it holds most of, counts
  Bomb fuses, weighs a +4 challenge, plays Shields, Turnovers, Color Hunts and
  7-0 swaps with sense, always calls and always catches.
- **Hard** is Medium plus its memory, +2/+4 attacks when the next seat holds
  2 or fewer cards, a bluffed +4 where a challenge is unlikely, and a
  look-ahead: for a decision with several moves that differ, it deals the
  hidden cards at random many times (consistent with the view and its
  memory: `Dealer`), plays each candidate forward with Medium-like rollouts
  (`lanmatch.bots.lookahead`) and switches from Medium's choice only to a
  move that wins clearly more often. With two seats the search is wider and
  bolder (`duel_*`: 8 moves, each card its own, rollouts of 16 moves judged
  by a logistic model fitted to playouts, a switch at 0.8 standard errors).
  With 3 seats or more it searches 5 moves once some seat holds 7 cards or
  fewer, with rollouts of 10 moves judged by a conditional logit fitted to
  playouts (`table_features`), a switch at 1.0 standard error.
  Sampled hands are repaired until they explain each rival's latest play as
  Medium would make it (`_misfit`). The work is a fixed number of simulated
  moves, never a clock.

Every bot draws from its own seeded `random.Random`, so a game replays.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from typing import Any, ClassVar

from lanmatch.bots import Bot
from lanmatch.bots import lookahead as L
from lanmatch.rules import cards as C

COLOR, SYM, KIND = L.COLOR, L.SYM, L.KIND
# events that follow a draw the seat did not choose (penalties, blasts, ...)
_FORCED_AFTER_DRAW = frozenset(
    {"penalty", "blast", "hunt", "caught", "missed_call", "accept", "challenge", "lapsed"}
)
_OPTIONAL = frozenset({"call", "catch"})
EXPECTED_WILD_SHARE = 8 / 112  # wild faces per face at Day & Night


class Memory:
    """What a seat remembers from the public events it has seen.

    Events are numbered; each is taken in once. A gap in the numbers (views
    missed) makes the memory forget what it can no longer trust.

    What a rival lacks is kept as constraints: `(banned, free)` says that at
    most `free` of its cards fit `banned` (predicates on a face: `("c", color)`,
    `("s", symbol)`, `("f", face)`, `("w", None)` for any wild). A constraint
    is born with `free` 0 (or 1 for a kept drawn card) when the seat shows it
    holds nothing of the kind: it draws of its own accord (nothing playable),
    plays a wild in an ordinary turn (nothing else playable: bots save wilds
    for need) or takes a waiting pile (nothing to stack). Every card it then
    receives adds 1 to `free`; a banned card it plays takes 1 away.
    """

    def __init__(self, table: str | L.Rules, seat: int):
        rules = self.rules = L.rules_of(table)
        self.table = rules.name
        self.seat = seat
        self.answers = {kind: tuple(ans) for kind, ans in rules.table.ladder}
        self.queue = rules.table.queue  # piles wait (set again from the view's options: stacking)
        self.seven_o = False  # set from the view's options
        faces = set(rules.faces) | set(rules.far_faces)
        self._colored = sorted(f for f in faces if COLOR[f] is not None)
        # cards Medium values by the flip they cause (`turnover_value`): it may
        # hold one back, playable, and draw or play a wild instead
        self._flips = frozenset(f for f in faces if SYM[f] == "T" or f == "WC")
        self._flip_syms = frozenset(SYM[f] for f in self._flips if COLOR[f] is not None)  # never ruled out
        # what a draw of its own accord rules out of the wilds: every wild, or all but the Clock
        self._wild_preds = (frozenset(("f", f) for f in faces if COLOR[f] is None and f not in self._flips)
                            if self._flips else frozenset({("w", None)}))
        self.last_n = 0
        self.counts: list[int] = []
        self.direction = 1
        self.far_seen: dict[int, list[str]] = {}
        self.reset(None)
        self.bluffs: dict[int, list[int]] = {}  # seat -> [guilty, challenged]
        self.answers_w4: dict[int, list[int]] = {}  # seat -> [+4s it challenged, +4s it faced]

    def reset(self, top: str | None) -> None:
        self.top = top
        self.color = COLOR[top] if top else None
        self.night = False
        self.disc: Counter[str] = Counter([top] if top else [])  # faces known in the discard pile
        self.synced = top is not None
        self.shields: dict[int, str] = {}
        self.lacks: dict[int, list[list]] = {}  # seat -> [[banned predicates, free cards], ...]
        self.w4: tuple[int, str | None] | None = None  # (player, color before) of the last +4
        self.h_play: tuple[str, str | None, str | None] | None = None
        self.pending_kind: str | None = None
        self.fuse_on = False  # a Bomb fuse burns (a classic bot then plays for the blast)
        self.drew_on: dict[int, list[str]] = {}  # seat -> colors it drew on (latest last)
        self.last_draw: int | None = None  # seat that drew in the latest draw event
        self.open_draw: tuple[int, list[list]] | None = None
        # rivals' cards known by face: after a Turnover or Clock flip their hands
        # are the far faces seen just before; a standard challenge shows a hand
        self.known: dict[int, Counter[str]] = {}
        self.unknown: dict[int, int] = {}  # cards got since, not known
        # seat -> its latest ordinary play, to check a sampled hand against:
        # (card, color named, color before, top before, next seat low)
        self.last_play: dict[int, tuple] = {}
        self.jumping = False

    # ------------------------------------------------------------- events

    def take(
        self,
        events: list[dict[str, Any]],
        counts: list[int] | None = None,
        direction: int = 1,
        turn: int | None = None,
        phase: str | None = None,
        far: dict | None = None,
        shown: dict | None = None,
    ) -> None:
        """Take in `events` not seen yet. The rest is the view's (after the
        events): `counts` and `direction` to know who held how many at each
        event, `turn` and `phase` to tell at once whether a rival's drawn card
        could be played (it then waits in phase `drawn`)."""
        fresh = [e for e in events if e["n"] > self.last_n]
        if fresh:
            if self.last_n and fresh[0]["n"] > self.last_n + 1:
                self.forget()
            self.last_n = fresh[-1]["n"]
            for i, e in enumerate(fresh):
                nxt = fresh[i + 1] if i + 1 < len(fresh) else None
                self._event(e, nxt)
        if counts is not None:
            self.counts = list(counts)
            self.direction = direction
        if far is not None:
            self.far_seen = {int(k): list(v) for k, v in far.items()}
        if shown is not None and shown.get("seat") is not None:
            self.known[shown["seat"]] = Counter(shown.get("hand", ()))
            self.unknown[shown["seat"]] = 0
        if self.open_draw is not None and turn is not None:
            seat, group = self.open_draw
            if not (turn == seat and phase == "drawn"):
                self.open_draw = None  # the turn moved on: the drawn card did not play
                for cons in group:
                    cons[1] = max(0, cons[1] - 1)

    def forget(self) -> None:
        """Views were missed: drop what can no longer be trusted."""
        self.synced = False
        self.lacks = {}
        self.h_play = None
        self.pending_kind = None
        self.open_draw = None
        self.known = {}
        self.unknown = {}
        self.last_play = {}

    def _gain(self, seat: int, count: int) -> None:
        if 0 <= seat < len(self.counts):
            self.counts[seat] += count
        if count:
            self.last_play.pop(seat, None)  # its hand then is no longer its hand now minus one card
        if seat in self.known:
            self.unknown[seat] += count
        got = self.lacks.get(seat)
        if got:
            for c in got:
                c[1] += count
            if 0 <= seat < len(self.counts):  # a constraint on every card it holds says nothing
                self.lacks[seat] = [c for c in got if c[1] < self.counts[seat]]

    def _learn(self, seat: int, banned: frozenset, free: int = 0) -> None:
        if seat == self.seat or not banned:
            return
        self.lacks.setdefault(seat, []).append([banned, free])

    def _played(self, seat: int, card: str) -> None:
        got = self.lacks.get(seat)
        if not got:
            return
        keep = []
        for c in got:
            if _violates(c[0], card):
                c[1] -= 1
                if c[1] < 0:
                    continue  # it held one after all: the constraint was wrong
            keep.append(c)
        self.lacks[seat] = keep

    def _event(self, e: dict[str, Any], nxt: dict[str, Any] | None) -> None:
        typ = e["type"]
        if self.open_draw is not None:
            # the event after a draw seen last time: was the drawn card playable?
            seat, group = self.open_draw
            self.open_draw = None
            if not (typ in ("keep", "pass", "play") and e.get("seat") == seat):
                for cons in group:
                    cons[1] = max(0, cons[1] - 1)
        if typ == "deal":
            self.reset(e["top"])
        elif typ == "play":
            seat, card = e["seat"], e["card"]
            before_color, before_top = self.color, self.top
            answering = self.pending_kind is not None
            if card == "W+4":
                self.w4 = (seat, before_color)
            if SYM[card] == "H":
                self.h_play = (card, before_color, before_top)
            self.top = card
            self.color = e.get("color") or COLOR[card]
            self.disc[card] += 1
            self._played(seat, card)
            if seat in self.known:
                if self.known[seat][card] > 0:
                    self.known[seat][card] -= 1
                else:
                    self.unknown[seat] = max(0, self.unknown[seat] - 1)
            drawn = self.last_draw == seat
            if seat != self.seat and not answering and not drawn and before_color and before_top and self.counts:
                n = len(self.counts)
                low = self.counts[(seat + self.direction) % n] <= 3
                if card[0] != "W" and not self.fuse_on:
                    # a Medium-like player plays its best-scoring card: it held
                    # none that scores more than the one it played
                    held = self.counts[seat] if 0 <= seat < n else 0
                    self._learn(seat, self._worth_more(card, before_color, before_top, low, held, seat in self.shields))
            self.last_play.pop(seat, None)
            if (
                seat != self.seat and not answering and not drawn and not self.jumping and before_color
                and before_top and self.counts and not self.fuse_on and not self.seven_o
                and seat not in self.shields
            ):
                n = len(self.counts)
                low = self.counts[(seat + self.direction) % n] <= 3
                self.last_play[seat] = (card, e.get("color"), before_color, before_top, low)
            self.jumping = False
            if 0 <= seat < len(self.counts):
                self.counts[seat] -= 1
            bluffable = card == "W+4" and self.rules.table.challenge is not None
            if (
                card[0] == "W" and not answering and not drawn and before_color and before_top and not bluffable
                and not self.fuse_on and card not in self._flips
            ):
                # a wild in an ordinary turn: nothing else of its could be played
                # (a Midnight Clock may be played for its flip)
                color, sym = self._playable_preds(seat, before_color, before_top)
                self._learn(seat, color | sym)
            kind = KIND[card]
            if kind is not None:
                self.pending_kind = kind
            elif SYM[card] == "H" and answering:
                self.pending_kind = None
        elif typ in ("penalty", "accept", "lapsed", "challenge", "shield_cancel", "shield_absorb", "caught", "missed_call"):
            if typ in ("penalty", "accept", "challenge", "shield_cancel", "shield_absorb"):
                self.pending_kind = None
            if typ == "shield_absorb":
                card = self.shields.pop(e["seat"], None)
                if card is not None:
                    self.disc[card] += 1
            if typ in ("challenge", "accept") and self.rules.table.challenge is not None:
                faced = self.answers_w4.setdefault(e["seat"], [0, 0])
                faced[1] += 1
                if typ == "challenge":
                    faced[0] += 1
            if typ == "challenge":
                stats = self.bluffs.setdefault(e["of"], [0, 0])
                stats[1] += 1
                if e.get("won"):
                    stats[0] += 1
        elif typ == "shield_stand":
            if self.h_play is not None:
                card, self.color, self.top = self.h_play
                self.disc[card] -= 1
                if self.disc[card] <= 0:
                    del self.disc[card]
                self.shields[e["seat"]] = card
        elif typ == "color":
            self.color = e["color"]
        elif typ == "jump_in":
            self.jumping = True
        elif typ == "reverse":
            self.direction = e["direction"]
        elif typ == "fuse":
            self.fuse_on = True
        elif typ == "blast":
            self.fuse_on = False
        elif typ == "flip":
            self.night = e["face"] == "night"
            self.top = e["top"]
            self.color = COLOR[e["top"]]
            self.disc[e["top"]] += 1
            self.lacks = {}  # every hand turned over: what they lacked is gone
            self.last_play = {}
            # ... and what each rival now holds is what this seat saw as its far faces
            self.known = {seat: Counter(faces) for seat, faces in self.far_seen.items() if seat != self.seat}
            self.unknown = dict.fromkeys(self.known, 0)
        elif typ == "reshuffle":
            self.disc = Counter([self.top] if self.top else [])
            self.synced = True
        elif typ == "draw":
            self._draw(e, nxt)
            return
        elif typ == "swap":
            a, b = e["seat"], e["with"]
            self.known, self.unknown = {}, {}
            self.last_play = {}
            la, lb = self.lacks.pop(a, None), self.lacks.pop(b, None)
            if la is not None:
                self.lacks[b] = la
            if lb is not None:
                self.lacks[a] = lb
        elif typ == "rotate":
            self.lacks = {}
            self.last_play = {}
            self.known, self.unknown = {}, {}
        self.last_draw = None

    def _draw(self, e: dict[str, Any], nxt: dict[str, Any] | None) -> None:
        seat, count = e["seat"], e["count"]
        self.last_draw = seat
        if seat == self.seat:
            if 0 <= seat < len(self.counts):
                self.counts[seat] += count
            return
        after = nxt["type"] if nxt is not None else None
        if after == "penalty" and self.pending_kind is not None:
            # it took a waiting pile: nothing of its could answer it (where piles wait)
            self._gain(seat, count)
            if self.queue:
                self._learn(seat, self._answer_preds(self.pending_kind), count)
            return
        if after in _FORCED_AFTER_DRAW or count != 1 or self.color is None or self.top is None:
            self._gain(seat, count)
            return
        # A draw of its own accord: it held nothing playable.
        self._gain(seat, 1)
        self.drew_on.setdefault(seat, []).append(self.color)
        if self.fuse_on:
            return  # with a Bomb fuse burning, Medium may draw to keep the blast away
        mine = nxt is None or (nxt.get("seat") == seat and after in ("keep", "pass", "play"))
        free = 1 if mine else 0
        color, sym = self._playable_preds(seat)
        wild = self._wild_preds
        # the whole, and the parts apart too: a wild played later disproves only "no wild"
        group = []
        for banned in (color | sym | wild, color, sym, wild):
            if banned:
                self._learn(seat, banned, free)
                group.append(self.lacks[seat][-1])
        if nxt is None:
            self.open_draw = (seat, group)  # settled by the next event

    def _playable_preds(
        self, seat: int, color: str | None = None, top: str | None = None
    ) -> tuple[frozenset, frozenset]:
        """What `seat` could play on `color` and `top` (the current ones by
        default): the color's cards and the top's symbol, as predicates. A seat
        behind a standing Shield (`siege`) cannot play another Shield, so its
        color is then its faces but the Shield. A card that flips the table
        (`_flips`) may be held back, playable: never ruled out."""
        color = color or self.color
        top_sym = SYM[top or self.top]
        shielded = seat in self.shields
        if not shielded and not self._flips:
            return frozenset({("c", color)}), frozenset({("s", top_sym)})
        kept = self._flip_syms | {"H"} if shielded else self._flip_syms  # symbols never ruled out
        faces = frozenset(("f", f) for f in self._colored if COLOR[f] == color and SYM[f] not in kept)
        return faces, (frozenset() if top_sym in kept else frozenset({("s", top_sym)}))

    def _worth_more(self, card: str, color: str, top: str, low: bool, held: int, shielded: bool) -> frozenset:
        """Faces playable on `color`/`top` that Medium surely scores above
        `card`, played from a hand of `held` cards.

        Medium's value of a colored play is its worth (`medium_worth`) plus
        half the count of the other cards of its color in the hand. A face of
        the played card's color shares that count, so any worth above the
        card's beats it. A face of another color (matching the top's symbol)
        may have no other card of its color against `held - 2` of the played
        card's, so its worth must exceed the card's by `(held - 2) / 2` to
        beat it for sure (ties go to the engine's order: not counted).
        """
        worth = medium_worth(card, low, self.rules)
        if worth is None:
            return frozenset()
        top_sym = SYM[top]
        own = COLOR[card]
        cross = max(0.0, 0.5 * (held - 2))
        out = set()
        for f in self._colored:
            if f == card or (COLOR[f] != color and SYM[f] != top_sym):
                continue
            if self.seven_o and SYM[f] in ("7", "0"):
                continue  # played for the swap, not the points
            if shielded and SYM[f] == "H":
                continue  # a seat behind a standing Shield cannot play another
            w = medium_worth(f, low, self.rules)
            if w is None:
                continue
            if w > worth + (0.01 if COLOR[f] == own else cross + 0.01):
                out.add(("f", f))
        return frozenset(out)

    def _answer_preds(self, kind: str) -> frozenset:
        preds = set()
        for k in self.answers.get(kind, ()):
            preds.add(("f", "W+4") if k == "+4" else ("s", k))
        if self.rules.shields:
            preds.add(("s", "H"))
        return frozenset(preds)

    def lack_colors(self, seat: int) -> set[str]:
        """Colors `seat` is known to lack (no card received since)."""
        out: set[str] = set()
        for banned, free in self.lacks.get(seat, ()):
            if free <= 0:
                out.update(v for k, v in banned if k == "c")
        return out

    def constraints(self, seat: int, faces) -> list[tuple[frozenset[str], int]]:
        """`seat`'s constraints as (banned faces among `faces`, free) pairs."""
        return [(_banned_faces(banned, faces), free) for banned, free in self.lacks.get(seat, ())]


SPECIAL = frozenset({"S", "R", "+2", "+1", "+5", "A"})  # the Skip/Reverse/+2 family


def medium_worth(face: str, low: bool, rules: L.Rules) -> float | None:
    """How Medium scores a colored face for an ordinary play, before the
    color it keeps (at most 3 more): its points; Skip/Reverse/+2 and the
    tables' likes held back (-25) unless the next seat is low (+25); a Shield
    +12. None for cards played for other reasons (Bomb, Turnover)."""
    sym = SYM[face]
    if sym in ("B", "T"):
        return None
    w = float(rules.points[face])
    if sym in SPECIAL:
        w += 25 if low else -25
    elif sym == "H":
        w += 12
    return w


def _violates(banned: frozenset, card: str) -> bool:
    col = COLOR[card]
    if col is None:
        return ("w", None) in banned or ("f", card) in banned
    return ("c", col) in banned or ("s", SYM[card]) in banned or ("f", card) in banned


def _banned_faces(banned: frozenset, faces) -> frozenset[str]:
    return frozenset(f for f in faces if _violates(banned, f))


class Ctx:
    """The facts of one decision, read from the view."""

    __slots__ = (
        "v", "me", "n", "hand", "counts", "nxt", "dir", "color", "top", "top_sym", "phase",
        "colors", "held", "table", "rules", "pending", "pkind",
    )

    def __init__(self, view: dict[str, Any], table: str | L.Rules):
        self.v = view
        self.me = view["seat"]
        self.n = view["players"]
        self.hand = view["hand"]
        self.counts = view["counts"]
        self.dir = view["direction"]
        self.nxt = (self.me + self.dir) % self.n
        self.color = view["color"]
        self.top = view["top"]
        self.top_sym = SYM[self.top]
        self.phase = view["phase"]
        self.colors = C.NIGHT_COLORS if view.get("face") == "night" else C.DAY_COLORS
        held = dict.fromkeys(self.colors, 0)
        for c in self.hand:
            col = COLOR[c]
            if col in held:
                held[col] += 1
        self.held = held
        rules = self.rules = L.rules_of(table)
        self.table = rules.name
        self.pending = view.get("pending", 0)
        self.pkind = view.get("pending_kind")


class EasyBot(Bot):
    """Easy: a random legal action, but never a bluffed +4; forgets a
    last-card call now and then (good company for a child)."""

    level = "easy"
    forget_call = 0.25  # chance to let a last-card call pass
    skip_catch = 0.5  # chance to let a catch pass

    def __init__(self, table: str | L.Rules, seat: int, seed: int = 0):
        self.rules = L.rules_of(table)  # the table's declaration, read from the registry now
        super().__init__(L.GAME, self.rules.name, seat, seed)

    def choose(self, view: dict[str, Any], legal_actions: list[dict[str, Any]]) -> dict[str, Any]:
        """A random legal action that is not a bluff (`honest`).

        Raises:
            ValueError: `legal_actions` is empty (the seat may not act).
        """
        self.check_legal(legal_actions)
        return self.rng.choice(self.honest(view, legal_actions))

    def honest(self, view: dict[str, Any], legal_actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """`legal_actions` without a bluffed +4: where the table's declaration
        has a +4 challenge (`Table.challenge`), a +4 played in an ordinary turn
        (or as the drawn card) while the hand holds a card of the color in
        force is one a challenge would find guilty (the engine's test: after
        the +4, a card of the color before it is still in the hand). Tables
        without a challenge have no bluff: a +4 is simply a card there."""
        if self.rules.table.challenge is None or view.get("phase") not in ("turn", "drawn"):
            return legal_actions
        color = view.get("color")
        if color is None or not any(COLOR[c] == color for c in view.get("hand", ())):
            return legal_actions
        keep = [a for a in legal_actions if not (a["type"] == "play" and a.get("card") == "W+4")]
        return keep or legal_actions

    def declines(self, view: dict[str, Any], legal_actions: list[dict[str, Any]]) -> bool:
        """Out of turn: does the bot let this chance (call, catch, jump-in) pass?

        The host asks before `choose` when the seat is not the one whose turn it
        is; a bot that declines simply does not act now.
        """
        types = {a["type"] for a in legal_actions}
        if "call" in types:
            return self.rng.random() < self.forget_call
        if "catch" in types:
            return self.rng.random() < self.skip_catch
        return self.rng.random() < 0.5


class MediumBot(EasyBot):
    """Medium: table sense, no memory of rivals (see the module docstring)."""

    level = "medium"
    attack_at = 3  # prefers Skip/Reverse/+2 when the next seat holds this many or fewer
    points_weight = 1.0  # an ordinary play sheds the card worth the most points ...
    follow_weight = 0.5  # ... then keeps the color it holds most
    bluff_rate = 0.25  # what share of +4 plays it assumes are bluffs

    def __init__(self, table: str | L.Rules, seat: int, seed: int = 0):
        super().__init__(table, seat, seed)
        self.memory = Memory(self.rules, seat)

    def observe(self, view: dict[str, Any]) -> None:
        """Take in the public events of `view` not seen yet (by their number)."""
        mem = self.memory
        options = view.get("options") or {}
        if options.get("stacking"):
            mem.queue = True
        if options.get("seven_o"):
            mem.seven_o = True
        mem.take(
            view.get("events", ()), view.get("counts"), view.get("direction", 1), view.get("turn"),
            view.get("phase"), view.get("far"), view.get("shown"),
        )

    forget_call = 0.1  # SPEC section 5: Easy and Medium sometimes forget the call (Hard never: 0)

    def declines(self, view: dict[str, Any], legal_actions: list[dict[str, Any]]) -> bool:
        """Medium forgets a last-card call 1 time in 10 (the SPEC's "Easy and
        Medium sometimes do"); it always catches and always jumps in. Hard
        (`forget_call` 0) never declines, and draws nothing from its rng here."""
        if self.forget_call and any(a["type"] == "call" for a in legal_actions):
            return self.rng.random() < self.forget_call
        return False

    # --------------------------------------------------------------- choose

    def choose(self, view: dict[str, Any], legal_actions: list[dict[str, Any]]) -> dict[str, Any]:
        """Return the best of `legal_actions` for this seat.

        Raises:
            ValueError: `legal_actions` is empty (the seat may not act).
        """
        self.check_legal(legal_actions)
        self.observe(view)
        if len(legal_actions) == 1:
            return legal_actions[0]
        for a in legal_actions:
            if a["type"] in _OPTIONAL:
                return a  # always call, always catch
        x = Ctx(view, self.rules)
        if view.get("turn") != self.seat:  # a jump-in
            plays = [a for a in legal_actions if a["type"] == "play"]
            return max(plays, key=lambda a: self.play_value(x, a)) if plays else legal_actions[0]
        phase = x.phase
        if phase == "color":
            return max(legal_actions, key=lambda a: self.color_value(x, a["color"]))
        if phase == "challenge":
            return self.answer_challenge(x, legal_actions)
        if phase == "pile":
            return self.answer_pile(x, legal_actions)
        if phase == "drawn":
            return self.after_draw(x, legal_actions)
        return self.turn(x, legal_actions)

    # ------------------------------------------------------------- phases

    def turn(self, x: Ctx, legal: list[dict[str, Any]]) -> dict[str, Any]:
        return max(legal, key=lambda a: self.value(x, a))

    def value(self, x: Ctx, a: dict[str, Any]) -> float:
        typ = a["type"]
        if typ == "play":
            return self.play_value(x, a)
        if typ in ("draw", "pass"):
            return 30.0 + self.fuse_value(x, None)
        return 0.0

    def after_draw(self, x: Ctx, legal: list[dict[str, Any]]) -> dict[str, Any]:
        plays = [a for a in legal if a["type"] == "play"]
        decline = [a for a in legal if a["type"] != "play"]
        if not plays:
            return legal[0]
        best = max(plays, key=lambda a: self.play_value(x, a))
        if decline and self.harm(x, best) < -15:
            return decline[0]  # PLAY would hurt: a blast on itself, a bad swap, a bad flip
        return best

    def harm(self, x: Ctx, a: dict[str, Any]) -> float:
        """What playing `a` costs beyond shedding a card (negative: it hurts)."""
        card = a["card"]
        cost = 0.0
        if x.rules.bombs:
            cost += self.fuse_value(x, a) - self.fuse_value(x, None)
        if "swap_with" in a:
            cost += 10 * (len(x.hand) - 1 - x.counts[a["swap_with"]])
        if SYM[card] == "T":
            cost += self.turnover_value(x)
        return cost

    def answer_pile(self, x: Ctx, legal: list[dict[str, Any]]) -> dict[str, Any]:
        """Stack when it can (own kind first, then a +4), else cancel with a Shield, else draw."""

        def rank(a: dict[str, Any]) -> tuple:
            if a["type"] != "play":
                return (0, 0.0)
            card = a["card"]
            if SYM[card] == "H":
                return (1, self.play_value(x, a))
            return (3 if COLOR[card] is not None else 2, self.play_value(x, a))

        return max(legal, key=rank)

    def answer_challenge(self, x: Ctx, legal: list[dict[str, Any]]) -> dict[str, Any]:
        for a in legal:
            if a["type"] == "play":
                return max((b for b in legal if b["type"] == "play"), key=lambda b: self.color_value(x, b["color"]))
        can = [a for a in legal if a["type"] == "challenge"]
        if can and self.guilt(x) > DOUBT:
            return can[0]
        return next(a for a in legal if a["type"] == "accept")

    def guilt(self, x: Ctx) -> float:
        """How likely the +4 just played was a bluff (the player held the color in force)."""
        w4 = self.memory.w4
        if w4 is None or w4[1] is None:
            return 0.0
        player, before = w4
        return bluff_odds(self.bluff_prior(player), self.holds_color(x, player, before))

    def bluff_prior(self, player: int) -> float:
        return self.bluff_rate

    def holds_color(self, x: Ctx, seat: int, color: str) -> float:
        """Chance that `seat` holds a card of `color`, its cards taken as random."""
        return 1.0 - (1.0 - HOLD_SHARE) ** x.counts[seat]

    def unseen(self, x: Ctx) -> Counter:
        """Faces this seat has not seen (active side): deck minus hand, discards, Shields."""
        mem = self.memory
        rules = self.rules
        full = Counter(rules.far_faces if x.colors == C.NIGHT_COLORS else rules.faces)
        full.subtract(x.hand)
        if mem.synced:
            full.subtract(mem.disc)
        full.subtract(mem.shields.values())
        return +full

    # -------------------------------------------------------------- values

    def color_value(self, x: Ctx, color: str) -> float:
        """How much the bot likes `color` to be active after its play."""
        return float(x.held.get(color, 0))

    def play_value(self, x: Ctx, a: dict[str, Any]) -> float:
        card = a["card"]
        hand = x.hand
        if len(hand) == 1:
            return 1000.0  # going out
        col = COLOR[card]
        sym = SYM[card]
        named = a.get("color") or col
        v = 100.0
        if named is not None:
            v += self.follow_weight * (self.color_value(x, named) - (1 if col == named else 0))
        if col is None:
            v -= 40  # saves wilds for need (and their points do not count)
        else:
            v += self.points_weight * self.rules.points[card]
        if sym in SPECIAL:  # Skip/Reverse/+2: for a low next seat, else held back
            v += 25 if x.counts[x.nxt] <= self.attack_at else -25
        if x.v.get("fuse") is not None or sym == "B":
            v += self.fuse_value(x, a)
        if sym == "H" and x.phase != "pile":
            v += 12  # a standing Shield sheds a card and walls off the next pile
        if sym == "T":
            v += self.turnover_value(x)
        elif card == "WC":
            v += 0.5 * self.turnover_value(x)  # the Clock flips the table 3 hand-offs later
        elif card == "WH" and named is not None:
            v += self.hunt_draws(x, named)
        if "swap_with" in a:
            v += 10 * (len(hand) - 1 - x.counts[a["swap_with"]])
        elif sym == "0" and x.v.get("options", {}).get("seven_o"):
            giver = (x.me - x.dir) % x.n
            v += 10 * (len(hand) - 1 - x.counts[giver])
        return v

    def fuse_value(self, x: Ctx, a: dict[str, Any] | None) -> float:
        """Bomb sense (a deck with Bombs): where the blast lands if everyone then plays plainly."""
        if not x.rules.bombs:
            return 0.0
        fuse = x.v.get("fuse")
        card = a.get("card") if a else None
        sym = SYM[card] if card else None
        if fuse is None and sym != "B":
            return 0.0
        target = blast_target(x.n, x.me, x.dir, fuse, sym)
        blast = (x.v.get("blast") or 0) + 2 if fuse is not None and sym == "B" else (x.v.get("blast") or 4)
        if target == x.me:
            return -12.0 * blast
        bonus = 3.0 * blast if x.counts[target] <= 3 else 1.0 * blast
        return bonus

    def hunt_draws(self, x: Ctx, color: str) -> float:
        """Color Hunt: how many cards the next seat may expect to draw until
        `color` comes (the rarer the color among unseen cards, the more)."""
        unseen = self.unseen(x)
        total = sum(unseen.values())
        have = sum(m for f, m in unseen.items() if COLOR[f] == color)
        return (total + 1) / (have + 1) if total else 0.0

    def turnover_value(self, x: Ctx) -> float:
        """Day & Night: does turning the table over favour this seat?

        After a flip every rival holds the far faces this seat can see; its own
        far faces are unknown. A rival about to go out on a wild far face is
        the worst case; rivals losing their wilds the best.
        """
        far = x.v.get("far") or {}
        value = 0.0
        for seat, faces in far.items():
            s = int(seat)
            if not faces:
                continue
            wild_share = sum(1 for f in faces if f[0] == "W") / len(faces)
            weight = 3.0 if len(faces) <= 2 else 1.0
            value += 40 * weight * (EXPECTED_WILD_SHARE - wild_share)
            if len(faces) == 1:  # about to go out: on a wild face for sure, else maybe not
                value += (-30 if faces[0][0] == "W" else 10) * (1.5 if s == x.nxt else 1.0)
        mine = sum(1 for c in x.hand if c[0] == "W") / max(1, len(x.hand))
        value -= 40 * (mine - EXPECTED_WILD_SHARE)  # its own wilds turn into unknown faces
        return value


HOLD_SHARE = 0.23  # Medium's chance that any one card of a hand is of a given color
DOUBT = 0.2  # Medium and Hard challenge a +4 when its guilt passes this


def bluff_odds(prior: float, held: float) -> float:
    """The chance a +4 was a bluff, `prior` of +4s being bluffs and `held` the
    chance the player held the color in force."""
    return prior * held / (prior * held + (1 - held)) if held < 1 else 1.0


def doubt_count(prior: float, share: float = HOLD_SHARE) -> int:
    """The fewest cards a +4's player may hold after it for a challenger
    (bluff prior `prior`, each card of the color in force with chance `share`)
    to challenge it: the simulator's `World.doubt`. 109: never."""
    for k in range(1, 109):
        if bluff_odds(prior, 1.0 - (1.0 - share) ** k) > DOUBT:
            return k
    return 109


def blast_target(n: int, me: int, direction: int, fuse: int | None, sym: str | None) -> int | None:
    """The seat the Bomb's blast lands on if `me` plays a card of `sym` (None:
    draws or keeps) and every later move is a plain one."""
    fresh = False
    if sym == "B":
        fuse, fresh = 3, True
    if fuse is None:
        return None
    d = direction
    if sym == "S":
        dest = (me + 2 * d) % n
    elif sym == "R":
        d = -d
        dest = me if n == 2 else (me + d) % n
    elif sym == "A":
        dest = me
    else:
        dest = (me + d) % n
    if not fresh:
        fuse -= 1
        if fuse <= 0:
            return dest
    seat = dest
    for _ in range(fuse):
        seat = (seat + d) % n
    return seat


class HardBot(MediumBot):
    """Hard: Medium plus memory of what rivals lack, attacks and a sampled look-ahead."""

    level = "hard"
    forget_call = 0.0  # never forgets a call
    attack_hard_at = 2  # +2/+4 when the next seat holds this many or fewer
    lack_bonus = 0.5  # cards' worth of naming a color the next seat showed it lacks
    budget = 5000  # simulated moves per searched decision (the time budget; a deal counts 12, a copy 3)
    min_samples = 8  # determinized deals per searched decision, at least ...
    max_samples = 160  # ... and at most
    candidates = 8  # moves searched (the best by Medium-like value), 3 seats or more
    cards_apart = True  # 3 seats or more: each card its own move, as with two (two numbers of one color differ)
    model_rivals = True  # rollouts play every seat as Medium does (best-scoring card first)
    caution = 1.0  # a move replaces Medium's choice only if better by this many standard errors
    horizon = 10  # rollout moves before the position is judged (0: to the end), 3 seats or more
    search_at = 7  # with 3 seats or more, search only once some seat holds this many cards or fewer
    sharpness = 0.55  # of the count-based judgement of an unfinished rollout (3 seats or more, `horizon` set)
    playable_bonus = 0.6  # cards' worth of being able to play when to move
    wild_bonus = 0.4  # cards' worth of each wild held
    # an honest +4 at a challenge table (`standard`, `toll`) with this many cards
    # left or more: a rival that weighs what the player could hold challenges
    # it, and then draws 6 and loses the turn. Worth `trap_bonus` times how
    # often the next seat challenges (`challenge_rate`)
    trap_at = 3
    trap_bonus = 0.0
    trap_prior = 0.5
    rollout_eps = 0.0  # 3 seats or more: chance of a random playable card in a rollout move
    duel_eps = 0.0  # the same with two seats
    repairs = 24  # swaps tried per rival and deal to make its hand explain its latest play
    # two seats: every decision is searched, so the search is wider (8 moves, each card its own),
    # judges rollouts after 16 moves, and switches at 0.8 standard errors
    duel_budget = 6300
    duel_max_samples = 540
    duel_candidates = 8
    duel_horizon = 16
    duel_caution = 0.8
    duel_name_caution = 1.5  # ... and 1.5 for another color of the same wild
    # the two-seat judge: weights of `duel_features`, fitted by `bench/fit_judge.py`
    duel_weights: tuple[float, ...] = (0.219, 0.744, 0.239, 0.179, 0.435)
    # the judge of 3 seats or more (`horizon` set): weights of `table_features`; () is the hand-size judge
    table_weights: tuple[float, ...] = (0.36, 0.77, 0.19, 0.29, 0.56)  # 4 seats or more
    trio_weights: tuple[float, ...] = (0.28, 0.78, 0.15, 0.20, 0.34)  # 3 seats
    # ... 4 seats or more at a table of this deck (`Table.deck`): fitted to playouts at its tables
    # (`bench/fit_table_judge.py`); a deck without its own takes `table_weights` (fitted at `classic`).
    # The standard deck's tables leave no pile waiting (unless `stacking`), so its fit gave a waiting
    # pile no weight: the classic fit's stands in for it.
    deck_weights: ClassVar[dict[str, tuple[float, ...]]] = {
        "standard": (0.370, 0.850, 0.112, 0.303, 0.56),
        "siege": (0.425, 0.908, 0.155, 0.363, 0.481),
    }

    # ------------------------------------------------------------ memory use

    def color_value(self, x: Ctx, color: str) -> float:
        v = float(x.held.get(color, 0))
        if not self.lack_bonus:
            return v
        mem = self.memory
        if color in mem.lack_colors(x.nxt):
            v += self.lack_bonus if x.counts[x.nxt] > 2 else 2 * self.lack_bonus
        for s in range(x.n):
            if s != x.me and s != x.nxt and x.counts[s] <= 2 and color in mem.lack_colors(s):
                v += self.lack_bonus / 2
        return v

    def holds_color(self, x: Ctx, seat: int, color: str) -> float:
        k = x.counts[seat]
        for banned, free in self.memory.lacks.get(seat, ()):
            if ("c", color) in banned:
                k = min(k, max(0, free))  # only cards received since it showed the lack
        unseen = self.unseen(x)
        total = sum(unseen.values()) or 1
        share = sum(m for f, m in unseen.items() if COLOR[f] == color) / total
        return 1.0 - (1.0 - share) ** k

    def bluff_prior(self, player: int) -> float:
        """1 bluff in 20 to begin with (its rivals save wilds for need), then
        what the seat's challenged +4s showed."""
        guilty, challenged = self.memory.bluffs.get(player, [0, 0])
        return (guilty + 0.2) / (challenged + 4)

    def play_value(self, x: Ctx, a: dict[str, Any]) -> float:
        v = super().play_value(x, a)
        card = a["card"]
        if len(x.hand) == 1:
            return v
        if x.counts[x.nxt] <= self.attack_hard_at and (KIND[card] is not None or card == "WH"):
            v += 35 if COLOR[card] is None else 15  # +2/+4 (Color Hunt) on a next seat about to go out
        if card == "W+4" and x.rules.table.challenge is not None:
            if x.held.get(x.color, 0) > 0:
                v += self.bluff_value(x)
            elif len(x.hand) - 1 >= self.trap_at and x.phase in ("turn", "drawn"):
                v += self.trap_bonus * self.challenge_rate(x.nxt)
        return v

    def challenge_rate(self, seat: int) -> float:
        """How often `seat` challenges a +4 (from the +4s it has faced), starting
        from `trap_prior` as if it had faced two already."""
        challenged, faced = self.memory.answers_w4.get(seat, [0, 0])
        return (challenged + 2 * self.trap_prior) / (faced + 2)

    def after_draw(self, x: Ctx, legal: list[dict[str, Any]]) -> dict[str, Any]:
        return self.search(x, legal, super().after_draw(x, legal))

    def bluff_value(self, x: Ctx) -> float:
        """A +4 while holding the color in force (`standard`, `toll`): worth a try
        only with two cards or fewer left, when a challenger weighing what the
        player could hold would rather accept."""
        return 0.0 if len(x.hand) - 1 <= 2 else -200.0

    # --------------------------------------------------------------- search

    def turn(self, x: Ctx, legal: list[dict[str, Any]]) -> dict[str, Any]:
        if x.counts[x.nxt] <= self.attack_hard_at and len(x.hand) > 1:
            # the next seat is about to go out: a +2/+4 it is, when there is one
            attacks = [a for a in legal if a["type"] == "play" and KIND[a["card"]] is not None]
            attacks = [a for a in attacks if a["card"] != "W+4" or self.play_value(x, a) > 0]
            if attacks:
                return self.search(x, attacks, max(attacks, key=lambda a: self.play_value(x, a)))
        return self.search(x, legal, super().turn(x, legal))

    def answer_pile(self, x: Ctx, legal: list[dict[str, Any]]) -> dict[str, Any]:
        return self.search(x, legal, super().answer_pile(x, legal))

    def search(self, x: Ctx, legal: list[dict[str, Any]], default: dict[str, Any]) -> dict[str, Any]:
        """Pick among the best few moves by determinized rollouts."""
        if x.color is None or (x.n > 2 and min(x.counts) > self.search_at):
            return default
        cands = self.moves(x, legal, default)
        duel = x.n == 2
        budget, max_samples, horizon, caution = self.budget, self.max_samples, self.horizon, self.caution
        if duel:  # two seats: a wider, shorter, bolder search (see docs/bots.md)
            budget, max_samples, horizon, caution = self.duel_budget, self.duel_max_samples, self.duel_horizon, self.duel_caution
        if x.rules.two_faced:
            budget = budget * 3 // 5  # two faces per card: a simulated move costs more
        if len(cands) < 2:
            return default
        if any(a["type"] == "play" and len(x.hand) == 1 for a in cands):
            return default  # going out
        rng = random.Random(self.rng.random())
        k = len(cands)
        sums = [0.0] * k  # of the differences to the default, sample by sample
        squares = [0.0] * k
        dealer = Dealer(self, x)
        horizon = horizon or 1000
        spent = samples = 0
        values = [0.0] * k
        while samples < max_samples and (spent < budget or samples < self.min_samples):
            base = dealer.deal(rng)
            spent += 12 + dealer.spent
            dealer.spent = 0
            roll_seed = rng.random()
            samples += 1
            for i, a in enumerate(cands):
                w = base.copy()
                w.reseed(roll_seed)
                if not _apply(w, x, a):
                    values[i] = -1.0
                    continue
                spent += 3 + L.rollout(w, horizon)
                values[i] = self.judge(w, x.me)
            for i in range(1, k):
                d = values[i] - values[0]
                sums[i] += d
                squares[i] += d * d
        if not samples:
            return default
        best, best_score = 0, 0.0
        for i in range(1, k):
            mean = sums[i] / samples
            var = max(0.0, squares[i] / samples - mean * mean)
            # two seats: another color for the same wild needs more (names are close calls)
            c = self.duel_name_caution if duel and cands[i].get("card") == default.get("card") else caution
            score = mean - c * math.sqrt(var / samples)
            if score > best_score:
                best, best_score = i, score
        return cands[best]

    def moves(self, x: Ctx, legal: list[dict[str, Any]], default: dict[str, Any]) -> list[dict[str, Any]]:
        """The moves a search compares, `default` first, then the best by
        Medium's values: one of each that differ in what they leave behind,
        the color in force and the card (the number on top is what the next
        seat may match), or, without `cards_apart` at 3 seats or more, the
        kind of card (two numbers of one color then count as one move)."""
        pool = legal
        if x.phase == "turn" and any(a["type"] == "play" for a in legal):
            pool = [a for a in legal if a["type"] == "play"]
        apart = x.n == 2 or self.cards_apart
        seen: set[tuple] = set()
        cands = [default]
        for a in sorted(pool, key=lambda a: -self.value(x, a)):
            key = _move_class(a) + ((a.get("card"),) if apart else ())
            if key not in seen and a != default:
                cands.append(a)
            seen.add(key)
        return cands[: self.duel_candidates if x.n == 2 else self.candidates]

    def judge(self, w: L.World, me: int) -> float:
        if w.over:
            return 1.0 / len(w.winners) if me in w.winners else 0.0
        if w.n == 2:
            return self.duel_judge(w, me)
        ks = self.trio_weights if w.n == 3 else self.deck_weights.get(self.rules.table.deck, self.table_weights)
        if ks:
            # a conditional logit: each seat's chance to win is its share of
            # exp(weights . features) (fitted to playouts, see docs/bots.md)
            # (the sums written out: this runs once a rollout, and the
            # unpacking checks that there are five weights)
            k0, k1, k2, k3, k4 = ks
            exp = math.exp
            zs = []
            for s in range(w.n):
                f0, f1, f2, f3, f4 = table_features(w, s)
                zs.append(exp(k0 * f0 + k1 * f1 + k2 * f2 + k3 * f3 + k4 * f4))
            return zs[me] / sum(zs)
        k = self.sharpness
        weights = []
        for s, h in enumerate(w.hands):
            eff = len(h) - self.wild_bonus * sum(1 for c in h if COLOR[c] is None)
            if s == w.cur and not w.pending and any(w.playable(s, c) for c in h):
                eff -= self.playable_bonus
            weights.append(math.exp(-k * eff))
        return weights[me] / sum(weights)

    def duel_judge(self, w: L.World, me: int) -> float:
        """Two seats: the chance that `me` wins from an unfinished rollout,
        a logistic model over `duel_features` (weights fitted to playouts by
        `bench/fit_judge.py`; see docs/bots.md)."""
        k0, k1, k2, k3, k4 = self.duel_weights
        f0, f1, f2, f3, f4 = duel_features(w, me)
        return 1.0 / (1.0 + math.exp(-(k0 * f0 + k1 * f1 + k2 * f2 + k3 * f3 + k4 * f4)))

    def deal(self, x: Ctx, rng: random.Random) -> L.World:
        """One determinized world consistent with the view and the memory."""
        return Dealer(self, x).deal(rng)


class Dealer:
    """Deals determinized worlds for one decision.

    What is known is worked out once (the unseen cards, each rival's count and
    what it lacks, the piles' sizes); `deal` then only shuffles and hands out.
    """

    def __init__(self, bot: HardBot, x: Ctx):
        v = x.v
        mem = bot.memory
        rules = self.rules = bot.rules
        self.x = x
        self.rivals = [s for s in range(x.n) if s != x.me]
        self.size = v.get("draw_pile", 0)
        self.two_faced = rules.two_faced
        w = L.World(rules, v.get("options"))
        w.n = x.n
        w.night = v.get("face") == "night"
        w.color = x.color
        w.dir = x.dir
        w.cur = x.me
        w.pending = x.pending or 0
        w.pkind = x.pkind
        if rules.bombs:  # the view's `fuse` is the Bomb's, else the Midnight Clock's (as the engine shows it)
            w.fuse = v.get("fuse")
            w.blast = v.get("blast") or 0
        elif rules.clocks:
            w.clock = v.get("fuse")
        w.shields = set(v.get("shields") or ())
        w.greedy = frozenset(range(x.n)) if bot.model_rivals else frozenset()
        if rules.table.challenge:  # who challenges a lone +4: rivals as Medium, this seat as itself
            w.doubt = tuple(
                doubt_count(bot.bluff_prior((s - x.dir) % x.n)) if s == x.me else doubt_count(MediumBot.bluff_rate)
                for s in range(x.n)
            )
        w.eps = bot.rollout_eps if x.n > 2 else bot.duel_eps
        self.template = w
        self.repairs = bot.repairs
        self.spent = 0  # swaps tried by `deal` so far (counted into the budget)
        if self.two_faced:
            self._know_two_faced(mem)
        else:
            self._know(bot, mem)
        # rivals whose latest ordinary play a sampled hand must explain
        # (as Medium would have played it), with the constraints it must keep
        cons_of = {seat: cons for seat, _count, cons in self.specs}
        self.checks = [
            (s, mem.last_play[s], cons_of.get(s, ()))
            for s in self.rivals
            if s in mem.last_play and x.counts[s] > 0 and s not in self.known
        ] if self.repairs else []

    def _know(self, bot: HardBot, mem: Memory) -> None:
        x = self.x
        pool = bot.unseen(x)
        if not mem.synced and pool[x.top] > 0:
            pool[x.top] -= 1
        self.pool = list(pool.elements())
        self.specs = self._specs(mem, pool)
        self.known = self._known(mem, pool)
        known: list[str] = []
        if mem.synced:
            known = list(mem.disc.elements())
            if x.top in known:
                known.remove(x.top)
        self.known_disc = known

    def _known(self, mem: Memory, pool: Counter) -> dict[int, tuple[list[str], int]]:
        """Rivals' cards known by face (still unseen), and how many of them each holds."""
        out = {}
        for seat, faces in mem.known.items():
            if seat == self.x.me or seat >= self.x.n:
                continue
            left = Counter(pool)
            cards = []
            for f in faces.elements():
                if left[f] > 0:
                    left[f] -= 1
                    cards.append(f)
            want = self.x.counts[seat] - mem.unknown.get(seat, 0)
            if cards and want > 0:
                out[seat] = (cards, want)
        return out

    def _specs(self, mem: Memory, pool: Counter) -> list[tuple[int, int, list]]:
        x = self.x
        specs = []
        for s in self.rivals:
            cons = [(b, f) for b, f in mem.constraints(s, pool) if b and f < x.counts[s]]
            specs.append((s, x.counts[s], cons))
        specs.sort(key=lambda spec: -len(spec[2]))  # the most constrained first
        return specs

    def _know_two_faced(self, mem: Memory) -> None:
        x, v = self.x, self.x.v
        night = self.template.night
        first, second = list(self.rules.faces), list(self.rules.far_faces)
        self.act_all, self.far_all = (second, first) if night else (first, second)
        self.far_of = {int(k): list(f) for k, f in (v.get("far") or {}).items()}
        act_pool = Counter(self.act_all)
        act_pool.subtract(x.hand)
        far_pool = Counter(self.far_all)
        for faces in self.far_of.values():
            far_pool.subtract(faces)
        self.draw_far = v.get("draw_far")
        if self.draw_far:
            far_pool[self.draw_far] -= 1
        if mem.synced:
            for f, m in mem.disc.items():
                if f in act_pool:
                    act_pool[f] -= m
                elif f in far_pool:
                    far_pool[f] -= m
        act_pool, far_pool = +act_pool, +far_pool
        self.pool = list(act_pool.elements())
        self.far_pool = list(far_pool.elements())
        self.specs = self._specs(mem, act_pool)
        self.known = self._known(mem, act_pool)
        self.under = max(0, v.get("discards", 1) - 1)

    def deal(self, rng: random.Random) -> L.World:
        x = self.x
        w = self.template.copy()
        pool, specs, picked = self.pool, self.specs, {}
        if self.known:
            pool = list(pool)
            specs = []
            for seat, count, cons in self.specs:
                got = self.known.get(seat)
                if got is not None:
                    cards, want = got
                    chosen = cards if len(cards) <= want else rng.sample(cards, want)
                    take = []
                    for c in chosen:
                        try:
                            pool.remove(c)
                        except ValueError:
                            continue  # another rival's known card took the last copy
                        take.append(c)
                    picked[seat] = take
                    count -= len(take)
                specs.append((seat, count, cons))
        hands, rest = L.sample_hands(pool, specs, rng)
        for seat, take in picked.items():
            hands[seat] = take + hands[seat]
        w.hands = [list(x.hand) if s == x.me else hands[s] for s in range(x.n)]
        if not self.two_faced:
            cut = max(0, len(rest) - self.size)
            w.pile = rest[cut:]
            w.disc = self.known_disc + rest[:cut] + [x.top]
            if self.checks:
                self._repair(w, rng)
            return w
        fars = list(self.far_pool)
        rng.shuffle(fars)
        act_all, far_all = self.act_all, self.far_all

        def take_far() -> str:
            return fars.pop() if fars else rng.choice(far_all)

        def take_act() -> str:
            return rest.pop() if rest else rng.choice(act_all)

        w.fars = []
        for s in range(x.n):
            if s == x.me:
                w.fars.append([take_far() for _ in x.hand])
                continue
            faces = self.far_of.get(s, [])[: len(w.hands[s])]
            while len(faces) < len(w.hands[s]):
                faces.append(take_far())
            w.fars.append(faces)
        size = self.size
        w.pile = [take_act() for _ in range(size)]
        w.pile_far = [take_far() for _ in range(size)]
        if size and self.draw_far:
            w.pile_far[-1] = self.draw_far
        w.disc = [take_act() for _ in range(self.under)] + [x.top]
        w.disc_far = [take_far() for _ in range(self.under + 1)]
        if self.checks:
            self._repair(w, rng)
        return w

    def _repair(self, w: L.World, rng: random.Random) -> None:
        """Make each checked rival's hand explain its latest play: swap cards
        between its hand and the draw pile, keeping a swap that does not make
        the misfit worse, up to `repairs` tries per rival."""
        pile = w.pile
        if not pile:
            return
        rules = self.rules
        rnd = rng.random
        for seat, rec, cons in self.checks:
            hand = w.hands[seat]
            bad = _misfit(hand, rec, cons, rules)
            tries = 0
            while bad and tries < self.repairs:
                tries += 1
                i = int(rnd() * len(hand))
                j = int(rnd() * len(pile))
                hand[i], pile[j] = pile[j], hand[i]
                now = _misfit(hand, rec, cons, rules)
                if now <= bad:
                    bad = now
                else:
                    hand[i], pile[j] = pile[j], hand[i]
            self.spent += tries


def _misfit(hand: list[str], rec: tuple, cons, rules: L.Rules | str) -> int:
    """How badly `hand` (a rival's sampled hand) fails to explain its latest
    play `rec` as Medium plays (0: it explains it), plus its broken constraints."""
    if type(rules) is str:
        rules = L.rules_of(rules)
    card, named, color, top, low = rec
    held: dict[str | None, int] = {}
    for c in hand:
        k = COLOR[c]
        held[k] = held.get(k, 0) + 1
    bad = 0
    col = COLOR[card]
    if col is None:
        if named is not None and card != "WH":
            # Medium names the color it holds most (ties: palette order)
            mine = held.get(named, 0)
            palette = C.NIGHT_COLORS if named in C.NIGHT_COLORS else C.DAY_COLORS
            rank = palette.index(named)
            for r, d in enumerate(palette):
                if d == named:
                    continue
                gap = held.get(d, 0) - mine + (1 if r < rank else 0)
                if gap > 0:
                    bad += gap
    else:
        worth = medium_worth(card, low, rules)
        if worth is not None:
            held[col] = held.get(col, 0) + 1  # the hand it played from
            mine = worth + 0.5 * (held[col] - 1)
            top_sym = SYM[top]
            for c in hand:
                k = COLOR[c]
                if k is None or (k != color and SYM[c] != top_sym):
                    continue
                wc = medium_worth(c, low, rules)
                if wc is not None and wc + 0.5 * (held[k] - 1) > mine + 0.01:
                    bad += 1
    for banned, free in cons:
        k = 0
        for c in hand:
            if c in banned:
                k += 1
        if k > free:
            bad += k - free
    return bad


def duel_features(w: L.World, me: int) -> tuple[int, int, int, int, int]:
    """What the two-seat judge weighs, each as `me`'s edge over its rival:
    fewer cards, more wilds, more Skip/Reverse/+2-like cards, being the one
    to move with a play in hand, and a waiting pile on the rival (-1 if on `me`)."""
    cards = [0, 0]
    wilds = [0, 0]
    specials = [0, 0]
    for s in (0, 1):
        h = w.hands[s]
        cards[s] = len(h)
        for c in h:
            if COLOR[c] is None:
                wilds[s] += 1
            elif SYM[c] in SPECIAL:
                specials[s] += 1
    opp = 1 - me
    sign = 1 if w.cur == me else -1
    move = pile = 0
    if w.pending:
        pile = -sign
    elif any(w.playable(w.cur, c) for c in w.hands[w.cur]):
        move = sign
    return (cards[opp] - cards[me], wilds[me] - wilds[opp], specials[me] - specials[opp], move, pile)


def table_features(w: L.World, seat: int) -> tuple[int, int, int, int, int]:
    """What the judge of 3 seats or more weighs for one seat of an unfinished
    rollout: its cards, wilds and Skip/Reverse/+2-like cards, whether it is
    to move with a play in hand, and a waiting pile on it (-1)."""
    h = w.hands[seat]
    wilds = specials = 0
    for c in h:
        if COLOR[c] is None:
            wilds += 1
        elif SYM[c] in SPECIAL:
            specials += 1
    move = pile = 0
    if w.cur == seat:
        if w.pending:
            pile = -1
        elif any(w.playable(seat, c) for c in h):
            move = 1
    return (-len(h), wilds, specials, move, pile)


def _move_class(a: dict[str, Any]) -> tuple:
    card = a.get("card")
    if card is None:
        return (a["type"],)
    sym = SYM[card]
    kind = "n" if sym in C.NUMBERS else card if card[0] == "W" else sym
    return (a.get("color") or COLOR[card], kind, a.get("swap_with"))


def _apply(w: L.World, x: Ctx, a: dict[str, Any]) -> bool:
    """Apply this seat's real action `a` to the world `w`; False if it cannot."""
    me = x.me
    typ = a["type"]
    hand = w.hands[me]
    if typ == "play":
        card = a["card"]
        if x.phase == "drawn":
            i = len(hand) - 1
            if hand[i] != card:
                return False
        else:
            try:
                i = hand.index(card)
            except ValueError:
                return False
        w.play(me, i, a.get("color"), a.get("swap_with"))
        return True
    if typ == "draw":
        if x.phase == "pile":
            w.take_pile(me)
        else:
            w.draw_turn(me)
        return True
    if typ in ("keep", "pass"):
        if x.phase == "turn":
            w.idle += 1
        w.handoff((me + w.dir) % w.n)
        return True
    return False


def make(level: str, table: str, seat: int, seed: int = 0) -> Bot:
    """A Color Match bot of `level` for `table` at `seat`.

    Raises:
        ValueError: unknown level or table.
    """
    rules = L.rules_of(table)  # the table's declaration, from the game registry
    classes = {"easy": EasyBot, "medium": MediumBot, "hard": HardBot}
    if level not in classes:
        raise ValueError(f"unknown bot level {level!r}; expected easy, medium or hard")
    return classes[level](rules, seat, seed)
