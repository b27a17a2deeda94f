"""Dominoes, the draw game to 100 (SPEC section 6, seed 002), as a pure engine.

    g = Dominoes(players=2, seed=7)
    g.to_act                  # [seat] while the match runs, [] after it
    g.legal_actions(seat)     # [{"type": "play", "tile": "6-4", "end": "left"}, ...]
    g.act(seat, action)       # -> public events; raises IllegalAction(reason)
    g.view(seat)              # what that seat may see, plain msgpack-able data
    g.outcome                 # None, then {"winners", "points", "reason", "hands"}

How this works
--------------
A table (`TABLES`: "dominoes", the double-six set; "double-nine";
"double-twelve") says which set is played and how many tiles each seat is
dealt; `Dominoes(..., table="double-twelve")` plays it. Tiles are numbered in
(high, low) order: 0-0, 1-0, 1-1, 2-0, ..., 6-6 (0..27), ..., 12-12 (90), and
a set's lookup tables (`DominoSet`) are built once per set.
A hand is an int bitmask of tile numbers, so "which of my tiles carry a 4" is
one AND with ``PIP_MASK[4]``. The line is a deque of tile codes written left
pip first; ``_left`` and ``_right`` hold the open ends (both None before the
round's first tile).

Exactly one seat acts at a time (``_turn``). Its legal actions are computed
once per state and cached as small int keys: a play is ``tile * 2 + end``
(end 0 left, 1 right), then ``DRAW`` and ``PASS``. ``act`` turns the caller's
dict into such a key and looks it up in the cache, so nothing the caller holds
(and might mutate later) is trusted, and every check happens before anything
changes: a rejected action leaves the state exactly as it was.

A round that ends is scored inside the ``act`` that ended it, and unless the
match is over the next round is dealt at once from the game's own seeded RNG.
So after every ``act`` either one seat is to act or ``outcome`` is set. The
engine never reads a clock and never touches the global ``random``.

Decisions the seed leaves open are listed in docs/rules/dominoes.md.
"""

from __future__ import annotations

import random
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Any

from lanmatch.rules.errors import IllegalAction
from lanmatch.rules.teams import TEAMS, lowest_team, team_of, team_sums, view_key, winners_of
from lanmatch.rules.teams import check as check_teams

TARGET = 100
"""Match points that end the match (``options={"target": N}`` changes it)."""

HAND_SIZE = {2: 7, 3: 5, 4: 5}
"""Tiles dealt to each seat at the double-six table, by player count."""

EVENT_LOG = 30
"""How many of the latest public events a view carries."""

ENDS = ("left", "right")


class DominoSet:
    """The tiles of a double-`top` set and the lookup tables the engine plays with.

    Tile numbers run in (high, low) order: 0-0, 1-0, 1-1, 2-0, ..., top-top, so
    the double-six tiles keep numbers 0..27 in every bigger set. A tile is
    written HIGH-LOW in decimal ("6-4", "12-10"); either pip order is read.
    """

    def __init__(self, top: int):
        self.top = top
        self.stride = top + 1
        self.tiles: tuple[str, ...] = tuple(f"{hi}-{lo}" for hi in range(top + 1) for lo in range(hi + 1))
        self.pips: tuple[tuple[int, int], ...] = tuple((hi, lo) for hi in range(top + 1) for lo in range(hi + 1))
        self.size = len(self.tiles)
        self.mask: tuple[int, ...] = tuple(
            sum(1 << i for i, pips in enumerate(self.pips) if p in pips) for p in range(top + 1)
        )
        self.index: dict[str, int] = {}
        for i, (hi, lo) in enumerate(self.pips):
            self.index[f"{hi}-{lo}"] = i
            self.index[f"{lo}-{hi}"] = i
        self.lead_order: tuple[int, ...] = tuple(
            sorted(
                range(self.size),
                key=lambda i: (self.pips[i][0] == self.pips[i][1], sum(self.pips[i]), self.pips[i][0]),
                reverse=True,
            )
        )
        self.draw = 2 * self.size
        self.pass_ = self.draw + 1
        n = self.stride
        # other[tile * n + p]: the pip of `tile` left open when its p side is matched;
        # written[tile * n + p]: `tile` written with pip p first ("3-6").
        self.other = [0] * (self.size * n)
        self.written = [""] * (self.size * n)
        for i, (hi, lo) in enumerate(self.pips):
            self.other[i * n + hi] = lo
            self.other[i * n + lo] = hi
            self.written[i * n + hi] = f"{hi}-{lo}"
            self.written[i * n + lo] = f"{lo}-{hi}"
        self.action: list[dict[str, Any]] = [
            {"type": "play", "tile": self.tiles[k >> 1], "end": ENDS[k & 1]} for k in range(self.draw)
        ]
        self.action.append({"type": "draw"})
        self.action.append({"type": "pass"})
        self.hand_order = tuple(range(self.size - 1, -1, -1))  # a hand listed top-top first


_SETS: dict[int, DominoSet] = {}


def domino_set(top: int) -> DominoSet:
    """The (shared, read-only) double-`top` set."""
    s = _SETS.get(top)
    if s is None:
        s = _SETS[top] = DominoSet(top)
    return s


@dataclass(frozen=True)
class DominoTable:
    """A Dominoes table: which set it plays and how many tiles each seat is dealt.

    Carries the registry's table protocol fields (`lanmatch/rules/registry.py`)
    and its own seat range: `hands` maps each player count it seats to the
    tiles dealt per seat (docs/rules/dominoes.md has the table of them).
    """

    name: str
    title: str
    top: int  # the set's highest pip: 6, 9, 12
    hands: dict[int, int] = field(default_factory=dict)
    default_clock: int = 90
    timed_keep: bool = False
    timed_calls: bool = False
    palette: str | None = None
    brief: str = ""
    max_target: int = 500
    options: tuple[str, ...] = ("teams",)  # on/off options it accepts (besides `target`): partners, rules/teams.py

    @property
    def min_players(self) -> int:
        return min(self.hands)

    @property
    def max_players(self) -> int:
        return max(self.hands)

    @property
    def tiles(self) -> int:
        return domino_set(self.top).size


#: The Dominoes tables, the default (double-six, the seed's) first. The
#: registry holds this very dict.
TABLES: dict[str, DominoTable] = {
    "dominoes": DominoTable(name="dominoes", title="Double-six", top=6, hands=dict(HAND_SIZE)),
    "double-nine": DominoTable(
        name="double-nine", title="Double-nine", top=9, hands={2: 10, 3: 10, 4: 10, 5: 8, 6: 8},
        brief="A double-nine set of 55 tiles, 2 to 6 players; ten tiles each (eight with five or six).",
    ),
    "double-twelve": DominoTable(
        name="double-twelve", title="Double-twelve", top=12, hands={2: 15, 3: 15, 4: 15, 5: 12, 6: 12},
        brief="A double-twelve set of 91 tiles, 2 to 6 players; fifteen tiles each (twelve with five or six).",
    ),
}

_SIX = domino_set(6)
#: Tile codes by tile number (double-six): "0-0", "1-0", "1-1", "2-0", ..., "6-6".
TILES: tuple[str, ...] = _SIX.tiles
#: (high, low) pips by tile number (double-six).
TILE_PIPS: tuple[tuple[int, int], ...] = _SIX.pips
#: Bitmask of the double-six tiles that carry pip p, for p in 0..6.
PIP_MASK: tuple[int, ...] = _SIX.mask
#: Tile number by code; either pip order is understood ("6-4" and "4-6").
TILE_INDEX: dict[str, int] = _SIX.index
#: Who leads a round: the highest double dealt, else the heaviest tile
#: (ties: the tile with the higher end). The first tile in this order that
#: any hand holds is the lead.
LEAD_ORDER: tuple[int, ...] = _SIX.lead_order
DRAW = _SIX.draw
PASS = _SIX.pass_


def pip_count(hand: int, pips: tuple[tuple[int, int], ...] = TILE_PIPS) -> int:
    """Pips on the tiles of a hand bitmask (of the set whose `pips` are given)."""
    total = 0
    while hand:
        low = hand & -hand
        hi, lo = pips[low.bit_length() - 1]
        total += hi + lo
        hand ^= low
    return total


def match_winners(totals: list[int], target: int = TARGET) -> list[int] | None:
    """Who won a match with these totals, or None while nobody has `target`.

    Several seats past the target: the higher total wins; equal highest totals
    are a draw, which returns an empty list. (Only a round's winner scores, so
    in play at most one seat crosses the target in a round; the rule is kept
    for the seed's sake and tested directly.)
    """
    top = max(totals)
    if top < target:
        return None
    leaders = [seat for seat, total in enumerate(totals) if total == top]
    return leaders if len(leaders) == 1 else []


def parse_deck(deck: Any, dset: DominoSet = _SIX) -> list[int]:
    """Tile numbers of a rigged deck (top first) of the set `dset` (default double-six).

    Raises:
        ValueError: not a list of exactly the tiles of that set, each once
            (either pip order, "6-4" or "4-6", is accepted).
    """
    size, top = dset.size, dset.top
    if not isinstance(deck, list | tuple):
        raise ValueError(f"deck must be a list of the {size} tiles, top first, e.g. ['{top}-{top}', '{top}-{top - 1}', ...]")
    tiles = []
    for code in deck:
        tile = dset.index.get(code) if isinstance(code, str) else None
        if tile is None:
            raise ValueError(f"deck holds {code!r}, which is not a double-{_NUMBER_WORD.get(top, top)} tile")
        tiles.append(tile)
    if len(tiles) != size or len(set(tiles)) != size:
        doubled = sorted(dset.tiles[t] for t, n in Counter(tiles).items() if n > 1)
        missing = sorted(dset.tiles[t] for t in set(range(size)) - set(tiles))
        raise ValueError(
            f"deck must hold each of the {size} tiles exactly once "
            f"(got {len(tiles)}; repeated: {doubled or 'none'}; missing: {missing or 'none'})"
        )
    return tiles


_NUMBER_WORD = {6: "six", 9: "nine", 12: "twelve"}


def _short(value: Any) -> str:
    """`repr(value)` cut to a length fit for an error sentence (peers send garbage)."""
    try:
        text = repr(value)
    except ValueError:  # an int too long to print
        return f"a {type(value).__name__} that long"
    return text if len(text) <= 24 else text[:21] + "..."


def event_dict(record: tuple) -> dict[str, Any]:
    """The public event dict for a log record (a fresh dict that shares nothing).

    The log keeps events as immutable tuples ``(n, type, ...)``; this is the
    catalogue of what each public event says. ``n`` numbers events across the
    whole match, so an observer can tell whether it missed any.
    """
    n, kind = record[0], record[1]
    if kind == "play":  # the tile, the end it went on, the open ends after it
        return {"n": n, "type": kind, "seat": record[2], "tile": record[3], "end": record[4],
                "ends": [record[5], record[6]]}
    if kind == "draw":  # a seat drew one tile (never shown) facing these ends
        return {"n": n, "type": kind, "seat": record[2], "ends": [record[3], record[4]],
                "boneyard": record[5]}
    if kind == "pass":  # a seat could not follow these ends with an empty boneyard
        return {"n": n, "type": kind, "seat": record[2], "ends": [record[3], record[4]]}
    if kind == "deal":  # a round was dealt; seat `lead` opens it (its tile shows when played)
        return {"n": n, "type": kind, "round": record[2], "counts": list(record[3]),
                "boneyard": record[4], "lead": record[5]}
    if kind == "round_end":  # pips left per seat; the winner (None: tie) scored `points`;
        # `hands`: every seat's rack as the round ended (revealed: the round is over)
        out = {"n": n, "type": kind, "round": record[2], "reason": record[3],
               "winner": record[4], "pips": list(record[5]), "points": record[6],
               "scores": list(record[7]), "hands": [list(h) for h in record[8]]}
        if len(record) > 9:  # partners: both seats of the winning team scored `points`
            out["winners"] = list(record[9])
        return out
    # match_end: winners (empty for a draw), match points per seat, last round's reason
    return {"n": n, "type": kind, "winners": list(record[2]), "points": list(record[3]),
            "reason": record[4]}


class Dominoes:
    """One Dominoes match: rounds dealt and scored until a seat reaches the target.

    Raises (constructor):
        ValueError: a player count the table does not seat (2..4 at
            double-six, 2..6 at the bigger sets), an unknown table, a seed
            that is not an int, str or bytes, options that are not a dict, an
            unknown option or a bad target, or a rigged deck that is not the
            table's full set.
    """

    def __init__(
        self,
        players: int,
        seed: int | str | bytes,
        options: dict[str, Any] | None = None,
        deck: list[str] | None = None,
        table: str | DominoTable = "dominoes",
    ):
        spec = table if isinstance(table, DominoTable) else TABLES.get(table)  # type: ignore[arg-type]
        if spec is None:
            raise ValueError(f"Dominoes has no table {table!r}; expected one of {', '.join(TABLES)}")
        if type(players) is not int or players not in spec.hands:
            raise ValueError(
                f"dominoes ({spec.title.lower()}) seats {spec.min_players} to {spec.max_players} players, not {players!r}"
            )
        if not isinstance(seed, int | str | bytes) or isinstance(seed, bool):
            raise ValueError(f"seed must be an int, str or bytes, not {type(seed).__name__}")
        if options is not None and not isinstance(options, dict):
            raise ValueError(f"options must be a dict, not {type(options).__name__}")
        options = dict(options or {})
        target = options.pop("target", TARGET)
        teams = check_teams(options.pop("teams"), players) if "teams" in options else False
        if options:
            raise ValueError(f"unknown dominoes option(s): {', '.join(map(str, options))}")
        if type(target) is not int or target < 1:
            raise ValueError(f"target must be a positive whole number of points, not {target!r}")
        dset = domino_set(spec.top)
        rigged = parse_deck(deck, dset) if deck is not None else None

        self.spec = spec
        self.dset = dset
        self._hand_size = spec.hands[players]
        self._tiles = dset.tiles
        self._tpips = dset.pips
        self._mask = dset.mask
        self._draw_key = dset.draw
        self._pass_key = dset.pass_
        self.players = players
        self.target = target
        self.teams = teams  # partners: seats 0+2 against 1+3 (rules/teams.py)
        self._rng = random.Random(seed)
        self._scores = [0] * players
        self._hands = [0] * players
        self._boneyard: list[int] = []  # bottom first: pop() draws the top
        self._line: deque[str] = deque()
        self._left: int | None = None
        self._right: int | None = None
        self._lead: int | None = None  # the tile that must open the round
        self._turn: int | None = None
        self._passes = 0  # passes in a row
        self._round = 0
        self._step = 0
        self._n = 0  # number of the latest event
        self._events: deque[tuple] = deque(maxlen=EVENT_LOG)  # records; see event_dict
        self._legal: list[int] | None = None
        self._outcome: dict[str, Any] | None = None
        self._deal(rigged, [])

    # ------------------------------------------------------------------ reading

    @property
    def to_act(self) -> list[int]:
        """Seats that may act now: the seat whose turn it is, none once the match is over."""
        return [] if self._turn is None else [self._turn]

    @property
    def outcome(self) -> dict[str, Any] | None:
        """None while the match runs; then winners (empty for a draw), match points, reason,
        and `hands`: every seat's rack as the last round ended."""
        o = self._outcome
        if o is None:
            return None
        return {"winners": o["winners"].copy(), "points": o["points"].copy(), "reason": o["reason"],
                "hands": [h.copy() for h in o["hands"]]}

    def legal_actions(self, seat: int) -> list[dict[str, Any]]:
        """The actions `seat` may take now (fresh dicts); empty for a seat that may not act.

        In order: plays (tile by tile, left end before right), or the lone
        draw or pass when no tile plays.
        """
        if type(seat) is not int or seat != self._turn:
            return []
        keys = self._legal or self._compute_legal()
        action = self.dset.action
        return [action[k].copy() for k in keys]

    def view(self, seat: int) -> dict[str, Any]:
        """All that `seat` may see, as plain msgpack-able data (str keys, lists, ints).

        Raises:
            ValueError: `seat` is not a seat of this game.
        """
        if type(seat) is not int or not 0 <= seat < self.players:
            raise ValueError(f"no seat {_short(seat)} at this {self.players}-player table")
        return self._view(seat)

    def watch_view(self) -> dict[str, Any]:
        """A watcher's view (`seat` None): no rack, and `pips` 0."""
        return self._view(None)

    def _view(self, seat: int | None) -> dict[str, Any]:
        hand = self._hands[seat] if seat is not None else 0
        left = self._left
        return {
            "game": "dominoes",
            "set": self.dset.top,
            "seat": seat,
            "players": self.players,
            "round": self._round,
            "step": self._step,
            "turn": self._turn,
            "to_act": self.to_act,
            "hand": [self._tiles[i] for i in self.dset.hand_order if hand >> i & 1],
            "pips": pip_count(hand, self._tpips),
            "counts": [h.bit_count() for h in self._hands],
            "line": list(self._line),
            "ends": None if left is None else [left, self._right],
            "boneyard": len(self._boneyard),
            "passes": self._passes,
            "scores": self._scores.copy(),
            "target": self.target,
            "events": [event_dict(r) for r in self._events],
            "outcome": self.outcome,
            **({"teams": view_key()} if self.teams else {}),
        }

    # ------------------------------------------------------------------ acting

    def act(self, seat: int, action: dict[str, Any]) -> list[dict[str, Any]]:
        """Apply `action` for `seat` and return the public events it caused.

        A play needs `tile` (either pip order) and `end` ("left"/"right"); the
        end may be left out, and either end means the same, while the line is
        empty or both ends show the same pips.

        Raises:
            IllegalAction: the match is over; `seat` is not a seat or not the
                seat to act; `action` is not a dict or has an unknown type; the
                tile is not a domino, not held, does not fit, or not the tile
                that must open the round; the end is wrong, missing when it
                matters, or not "left"/"right"; a draw or pass while a tile
                plays; a draw from an empty boneyard; a pass while it has
                tiles. The state is unchanged.
        """
        if type(seat) is not int or seat != self._turn or not isinstance(action, dict):
            self._reject_caller(seat, action)
        key = self._key(action)
        keys = self._legal or self._compute_legal()
        if key not in keys:
            raise IllegalAction(self._why_illegal(key))
        self._step += 1
        self._legal = None
        if key < self._draw_key:
            records = self._play(seat, key >> 1, key & 1)
        elif key == self._draw_key:
            records = self._draw(seat)
        else:
            records = self._pass(seat)
        if len(records) == 1:
            return [event_dict(records[0])]
        return [event_dict(r) for r in records]

    # ------------------------------------------------------------------ internals

    def _compute_legal(self) -> list[int]:
        """Cache and return the legal keys of the seat to act."""
        if self._lead is not None:
            keys = [self._lead << 1]
        else:
            hand = self._hands[self._turn]  # type: ignore[index]
            left, right = self._left, self._right
            keys = []
            mask = self._mask
            fits = hand & mask[left]  # type: ignore[index]
            if right != left:
                fits_right = hand & mask[right]  # type: ignore[index]
                fits |= fits_right
            else:
                fits_right = 0
            while fits:
                low = fits & -fits
                fits ^= low
                tile = low.bit_length() - 1
                hi, lo = self._tpips[tile]
                if hi == left or lo == left:
                    keys.append(tile << 1)
                if low & fits_right:
                    keys.append(tile << 1 | 1)
            if not keys:
                keys.append(self._draw_key if self._boneyard else self._pass_key)
        self._legal = keys
        return keys

    def _reject_caller(self, seat: Any, action: Any) -> None:
        """Raise the IllegalAction for a wrong seat or a non-dict action."""
        if self._outcome is not None:
            raise IllegalAction("The match is over; no more moves can be made.")
        if type(seat) is not int:
            raise IllegalAction(f"A seat is a whole number from 0 to {self.players - 1}, not {_short(seat)}.")
        if not 0 <= seat < self.players:
            raise IllegalAction(f"There is no seat {_short(seat)} at this {self.players}-player table.")
        if seat != self._turn:
            raise IllegalAction(f"It is seat {self._turn}'s turn, not seat {seat}'s.")
        raise IllegalAction(
            'An action is a map such as {"type": "play", "tile": "6-4", "end": "left"}, '
            f"not {type(action).__name__}."
        )

    def _key(self, action: dict[str, Any]) -> int:
        """Normalize an action dict to its key.

        Raises:
            IllegalAction: unknown type, a tile that is not a domino, or a bad
                or missing end.
        """
        kind = action.get("type")
        if kind == "play":
            code = action.get("tile")
            tile = self.dset.index.get(code) if type(code) is str else None
            if tile is None:
                raise IllegalAction(
                    f'{_short(code)} is not a domino; write a tile as HIGH-LOW, e.g. "6-4".'
                )
            end = action.get("end")
            # Both ends are None on an empty line, so this also covers the
            # round's first tile: there the end makes no difference.
            if self._left == self._right:
                if end is not None and end != "left" and end != "right":
                    raise IllegalAction(f'The end is "left" or "right", not {_short(end)}.')
                return tile << 1
            if end == "left":
                return tile << 1
            if end == "right":
                return tile << 1 | 1
            if end is None:
                raise IllegalAction(f'Say which end to play {self._tiles[tile]} on: "left" or "right".')
            raise IllegalAction(f'The end is "left" or "right", not {_short(end)}.')
        if kind == "draw":
            return self._draw_key
        if kind == "pass":
            return self._pass_key
        raise IllegalAction(f"Unknown action type {_short(kind)}; dominoes knows play, draw and pass.")

    def _why_illegal(self, key: int) -> str:
        """A player's sentence for a well-formed action that is not legal now."""
        hand = self._hands[self._turn]  # type: ignore[index]
        left, right = self._left, self._right
        can_play = self._legal[0] < self._draw_key  # type: ignore[index]
        if key == self._draw_key:
            if can_play:
                return "You hold a tile that plays, so you cannot draw; draw only when no tile fits."
            return "The boneyard is empty, so you cannot draw; pass instead."
        if key == self._pass_key:
            if can_play:
                return "You hold a tile that plays, so you cannot pass."
            return f"You may pass only when the boneyard is empty; draw a tile ({len(self._boneyard)} left)."
        tile, end = key >> 1, key & 1
        code = self._tiles[tile]
        if not hand >> tile & 1:
            return f"You do not hold {code}."
        if self._lead is not None:
            return f"Round {self._round} opens with {self._tiles[self._lead]}: play that tile first."
        pips = self._tpips[tile]
        if left not in pips and right not in pips:
            return f"{code} matches neither open end ({left} on the left, {right} on the right)."
        here, there = (left, "right") if end == 0 else (right, "left")
        return f"{code} does not match the {ENDS[end]} end ({here}); play it on the {there} end."

    def _record(self, *fields: Any) -> tuple:
        """Number an event record ``(type, ...)``, keep it in the public log, return it."""
        self._n += 1
        record = (self._n, *fields)
        self._events.append(record)
        return record

    def _play(self, seat: int, tile: int, end: int) -> list[tuple]:
        hand = self._hands[seat] ^ (1 << tile)
        self._hands[seat] = hand
        if self._lead is not None:
            self._left, self._right = self._tpips[tile]
            self._line.append(self._tiles[tile])
            self._lead = None
        else:
            dset = self.dset
            at = tile * dset.stride
            if end == 0:
                other = dset.other[at + self._left]  # type: ignore[operator]
                self._line.appendleft(dset.written[at + other])
                self._left = other
            else:
                right = self._right
                self._line.append(dset.written[at + right])  # type: ignore[operator]
                self._right = dset.other[at + right]  # type: ignore[operator]
        self._passes = 0
        self._n += 1
        record = (self._n, "play", seat, self._tiles[tile], ENDS[end], self._left, self._right)
        self._events.append(record)
        if hand:
            seat += 1
            self._turn = 0 if seat == self.players else seat
            return [record]
        records = [record]
        self._end_round("out", seat, records)
        return records

    def _draw(self, seat: int) -> list[tuple]:
        tile = self._boneyard.pop()
        self._hands[seat] |= 1 << tile
        return [self._record("draw", seat, self._left, self._right, len(self._boneyard))]

    def _pass(self, seat: int) -> list[tuple]:
        self._passes += 1
        records = [self._record("pass", seat, self._left, self._right)]
        if self._passes == self.players:
            self._end_round("blocked", None, records)
        else:
            seat += 1
            self._turn = 0 if seat == self.players else seat
        return records

    def _end_round(self, reason: str, out: int | None, records: list[tuple]) -> None:
        """Score the round that just ended; then end the match or deal the next round."""
        pips = [pip_count(h, self._tpips) for h in self._hands]
        if self.teams:
            winner, won, points = self._team_round(out, pips)
        else:
            if out is not None:
                winner: int | None = out  # the seat that went out wins, even beside a lone 0-0
            else:
                low = min(pips)
                winner = pips.index(low) if pips.count(low) == 1 else None
            points = 0 if winner is None else sum(pips) - pips[winner]
            won = () if winner is None else (winner,)
        for seat in won:
            self._scores[seat] += points
        scores = tuple(self._scores)
        order = self.dset.hand_order
        racks = tuple(tuple(self._tiles[i] for i in order if h >> i & 1) for h in self._hands)
        records.append(
            self._record("round_end", self._round, reason, winner, tuple(pips), points, scores, racks,
                         *((won,) if self.teams else ()))
        )
        if self.teams:
            team = match_winners([scores[0], scores[1]], self.target)  # both partners carry the team's score
            winners = None if team is None else [s for t in team for s in winners_of(t)]
        else:
            winners = match_winners(self._scores, self.target)
        if winners is None:
            self._deal(None, records)
            return
        self._turn = None
        self._outcome = {"winners": winners, "points": list(scores), "reason": reason,
                         "hands": [list(r) for r in racks]}
        records.append(self._record("match_end", tuple(winners), scores, reason))

    def _team_round(self, out: int | None, pips: list[int]) -> tuple[int | None, tuple[int, ...], int]:
        """Partners: the round's winning seat (the one out, or the winning
        team's partner with fewer pips; None: nobody), the seats that score
        (both partners) and the points each scores.

        The seat that went out wins for its team; a blocked round goes to the
        team whose partners hold fewer pips together (equal: nobody). The
        winning team scores the pips the opponents hold.
        """
        sums = team_sums(pips)
        if out is not None:
            team: int | None = team_of(out)
            winner: int | None = out
        else:
            team = lowest_team(pips)
            winner = None if team is None else min(TEAMS[team], key=lambda s: (pips[s], s))
        if team is None:
            return None, (), 0
        return winner, TEAMS[team], sums[1 - team]

    def _deal(self, rigged: list[int] | None, records: list[tuple]) -> None:
        """Deal a round (from `rigged`, else shuffled by the game's RNG) and set its lead."""
        if rigged is None:
            tiles = list(range(self.dset.size))
            self._rng.shuffle(tiles)
        else:
            tiles = rigged
        size = self._hand_size
        hands = self._hands
        for seat in range(self.players):
            mask = 0
            for tile in tiles[seat * size : (seat + 1) * size]:
                mask |= 1 << tile
            hands[seat] = mask
        self._boneyard = tiles[self.players * size :][::-1]
        self._line.clear()
        self._left = self._right = None
        self._passes = 0
        self._round += 1
        for tile in self.dset.lead_order:  # pragma: no branch - some tile is always dealt
            bit = 1 << tile
            for seat in range(self.players):
                if hands[seat] & bit:
                    break
            else:
                continue
            break
        self._lead = tile
        self._turn = seat
        self._legal = [tile << 1]
        records.append(
            self._record("deal", self._round, (size,) * self.players, len(self._boneyard), seat)
        )
