"""A small Color Match simulator for the Hard bot's look-ahead (pure, no engine).

How this works. Hard cannot copy the engine: it only has its seat's view and
its memory. So it *determinizes*: it deals the cards it cannot see (rivals'
hands, the draw pile, at Day & Night the hidden faces) at random, consistent
with the counts and what it knows (cards already seen, colors a rival had to
draw on), into a `World` (the dealing itself is the Hard bot's `Dealer`; `sample_hands`
here hands out the unseen cards within the known constraints). `rollout` then
plays that world forward with a quick Medium-like policy for every seat
(`policy_step`), up to a given number of moves, and the bot reads how it
ended. Averaging over many such deals gives each candidate action a value; a
count of simulated moves, never a clock, bounds the work, so a decision is a
pure function of the view, the memory and the bot's seed.

The `World` models every table closely enough to rank moves, not to
referee: last-card calls are always made, PLAY/KEEP always plays. A lone +4
at a challenge table is challenged as Medium challenges it (`doubt`: by the
player's card count) and settled as the engine settles it. Cards are face
codes as in the engine (SPEC section 2); at Day & Night a parallel list holds
each card's far face and a flip swaps the two, as in the engine.

Its rules are the engine's: `rules_of(table)` reads the table's declaration
from the game registry (`lanmatch.rules.colormatch.Table`: its deck, queue,
ladder, challenge, blocked-round rule ...) and adds what the bots know of its
deck (`DECKS`: its faces in the engine's order, their points, and whether
they hold Bombs, Midnight Clocks, Shields). No table is known by its name:
a table registered later plays as its declaration says
(tests/test_bots_model.py plays the same moves through the engine and this
simulator at every table and finds the same states).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lanmatch.rules import cards as C
from lanmatch.rules import get_game

GAME = "colormatch"  # the game, in the registry, whose tables these bots play

_ALL_FACES = set(C.classic_deck()) | set(C.siege_deck()) | set(C.day_faces()) | set(C.night_faces())
COLOR: dict[str, str | None] = {f: C.color_of(f) for f in _ALL_FACES}
SYM: dict[str, str] = {f: C.symbol_of(f) for f in _ALL_FACES}
KIND: dict[str, str | None] = {
    f: ("+4" if f == "W+4" else (SYM[f] if SYM[f] in C.DRAW_AMOUNT else None)) for f in _ALL_FACES
}
# Cards that cost the next seat its turn (the tables' Skip/Reverse/+2 family).
ATTACK = frozenset({"S", "+2", "+1", "+5", "A"})
SPECIAL = ATTACK | {"R"}  # what Medium holds back for a low next seat

# What the bots know of each deck a table may declare (`Table.deck`): its
# faces as the engine's builders list them (a two-faced deck: its day faces,
# then its night faces) and how a card scores. A new table needs nothing
# here; a new deck needs its entry (docs/adding-a-table.md).
DECKS: dict[str, tuple[Callable[[], list[str]], Callable[[], list[str]] | None, Callable[[str], int]]] = {
    "standard": (C.standard_deck, None, C.standard_points),
    "classic": (C.classic_deck, None, C.standard_points),
    "siege": (C.siege_deck, None, C.standard_points),
    "daynight": (C.day_faces, C.night_faces, C.daynight_points),
}


@dataclass(frozen=True, eq=False)
class Rules:
    """A table as the simulator and the bots read it: its declaration
    (`table`, every rule field as the engine reads it) and its deck's facts."""

    table: Any  # the declaration: lanmatch.rules.colormatch.Table
    faces: tuple[str, ...]  # every card of its deck, by its first face (day faces when two-faced)
    far_faces: tuple[str, ...]  # a two-faced deck's other faces (night), else ()
    points: dict[str, int]  # face -> points when a round is scored
    bombs: bool  # the deck holds Bombs: the view's `fuse` is the Bomb's (else the Midnight Clock's)
    clocks: bool  # the deck holds Midnight Clocks
    shields: bool  # the deck holds Shields

    @property
    def name(self) -> str:
        return self.table.name

    @property
    def two_faced(self) -> bool:
        return bool(self.far_faces)


def rules_of(table: str | Rules) -> Rules:
    """The rules of Color Match table `table` (a name: read from the registry now).

    Raises:
        ValueError: no such table, or its deck is one the bots do not know.
    """
    if isinstance(table, Rules):
        return table
    spec = get_game(GAME).table(table)
    deck = DECKS.get(spec.deck)
    if deck is None:
        raise ValueError(f"the Color Match bots know no deck {spec.deck!r} (table {spec.name!r}); "
                         f"known: {', '.join(DECKS)}")
    first, second, score = deck
    faces, far = tuple(first()), tuple(second()) if second is not None else ()
    syms = {SYM[f] for f in faces + far}
    return Rules(
        table=spec,
        faces=faces,
        far_faces=far,
        points={f: score(f) for f in set(faces) | set(far)},
        bombs="B" in syms,
        clocks="WC" in faces or "WC" in far,
        shields="H" in syms,
    )


def full_deck(table: str | Rules) -> list[str]:
    """Every face of the table's deck (the active side only at Day & Night: day faces)."""
    return list(rules_of(table).faces)


class World:
    """One determinized Color Match state that can be played forward quickly."""

    __slots__ = (
        "n", "queue", "ladder", "challenged", "blocked_drawn", "shield_deck",
        "strict", "seven_o", "points", "hands", "fars", "pile", "pile_far", "disc", "disc_far",
        "color", "dir", "cur", "pending", "pkind", "fuse", "ffresh", "blast", "clock", "cfresh",
        "shields", "night", "idle", "winners", "over", "rng", "rng_seed", "greedy", "eps",
        "doubt", "w4",
    )

    def __init__(self, table: str | Rules, options: dict | None = None):
        rules = rules_of(table)
        spec = rules.table
        opts = options or {}
        stacking = bool(opts.get("stacking"))
        self.queue = spec.queue or stacking
        # what answers a waiting pile: the ladder, where piles wait at all; at
        # a challenge table a +4 waits in a challenge instead, which only a +4
        # answers, and only with `stacking` (a Shield does not)
        self.ladder = dict(spec.ladder) if self.queue else {}
        self.challenged = "+4" if spec.challenge else None
        if spec.challenge:
            self.ladder["+4"] = ("+4",) if stacking else ()
        self.blocked_drawn = spec.blocked == "drawn"
        self.shield_deck = rules.shields
        self.strict = bool(opts.get("strict_wild4"))
        self.seven_o = bool(opts.get("seven_o"))
        self.points = rules.points
        self.n = 0
        self.hands: list[list[str]] = []
        self.pile: list[str] = []
        self.disc: list[str] = []
        self.fars = self.pile_far = self.disc_far = None
        self.color: str | None = None
        self.dir = 1
        self.cur = 0
        self.pending, self.pkind = 0, None
        self.fuse = self.clock = None
        self.ffresh = self.cfresh = False
        self.blast = 0
        self.shields: set[int] = set()
        self.night = False
        self.idle = 0
        self.winners: list[int] = []
        self.over = False
        self.rng: random.Random | None = random.Random(0)
        self.rng_seed = 0.0  # seeds `rng` when it is first needed (see `reseed`)
        self.greedy: frozenset[int] = frozenset()  # seats that shed their highest card first
        self.eps = 0.0  # chance that a seat's ordinary play is a random playable card (epsilon-greedy)
        # a challenge table without stacking: seat s challenges a lone +4 whose
        # player holds doubt[s] cards or more after it (() or a seat past the
        # end: never; the Hard bot's `Dealer` sets it from each seat's guilt)
        self.doubt: tuple[int, ...] = ()
        self.w4: tuple[int, bool] | None = None  # the waiting +4's player, and whether it was a bluff

    def copy(self) -> World:
        """An independent copy (the same random stream object: `reseed` a
        copy that must draw its own)."""
        c = World.__new__(World)
        c.n, c.queue, c.ladder, c.challenged = self.n, self.queue, self.ladder, self.challenged
        c.blocked_drawn, c.shield_deck, c.strict, c.seven_o = self.blocked_drawn, self.shield_deck, self.strict, self.seven_o
        c.points = self.points
        c.hands = [list(h) for h in self.hands]
        c.pile = list(self.pile)
        c.disc = list(self.disc)
        if self.fars is None:
            c.fars = c.pile_far = c.disc_far = None
        else:
            c.fars = [list(h) for h in self.fars]
            c.pile_far = list(self.pile_far)
            c.disc_far = list(self.disc_far)
        c.color, c.dir, c.cur, c.pending, c.pkind = self.color, self.dir, self.cur, self.pending, self.pkind
        c.fuse, c.ffresh, c.blast, c.clock, c.cfresh = self.fuse, self.ffresh, self.blast, self.clock, self.cfresh
        c.shields = set(self.shields)
        c.night, c.idle, c.over = self.night, self.idle, self.over
        c.winners = []
        c.rng, c.rng_seed, c.greedy, c.eps = self.rng, self.rng_seed, self.greedy, self.eps
        c.doubt, c.w4 = self.doubt, self.w4
        return c

    def reseed(self, seed: float) -> None:
        """Give this world its own random stream, `random.Random(seed)`, built
        only if the world ever draws from it (most rollouts never reshuffle)."""
        self.rng, self.rng_seed = None, seed

    def stream(self) -> random.Random:
        rng = self.rng
        if rng is None:
            rng = self.rng = random.Random(self.rng_seed)
        return rng

    # --------------------------------------------------------------- helpers

    def colors(self) -> str:
        return C.NIGHT_COLORS if self.night else C.DAY_COLORS

    def _draw(self, seat: int, count: int, until: str | None = None) -> int:
        hand = self.hands[seat]
        far = self.fars[seat] if self.fars is not None else None
        got = 0
        while got < count:
            if not self.pile:
                if len(self.disc) <= 1:
                    break
                self._reshuffle()
            card = self.pile.pop()
            hand.append(card)
            if far is not None:
                far.append(self.pile_far.pop())
            got += 1
            if until is not None and COLOR[card] == until:
                break
        return got

    def _reshuffle(self) -> None:
        top = self.disc.pop()
        if self.disc_far is not None:
            top_far = self.disc_far.pop()
            both = list(zip(self.disc, self.disc_far, strict=True))
            self.stream().shuffle(both)
            self.pile = [a for a, _ in both]
            self.pile_far = [b for _, b in both]
            self.disc_far = [top_far]
        else:
            self.pile = self.disc
            self.stream().shuffle(self.pile)
        self.disc = [top]

    def _flip(self) -> None:
        self.night = not self.night
        self.hands, self.fars = self.fars, self.hands
        self.pile, self.pile_far = self.pile_far, self.pile
        self.disc, self.disc_far = self.disc_far, self.disc
        self.color = COLOR[self.disc[-1]]

    def _end(self, winner: int | None) -> None:
        self.over = True
        if winner is not None:
            self.winners = [winner]
        elif self.blocked_drawn:
            self.winners = []
        else:
            pts = self.points
            low = min((sum(pts[c] for c in h), len(h)) for h in self.hands)
            self.winners = [s for s, h in enumerate(self.hands) if (sum(pts[c] for c in h), len(h)) == low]

    def best_color(self, seat: int) -> str:
        """The color `seat` holds most of (ties: palette order)."""
        counts = dict.fromkeys(self.colors(), 0)
        for c in self.hands[seat]:
            col = COLOR[c]
            if col in counts:
                counts[col] += 1
        return max(counts, key=counts.__getitem__)

    # ------------------------------------------------------------ hand-offs

    def handoff(self, seat: int) -> None:
        """Hand the turn to `seat`, as the engine's `_handoff` does."""
        n = self.n
        while True:
            self.cur = seat
            if self.fuse is not None:
                if self.ffresh:
                    self.ffresh = False
                else:
                    self.fuse -= 1
                    if self.fuse == 0:
                        blast, self.fuse, self.blast = self.blast, None, 0
                        self._draw(seat, blast)
            if self.clock is not None:
                if self.cfresh:
                    self.cfresh = False
                else:
                    self.clock -= 1
                    if self.clock == 0:
                        self.clock = None
                        self._flip()
                        if self.color is None:
                            self.color = self.best_color(seat)
            if self.pending and seat in self.shields:
                self.shields.discard(seat)
                self.pending, self.pkind = 0, None
            if self.pending and not self.queue:
                if self.w4 is not None and self.challenges(seat, len(self.hands[self.w4[0]])):
                    player, guilty = self.w4
                    self.pending, self.pkind, self.w4 = 0, None, None
                    if guilty:  # the bluffer draws 4; the challenger plays its turn
                        self._draw(player, 4)
                        return
                    self._draw(seat, 6)
                else:
                    self._draw(seat, self.pending)
                    self.pending, self.pkind, self.w4 = 0, None, None
                seat = (seat + self.dir) % n
                continue
            return

    def challenges(self, seat: int, held: int) -> bool:
        """Does `seat` challenge a +4 whose player holds `held` cards after it (`doubt`)?"""
        doubt = self.doubt
        return seat < len(doubt) and held >= doubt[seat]

    # -------------------------------------------------------------- moves

    def playable(self, seat: int, card: str) -> bool:
        col = COLOR[card]
        if col is None:
            if card == "W+4" and self.strict:
                top_sym = SYM[self.disc[-1]]
                return not any(
                    COLOR[c] == self.color or SYM[c] == top_sym for c in self.hands[seat] if COLOR[c] is not None
                )
            return True
        if self.shield_deck and seat in self.shields and SYM[card] == "H":
            return False
        return col == self.color or SYM[card] == SYM[self.disc[-1]]

    def answers(self, card: str) -> bool:
        if self.shield_deck and SYM[card] == "H":
            return self.pkind != self.challenged
        return KIND[card] in self.ladder.get(self.pkind, ())

    def play(self, seat: int, index: int, color: str | None = None, swap: int | None = None) -> None:
        """Play the card at `index` of `seat`'s hand (a wild names `color`)."""
        n = self.n
        hand = self.hands[seat]
        card = hand.pop(index)
        far = self.fars[seat].pop(index) if self.fars is not None else None
        self.idle = 0
        sym = SYM[card]
        out = not hand
        if self.shield_deck and sym == "H":
            if self.pending:
                self.pending, self.pkind = 0, None
                self.disc.append(card)
                if far is not None:
                    self.disc_far.append(far)
                self.color = COLOR[card]
            elif out:
                self.disc.append(card)
            else:
                self.shields.add(seat)
            if out:
                self._end(seat)
            else:
                self.handoff((seat + self.dir) % n)
            return
        self.disc.append(card)
        if far is not None:
            self.disc_far.append(far)
        before = self.color
        if COLOR[card] is None:
            self.color = color if color is not None else self.best_color(seat)
        else:
            self.color = COLOR[card]
        if out:
            self._end(seat)
            return
        kind = KIND[card]
        if kind is not None:
            if kind == self.challenged and not self.queue:
                self.w4 = (seat, any(COLOR[c] == before for c in hand))
            self.pending += C.DRAW_AMOUNT[kind]
            self.pkind = kind
        if self.seven_o:
            if sym == "7":
                if swap is None:
                    swap = min((s for s in range(n) if s != seat), key=lambda s: len(self.hands[s]))
                self.hands[seat], self.hands[swap] = self.hands[swap], self.hands[seat]
            elif sym == "0":
                hs = self.hands
                self.hands = [hs[(s - self.dir) % n] for s in range(n)]
        if sym == "S":
            self.handoff((seat + 2 * self.dir) % n)
        elif sym == "R":
            self.dir = -self.dir
            self.handoff(seat if n == 2 else (seat + self.dir) % n)
        elif sym == "A":
            self.handoff(seat)
        elif sym == "B":
            self.blast = self.blast + 2 if self.fuse is not None else 4
            self.fuse, self.ffresh = 3, True
            self.handoff((seat + self.dir) % n)
        elif card == "WC":
            self.clock, self.cfresh = 3, True
            self.handoff((seat + self.dir) % n)
        elif card == "WH":
            victim = (seat + self.dir) % n
            self._draw(victim, len(self.pile) + len(self.disc), until=self.color)
            self.handoff((seat + 2 * self.dir) % n)
        elif sym == "T":
            self._flip()
            if self.color is None:
                self.color = self.best_color(seat)
            self.handoff((seat + self.dir) % n)
        else:
            self.handoff((seat + self.dir) % n)

    def draw_turn(self, seat: int) -> None:
        """`seat` draws one card (or passes); a playable drawn card is played."""
        if not self.pile and len(self.disc) <= 1:
            self.idle += 1
            if self.idle >= self.n:
                self._end(None)
            else:
                self.handoff((seat + self.dir) % self.n)
            return
        self.idle = 0
        self._draw(seat, 1)
        hand = self.hands[seat]
        if self.playable(seat, hand[-1]):
            self.play(seat, len(hand) - 1)
        else:
            self.handoff((seat + self.dir) % self.n)

    def take_pile(self, seat: int) -> None:
        got = self._draw(seat, self.pending)
        self.pending, self.pkind = 0, None
        self.idle = 0 if got else self.idle + 1
        if self.idle >= self.n:
            self._end(None)
        else:
            self.handoff((seat + self.dir) % self.n)


def _held(hand: list[str]) -> dict[str | None, int]:
    """How many cards of each color `hand` holds (wilds under None)."""
    counts: dict[str | None, int] = {}
    for c in hand:
        k = COLOR[c]
        counts[k] = counts.get(k, 0) + 1
    return counts


def policy_step(w: World) -> None:
    """One move of the seat whose turn it is, by a quick Medium-like policy:
    stack on a pile when it can, else play a colored card (Skip/Reverse/+2
    first when the next seat is low): the one worth most for a `greedy` seat
    (as Medium does), else the one that keeps the color it holds most; a wild
    only when nothing else plays, else draw."""
    seat = w.cur
    hand = w.hands[seat]
    if w.pending:  # a pile waits (queue tables): stack, cancel, or take it
        # as Medium's `answer_pile`: a colored card of the ladder first (the
        # one worth most: its points, then the color held most), then a wild,
        # then a Shield
        best, best_v = -1, -1e9
        counts = None
        for i, c in enumerate(hand):
            if not w.answers(c):
                continue
            col = COLOR[c]
            if col is None:
                v = 0.0
            elif SYM[c] == "H":
                v = -1.0
            else:
                if counts is None:
                    counts = _held(hand)
                v = 1000.0 + w.points[c] + 0.5 * counts[col]
            if v > best_v:
                best, best_v = i, v
        if best >= 0:
            w.play(seat, best)
        else:
            w.take_pile(seat)
        return
    color = w.color
    top_sym = SYM[w.disc[-1]]
    if w.eps and w.stream().random() < w.eps:
        # epsilon-greedy: now and then a random playable card (a wild too), as a
        # player the model does not predict exactly
        ok = [i for i, c in enumerate(hand) if w.playable(seat, c)]
        if ok:
            w.play(seat, ok[int(w.stream().random() * len(ok))])
        else:
            w.draw_turn(seat)
        return
    wild = -1
    shielded = w.shield_deck and seat in w.shields
    ok = []  # the colored cards it may play
    for i, c in enumerate(hand):
        col = COLOR[c]
        if col is None:
            if wild < 0 and (c != "W+4" or not w.strict):
                wild = i
            continue
        sym = SYM[c]
        if col != color and sym != top_sym:
            continue
        if shielded and sym == "H":
            continue
        ok.append(i)
    if len(ok) == 1:
        w.play(seat, ok[0])
    elif ok:
        w.play(seat, _best_play(w, seat, hand, ok))
    elif wild >= 0 and w.playable(seat, hand[wild]):
        w.play(seat, wild)
    else:
        w.draw_turn(seat)


def _best_play(w: World, seat: int, hand: list[str], ok: list[int]) -> int:
    """Which of the colored cards at `ok` (two or more) `seat` plays: the
    first of the best valued (see `policy_step`)."""
    low = len(w.hands[(seat + w.dir) % w.n]) <= 3
    counts = _held(hand)
    greedy = seat in w.greedy
    follow, worth = (0.5, 1.0) if greedy else (4.0, 0.1)
    pts = w.points
    best, best_v = -1, -1e9
    for i in ok:
        c = hand[i]
        sym = SYM[c]
        v = follow * counts[COLOR[c]] + worth * pts[c]
        if greedy:  # as Medium: Skip/Reverse/+2 for a low next seat, else held back
            if sym in SPECIAL:
                v += 25 if low else -25
            elif sym == "H":
                v += 12
            elif sym == "B" and w.fuse is None and (w.n == 2 or w.n == 4):
                v -= 48  # a plain lap brings the blast back: Medium counts the fuse
        elif low and sym in ATTACK:
            v += 25
        if v > best_v:
            best, best_v = i, v
    return best


def rollout(w: World, max_steps: int) -> int:
    """Play `w` forward by at most `max_steps` moves; return the moves made.

    The policy is deterministic; `w.stream()` shuffles the discards when the draw
    pile runs out."""
    steps = 0
    while not w.over and steps < max_steps:
        policy_step(w)
        steps += 1
    return steps


def sample_hands(
    pool: list[str],
    rivals: list[tuple[int, int, list[tuple[frozenset, int]]]],
    rng: random.Random,
    extra: int = 48,
) -> tuple[dict[int, list[str]], list[str]]:
    """Deal `pool` (unseen cards) to rivals consistent with what is known.

    `rivals` holds (seat, count, constraints) per rival; a constraint
    (banned, free) allows at most `free` of its cards in `banned` (what it
    showed it lacked, see the Hard bot's memory). Returns the hands and the
    cards left over, the end of the list in random order (a draw pile's top
    is its end: only the top `extra` cards or so are shuffled, which is all a
    look-ahead draws). Where the constraints cannot all be met, the rest of a
    hand is dealt freely.
    """
    rest = list(pool)
    m = len(rest)
    need = 0
    for _seat, count, _cons in rivals:
        need += count
    k = min(m, need + extra)
    rnd = rng.random
    for i in range(m - 1, m - 1 - k, -1):
        j = int(rnd() * (i + 1))
        rest[i], rest[j] = rest[j], rest[i]
    tail = rest[m - k:]
    del rest[m - k:]
    hands: dict[int, list[str]] = {}
    for seat, count, cons in rivals:
        if not cons or not count:
            hand = tail[len(tail) - count:] if count else []
            del tail[len(tail) - len(hand):]
            hands[seat] = hand
            continue
        # Its cards in the order it got them: the oldest fit every constraint,
        # the last `free` of a constraint were got after it and fit anything.
        limits = [(count - free, banned) for banned, free in cons]
        hand = []
        keep: list[str] = []
        for p in range(count):
            active = [banned for limit, banned in limits if p < limit]
            while tail:
                card = tail.pop()
                for banned in active:
                    if card in banned:
                        keep.append(card)
                        break
                else:
                    hand.append(card)
                    break
            else:
                break
        tail.extend(reversed(keep))
        short = count - len(hand)
        if short > 0:
            hand.extend(tail[len(tail) - short:])
            del tail[len(tail) - min(short, len(tail)):]
            short = count - len(hand)
            if short > 0:
                hand.extend(rest[len(rest) - short:])
                del rest[len(rest) - min(short, len(rest)):]
        hands[seat] = hand
    rest.extend(tail)
    return hands, rest
