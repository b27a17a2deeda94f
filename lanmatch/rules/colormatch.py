"""The Color Match engine: one state machine, six tables as data.

How this works. A `Table` declares what a table changes: its deck, how the
starter is turned, whether you may draw while holding a play, which verb
declines a drawn card, how penalty piles are answered (the ladder), whether a
+4 can be challenged, the last-card call, the scoring and the blocked-round
rule. The specials (Bomb fuse, Shield, Turnover, Midnight Clock, All Pass,
Color Hunt, 7-0, jump-in) are effects keyed by card symbol, and exist at a
table because its deck holds those cards (or its options switch them on).

The game moves through phases for the seat whose turn it is (`cur`):

* `turn`      play a card, draw (or pass when nothing can be drawn);
* `drawn`     a playable card was just drawn: play it, or keep/pass;
* `pile`      a penalty pile waits: answer it on the ladder, or draw it;
* `challenge` a +4 waits at a challenge table: accept, challenge, or stack;
* `color`     name the active color (Wild starter, a flip onto a wild face).

Beside the turn, last-card windows (`standard`, `cards`) let other seats act:
the caller may `call`, the others may `catch`. Every move of the turn to a
seat goes through `_handoff`, which counts Bomb fuses and Midnight Clocks and
delivers waiting penalty piles, so those rules live in exactly one place.

Cards are kept as their active face codes: a hand is a list of strings in the
order they were received. At Day & Night a parallel list holds each card's far
face, and a flip swaps the two lists everywhere. The draw and discard piles
keep their top at the end of the list.

Legal actions are computed once per state and cached as dicts that never
leave the engine (`legal_actions` hands out copies); `act` checks the incoming
dict for membership in that cache (ints checked strictly, extra keys such as a
protocol's `state_id` ignored), so a caller cannot smuggle anything past the
rules by mutating a dict it was handed. The commonest steps have their own
paths, each giving exactly what the general one gives (tests/test_engine_fast.py,
bench/trace.py): `legal_actions` lists an ordinary turn at a plain table
itself, and `act` applies the turn seat's play, draw or pass straight from
that list (`_turn_legal`, which holds no ints to check strictly).
"""

from __future__ import annotations

import hashlib
import random
import sys
from array import array
from dataclasses import dataclass, replace
from operator import itemgetter
from typing import Any

from lanmatch.rules import cards as C
from lanmatch.rules import teams as T
from lanmatch.rules.errors import IllegalAction

HAND_SIZE = 7  # the cards each seat is dealt where a table declares no other (`Table.hand`)
DAILY_PLAYERS = 3  # the daily deal's seats: one person and two bots, the same deal for everyone
EVENT_MEMORY = 32  # events a view carries
# a view's keys that `_view` fills for the seat alone (the rest are `_public`'s, alike for every seat)
OWN_VIEW_KEYS = ("seat", "hand", "far", "shown", "drawn")
_EVENTS_KEPT = 2 * EVENT_MEMORY  # events held before the oldest EVENT_MEMORY are dropped

TURN, DRAWN, PILE, CHALLENGE, COLOR, OVER = "turn", "drawn", "pile", "challenge", "color", "over"

ACTION_TYPES = (
    "play",
    "draw",
    "keep",
    "pass",
    "accept",
    "challenge",
    "call",
    "catch",
    "color",
    "expire",
)


@dataclass(frozen=True)
class Table:
    """What one Color Match table declares (see the module docstring)."""

    name: str
    deck: str  # "standard" | "classic" | "siege" | "daynight"
    number_starter: bool  # the first face-up card must be a number
    starter_effects: bool  # standard: Skip/Reverse/+2/Wild starters act
    draw_with_play: bool  # may draw while holding a playable card
    decline: str  # verb declining a playable drawn card: "keep" | "pass"
    queue: bool  # penalties wait on the victim (else applied at once)
    ladder: tuple[tuple[str, tuple[str, ...]], ...]  # pile kind -> kinds that answer it
    challenge: str | None  # None | "standard" (hand shown) | "toll"
    call: str | None  # None | "standard" | "cards"
    last_card_resolves: bool  # going out on a draw card: the draw resolves
    scoring: str  # "winner" (scores the others' cards) | "classic" (total minus own)
    blocked: str  # "lowest" | "drawn"
    one_card_banner: bool
    options: tuple[str, ...]  # house options this table accepts
    default_target: int  # points of a match when the mode is "match"
    default_clock: int  # seconds per move (used by the host)
    title: str = ""  # the table's name for people ("Day & Night")
    palette: str = "classic"  # the key of its colors and card names in cards.PALETTES
    brief: str = ""  # the table's rules in two sentences, for the console's help
    max_target: int = 1000  # the largest match target a room may set (docs/protocol.md, "Limits and abuse")
    scoring_rule: str = ""  # the scoring in one line, for the end screen (docs/rules/<table>.md)
    hand: int = HAND_SIZE  # cards dealt to each seat

    def full_deck(self) -> list[str]:
        """Every card of this table's deck, in the order of `cards`' deck
        functions (Day & Night: its day faces; its night faces are
        `cards.night_faces()`): what a rigged deal is made from."""
        return C.day_faces() if self.deck == "daynight" else list(_DECK_OF[self.deck]())

    @property
    def each_seat_scores(self) -> bool:
        """Every seat scores (all the points held minus its own), not the winner alone."""
        return self.scoring == "classic"

    def card_points(self, code: str) -> int:
        """The points a held face counts at this table (its deck's values)."""
        return C.daynight_points(code) if self.deck == "daynight" else C.standard_points(code)

    # The table protocol every game's tables share (rules/registry.py):
    @property
    def timed_keep(self) -> bool:
        """The host times a playable drawn card's PLAY/KEEP (an `expire`)."""
        return self.decline == "keep"

    @property
    def timed_calls(self) -> bool:
        """The host closes last-card windows with `expire` when they time out."""
        return self.call == "cards"


_STANDARD = Table(
    name="standard",
    deck="standard",
    number_starter=False,
    starter_effects=True,
    draw_with_play=True,
    decline="pass",
    queue=False,
    ladder=(("+2", ("+2",)), ("+4", ("+4",))),  # used with the stacking option
    challenge="standard",
    call="standard",
    last_card_resolves=True,
    scoring="winner",
    blocked="lowest",
    one_card_banner=False,
    options=("stacking", "jump_in", "seven_o", "mode", "target", "teams"),
    default_target=500,
    default_clock=30,
    title="Standard",
    brief="A +2 is dealt at once; a +4 waits for you to accept or challenge it. With one card left, call "
    "last card before the next player acts, or be caught (2 cards).",
    scoring_rule="The winner scores the others' cards: numbers face value, actions 20, wilds 50.",
)
_CLASSIC = Table(
    name="classic",
    deck="classic",
    number_starter=True,
    starter_effects=False,
    draw_with_play=True,
    decline="keep",
    queue=True,
    ladder=(("+2", ("+2",)), ("+4", ())),
    challenge=None,
    call=None,
    last_card_resolves=False,
    scoring="classic",
    blocked="lowest",
    one_card_banner=True,
    options=("teams",),
    default_target=0,
    default_clock=30,
    title="Classic",
    brief="Penalty piles wait on you: answer a +2 with a +2, or draw the pile. A Bomb blasts the "
    "seat that gets the turn 3 hand-offs after the Bomb's own. A playable drawn card: PLAY it or KEEP it.",
    scoring_rule="Each seat scores what the others hold: all points minus its own.",
)
# The other four tables say only how they differ from those two.
TABLES: dict[str, Table] = {  # the first is the default table
    "classic": _CLASSIC,
    "standard": _STANDARD,
    "toll": replace(
        _STANDARD,
        name="toll",
        title="Toll",
        palette="toll",
        brief="Bypass skips, Flip reverses, Toll 2 / Toll 4 make the next player draw; a Toll 4 may "
        "be challenged.",
        number_starter=True,
        starter_effects=False,
        ladder=(),
        challenge="toll",
        call=None,
        options=("teams",),
        default_target=0,
        default_clock=90,
    ),
    "daynight": replace(
        _CLASSIC, name="daynight", title="Day & Night", deck="daynight", ladder=(("+1", ("+1",)), ("+5", ("+5",))),
        brief="Every card has a day and a night face; a Turnover or the Midnight Clock turns the "
        "whole table over. You see your rivals' far faces.",
        scoring_rule="Each seat scores the others' face-up points: all held minus its own.",
    ),
    "siege": replace(
        _CLASSIC, name="siege", title="Siege", deck="siege", ladder=(("+2", ("+2", "+4")), ("+4", ("+4",))),
        brief="Penalty piles wait: +2 on +2, +4 on +2 or +4. A Shield cancels a pile, or stands in "
        "front of you to absorb the next one.",
    ),
    "cards": replace(
        _STANDARD,
        name="cards",
        title="Color Cards",
        palette="cards",
        brief="You may draw only without a play. With one card left, call last card at once or draw "
        "2; catch a bot that forgets.",
        number_starter=True,
        starter_effects=False,
        draw_with_play=False,
        challenge=None,
        call="cards",
        blocked="drawn",
        options=("strict_wild4", "stacking", "mode", "target", "date", "teams"),
        default_target=200,
    ),
}

# What the rest of lanmatch knows of the tables it reads from the game
# registry (rules/registry.py), which holds this very dict: a table added to
# it is a table of the game everywhere (docs/adding-a-table.md).

_DECK_OF = {"standard": C.standard_deck, "classic": C.classic_deck, "siege": C.siege_deck}
_DECKS = {name: tuple(make()) for name, make in _DECK_OF.items()}  # templates, copied for every deal

# Facts about every face, looked up on the hot path.
_ALL_FACES = set(C.classic_deck()) | set(C.siege_deck()) | set(C.day_faces()) | set(C.night_faces())
COLOR_OF = {f: C.color_of(f) for f in _ALL_FACES}
SYM_OF = {f: C.symbol_of(f) for f in _ALL_FACES}
NUMBER_FACE = {f: SYM_OF[f] in C.NUMBERS for f in _ALL_FACES}
# the penalty kind a face adds to a pile ("+2", "+4", "+1", "+5") or None
KIND_OF = {f: (SYM_OF[f] if SYM_OF[f] in C.DRAW_AMOUNT else ("+4" if f == "W+4" else None)) for f in _ALL_FACES}
KIND_OF["W+4"] = "+4"

_DAY = tuple(C.DAY_COLORS)
_NIGHT = tuple(C.NIGHT_COLORS)
# Prebuilt action dicts shared by every state's legal cache. They never leave
# the engine: `legal_actions` hands out copies, so nobody can mutate them.
_PLAY = {f: {"type": "play", "card": f} for f in _ALL_FACES}
_WILD_PLAYS = {
    (f, colors): [{"type": "play", "card": f, "color": c} for c in colors]
    for f in C.WILDS
    for colors in (_DAY, _NIGHT)
}
_SIMPLE = {t: {"type": t} for t in ("draw", "pass", "keep", "accept", "challenge", "call")}
_DRAW, _PASS = _SIMPLE["draw"], _SIMPLE["pass"]
_COLOR_ACTS = {colors: [{"type": "color", "color": c} for c in colors] for colors in (_DAY, _NIGHT)}
_MATCHING: dict[tuple[str | None, str], frozenset[str]] = {}


def _matching(color: str | None, sym: str) -> frozenset[str]:
    """Faces that may be played on a top of symbol `sym` with `color` active:
    same color, same symbol, or any wild (before table-specific limits)."""
    key = (color, sym)
    found = _MATCHING.get(key)
    if found is None:
        found = _MATCHING[key] = frozenset(
            f for f in _ALL_FACES if f[0] == "W" or COLOR_OF[f] == color or SYM_OF[f] == sym
        )
    return found


# The plays an ordinary turn offers at a plain table (no 7-0, no strict +4, no
# Shield): active color -> top face -> {matching face: its plays (a wild once
# per color)}. The active color says which side is up (day or night colors).
# Built on first use from the shared prebuilt dicts, which never leave the engine.
_PLAYS_ON: dict[str, dict[str, dict[str, list[dict[str, Any]]]]] = {}


def _plays_on(color: str | None, top: str, face: int) -> dict[str, list[dict[str, Any]]]:
    colors = _NIGHT if face else _DAY
    found = {f: (_WILD_PLAYS[f, colors] if f[0] == "W" else [_PLAY[f]]) for f in _matching(color, SYM_OF[top])}
    if color is not None:  # (a turn always has one; without it the face is not implied)
        _PLAYS_ON.setdefault(color, {})[top] = found
    return found


def shuffle(rng: random.Random, items: list) -> None:
    """Shuffle `items` in place from `rng`: sort by 64-bit keys drawn at once.

    A uniform permutation (up to a 2**-50-ish chance of a key tie, which the
    stable sort breaks by position), several times faster than
    `random.shuffle`, and the same on every machine for the same seed.
    """
    n = len(items)
    if n > 1:
        keys = array("Q", rng.getrandbits(64 * n).to_bytes(8 * n, "little"))
        if sys.byteorder == "big":
            keys.byteswap()
        order = sorted(range(n), key=keys.tolist().__getitem__)  # (a list's ints are cheaper to fetch)
        items[:] = itemgetter(*order)(items)  # n > 1: a tuple


def _plain_copy(value: Any) -> Any:
    """A deep copy of plain data (dicts, lists, scalars)."""
    if type(value) is dict:
        return {k: _plain_copy(v) for k, v in value.items()}
    if type(value) is list:
        return [_plain_copy(v) for v in value]
    return value


# Faces whose play does more than set the color and pass the turn.
SPECIAL = {f: (SYM_OF[f] in ("S", "R", "A", "B", "T", "7", "0") or f in ("WC", "WH")) for f in _ALL_FACES}

# Faces whose play at a plain table (no 7-0, no Shield) only sets the color and
# passes the turn: no penalty, no effect (a 7 or 0 is plain without 7-0).
PLAIN_PLAY = {
    f: KIND_OF[f] is None and SYM_OF[f] not in ("S", "R", "A", "B", "T", "H") and f not in ("WC", "WH")
    for f in _ALL_FACES
}

_ACTION_KEY_FIELDS = ("type", "card", "color", "swap_with", "seat", "call")




class _Points(dict):
    """face -> points at one table, filled from its `card_points` on first use."""

    def __init__(self, spec: Table):
        super().__init__()
        self.spec = spec

    def __missing__(self, code: str) -> int:
        value = self[code] = self.spec.card_points(code)
        return value


_POINTS: dict[str, _Points] = {}  # table name -> its points


def daily_seed(date: str) -> int:
    """The seed of the `cards` daily deal for a UTC date `YYYY-MM-DD`.

    Raises:
        ValueError: `date` is not of the form YYYY-MM-DD.
    """
    parts = date.split("-") if isinstance(date, str) else []
    if len(parts) != 3 or not all(p.isdigit() for p in parts) or len(parts[0]) != 4:
        raise ValueError(f"the daily date must read YYYY-MM-DD, not {date!r}")
    digest = hashlib.sha256(f"lanmatch-daily-{date}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


class ColorMatch:
    """One Color Match game (a single round, or a match to a points target).

    See the module docstring for how it works, and SPEC section 3 for the API.
    """

    game = "colormatch"

    # Slots: a game holds more attributes than a shared-key instance dict
    # keeps (30), and every rule reads them; slot access is the cheapest.
    __slots__ = (
        "_cache", "_call", "_ev_n", "_event_lists", "_events", "_plain", "_private", "_to_act", "blast",
        "clock", "clock_fresh", "color", "color_then", "cur", "daily", "daynight", "dir", "disc", "disc_far",
        "drawn", "face", "fars", "first_seat", "fuse", "fuse_fresh", "hands", "idle", "jump_in", "ladder",
        "mode", "n", "options", "outcome", "pend_cards", "pend_kind", "pending", "phase", "pile", "pile_far",
        "queue", "rng", "round", "scores", "seven_o", "shields", "shown", "spec", "stacking", "step",
        "strict_wild4", "table", "target", "teams", "turns", "w4", "windows", "_turn_legal",
        "_draw_with_play", "_pub", "_pub_was", "_seldom_was", "_own_keys", "_pub_changes", "_private_shown", "_private_of",
    )

    def __init__(
        self,
        table: str = "classic",
        players: int = 4,
        seed: int = 0,
        options: dict[str, Any] | None = None,
        deck: list[str] | None = None,
        first_seat: int | None = None,
    ):
        """Deal the first round.

        Raises:
            ValueError: unknown table, players outside 2-6 (3 for a daily
                deal), an option the table does not have or a bad option value,
                a rigged deck that is not exactly the table's cards, or a
                `first_seat` outside the table.
        """
        if table not in TABLES:
            raise ValueError(f"unknown table {table!r}; expected one of {', '.join(TABLES)}")
        spec = self.spec = TABLES[table]
        self.table = table
        if type(players) is not int or not 2 <= players <= 6:
            raise ValueError(f"Color Match seats 2 to 6 players, not {players!r}")
        self.n = players
        opts = dict(options or {})
        for k in opts:
            if k not in spec.options:
                allowed = ", ".join(spec.options) or "none"
                raise ValueError(f"table {table!r} has no option {k!r} (options: {allowed})")
        for k in ("stacking", "jump_in", "seven_o", "strict_wild4"):
            if k in opts and not isinstance(opts[k], bool):
                raise ValueError(f"option {k!r} takes true or false, not {opts[k]!r}")
        self.stacking = bool(opts.get("stacking", False))
        self.jump_in = bool(opts.get("jump_in", False))
        self.seven_o = bool(opts.get("seven_o", False))
        self.strict_wild4 = bool(opts.get("strict_wild4", False))
        self.teams = T.check(opts["teams"], players) if "teams" in opts else False  # partners (rules/teams.py)
        mode = opts.get("mode", "single")
        if mode not in ("single", "match", "daily") or (mode == "daily" and "date" not in spec.options):
            raise ValueError(f"mode {mode!r} is not played at table {table!r}")
        target = opts.get("target", spec.default_target if mode == "match" else 0)
        if type(target) is not int or target < 0:
            raise ValueError(f"target must be a whole number of points, not {target!r}")
        self.mode = "match" if (mode == "single" and target) else mode
        self.target = target if self.mode == "match" else 0
        self.daily = None
        if mode == "daily":
            if players != DAILY_PLAYERS:
                raise ValueError(f"the daily deal is played by exactly {DAILY_PLAYERS} players")
            self.daily = opts.get("date")
            seed = daily_seed(self.daily)
        elif "date" in opts:
            raise ValueError("option 'date' goes with mode 'daily'")
        if first_seat is not None and (type(first_seat) is not int or not 0 <= first_seat < players):
            raise ValueError(f"first_seat must be a seat 0-{players - 1}, not {first_seat!r}")
        self.options = opts
        self.rng = random.Random(seed)
        self.ladder = dict(spec.ladder)
        self.queue = spec.queue or self.stacking
        self.daynight = spec.deck == "daynight"
        self._call = spec.call
        self._draw_with_play = spec.draw_with_play
        # No per-card conditions beyond color/symbol (no 7-0, strict +4, Shield).
        self._plain = not (self.seven_o or self.strict_wild4 or spec.deck == "siege")
        self.scores = [0] * players
        self.turns = [0] * players  # times each seat was handed the turn, whole match
        self.round = 0
        self.step = 0
        self.outcome: dict[str, Any] | None = None
        self._events: list[dict[str, Any]] = []
        # for a prefix of `_events` (filled by `view`): each event's keys holding lists
        self._event_lists: list[tuple[str, ...]] = []
        self._private: dict[int, tuple[int, list[str]]] = {}
        # a private event as the seat it belongs to sees it (its cards added), once built (`_view`)
        self._private_shown: dict[int, dict[str, Any]] = {}
        self._private_of: list[list[int]] = [[] for _ in range(players)]  # each seat's keys of `_private`, in order
        self._pub_was: dict[str, Any] | None = None  # the last `_pub` built (of an earlier state, this round or one before)
        # (`_pub_was`'s step, `_pub`'s step, what changed between their views): `shared_view_changes`
        self._pub_changes: tuple[int, int, tuple[dict[str, Any], tuple[str, ...]]] | None = None
        self._seldom_was: dict[str, Any] | None = None  # the `_seldom` part `_pub_was` was built from
        # the keys of a seat's view that are its own and may change (`seat` does not)
        self._own_keys = tuple(k for k in OWN_VIEW_KEYS if k != "seat" and (k != "far" or self.daynight))
        self._ev_n = 0
        self._deal(deck, first_seat)

    # ------------------------------------------------------------------ setup

    def _fresh_deck(self, rigged: list[str] | None) -> tuple[list[str], list[str] | None]:
        """The deck to deal, top first: its active faces and (Day & Night) far faces."""
        if self.daynight:
            days, nights = C.day_faces(), C.night_faces()
            if rigged is None:
                shuffle(self.rng, days)
                shuffle(self.rng, nights)
                return days, nights
            try:
                pairs = [c.split("/") for c in rigged]
                d = [p[0] for p in pairs]
                nn = [p[1] for p in pairs]
            except (AttributeError, IndexError):
                raise ValueError("a Day & Night deck is written DAY/NIGHT, e.g. R5/P+5") from None
            if sorted(d) != sorted(days) or sorted(nn) != sorted(nights) or any(len(p) != 2 for p in pairs):
                raise ValueError("a rigged Day & Night deck must hold every day and night face once")
            return d, nn
        full = list(_DECKS[self.spec.deck])
        if rigged is None:
            shuffle(self.rng, full)
            return full, None
        if not isinstance(rigged, list) or sorted(map(str, rigged)) != sorted(full):
            raise ValueError(f"a rigged deck for {self.table!r} must hold exactly its {len(full)} cards")
        return list(rigged), None

    def _deal(self, rigged: list[str] | None, first_seat: int | None) -> None:
        n = self.n
        faces, fars = self._fresh_deck(rigged)
        self.round += 1
        self.face = 0
        h = self.spec.hand
        k = h * n
        self.hands = [faces[s * h : (s + 1) * h] for s in range(n)]
        rest = faces[k:]
        if fars is not None:
            self.fars = [fars[s * h : (s + 1) * h] for s in range(n)]
            rest_far = fars[k:]
        else:
            self.fars = None
            rest_far = None
        # Turn the starter: non-numbers (or a standard +4) go to the bottom.
        for _ in range(len(rest)):
            top = rest[0]
            bad = (not NUMBER_FACE[top]) if self.spec.number_starter else (top == "W+4")
            if not bad:
                break
            rest.append(rest.pop(0))
            if rest_far is not None:
                rest_far.append(rest_far.pop(0))
        else:
            raise ValueError("the deck has no card that may start the pile")
        starter = rest.pop(0)
        self.disc = [starter]
        self.pile = rest[::-1]
        if rest_far is not None:
            self.disc_far = [rest_far.pop(0)]
            self.pile_far = rest_far[::-1]
        else:
            self.disc_far = self.pile_far = None
        self.color = COLOR_OF[starter]
        self.dir = 1
        self.pending = 0
        self.pend_kind: str | None = None
        self.pend_cards = 0
        self.w4: dict[str, Any] | None = None
        self.shown: dict[int, dict[str, Any]] = {}
        self.fuse: int | None = None
        self.fuse_fresh = False
        self.blast = 0
        self.clock: int | None = None
        self.clock_fresh = False
        self.shields: dict[int, str] = {}
        self.windows: dict[int, tuple[bool, bool]] = {}  # seat -> (may call, may be caught)
        self.idle = 0
        self.drawn = -1
        self.color_then = TURN
        if first_seat is None:
            first_seat = self.rng.randrange(n)
        self.first_seat = first_seat
        self._cache: dict[int, list[tuple]] = {}
        # the turn seat's cached legal actions while they are only plays of
        # type/card/color, draw and pass (no calls, no window, nothing shown)
        self._turn_legal: list[dict[str, Any]] | None = None
        self._to_act: list[int] | None = None
        self._pub: dict[str, Any] | None = None  # the public part of this state's shared views (`_view`)
        self._emit({"type": "deal", "round": self.round, "top": starter, "first": first_seat})
        self.cur = first_seat
        self.phase = TURN
        self.turns[first_seat] += 1
        if self.spec.starter_effects:
            sym = SYM_OF[starter]
            if sym == "S":
                self._emit({"type": "skipped", "seat": first_seat})
                self._handoff(self._next(first_seat))
            elif sym == "R":
                self.dir = -1
                self._emit({"type": "reverse", "direction": -1})
            elif sym == "+2":
                got = self._draw(first_seat, 2)
                self._emit({"type": "penalty", "seat": first_seat, "count": got})
                self._handoff(self._next(first_seat))
            elif starter == "W":
                self.phase = COLOR
                self.color_then = TURN

    # ----------------------------------------------------------- small tools

    def _emit(self, event: dict[str, Any], private: tuple[int, list[str]] | None = None) -> dict:
        n = event["n"] = self._ev_n = self._ev_n + 1
        events = self._events
        events.append(event)
        if private is not None:
            self._private[n] = private
            self._private_of[private[0]].append(n)
        if len(events) > _EVENTS_KEPT:
            self._forget_events()
        return event

    def _forget_events(self) -> None:
        """Drop the oldest `EVENT_MEMORY` events (and their private parts)."""
        del self._events[:EVENT_MEMORY]
        del self._event_lists[:EVENT_MEMORY]  # a prefix of the events: it stays one
        floor = self._events[0]["n"]
        for key in [k for k in self._private if k < floor]:
            del self._private[key]
            self._private_shown.pop(key, None)
        for mine in self._private_of:
            while mine and mine[0] < floor:
                del mine[0]

    def _next(self, seat: int, steps: int = 1) -> int:
        return (seat + self.dir * steps) % self.n

    def _colors(self) -> tuple[str, ...]:
        return _NIGHT if self.face else _DAY

    def _drawable(self) -> bool:
        return bool(self.pile) or len(self.disc) > 1

    def _reshuffle(self) -> None:
        """Shuffle the discards under the top card back into the draw pile."""
        top = self.disc.pop()
        pile = self.disc
        if self.disc_far is not None:
            top_far = self.disc_far.pop()
            both = list(zip(pile, self.disc_far, strict=True))
            shuffle(self.rng, both)
            self.pile = [a for a, _ in both]
            self.pile_far = [b for _, b in both]
            self.disc_far = [top_far]
        else:
            shuffle(self.rng, pile)
            self.pile = pile
        self.disc = [top]
        self._emit({"type": "reshuffle", "draw_pile": len(self.pile)})

    def _draw(self, seat: int, count: int, until: str | None = None) -> int:
        """Draw up to `count` cards into `seat`'s hand; returns how many came.

        With `until`, stop right after a card of that color (Color Hunt).
        """
        if count == 1 and self.pile and self.fars is None:  # the common case
            card = self.pile.pop()
            self.hands[seat].append(card)
            self._emit({"type": "draw", "seat": seat, "count": 1}, (seat, [card]))
            return 1
        hand = self.hands[seat]
        got = []
        for _ in range(count):
            if not self.pile:
                if len(self.disc) <= 1:
                    break
                self._reshuffle()
            card = self.pile.pop()
            got.append(card)
            if self.fars is not None:
                self.fars[seat].append(self.pile_far.pop())
            if until is not None and COLOR_OF[card] == until:
                break
        hand.extend(got)
        if got:
            self._emit({"type": "draw", "seat": seat, "count": len(got)}, (seat, got))
        return len(got)

    # ------------------------------------------------------------- public API

    @property
    def to_act(self) -> list[int]:
        """Seats that may act now (several while a last-card window is open)."""
        if not self.windows and not self.jump_in and self.outcome is None:
            return [self.cur]
        seats = self._to_act
        if seats is None:
            seats = self._to_act = self._compute_to_act()
        return seats[:]

    def _compute_to_act(self) -> list[int]:
        if self.outcome is not None:
            return []
        if not self.windows and not self.jump_in:
            return [self.cur]
        seats = {self.cur}
        for s, (may_call, catchable) in self.windows.items():
            if may_call:
                seats.add(s)
            if catchable:
                seats.update(o for o in range(self.n) if o != s)
        if self._jump_open():
            top = self.disc[-1]
            seats.update(s for s in range(self.n) if top in self.hands[s])
        return sorted(seats)

    def _jump_open(self) -> bool:
        return (
            self.jump_in
            and self.phase == TURN
            and not self.pending
            and not self.windows
            and COLOR_OF[self.disc[-1]] is not None
        )

    def legal_actions(self, seat: int) -> list[dict[str, Any]]:
        """Every action `seat` may take now, each in full (a wild once per color).

        An empty list for a seat that may not act (or one not at the table).
        """
        cache = self._cache
        legal = cache.get(seat)
        if legal is not None:
            return list(map(dict.copy, legal))
        if seat != self.cur and not self.windows and not self.jump_in:
            return []  # (only the turn seat may act: `to_act`)
        # (the phase is never TURN once the game has its outcome)
        if self.phase == TURN and seat is self.cur and not self.windows and self._plain:
            # the common case: an ordinary turn at a plain table, in hand order
            hand = self.hands[seat]
            top = self.disc[-1]
            try:
                plays = _PLAYS_ON[self.color][top]
            except KeyError:
                plays = _plays_on(self.color, top, self.face)
            out = cache[seat] = []
            seen = None  # the playable cards met, each offered once
            for card in hand:
                if card in plays:
                    if seen is None:
                        seen = [card]
                    elif card in seen:
                        continue
                    else:
                        seen.append(card)
                    out += plays[card]
            if self._draw_with_play or not out:
                out.append(_DRAW if (self.pile or len(self.disc) > 1) else _PASS)
            if self._call and len(hand) == 2:
                self._add_calls(out)
            elif not self.shown:
                self._turn_legal = out
            return list(map(dict.copy, out))
        if type(seat) is not int:
            return []
        return list(map(dict.copy, self._compute_legal(seat)))

    def _legal(self, seat: int) -> list[dict[str, Any]]:
        """The cached legal actions of `seat` (computed on first use per state)."""
        out = self._cache.get(seat)
        return self._compute_legal(seat) if out is None else out

    def _compute_legal(self, seat: int) -> list[dict[str, Any]]:
        """Compute and cache the legal actions of `seat` (not cached yet)."""
        cache = self._cache
        out = cache[seat] = []
        if self.outcome is not None or not 0 <= seat < self.n:
            return out
        if seat == self.cur and not self.windows:
            self._main_legal(seat, out)
            if self._call and len(self.hands[seat]) == 2:
                self._add_calls(out)
            return out
        if seat == self.cur:
            self._main_legal(seat, out)
        elif self._jump_open():
            top = self.disc[-1]
            if top in self.hands[seat]:
                self._add_play(seat, top, out)
        for s, (may_call, catchable) in self.windows.items():
            if s == seat and may_call:
                out.append(_SIMPLE["call"])
            elif s != seat and catchable:
                out.append({"type": "catch", "seat": s})
        if self._call and len(self.hands[seat]) == 2:
            self._add_calls(out)
        return out

    def _add_calls(self, out: list[dict[str, Any]]) -> None:
        """Play-and-call: each play that leaves one card is offered a second
        time carrying the call (`"call": true`), after the plain plays. Not a
        7 or 0 under 7-0: the hand you end with is not the one you called."""
        calls = [
            {**a, "call": True}
            for a in out
            if a["type"] == "play" and not (self.seven_o and SYM_OF[a["card"]] in ("7", "0"))
        ]
        out += calls

    def _add_play(self, seat: int, card: str, out: list[dict[str, Any]]) -> None:
        """Add the play of `card` in every form it may take."""
        if card[0] == "W":
            out += _WILD_PLAYS[card, self._colors()]
        elif self.seven_o and SYM_OF[card] == "7" and len(self.hands[seat]) > 1:
            for s in range(self.n):
                if s != seat:
                    out.append({"type": "play", "card": card, "swap_with": s})
        else:
            out.append(_PLAY[card])

    def _playable(self, seat: int, card: str) -> bool:
        """May `card` be played in an ordinary turn (no pile waiting)?"""
        col = COLOR_OF[card]
        if col is None:
            if card == "W+4" and self.strict_wild4:
                return not self._has_match(seat)
            return True
        sym = SYM_OF[card]
        if sym == "H" and seat in self.shields:
            return False
        return col == self.color or sym == SYM_OF[self.disc[-1]]

    def _has_match(self, seat: int) -> bool:
        """Does the hand hold a colored card matching by color or symbol?"""
        color, top_sym = self.color, SYM_OF[self.disc[-1]]
        return any(COLOR_OF[c] == color or SYM_OF[c] == top_sym for c in self.hands[seat] if c[0] != "W")

    def _answers(self, card: str) -> bool:
        """May `card` answer the waiting penalty pile?"""
        if SYM_OF[card] == "H":  # Siege: a Shield of any color cancels a pile
            return True
        return KIND_OF[card] in self.ladder.get(self.pend_kind, ())

    def _main_legal(self, seat: int, out: list[dict[str, Any]]) -> None:
        phase = self.phase
        hand = self.hands[seat]
        if phase == TURN:
            # Candidates by color or symbol (and every wild), in hand order.
            key = (self.color, SYM_OF[self.disc[-1]])
            ms = _MATCHING.get(key) or _matching(*key)
            cards = [c for c in hand if c in ms]
            if len(cards) > 1:
                cards = list(dict.fromkeys(cards))  # each card once
            if self._plain:
                for card in cards:
                    if card[0] == "W":
                        out += _WILD_PLAYS[card, self._colors()]
                    else:
                        out.append(_PLAY[card])
                can_play = bool(cards)
            else:
                can_play = False
                for card in cards:
                    if self._playable(seat, card):
                        can_play = True
                        self._add_play(seat, card, out)
            if self.spec.draw_with_play or not can_play:
                out.append(_SIMPLE["draw" if (self.pile or len(self.disc) > 1) else "pass"])
        elif phase == DRAWN:
            self._add_play(seat, hand[self.drawn], out)
            out.append(_SIMPLE[self.spec.decline])
        elif phase == PILE:
            seen = set()
            for card in hand:
                if card not in seen:
                    seen.add(card)
                    if self._answers(card):
                        self._add_play(seat, card, out)
            out.append(_SIMPLE["draw"])
        elif phase == CHALLENGE:
            out.append(_SIMPLE["accept"])
            if self.pend_cards == 1:
                out.append(_SIMPLE["challenge"])
            if self.stacking and "W+4" in hand:
                self._add_play(seat, "W+4", out)
        elif phase == COLOR:
            out += _COLOR_ACTS[self._colors()]

    def act(self, seat: int, action: dict[str, Any]) -> list[dict[str, Any]]:
        """Apply `action` for `seat`; return the public events it caused.

        Raises:
            IllegalAction: the game is over, the seat is not at the table or
                may not act now, the action is malformed or not allowed by the
                rules now. The state is unchanged.
        """
        # The commonest case first: the turn seat (`is`: an int, not True)
        # plays, draws or passes in an ordinary turn, by a plain dict equal to
        # one of its cached legal actions, none of which carries an int.
        legal = self._turn_legal
        if legal is not None and seat is self.cur and type(action) is dict and action in legal:
            mark = self._ev_n
            typ = action["type"]
            if typ == "play":
                card = action["card"]
                hand = self.hands[seat]
                if PLAIN_PLAY[card] and len(hand) > 2 and self.fars is None:
                    # `_play` of a card that only sets the color and passes the
                    # turn, by the turn seat keeping two cards or more
                    hand.remove(card)  # the first copy, as `_play` takes it
                    self.idle = 0
                    n = self._ev_n = mark + 1
                    events = self._events
                    color = action.get("color")
                    if color is None:
                        event = {"type": "play", "seat": seat, "card": card, "n": n}
                        self.color = COLOR_OF[card]
                    else:
                        event = {"type": "play", "seat": seat, "card": card, "color": color, "n": n}
                        self.color = color
                    events.append(event)
                    if len(events) > _EVENTS_KEPT:
                        self._forget_events()
                    self.disc.append(card)
                    seat = (seat + self.dir) % self.n
                    if self.fuse is None and self.clock is None and not self.pending:  # `_handoff`'s first case
                        self.cur = seat
                        self.turns[seat] += 1
                        self.drawn = -1
                        self.phase = TURN
                        self.step += 1
                        self._cache = {}
                        self._to_act = self._turn_legal = self._pub = None
                        return [event.copy()]  # the one event
                    self._handoff(seat)
                else:
                    self._play(seat, card, action.get("color"), None)
            elif typ == "draw":
                self._do_draw(seat)
            else:
                self._apply(seat, (typ, None, None, None, None))
            return self._stepped(mark)
        # Then any plain dict equal to one of the seat's cached legal actions,
        # of no kind that needs its ints checked strictly. A cached list that
        # is not empty means the game is on and the seat real.
        legal = self._cache.get(seat) if type(seat) is int else None
        if (
            legal
            and type(action) is dict
            and action in legal
            and "seat" not in action
            and "swap_with" not in action
            and "call" not in action
        ):
            mark = self._ev_n
            typ = action["type"]
            if self.windows or self.shown:
                self._apply(seat, (typ, action.get("card"), action.get("color"), None, None))
            elif typ == "play":
                self._play(seat, action["card"], action.get("color"), None)
            elif typ == "draw":
                self._do_draw(seat)
            else:
                self._apply(seat, (typ, action.get("card"), action.get("color"), None, None))
            return self._stepped(mark)
        if self.outcome is not None:
            raise IllegalAction("The game is over.")
        if type(seat) is not int or not 0 <= seat < self.n:
            raise IllegalAction(f"There is no seat {seat!r} at this table (seats 0-{self.n - 1}).")
        if not isinstance(action, dict):
            raise IllegalAction("An action is a map with a 'type', e.g. {'type': 'draw'}.")
        mark = self._ev_n
        legal = self._cache.get(seat)
        if legal is None:
            legal = self._legal(seat)
        get = action.get
        if action in legal and "seat" not in action and "swap_with" not in action and "call" not in action:
            typ = action["type"]
            if self.windows or self.shown:
                self._apply(seat, (typ, get("card"), get("color"), None, None))
            elif typ == "play":  # the common cases, straight to their rule
                self._play(seat, action["card"], get("color"), None)
            elif typ == "draw":
                self._do_draw(seat)
            else:
                self._apply(seat, (typ, get("card"), get("color"), None, None))
        else:
            typ = get("type")
            if typ not in ACTION_TYPES:  # a tuple: no hashing of untrusted values
                raise IllegalAction(f"Unknown action type {typ!r}; expected one of {', '.join(ACTION_TYPES)}.")
            if typ == "expire":
                self._expire(seat, action)
            else:
                calling = get("call", False)
                key = (typ, get("card"), get("color"), get("swap_with"), get("seat"), calling)
                clean = {f: action[f] for f in _ACTION_KEY_FIELDS if f in action}
                if calling is False:
                    clean.pop("call", None)  # "call": false is the plain play
                if (
                    clean not in legal
                    or (key[3] is not None and type(key[3]) is not int)
                    or (key[4] is not None and type(key[4]) is not int)
                    or type(calling) is not bool
                ):
                    raise IllegalAction(self._why(seat, key))
                self._apply(seat, key)
        self.step += 1
        self._cache = {}
        self._to_act = self._turn_legal = self._pub = None
        fresh = self._ev_n - mark
        return list(map(dict.copy, self._events[-fresh:])) if fresh else []

    # ----------------------------------------------------------- applying

    def _apply(self, seat: int, key: tuple) -> None:
        typ = key[0]
        if self.shown:
            self.shown = {}
        if typ == "call":
            del self.windows[seat]
            self._emit({"type": "call", "seat": seat})
            return
        if typ == "catch":
            caught = key[4]
            del self.windows[caught]
            got = self._draw(caught, 2)
            self._emit({"type": "caught", "seat": caught, "by": seat, "count": got})
            return
        if self.windows and seat == self.cur and self.spec.call == "standard":
            self.windows.clear()  # the next player's action closes the window
        if typ == "play":
            self._play(seat, key[1], key[2], key[3], len(key) > 5 and key[5] is True)
        elif typ == "draw":
            self._do_draw(seat)
        elif typ in ("keep", "pass"):
            if self.phase == DRAWN:
                self._emit({"type": typ, "seat": seat})
            else:
                self.idle += 1
                self._emit({"type": "pass", "seat": seat})
                if self.idle >= self.n:
                    self._end_round(None)
                    return
            self._handoff(self._next(seat))
        elif typ == "accept":
            got = self._take_pile(seat)
            self._emit({"type": "accept", "seat": seat, "count": got})
            self._handoff(self._next(seat))
        elif typ == "challenge":
            self._challenge(seat)
        elif typ == "color":
            self.color = key[2]
            self._emit({"type": "color", "seat": seat, "color": key[2]})
            self._begin_turn(seat, self.color_then)
        self._prune_windows()

    def _prune_windows(self) -> None:
        if not self.windows:
            return
        for s in [s for s in self.windows if len(self.hands[s]) != 1]:
            del self.windows[s]

    def _take_pile(self, seat: int) -> int:
        want = self.pending
        self.pending, self.pend_kind, self.pend_cards, self.w4 = 0, None, 0, None
        got = self._draw(seat, want)
        if got < want:
            self._emit({"type": "lapsed", "seat": seat, "count": want - got})
        return got

    def _do_draw(self, seat: int) -> None:
        if self.phase == PILE:
            got = self._take_pile(seat)
            self._emit({"type": "penalty", "seat": seat, "count": got})
            self.idle = 0 if got else self.idle + 1
            if self.idle >= self.n:
                self._end_round(None)
                return
            self._handoff(self._next(seat))
            return
        self.idle = 0
        hand = self.hands[seat]
        pile = self.pile
        if pile and self.fars is None:  # `_draw(seat, 1)`'s common case, written out
            card = pile.pop()
            hand.append(card)
            n = self._ev_n = self._ev_n + 1
            events = self._events
            events.append({"type": "draw", "seat": seat, "count": 1, "n": n})
            self._private[n] = (seat, [card])
            self._private_of[seat].append(n)
            if len(events) > _EVENTS_KEPT:
                self._forget_events()
        else:
            self._draw(seat, 1)
        if self._playable(seat, hand[-1]):
            self.phase = DRAWN
            self.drawn = len(hand) - 1
        else:
            self._handoff((seat + self.dir) % self.n)

    def _challenge(self, seat: int) -> None:
        w4 = self.w4
        player = w4["player"]
        if self.spec.challenge == "standard":
            self.shown = {seat: {"seat": player, "hand": list(w4["hand"])}}
        self.pending, self.pend_kind, self.pend_cards, self.w4 = 0, None, 0, None
        if w4["guilty"]:
            got = self._draw(player, 4)
            self._emit({"type": "challenge", "seat": seat, "of": player, "won": True, "count": got})
            self.phase = TURN  # the challenger takes the turn normally
        else:
            got = self._draw(seat, 6)
            self._emit({"type": "challenge", "seat": seat, "of": player, "won": False, "count": got})
            self._handoff(self._next(seat))

    def _discard(self, card: str, far: str | None) -> None:
        self.disc.append(card)
        if far is not None:
            self.disc_far.append(far)

    def _play(self, seat: int, card: str, color: str | None, swap: int | None, call: bool = False) -> None:
        phase = self.phase
        before = self.color
        if seat != self.cur:  # jump-in: play continues from the jumper
            self._emit({"type": "jump_in", "seat": seat})
            self.cur = seat
        hand = self.hands[seat]
        i = self.drawn if phase == DRAWN else hand.index(card)
        del hand[i]
        far = self.fars[seat].pop(i) if self.fars is not None else None
        self.idle = 0
        sym = SYM_OF[card]
        out = not hand
        # `_emit` written out, for the most frequent event
        n = self._ev_n = self._ev_n + 1
        events = self._events
        if color is None:
            events.append({"type": "play", "seat": seat, "card": card, "n": n})
        else:
            events.append({"type": "play", "seat": seat, "card": card, "color": color, "n": n})
        if len(events) > _EVENTS_KEPT:
            self._forget_events()

        # Siege Shield: cancel a waiting pile, or stand in front of the player.
        if sym == "H":
            if phase == PILE:
                self.pending, self.pend_kind, self.pend_cards = 0, None, 0
                self._discard(card, far)
                self.color = COLOR_OF[card]
                self._emit({"type": "shield_cancel", "seat": seat})
            elif out:
                self._discard(card, far)
            else:
                self.shields[seat] = card
                self._emit({"type": "shield_stand", "seat": seat})
            if out:
                self._end_round(seat)
            else:
                self._handoff(self._next(seat))
            return

        self.disc.append(card)
        if far is not None:
            self.disc_far.append(far)
        self.color = color if color is not None else COLOR_OF[card]
        kind = KIND_OF[card]
        if out:
            if kind is not None and self.spec.last_card_resolves:
                victim = self._next(seat)
                want = self.pending + C.DRAW_AMOUNT[kind]
                self.pending, self.pend_cards = 0, 0
                got = self._draw(victim, want)
                self._emit({"type": "penalty", "seat": victim, "count": got})
            self._end_round(seat)
            return

        if kind is not None:
            if kind == "+4" and self.spec.challenge and phase != CHALLENGE:
                self.w4 = {
                    "player": seat,
                    "guilty": any(COLOR_OF[c] == before for c in hand),
                    "hand": list(hand),
                }
            self.pending += C.DRAW_AMOUNT[kind]
            self.pend_kind = kind
            self.pend_cards += 1
        if self.seven_o:
            if sym == "7" and swap is not None:
                self.hands[seat], self.hands[swap] = self.hands[swap], self.hands[seat]
                self._emit({"type": "swap", "seat": seat, "with": swap})
            elif sym == "0":
                hands = self.hands
                self.hands = [hands[(s - self.dir) % self.n] for s in range(self.n)]
                self._emit({"type": "rotate", "direction": self.dir})
        if self._call and len(self.hands[seat]) == 1:  # after any 7-0 swap
            self._emit({"type": "last_card", "seat": seat})
            if call:  # play-and-call: the window opens and closes at once
                self._emit({"type": "call", "seat": seat})
            else:
                self.windows[seat] = (True, self._call == "standard")

        if not SPECIAL[card]:
            self._handoff((seat + self.dir) % self.n)
        elif sym == "S":
            self._emit({"type": "skipped", "seat": self._next(seat)})
            self._handoff(self._next(seat, 2))
        elif sym == "R":
            self.dir = -self.dir
            self._emit({"type": "reverse", "direction": self.dir})
            self._handoff(self._next(seat, 2 if self.n == 2 else 1))
        elif sym == "A":
            self._emit({"type": "all_pass", "seat": seat})
            self._handoff(seat)
        elif sym == "B":
            if self.fuse is not None:
                self.blast += 2
            else:
                self.blast = 4
            self.fuse, self.fuse_fresh = 3, True
            self._emit({"type": "fuse", "fuse": 3, "blast": self.blast})
            self._handoff(self._next(seat))
        elif card == "WC":
            self.clock, self.clock_fresh = 3, True
            self._emit({"type": "clock", "clock": 3})
            self._handoff(self._next(seat))
        elif card == "WH":
            victim = self._next(seat)
            got = self._draw(victim, len(self.pile) + len(self.disc), until=color)
            self._emit({"type": "hunt", "seat": victim, "color": color, "count": got})
            self._handoff(self._next(seat, 2))
        elif sym == "T":
            self._flip(seat)
            if self.disc[-1][0] == "W":
                self.phase = COLOR
                self.color_then = "handoff"
                self.cur = seat
            else:
                self._handoff(self._next(seat))
        else:
            self._handoff((seat + self.dir) % self.n)

    def _flip(self, seat: int | None) -> None:
        """Turn the whole table over (Day & Night)."""
        self.face ^= 1
        for s in range(self.n):
            self.hands[s], self.fars[s] = self.fars[s], self.hands[s]
        self.pile, self.pile_far = self.pile_far, self.pile
        self.disc, self.disc_far = self.disc_far, self.disc
        top = self.disc[-1]
        self.color = COLOR_OF[top]
        self._emit({"type": "flip", "face": "night" if self.face else "day", "top": top, "by": seat})

    # ------------------------------------------------------------- hand-offs

    def _stepped(self, mark: int) -> list[dict[str, Any]]:
        """After a fast path applied an action: the step counted, the caches
        dropped; the caller's copies of the events emitted since event `mark`."""
        self.step += 1
        self._cache = {}
        self._to_act = self._turn_legal = self._pub = None
        fresh = self._ev_n - mark
        if fresh == 1:
            return [self._events[-1].copy()]
        return list(map(dict.copy, self._events[-fresh:])) if fresh else []

    def _handoff(self, seat: int) -> None:
        """Hand the turn to `seat`: count fuses and clocks, deliver penalty piles."""
        if self.fuse is None and self.clock is None and not self.pending:
            self.cur = seat
            self.turns[seat] += 1
            self.drawn = -1
            self.phase = TURN
            return
        while True:
            self.cur = seat
            self.turns[seat] += 1
            self.drawn = -1
            name_color = False
            if self.fuse is not None:
                if self.fuse_fresh:
                    self.fuse_fresh = False
                else:
                    self.fuse -= 1
                    if self.fuse == 0:
                        blast, self.fuse, self.blast = self.blast, None, 0
                        got = self._draw(seat, blast)
                        self._emit({"type": "blast", "seat": seat, "count": got})
            if self.clock is not None:
                if self.clock_fresh:
                    self.clock_fresh = False
                else:
                    self.clock -= 1
                    if self.clock == 0:
                        self.clock = None
                        self._flip(None)
                        name_color = self.disc[-1][0] == "W"
            if self.pending and seat in self.shields:
                shield = self.shields.pop(seat)
                self.disc.insert(len(self.disc) - 1, shield)
                self.pending, self.pend_kind, self.pend_cards = 0, None, 0
                self._emit({"type": "shield_absorb", "seat": seat})
            if self.pending and not self.queue and not (self.pend_kind == "+4" and self.spec.challenge):
                got = self._take_pile(seat)
                self._emit({"type": "penalty", "seat": seat, "count": got})
                seat = self._next(seat)
                continue
            if name_color:
                self.phase = COLOR
                self.color_then = TURN
            else:
                self._begin_turn(seat, TURN)
            return

    def _begin_turn(self, seat: int, then: str) -> None:
        if then == "handoff":
            self._handoff(self._next(seat))
            return
        self.cur = seat
        if self.pending:
            self.phase = CHALLENGE if (self.pend_kind == "+4" and self.spec.challenge) else PILE
        else:
            self.phase = TURN

    def _expire(self, seat: int, action: dict[str, Any]) -> None:
        """The host ends a timed window of `seat` (SPEC section 3, `expire`)."""
        penalty = action.get("penalty", False)
        if not isinstance(penalty, bool):
            raise IllegalAction("'penalty' of an expire is true or false.")
        if seat in self.windows:
            self.shown = {}
            may_call, catchable = self.windows[seat]
            if penalty:
                del self.windows[seat]
                got = self._draw(seat, 2)
                self._emit({"type": "missed_call", "seat": seat, "count": got})
            elif may_call and not catchable:
                self.windows[seat] = (False, True)
                self._emit({"type": "catchable", "seat": seat})
            else:
                del self.windows[seat]
                self._emit({"type": "window_closed", "seat": seat})
            return
        if self.phase == DRAWN and seat == self.cur and self.spec.decline == "keep":
            card = self.hands[seat][self.drawn]
            color = None
            if card[0] == "W":
                held = [COLOR_OF[c] for i, c in enumerate(self.hands[seat]) if i != self.drawn]
                color = max(self._colors(), key=lambda c: held.count(c))
            self._apply(seat, ("play", card, color, None, None))
            return
        raise IllegalAction(f"Seat {seat} has no timed window to expire now.")

    # ------------------------------------------------------------- scoring

    def _points(self, code: str) -> int:
        return self.spec.card_points(code)

    def _held_points(self) -> list[int]:
        """The points each hand holds (the table's `card_points`, memoized per face)."""
        pts = _POINTS.get(self.table)
        if pts is None or pts.spec is not self.spec:
            pts = _POINTS[self.table] = _Points(self.spec)
        get = pts.__getitem__
        return [sum(map(get, h)) for h in self.hands]

    def _end_round(self, winner: int | None) -> None:
        n = self.n
        held = self._held_points()
        if self.teams:
            winners, reason, points = self._team_round(winner, held)
        else:
            if winner is not None:
                winners, reason = [winner], "out"
            elif self.spec.blocked == "drawn":
                winners, reason = [], "blocked"
            else:
                low = min((held[s], len(self.hands[s])) for s in range(n))
                winners = [s for s in range(n) if (held[s], len(self.hands[s])) == low]
                reason = "blocked"
            if self.spec.scoring == "classic":
                total = sum(held)
                points = [total - held[s] for s in range(n)]
            else:
                others = sum(held[s] for s in range(n) if s not in winners)
                points = [others if s in winners else 0 for s in range(n)]
        self.windows.clear()
        self.phase = OVER
        self._emit({"type": "round_over", "round": self.round, "winners": winners, "points": points, "reason": reason})
        hands = [list(h) for h in self.hands]
        if self.mode == "match":
            self.scores = [a + b for a, b in zip(self.scores, points, strict=True)]
            best = max(self.scores)
            if best < self.target:
                self._deal(None, (self.first_seat + 1) % n)
                return
            winners = [s for s in range(n) if self.scores[s] == best]
            points = list(self.scores)
        else:
            self.scores = list(points)
        self.outcome = {
            "winners": winners,
            "points": points,
            "reason": reason,
            "hands": hands,
            "turns": list(self.turns),
            "rounds": self.round,
        }
        if self.teams:
            self.outcome["teams"] = T.view_key()
        self._emit({"type": "game_over", "winners": winners, "points": points})

    def _team_round(self, winner: int | None, held: list[int]) -> tuple[list[int], str, list[int]]:
        """Partners: the round's winners (a team), reason and points per seat.

        Going out wins for the seat's team; a blocked round at a "lowest"
        table goes to the team holding fewer points together (equal: no
        team), at a "drawn" table to nobody. The winning team scores what the
        opponents hold ("winner" scoring); at a "classic" table each team
        scores what the other team holds. Both partners carry the team's points.
        """
        if winner is not None:
            winners, reason = T.winners_of(winner), "out"
        elif self.spec.blocked == "drawn":
            winners, reason = [], "blocked"
        else:
            low = T.lowest_team(held)
            winners, reason = ([] if low is None else list(T.TEAMS[low])), "blocked"
        sums = T.team_sums(held)
        if self.spec.scoring == "classic":
            team_points = [sums[1], sums[0]]
        else:
            team_points = [sums[1 - t] if winners and T.team_of(winners[0]) == t else 0 for t in (0, 1)]
        return winners, reason, T.spread(team_points)

    # ------------------------------------------------------------- views

    def view(self, seat: int) -> dict[str, Any]:
        """All that `seat` may see, as plain msgpack-able data.

        Raises:
            IllegalAction: `seat` is not at the table.
        """
        self._seat_at_table(seat)
        return self._view(seat)

    def _seat_at_table(self, seat: Any) -> None:
        if type(seat) is not int or not 0 <= seat < self.n:
            raise IllegalAction(f"There is no seat {seat!r} at this table (seats 0-{self.n - 1}).")

    def watch_view(self) -> dict[str, Any]:
        """A watcher's view (`seat` None): only what every seat sees (no hand,
        no drawn or shown card, no cards of a draw) and, at Day & Night, every
        seat's far faces."""
        return self._view(None)

    def shared_view(self, seat: int | None) -> dict[str, Any]:
        """`view(seat)` (`watch_view()` for None), equal to it, except that its
        events are the engine's own objects, not copies: for a caller that
        changes nothing it is given (the referee, whose views are built once
        per state, then only read and sent). An event is never changed once
        emitted, and the ones kept hold only what every seat sees: a seat's
        own cards of a draw are added to a copy of that event, for that seat."""
        if seat is not None:
            self._seat_at_table(seat)
        return self._view(seat, True)

    def _view(self, seat: int | None, shared: bool = False) -> dict[str, Any]:
        """`seat`'s view (None: a watcher's). What every seat sees alike is
        `_public`'s; what is the seat's own (its hand, its cards of a draw, a
        drawn or shown card, the far faces it may see) is added for it alone.
        `shared`: the public part is built once per state and its values, the
        events included, are the engine's own objects, shared by every seat's
        shared view of this state (for a reader that changes nothing)."""
        if shared:
            pub = self._pub
            if pub is None:
                pub = self._pub = self._keep_unchanged(self._often(), self._seldom(), self._events[-EVENT_MEMORY:])
            v = pub.copy()
            events = pub["events"]
            if seat is not None and events and (mine := self._private_of[seat]) and mine[-1] >= events[0]["n"]:
                lo = events[0]["n"]  # events are numbered 1, 2, 3 ... in the order kept
                events = v["events"] = events[:]
                shown_of = self._private_shown
                for n in reversed(mine):
                    if n < lo:
                        break
                    shown = shown_of.get(n)
                    if shown is None:
                        shown = shown_of[n] = {**events[n - lo], "cards": list(self._private[n][1])}
                    events[n - lo] = shown
        else:
            v = self._public(self._event_copies(seat))
        v["seat"] = seat
        if seat is not None:
            v["hand"] = list(self.hands[seat])
        if self.daynight:
            v["far"] = {s: sorted(self.fars[s]) for s in range(self.n) if s != seat}
        if seat in self.shown:
            v["shown"] = self.shown[seat]
        if self.phase == DRAWN and seat == self.cur:
            v["drawn"] = self.hands[seat][self.drawn]
        return v

    def _keep_unchanged(self, often: dict[str, Any], seldom: dict[str, Any],
                        events: list[dict[str, Any]]) -> dict[str, Any]:
        """The public part of a new state's shared views, from its `_often`
        and `_seldom` parts and its `events`: a copy of the last one built (an
        earlier state's) with the values that changed put in, so that every
        value that did not change is that state's object; notes which keys
        changed (`shared_view_changes`). A reader comparing two states' views
        then finds what did not change by identity, and need not look at the
        rest. The part that never changes (`_fixed`) is not looked at; the
        `_seldom` part is looked at key by key only when, all at once, it is
        not equal to the last one built."""
        was, self._pub_changes = self._pub_was, None
        if was is None:
            pub = {**self._fixed(), **often, **seldom, "events": events}
            self._seldom_was = seldom
        else:
            changed = {}
            items: Any = often.items()
            if seldom != self._seldom_was:
                self._seldom_was = seldom
                items = [*items, *seldom.items()]
            for k, v in items:  # (the same keys in every state of an engine)
                o = was[k]
                # (most: the same small number, string, None; the types for values equal
                # but not the same object: 1 and True differ on the wire)
                if o is not v and (o != v or type(o) is not type(v)):
                    changed[k] = v
            pub = was.copy()
            pub.update(changed)
            pub["events"] = events
            self._pub_changes = (was["step"], pub["step"], (changed, self._own_keys))
        self._pub_was = pub
        return pub

    def shared_view_changes(self, since: int, step: int) -> tuple[dict[str, Any], tuple[str, ...]] | None:
        """What may differ (besides `events`) between a seat's (or a
        watcher's) `shared_view` of the state of step `since` and its shared
        view of the state of step `step`: the keys every seat sees alike that
        changed, with their new values (the very objects of every seat's
        view), and the keys that are the seat's own (which may have changed
        or come or gone); None when this is not known (the two are not the
        last two states whose shared views were built)."""
        c = self._pub_changes
        return c[2] if c is not None and c[0] == since and c[1] == step else None

    def _public(self, events: list[dict[str, Any]]) -> dict[str, Any]:
        """A view's keys as a watcher sees them, each value built fresh (`seat`
        None, an empty `hand` and, at Day & Night, an empty `far`, in their
        places, for `_view` to fill)."""
        return {**self._fixed(), **self._moving(), "events": events}

    def _fixed(self) -> dict[str, Any]:
        """The view's keys whose values never change in an engine's life
        (options, mode, target are set when it is made), each value built
        fresh, with the places of the seat's own keys."""
        v: dict[str, Any] = {
            "game": "colormatch",
            "table": self.table,
            "seat": None,
            "players": self.n,
            "hand": [],
            "mode": self.mode,
            "target": self.target,
            "options": dict(self.options),
        }
        if self.daynight:
            v["far"] = {}
        if self.daily is not None:
            v["daily"] = self.daily
        if self.teams:
            v["teams"] = T.view_key()
        return v

    def _moving(self) -> dict[str, Any]:
        """The view's keys, but `_fixed`'s and `events`, that every seat sees
        alike: those that may change from one state to the next, each value
        built fresh. Which keys there are depends on the table only."""
        return {**self._often(), **self._seldom()}

    def _often(self) -> dict[str, Any]:
        """`_moving`'s keys that most actions change."""
        return {
            "counts": [len(h) for h in self.hands],
            "top": self.disc[-1],
            "color": self.color,
            "to_act": self.to_act,
            "turn": self.cur,
            "phase": self.phase,
            "draw_pile": len(self.pile),
            "discards": len(self.disc),
            "step": self.step,
        }

    def _seldom(self) -> dict[str, Any]:
        """`_moving`'s keys that most actions leave as they were. (No value
        here is ever a bool where it was an int, or the other way round:
        `_keep_unchanged` compares them all at once, by value.)"""
        v: dict[str, Any] = {
            "direction": self.dir,
            "pending": self.pending,
            "pending_kind": self.pend_kind,
            "fuse": self.fuse if self.spec.deck == "classic" else self.clock,
            "windows": [
                {"seat": s, "call": c, "catch": k} for s, (c, k) in sorted(self.windows.items())
            ],
            "scores": list(self.scores),
            "round": self.round,
            "outcome": _plain_copy(self.outcome),
        }
        if self.spec.deck == "classic":
            v["blast"] = self.blast if self.fuse is not None else 0
        if self.spec.one_card_banner:
            v["one_card"] = [s for s in range(self.n) if len(self.hands[s]) == 1]
        if self.daynight:
            v["face"] = "night" if self.face else "day"
            v["draw_far"] = self.pile_far[-1] if self.pile_far else None
        if self.spec.deck == "siege":
            v["shields"] = sorted(self.shields)
        return v

    def _event_copies(self, seat: int | None) -> list[dict[str, Any]]:
        """The events a view carries, each the caller's own (its lists too)."""
        # an event is never changed once emitted (every caller of `_emit` passes
        # a fresh literal), so which of its values are lists is found once
        known, emitted = self._event_lists, self._events
        if len(known) < len(emitted):
            known.extend(tuple(k for k, v in e.items() if type(v) is list) for e in emitted[len(known) :])
        events = []
        private = self._private
        for e, lists in zip(emitted[-EVENT_MEMORY:], known[-EVENT_MEMORY:], strict=True):
            e = e.copy()
            for k in lists:
                e[k] = e[k][:]
            p = private.get(e["n"])
            if p is not None and p[0] == seat:
                e["cards"] = list(p[1])
            events.append(e)
        return events

    def cards_in_play(self) -> list[str]:
        """Every physical card at the table (hands, piles, standing Shields).

        For tests and replay checks; never sent to a peer. Day & Night cards are
        written DAY/NIGHT whatever face is up.
        """
        faces = [c for h in self.hands for c in h] + self.pile + self.disc + list(self.shields.values())
        if self.fars is None:
            return faces
        fars = [c for h in self.fars for c in h] + self.pile_far + self.disc_far
        if self.face:
            faces, fars = fars, faces
        return [f"{a}/{b}" for a, b in zip(faces, fars, strict=True)]

    # ------------------------------------------------------------ diagnosis

    def _why(self, seat: int, key: tuple) -> str:
        """A sentence saying why `key` is not legal for `seat` now."""
        typ, card, color = key[0], key[1], key[2]
        if seat not in self.to_act:
            return f"It is not your turn: seat {self.cur} is to play."
        legal = self._legal(seat)
        verbs = sorted({k["type"] for k in legal})
        hand = self.hands[seat]
        if typ == "play":
            if len(key) > 5 and key[5] is not False:
                if type(key[5]) is not bool:
                    return "'call' on a play is true or false."
                if not self._call:
                    return "There is no last-card call at this table."
                if len(hand) != 2:
                    return "'call' goes with the play that leaves you one card."
            if not isinstance(card, str) or not card:
                return "A play names the card, e.g. {'type': 'play', 'card': 'R5'}."
            if card not in COLOR_OF:
                return f"{card!r} is not a Color Match card."
            if card not in hand:
                return f"You do not hold {card}."
            if self.phase == COLOR:
                return "Name the active color first."
            if self.phase == DRAWN and seat == self.cur and card != hand[self.drawn]:
                return f"After drawing you may only play the card you drew ({hand[self.drawn]}) or {self.spec.decline}."
            if self.phase == CHALLENGE and seat == self.cur and card != "W+4":
                return f"A +4 waits on you: accept it{' or challenge it' if self.pend_cards == 1 else ''}."
            if self.phase == PILE and seat == self.cur and not self._answers(card):
                return f"A penalty pile of {self.pending} waits on you: {card} cannot answer it; answer on the ladder or draw it."
            if seat != self.cur:
                return "Out of turn you may only jump in with the very card on top (when jump-in is on)."
            if card[0] == "W":
                if not isinstance(color, str) or color not in self._colors():
                    return f"Name the color for {card}: one of {', '.join(self._colors())}."
                if card == "W+4" and self.strict_wild4:
                    return "+4 Wild is legal only when no other card of yours matches (strict_wild4)."
            elif color is not None:
                return f"{card} has its own color; do not name one."
            if self.seven_o and SYM_OF[card] == "7" and len(hand) > 1:
                if type(key[3]) is not int or not 0 <= key[3] < self.n or key[3] == seat:
                    return "A 7 swaps hands: name another seat with 'swap_with'."
            elif key[3] is not None:
                return "'swap_with' goes only with a 7 when 7-0 is on."
            if SYM_OF[card] == "H" and seat in self.shields:
                return "You already have a standing Shield."
            return f"{card} does not match the top card {self.disc[-1]} (active color {self.color})."
        if typ == "draw":
            if self.phase == DRAWN:
                return f"You have drawn already: play the card or {self.spec.decline}."
            if not self._drawable():
                return "Nothing can be drawn: play or pass."
            if not self.spec.draw_with_play:
                return "At this table you draw only when no card of yours can be played."
        if typ == "pass" and self._drawable() and self.phase == TURN:
            return "You may pass only when nothing can be drawn; draw instead."
        if typ == "color" and self.phase == COLOR:
            return f"{color!r} is not a color here; name one of {', '.join(self._colors())}."
        if typ == "catch":
            return "Nobody can be caught now: catch names a seat whose last-card window is open."
        if typ == "call":
            if self._call and len(hand) == 2 and seat == self.cur:
                return "Your last card is not down yet: call it with the play itself (a play with 'call': true)."
            return "You have no last card to call now."
        if typ == "challenge" and self.phase == CHALLENGE:
            return "Only a lone +4 can be challenged, not a pile."
        return f"You cannot {typ} now; you may: {', '.join(verbs) or 'nothing'}."
