"""The contract of the Color Match engine, checked on seeded random playouts.

STYLE example 5: one contract for every table. For each of the six tables, 2-6
players and (where the table has them) its house options, random playouts check
that

* a legal action exists until the game ends, exactly the seats in `to_act` have
  one, and the game ends within a generous bound;
* every card is conserved at every step;
* every legal action applies, and illegal or malformed ones raise
  `IllegalAction` and change nothing;
* no view shows a card its seat may not see (SPEC section 10, STYLE example 1);
* every view is plain data that round-trips through msgpack;
* the same seed and actions replay to the same game, and the deal is a
  function of the seed alone;
* the outcome agrees with the hands it shows (who wins, who scores what);
* what the engine hands out (views, events, legal actions) is the caller's
  own data.

A hypothesis state machine also walks the engine with actions of its own
choosing (legal ones, host expires, garbage), and the view auditor is shown
to catch planted leaks, so it cannot pass vacuously.

The checks are split over a few test functions (each over every table) so that
one broken rule does not hide the others; they share the playout policy and the
view auditor below. Decks are written out here from SPEC section 5, not taken
from the engine, so a wrong deck fails too.
"""

from __future__ import annotations

import copy
import os
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from lanmatch.rules import IllegalAction, new_game

TABLES = ("standard", "toll", "classic", "daynight", "siege", "cards")
KEEP_TABLES = ("classic", "daynight", "siege")  # decline a drawn card with `keep`
EACH_SEAT_SCORES = ("classic", "daynight", "siege")  # every seat scores all points held minus its own

# ----------------------------------------------------------------- decks (SPEC 5)

DAY, NIGHT = "RYGB", "PTOV"


def _standard() -> list[str]:
    deck = []
    for c in DAY:
        deck.append(c + "0")
        for sym in ("1", "2", "3", "4", "5", "6", "7", "8", "9", "S", "R", "+2"):
            deck += [c + sym] * 2
    return deck + ["W"] * 4 + ["W+4"] * 4


def _faces(colors: str, syms: tuple[str, ...], wilds: tuple[str, str]) -> list[str]:
    faces = [c + s for c in colors for s in syms for _ in range(2)]
    return faces + [wilds[0]] * 4 + [wilds[1]] * 4


NUMS = tuple(str(i) for i in range(1, 10))
DAY_FACES = sorted(_faces(DAY, (*NUMS, "+1", "S", "R", "T"), ("W", "WC")))
NIGHT_FACES = sorted(_faces(NIGHT, (*NUMS, "+5", "A", "R", "T"), ("W", "WH")))
DECKS = {
    "standard": sorted(_standard()),
    "toll": sorted(_standard()),
    "cards": sorted(_standard()),
    "classic": sorted(_standard() + [c + "B" for c in DAY]),
    "siege": sorted(_standard() + [c + "H" for c in DAY]),
}
DECK_SIZE = {t: len(DECKS[t]) if t in DECKS else len(DAY_FACES) for t in TABLES}  # (Day & Night: its day faces)
# every face a table can show (its active faces)
TABLE_FACES = {t: sorted(set(d)) for t, d in DECKS.items()}
TABLE_FACES["daynight"] = sorted(set(DAY_FACES) | set(NIGHT_FACES))
ALL_FACES = frozenset(f for faces in TABLE_FACES.values() for f in faces)


def is_card_code(s: Any) -> bool:
    """A face code, or a two-faced `DAY/NIGHT` code (which no view may hold)."""
    if not isinstance(s, str):
        return False
    if s in ALL_FACES:
        return True
    parts = s.split("/")
    return len(parts) == 2 and all(p in ALL_FACES for p in parts)


# ------------------------------------------------------------------- cases


@dataclass(frozen=True)
class Case:
    table: str
    players: int
    seed: int
    options: dict[str, Any] = field(default_factory=dict)

    def new(self):
        return new_game(
            "colormatch",
            table=self.table,
            players=self.players,
            seed=self.seed,
            options=dict(self.options),
        )


_MATCH = st.sampled_from([{}, {}, {"target": 100}])  # now and then a short match


def _options(table: str) -> st.SearchStrategy[dict[str, Any]]:
    if table == "standard":
        flags = st.fixed_dictionaries(
            {"stacking": st.booleans(), "jump_in": st.booleans(), "seven_o": st.booleans()}
        )
    elif table == "cards":
        flags = st.fixed_dictionaries({"stacking": st.booleans(), "strict_wild4": st.booleans()})
    else:
        return st.just({})
    return st.builds(lambda a, b: {**a, **b}, flags, _MATCH)


SEEDS = st.integers(min_value=0, max_value=2**64 - 1)
PLAYERS = st.integers(min_value=2, max_value=6)


def cases(table: str) -> st.SearchStrategy[Case]:
    return st.builds(Case, st.just(table), PLAYERS, SEEDS, _options(table))


ALL_CASES = st.sampled_from(TABLES).flatmap(cases)


def max_steps(case: Case) -> int:
    """A generous bound: random playouts take ~60-600 actions a round."""
    return 20_000 if "target" in case.options else 5_000


# ------------------------------------------------------------------- policy


def expire_candidates(g, table: str) -> list[int]:
    """Seats the host expires in play, read from a view (decisions 8 and 9):
    a `cards` last-card window, a drawn card at a keep table."""
    v = g.view(0)
    seats = []
    if table == "cards":
        seats += [w["seat"] for w in v["windows"]]
    if table in KEEP_TABLES and v["phase"] == "drawn":
        seats.append(v["turn"])
    return seats


def expirable(g, table: str) -> set[int]:
    """Seats the engine must accept an `expire` for: any open last-card window
    (the standard one too: harmless), a drawn card at a keep table."""
    return set(expire_candidates(g, table)) | {w["seat"] for w in g.view(0)["windows"]}


def choose(g, table: str, rng: random.Random) -> tuple[int, dict[str, Any]]:
    """The playout policy: a random acting seat plays a random playable card
    90% of the time when it can, else takes a random legal action. Now and then
    the host expires a timed window (never listed in legal_actions)."""
    exp = expire_candidates(g, table)
    if exp and rng.random() < 0.1:
        return rng.choice(exp), {"type": "expire", "penalty": rng.random() < 0.5}
    seat = rng.choice(g.to_act)
    legal = g.legal_actions(seat)
    plays = [a for a in legal if a["type"] == "play"]
    if plays and rng.random() < 0.9:
        return seat, rng.choice(plays)
    return seat, rng.choice(legal)


def policy_rng(case: Case) -> random.Random:
    return random.Random(f"policy:{case.table}:{case.players}:{case.seed}")


def play_out(case: Case, each=None) -> tuple[Any, list[tuple[int, dict[str, Any]]]]:
    """Play `case` to its end with the policy; call `each(g)` on every state.

    Returns the finished game and its action log.
    """
    g = case.new()
    rng = policy_rng(case)
    log: list[tuple[int, dict[str, Any]]] = []
    while True:
        if each is not None:
            each(g)
        if g.outcome is not None:
            return g, log
        assert len(log) < max_steps(case), f"no outcome after {len(log)} actions"
        seat, action = choose(g, case.table, rng)
        g.act(seat, copy.deepcopy(action))
        log.append((seat, action))


# --------------------------------------------------------------- invariants


def check_to_act(g) -> None:
    """A legal action exists until the end, exactly for the seats in to_act."""
    to_act = g.to_act
    if g.outcome is not None:
        assert to_act == [], f"game over but to_act={to_act}"
    else:
        assert to_act, "game running but nobody may act"
        assert to_act == sorted(set(to_act)), f"to_act not sorted/unique: {to_act}"
    for s in range(g.n):
        legal = g.legal_actions(s)
        if s in to_act:
            assert legal, f"seat {s} is in to_act={to_act} but has no legal action"
        else:
            assert legal == [], f"seat {s} not in to_act={to_act} has legal actions {legal}"


PALETTE = {"day": DAY, "night": NIGHT}
LEGAL_VERBS = {"play", "draw", "keep", "pass", "accept", "challenge", "call", "catch", "color"}


def check_legal_actions(g, table: str) -> None:
    """Each legal action is well formed, listed once, a wild once per color."""
    v = g.view(0)
    colors = PALETTE[v.get("face", "day")]
    for s in g.to_act:
        legal = g.legal_actions(s)
        keys = [tuple(sorted(a.items())) for a in legal]
        assert len(keys) == len(set(keys)), f"seat {s}: duplicate legal actions {legal}"
        hand = g.hands[s]
        wild_colors: dict[str, set[str]] = {}
        for a in legal:
            assert set(a) <= {"type", "card", "color", "swap_with", "seat", "call"}, a
            if "call" in a:  # play-and-call: a play that leaves one card, at a table with a call
                assert a["type"] == "play" and a["call"] is True and len(hand) == 2, a
                assert g.spec.call is not None and {k: v for k, v in a.items() if k != "call"} in legal, a
            assert a["type"] in LEGAL_VERBS, a
            if a["type"] == "play":
                assert a["card"] in hand, f"seat {s} may play {a} but holds {hand}"
                if a["card"].startswith("W"):
                    assert a.get("color") in colors, a
                    wild_colors.setdefault(a["card"], set()).add(a["color"])
                else:
                    assert "color" not in a, a
                if "swap_with" in a:
                    assert table == "standard" and g.options.get("seven_o"), a
                    assert a["card"][1:] == "7" and a["swap_with"] != s, a
            elif a["type"] == "color":
                assert a["color"] in colors, a
            elif a["type"] == "catch":
                assert a["seat"] != s and 0 <= a["seat"] < g.n, a
        for card, named in wild_colors.items():
            assert named == set(colors), f"seat {s}: {card} listed for {sorted(named)} only"


def check_cards(g, case: Case, start: list[str]) -> None:
    """Cards are conserved, and every view's counts add up to the deck."""
    now = sorted(g.cards_in_play())
    assert now == start, (
        f"cards changed: +{Counter(now) - Counter(start)} -{Counter(start) - Counter(now)}"
    )
    v = g.view(0)
    total = sum(v["counts"]) + v["draw_pile"] + v["discards"] + len(v.get("shields", []))
    assert total == DECK_SIZE[case.table], f"counts add up to {total}, not {DECK_SIZE[case.table]}"


def check_deck(case: Case, cards: list[str]) -> None:
    if case.table == "daynight":
        days = sorted(c.split("/")[0] for c in cards)
        nights = sorted(c.split("/")[1] for c in cards)
        assert days == DAY_FACES and nights == NIGHT_FACES, "not the Day & Night deck"
    else:
        assert sorted(cards) == DECKS[case.table], f"not the {case.table} deck"


# ------------------------------------------------------------- view auditor

COMMON_KEYS = {
    "game", "table", "seat", "players", "hand", "counts", "top", "color", "direction",
    "to_act", "turn", "phase", "pending", "pending_kind", "fuse", "draw_pile", "discards",
    "windows", "scores", "round", "mode", "target", "options", "step", "events", "outcome",
}  # fmt: skip
TABLE_KEYS = {
    "standard": set(),
    "toll": set(),
    "cards": set(),
    "classic": {"blast", "one_card"},
    "daynight": {"face", "far", "draw_far", "one_card"},
    "siege": {"shields", "one_card"},
}
OPTIONAL_KEYS = {"shown", "drawn", "daily"}
EVENT_KEYS = {
    "type", "n", "seat", "count", "cards", "card", "color", "round", "top", "first",
    "direction", "by", "of", "won", "fuse", "blast", "clock", "face", "with", "winners",
    "points", "reason", "draw_pile",
}  # fmt: skip


def walk(obj: Any):
    """Yield (path, value) for every value inside `obj`, containers included."""
    stack: list[tuple[tuple, Any]] = [((), obj)]
    while stack:
        path, val = stack.pop()
        yield path, val
        if type(val) is dict:
            stack.extend(((*path, k), x) for k, x in val.items())
        elif type(val) is list:
            stack.extend(((*path, i), x) for i, x in enumerate(val))


def card_allowed_at(view: dict[str, Any], path: tuple) -> bool:
    """May a card code sit at `path` of a view? Only where the seat may see it."""
    head = path[0]
    if head in ("hand", "top", "drawn", "draw_far", "far", "shown"):
        return True  # checked one by one in audit_view
    if head == "outcome":  # every hand is public once the game is over
        return len(path) >= 2 and path[1] == "hands"
    if head == "events" and len(path) >= 3:
        ev = view["events"][path[1]]
        key = path[2]
        if key == "card":
            return ev["type"] == "play"
        if key == "top":
            return ev["type"] in ("deal", "flip")
        if key == "cards":
            return ev["type"] == "draw" and ev["seat"] == view["seat"]
    return False


def check_plain(obj: Any, path: tuple = ()) -> None:
    """Only dict/list/str/int/bool/None; map keys str (or int seats)."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            assert type(k) in (str, int), f"map key {k!r} at {path} is {type(k).__name__}"
            check_plain(v, (*path, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            check_plain(v, (*path, i))
    else:
        assert obj is None or type(obj) in (str, int, bool), (
            f"{path}: {obj!r} is a {type(obj).__name__}, not plain data"
        )


def roundtrip(v: dict[str, Any]) -> None:
    back = msgpack.unpackb(msgpack.packb(v), strict_map_key=False)
    assert back == v, "the view does not round-trip through msgpack"


@dataclass
class Audit:
    """What the auditor knows beyond the views (from the playout)."""

    case: Case
    shown_to: int | None = None  # the challenger (standard) shown a hand now
    shown: dict[str, Any] | None = None
    w4_hands: dict[int, list[str]] = field(default_factory=dict)
    last_n: dict[int, int] = field(default_factory=dict)  # last event n seen per seat
    seen: set[tuple[int, int]] = field(default_factory=set)  # (seat, event n) audited


def audit_view(g, seat: int, v: dict[str, Any], audit: Audit) -> None:
    table = audit.case.table
    where = f"{table} seat {seat} step {g.step}"
    # keys
    keys = set(v)
    expected = COMMON_KEYS | TABLE_KEYS[table]
    assert expected <= keys, f"{where}: view lacks {sorted(expected - keys)}"
    assert keys - expected <= OPTIONAL_KEYS, (
        f"{where}: unexpected view keys {sorted(keys - expected - OPTIONAL_KEYS)}"
    )
    # the plain facts
    assert v["seat"] == seat and v["game"] == "colormatch" and v["table"] == table
    assert v["players"] == g.n
    assert v["hand"] == g.hands[seat], f"{where}: view hand {v['hand']} != held {g.hands[seat]}"
    assert v["counts"] == [len(h) for h in g.hands], where
    assert v["to_act"] == g.to_act, where
    assert v["step"] == g.step, where
    assert v["draw_pile"] == len(g.pile), where
    assert v["top"] == g.disc[-1], where
    assert v["outcome"] == g.outcome, where
    assert v["direction"] in (1, -1), where
    total = sum(v["counts"]) + v["draw_pile"] + v["discards"] + len(v.get("shields", []))
    assert total == DECK_SIZE[table], f"{where}: counts add up to {total}"
    # drawn: own view only, in phase drawn, a card of the hand
    if "drawn" in v:
        assert v["phase"] == "drawn" and v["turn"] == seat, (
            f"{where}: 'drawn' outside its seat/phase"
        )
        assert v["drawn"] in v["hand"], where
    # shown: standard only, the challenger only, the +4 player's hand at its play
    if audit.shown_to == seat:
        assert v.get("shown") == audit.shown, f"{where}: shown {v.get('shown')} != {audit.shown}"
    else:
        assert "shown" not in v, f"{where}: 'shown' in the view of a seat that did not challenge"
    # Day & Night: rivals' far faces, sorted; never our own; draw pile's top far face
    if table == "daynight":
        assert v["face"] == ("night" if g.face else "day"), where
        assert v["far"] == {s: sorted(g.fars[s]) for s in range(g.n) if s != seat}, (
            f"{where}: far is not exactly the rivals' sorted far faces"
        )
        assert seat not in v["far"], f"{where}: own far faces shown"
        assert v["draw_far"] == (g.pile_far[-1] if g.pile_far else None), where
    # events: numbered without gaps; own draws carry cards; none missed
    ns = [e["n"] for e in v["events"]]
    if ns:
        assert ns == list(range(ns[0], ns[0] + len(ns))), f"{where}: event numbers {ns}"
    if ns and seat in audit.last_n:
        assert ns[0] <= audit.last_n[seat] + 1, (
            f"{where}: events {audit.last_n[seat] + 1}..{ns[0] - 1} fell out of the view unseen"
        )
    if ns:
        audit.last_n[seat] = ns[-1]
    # each event is audited once per seat (an event never changes once shown)
    fresh = [e for e in v["events"] if (seat, e["n"]) not in audit.seen]
    for e in fresh:
        audit.seen.add((seat, e["n"]))
        assert set(e) <= EVENT_KEYS, f"{where}: event keys {sorted(set(e) - EVENT_KEYS)} in {e}"
        if "cards" in e:
            assert e["type"] == "draw" and e["seat"] == seat, (
                f"{where}: {e} shows another seat's draw"
            )
            assert len(e["cards"]) == e["count"], f"{where}: {e}"
        elif e["type"] == "draw":
            assert e["seat"] != seat, f"{where}: own draw event without its cards: {e}"
    # what is left to scan: the view with only the events not audited yet
    rest = {**v, "events": fresh}
    # secrets: a rival's hand, the draw pile, our own far faces (as lists)
    secrets = []
    for s in range(g.n):
        if s != seat:
            secrets += [
                (f"hand of seat {s}", g.hands[s]),
                (f"sorted hand of {s}", sorted(g.hands[s])),
            ]
    secrets += [("draw pile", g.pile), ("draw pile reversed", g.pile[::-1])]
    if table == "daynight":
        secrets += [("own far faces", g.fars[seat]), ("own far faces", sorted(g.fars[seat]))]
        secrets += [("far draw pile", g.pile_far), ("far draw pile", g.pile_far[::-1])]
    own = g.hands[seat]
    secrets = [
        (name, lst) for name, lst in secrets if len(lst) >= 2 and lst not in (own, sorted(own))
    ]
    # the seed of a live deal is never shown (seeds this large cannot be a count)
    seed = audit.case.seed if audit.case.seed >= 2**20 else None
    for path, val in walk(rest):
        if type(val) is str:
            # no card code anywhere the seat may not see one
            if is_card_code(val):
                assert "/" not in val, f"{where}: a two-faced card {val!r} at {path}"
                assert path and card_allowed_at(rest, path), f"{where}: card {val!r} at {path}"
        elif type(val) is list:
            if len(val) < 2 or path[0] in ("hand", "far", "shown", "outcome"):
                continue  # checked exactly above, or public by rule
            if path[0] == "events" and "cards" in path:
                continue  # the seat's own draw (checked above)
            for name, secret in secrets:
                assert val != secret, f"{where}: {path} equals the {name}"
        elif type(val) is int and seed is not None:
            assert val != seed, f"{where}: the seed appears in the view at {path}"
    check_plain(rest)
    roundtrip(v)


NUMBER_SYMBOLS = set("0123456789")
DAYNIGHT_POINTS = {
    "W": 40,
    "WC": 50,
    "WH": 60,
    "+1": 10,
    "+5": 20,
    "S": 20,
    "R": 20,
    "T": 20,
    "A": 30,
}


def card_points(table: str, code: str) -> int:
    """SPEC section 4 (and 5 for Day & Night, by the active face)."""
    sym = code if code.startswith("W") else code[1:]
    if sym in NUMBER_SYMBOLS:
        return int(sym)
    if table == "daynight":
        return DAYNIGHT_POINTS[sym]
    return 50 if code.startswith("W") else 20


def check_outcome(out: dict[str, Any], case: Case) -> None:
    """The outcome agrees with the hands it shows (SPEC 4-5, decisions 13 and 16)."""
    hands = out["hands"]
    n = case.players
    assert len(hands) == n and sorted(out) == sorted(
        ["winners", "points", "reason", "hands", "turns", "rounds"]
    ), out
    if "target" in case.options:
        best = max(out["points"])
        assert best >= case.options["target"], out
        assert out["winners"] == [s for s in range(n) if out["points"][s] == best], out
        return  # match totals: the last round's hands do not tell them
    held = [sum(card_points(case.table, c) for c in h) for h in hands]
    if out["reason"] == "out":
        assert [s for s in range(n) if not hands[s]] == out["winners"], out
        assert len(out["winners"]) == 1, out
    elif case.table == "cards":
        assert out["winners"] == [], f"a blocked round at cards is drawn: {out}"
    else:
        low = min((held[s], len(hands[s])) for s in range(n))
        want = [s for s in range(n) if (held[s], len(hands[s])) == low]
        assert out["winners"] == want, f"blocked: lowest points then fewest cards win: {out}"
    if case.table in EACH_SEAT_SCORES:
        want_points = [sum(held) - held[s] for s in range(n)]
    else:
        pot = sum(held[s] for s in range(n) if s not in out["winners"])
        want_points = [pot if s in out["winners"] else 0 for s in range(n)]
    assert out["points"] == want_points, f"points {out['points']} != {want_points} for {out}"


def check_first_draw(g, events: list[dict[str, Any]], pile: list[str]) -> None:
    """The cards a draw event shows its drawer are the top of the draw pile
    (checked for the first draw of an act, before any reshuffle or flip)."""
    for e in events:
        if e["type"] in ("reshuffle", "flip", "deal"):
            return
        if e["type"] == "draw":
            own = next((x for x in g.view(e["seat"])["events"] if x["n"] == e["n"]), None)
            if own is not None:
                want = pile[::-1][: e["count"]]
                assert own["cards"] == want, f"drew {own['cards']} but the pile's top was {want}"
            return


def note_action(g, audit: Audit, seat: int, action: dict[str, Any], phase_before: str) -> None:
    """Track what the standard challenger is to be shown (SPEC 3, decisions 18)."""
    audit.shown_to, audit.shown = None, None
    if audit.case.table != "standard":
        return
    if action.get("type") == "play" and action.get("card") == "W+4" and phase_before != "challenge":
        audit.w4_hands[seat] = list(g.hands[seat])
    if action.get("type") == "challenge":
        of = next(e for e in reversed(g.view(seat)["events"]) if e["type"] == "challenge")["of"]
        audit.shown_to, audit.shown = seat, {"seat": of, "hand": audit.w4_hands[of]}


def observe(g) -> dict[str, Any]:
    """Everything a caller can observe: every view and every seat's legal actions."""
    return {
        "step": g.step,
        "outcome": g.outcome,
        "to_act": g.to_act,
        **{f"view {s}": g.view(s) for s in range(g.n)},
        **{f"legal {s}": g.legal_actions(s) for s in range(g.n)},
        "cards": sorted(g.cards_in_play()),
    }


def snapshot(g) -> bytes:
    """`observe(g)` frozen as bytes (cheap to keep and compare)."""
    return msgpack.packb(observe(g))


def changes(before: bytes, g) -> str:
    """What differs between a snapshot and the game now ("" if nothing)."""
    if snapshot(g) == before:
        return ""
    old = msgpack.unpackb(before, strict_map_key=False)
    new = msgpack.unpackb(snapshot(g), strict_map_key=False)
    out = []
    for k in old:
        if old[k] != new[k]:
            if isinstance(old[k], dict):
                sub = [
                    f"{k}.{x}: {old[k].get(x)!r} -> {new[k].get(x)!r}"
                    for x in {*old[k], *new[k]}
                    if old[k].get(x) != new[k].get(x)
                ]
                out += sorted(sub)
            else:
                out.append(f"{k}: {old[k]!r} -> {new[k]!r}")
    return "; ".join(out)[:2000]


def rare_state(g) -> bool:
    """A state worth sampling more often than a plain turn."""
    views = [g.view(s) for s in range(g.n)]
    v = views[0]
    return bool(
        v["phase"] != "turn"
        or v["windows"]
        or v["pending"]
        or len(v["to_act"]) > 1
        or any("shown" in w or "drawn" in w for w in views)
    )


def describe(case: Case, steps: int) -> str:
    return (
        f"new_game('colormatch', table={case.table!r}, players={case.players}, "
        f"seed={case.seed}, options={case.options!r}) then {steps} policy actions"
    )


# =============================================================== the contract


# LANMATCH_CONTRACT_SCALE=20 runs twenty times the examples (a bug hunt);
# the default keeps this file well under a minute on two cores.
SCALE = float(os.environ.get("LANMATCH_CONTRACT_SCALE", "1"))


def _settings(n: int):
    # No shrinking: a case is a seed, and a smaller seed explains nothing more;
    # every failure message names the case and the step, enough to replay it.
    return settings(
        max_examples=max(1, round(n * SCALE)),
        deadline=None,
        phases=(Phase.explicit, Phase.reuse, Phase.generate),
        suppress_health_check=[HealthCheck.too_slow],
    )


@pytest.mark.parametrize("table", TABLES)
@_settings(12)
@given(data=st.data())
def test_playout_keeps_the_contract(table, data):
    """Legal actions exist until the end, cards are conserved, views do not leak,
    views are plain msgpack data, and `step` counts exactly the applied actions."""
    case = data.draw(cases(table), label="case")
    g = case.new()
    start = sorted(g.cards_in_play())
    check_deck(case, start)
    assert g.step == 0
    rng = policy_rng(case)
    audit = Audit(case)
    log: list = []
    while True:
        check_to_act(g)
        check_legal_actions(g, table)
        check_cards(g, case, start)
        for s in range(g.n):
            audit_view(g, s, g.view(s), audit)
        if g.outcome is not None:
            break
        assert len(log) < max_steps(case), (
            f"no outcome after {len(log)} actions: {describe(case, len(log))}"
        )
        seat, action = choose(g, table, rng)
        phase = g.view(seat)["phase"]
        step = g.step
        pile = list(g.pile)
        events = g.act(seat, copy.deepcopy(action))
        log.append((seat, action))
        assert g.step == step + 1, "step must grow by exactly 1 per applied action"
        assert isinstance(events, list)
        for e in events:
            assert "cards" not in e, f"act() returned private cards: {e}"
        check_plain(events)
        check_first_draw(g, events, pile)
        note_action(g, audit, seat, action, phase)
    # the end: an outcome of the documented shape, nothing more to do
    out = g.outcome
    assert {"winners", "points", "reason"} <= set(out)
    assert out["reason"] in ("out", "blocked")
    assert len(out["points"]) == g.n and all(type(p) is int for p in out["points"])
    assert all(0 <= w < g.n for w in out["winners"])
    check_outcome(out, case)
    for s in range(g.n):
        assert g.legal_actions(s) == []
        before = snapshot(g)
        with pytest.raises(IllegalAction):
            g.act(s, {"type": "draw"})
        assert not changes(before, g)


@pytest.mark.parametrize("table", TABLES)
@_settings(6)
@given(data=st.data())
def test_every_legal_action_applies(table, data):
    """On a copy of sampled states, every legal action of every acting seat
    applies without error, moves `step` by one and keeps the invariants."""
    case = data.draw(cases(table), label="case")
    sampler = random.Random(f"sample:{case.seed}")
    start: list[str] = []

    def each(g):
        if not start:
            start.extend(sorted(g.cards_in_play()))
        if g.outcome is not None:
            return
        if sampler.random() >= (0.5 if rare_state(g) else 0.06):
            return
        before = snapshot(g)
        for seat in g.to_act:
            for action in g.legal_actions(seat):
                h = copy.deepcopy(g)
                try:
                    h.act(seat, action)
                except Exception as e:
                    raise AssertionError(
                        f"{describe(case, g.step)}: legal act({seat}, {action}) raised {e!r}"
                    ) from e
                assert h.step == g.step + 1
                check_to_act(h)
                check_cards(h, case, start)
        assert not changes(before, g), (
            f"acting on a copy changed the original: {changes(before, g)}"
        )

    play_out(case, each)


def illegal_candidates(g, table: str, rng: random.Random) -> list[tuple[str, Any, Any]]:
    """(what, seat, action) that the rules must refuse in the state of `g`."""
    n = g.n
    acting = g.to_act
    seat = rng.choice(acting)
    legal = g.legal_actions(seat)
    hand = g.hands[seat]
    v = g.view(seat)
    colors = PALETTE[v.get("face", "day")]
    out: list[tuple[str, Any, Any]] = []
    # a card not in hand
    missing = [f for f in TABLE_FACES[table] if f not in hand]
    card = rng.choice(missing)
    act = {"type": "play", "card": card}
    if card.startswith("W"):
        act["color"] = rng.choice(colors)
    out.append(("card not in hand", seat, act))
    out.append(("not a card", seat, {"type": "play", "card": "Z9"}))
    # unknown or missing types
    for act in (
        {"type": "fly"},
        {"type": None},
        {},
        {"type": "PLAY", "card": hand[0] if hand else "R1"},
    ):
        out.append(("unknown type", seat, act))
    # a wild without its color, or with a color that is not one
    for w in sorted({c for c in hand if c.startswith("W")}):
        out.append(("wild without color", seat, {"type": "play", "card": w}))
        out.append(("wild with a bad color", seat, {"type": "play", "card": w, "color": "X"}))
        other = NIGHT if colors == DAY else DAY
        out.append(
            (
                "wild with the other face's color",
                seat,
                {"type": "play", "card": w, "color": other[0]},
            )
        )
    # a colored card naming a color; a 7 swapping with its own seat
    for a in legal:
        if a["type"] == "play" and not a["card"].startswith("W"):
            out.append(("colored card with a color", seat, {**a, "color": colors[0]}))
            if "swap_with" in a:
                out.append(("swap with yourself", seat, {**a, "swap_with": seat}))
            else:
                out.append(
                    ("swap_with on a play without 7-0", seat, {**a, "swap_with": (seat + 1) % n})
                )
            break
    # catch / call without a window
    open_windows = {w["seat"] for w in v["windows"]}
    for s in range(n):
        if s not in open_windows and s != seat:
            out.append(("catch without a window", seat, {"type": "catch", "seat": s}))
            break
    if seat not in open_windows:
        out.append(("call without a window", seat, {"type": "call"}))
    # the wrong seat
    idle = [s for s in range(n) if s not in acting]
    if idle:
        for a in rng.sample(legal, min(3, len(legal))):
            out.append(("wrong seat", rng.choice(idle), a))
    a = rng.choice(legal)
    for bad_seat in (-1, n, 99, "0", None, True, 0.0, [0]):
        out.append(("no such seat", bad_seat, a))
    # expire with no timed window open for that seat
    exp = sorted(expirable(g, table))
    for s in range(n):
        if s not in exp:
            out.append(
                ("expire without a window", s, {"type": "expire", "penalty": rng.random() < 0.5})
            )
    for s in exp:
        out.append(("expire with a bad penalty", s, {"type": "expire", "penalty": "yes"}))
    # not a map at all
    for act in (None, "draw", ["play"], 5, ("draw",)):
        out.append(("not a map", seat, act))
    # random garbage maps
    for _ in range(6):
        out.append(("garbage", rng.choice([*acting, *range(n)]), garbage(rng, hand)))
    return out


GARBAGE_VALUES = [
    None, 0, 1, -1, 2**70, 1.5, float("nan"), "", "R5", "W", "W+4", "R", "P", "X", "play",
    "draw", "catch", [], ["R5"], {}, {"a": 1}, True, False, b"R5",
]  # fmt: skip
GARBAGE_TYPES = [
    "play",
    "draw",
    "keep",
    "pass",
    "accept",
    "challenge",
    "call",
    "catch",
    "color",
    "fly",
    None,
    3,
    ["play"],
]


def garbage(rng: random.Random, hand: list[str]) -> dict[str, Any]:
    act: dict[Any, Any] = {}
    if rng.random() < 0.9:
        act["type"] = rng.choice(GARBAGE_TYPES)
    pool = GARBAGE_VALUES + hand
    for key in ("card", "color", "swap_with", "seat", "penalty", "junk", 7):
        if rng.random() < 0.4:
            act[key] = rng.choice(pool)
    return act


def _strict(v: Any) -> tuple:
    return (type(v), v)


def equivalent_to_legal(g, seat: Any, action: Any) -> bool:
    """Is `action` (maybe with extra keys) exactly one of `seat`'s legal actions?"""
    if type(seat) is not int or not isinstance(action, dict) or not 0 <= seat < g.n:
        return False
    fields = ("type", "card", "color", "swap_with", "seat")
    try:
        key = tuple(_strict(action.get(f)) for f in fields)
        return any(key == tuple(_strict(a.get(f)) for f in fields) for a in g.legal_actions(seat))
    except TypeError:
        return False


@pytest.mark.parametrize("table", TABLES)
@_settings(6)
@given(data=st.data())
def test_illegal_actions_raise_and_change_nothing(table, data):
    """A card not held, an unknown type, a wild without its color, the wrong
    seat, host-only expires out of place and random garbage all raise
    IllegalAction with a reason, and leave every view and legal action as it was."""
    case = data.draw(cases(table), label="case")
    sampler = random.Random(f"illegal:{case.seed}")
    failures: list[str] = []

    def each(g):
        if g.outcome is None and sampler.random() < (0.6 if rare_state(g) else 0.1):
            check_state(g)

    def check_state(g):
        before = snapshot(g)
        for what, seat, action in illegal_candidates(g, table, sampler):
            if what == "garbage" and equivalent_to_legal(g, seat, action):
                continue  # extra keys on a legal action: a legal action
            label = f"{describe(case, g.step)} at step {g.step}: {what}: act({seat!r}, {action!r})"
            try:
                g.act(seat, action)
            except IllegalAction as e:
                if not (isinstance(e.reason, str) and e.reason):
                    failures.append(f"{label}: IllegalAction without a reason")
            except Exception as e:  # the contract: IllegalAction only
                failures.append(f"{label}: raised {type(e).__name__}: {e}")
            else:
                failures.append(f"{label}: was accepted")
            changed = changes(before, g)
            if changed:
                failures.append(f"{label}: changed the game: {changed}")
                raise AssertionError("\n".join(failures))
        assert not failures, "\n".join(failures[:10])

    play_out(case, each)


@pytest.mark.parametrize("table", TABLES)
@_settings(6)
@given(data=st.data())
def test_same_seed_and_actions_replay_the_same_game(table, data):
    """The host logs (seat, action) and can replay: every view of every seat
    after every step, the events each act returns and the outcome agree."""
    case = data.draw(cases(table), label="case")
    played, log = play_out(case)
    g = case.new()
    assert [g.view(s) for s in range(g.n)] == [case.new().view(s) for s in range(g.n)]
    ref = case.new()
    for i, (seat, action) in enumerate(log):
        ev_ref = ref.act(seat, copy.deepcopy(action))
        ev = g.act(seat, copy.deepcopy(action))
        assert ev == ev_ref, f"step {i}: events differ"
        for s in range(g.n):
            assert g.view(s) == ref.view(s), (
                f"{describe(case, len(log))}: seat {s} differs after step {i}"
            )
    assert g.outcome is not None and g.outcome == played.outcome
    assert [g.view(s) for s in range(g.n)] == [played.view(s) for s in range(g.n)]
    assert g.cards_in_play() == played.cards_in_play()


@pytest.mark.parametrize("table", TABLES)
@_settings(15)
@given(data=st.data())
def test_the_deal_is_a_function_of_the_seed(table, data):
    """Same seed, no actions: identical views and legal actions. Other seeds
    give another deal."""
    c = data.draw(cases(table), label="case")
    a, b = c.new(), c.new()
    assert [a.view(s) for s in range(a.n)] == [b.view(s) for s in range(b.n)]
    assert [a.legal_actions(s) for s in range(a.n)] == [b.legal_actions(s) for s in range(b.n)]
    assert a.cards_in_play() == b.cards_in_play()
    views = [a.view(s) for s in range(a.n)]
    others = []
    for k in (1, 2, 3):
        o = Case(c.table, c.players, (c.seed + k) % 2**64, c.options).new()
        others.append([o.view(s) for s in range(o.n)])
    assert any(o != views for o in others), f"seeds {c.seed}..{c.seed + 3} all deal the same game"


def test_daily_deal_comes_from_the_date():
    """`cards` daily: the same date deals the same game whatever the seed."""

    def daily(date, seed):
        return new_game(
            "colormatch",
            table="cards",
            players=3,
            seed=seed,
            options={"mode": "daily", "date": date},
        )

    a, b, c = daily("2024-05-01", 1), daily("2024-05-01", 2), daily("2024-05-02", 1)
    assert [a.view(s) for s in range(3)] == [b.view(s) for s in range(3)]
    assert a.view(0)["daily"] == "2024-05-01"
    assert [a.view(s) for s in range(3)] != [c.view(s) for s in range(3)]


def _scribble_act_events(g, events):
    for e in events:
        e["type"] = "scribbled"


def _scribble_view_events(g, events):
    for s in range(g.n):
        for e in g.view(s)["events"]:
            e["type"] = "scribbled"


def _scribble_view_lists(g, events):
    for s in range(g.n):
        v = g.view(s)
        for key in ("hand", "counts", "to_act", "scores", "windows", "one_card", "shields"):
            if isinstance(v.get(key), list):
                v[key].append(99)
        for lst in v.get("far", {}).values():
            lst.append("R1")
        v["options"]["scribbled"] = True


def _scribble_view_outcome(g, events):
    for s in range(g.n):
        out = g.view(s)["outcome"]
        if out is not None:
            out["winners"].append(99)
            out["hands"][0].append("R1")


def _scribble_legal_actions(g, events):
    for s in range(g.n):
        for a in g.legal_actions(s):
            a["type"] = "scribbled"


SCRIBBLES = {
    "the events act() returned": _scribble_act_events,
    "the events of a view": _scribble_view_events,
    "the lists of a view": _scribble_view_lists,
    "the outcome in a view": _scribble_view_outcome,
    "a legal action": _scribble_legal_actions,
}


@pytest.mark.parametrize("table", TABLES)
@_settings(3)
@given(data=st.data())
def test_views_and_events_are_the_callers_own_data(table, data):
    """A view, a legal action and the events `act` returns belong to the
    caller (a bot may scribble on them): changing them changes nothing in the
    game. And acting later does not change a view taken earlier."""
    case = data.draw(cases(table), label="case")
    g = case.new()
    rng = policy_rng(case)
    sampler = random.Random(f"scribble:{case.seed}")
    aliased: dict[str, str] = {}

    def scribble_all(pre, seat, action):
        """Act on a copy of `pre`, scribble over one kind of data, compare."""
        for what, scribble in SCRIBBLES.items():
            h = copy.deepcopy(pre)
            events = h.act(seat, copy.deepcopy(action)) if action else []
            before = snapshot(h)
            scribble(h, events)
            changed = changes(before, h)
            if changed and what not in aliased:
                aliased[what] = f"{describe(case, h.step)}: {changed}"

    handed, kept = None, None
    while g.outcome is None:
        seat, action = choose(g, table, rng)
        if sampler.random() < 0.15:
            scribble_all(g, seat, action)
        g.act(seat, copy.deepcopy(action))
        assert handed == kept, "acting changed a view taken earlier"
        handed = [g.view(s) for s in range(g.n)]  # left alone, compared after the next act
        kept = copy.deepcopy(handed)
    scribble_all(g, None, None)  # the finished game (its outcome)
    assert not aliased, "changing what the engine handed out changed the game:\n" + "\n".join(
        f"- {what}: {where}" for what, where in aliased.items()
    )


# ---------------------------------------------------- a hypothesis-driven walk


def _rule_garbage() -> st.SearchStrategy[Any]:
    vals = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-3, 8),
        st.sampled_from(["R5", "W", "W+4", "WC", "WH", "R", "P", "X", "", "B+2", "R7", "G0"]),
        st.floats(allow_nan=False, allow_infinity=False, width=16),
        st.lists(st.sampled_from(["R5", "W"]), max_size=2),
    )
    keys = st.sampled_from(["card", "color", "swap_with", "seat", "penalty", "x"])
    typ = st.sampled_from([*sorted(LEGAL_VERBS), "fly", "expire"]) | vals
    return st.one_of(
        st.builds(
            lambda t, rest: {"type": t, **rest}, typ, st.dictionaries(keys, vals, max_size=3)
        ),
        vals,
    )


class ColorMatchWalk(RuleBasedStateMachine):
    """Hypothesis picks every action: legal ones, host expires and garbage.

    Invariants after every step: cards conserved, exactly the acting seats
    have legal actions, `step` counts the applied actions and nothing else,
    and expire is accepted exactly where a timed window is open.
    """

    @initialize(case=ALL_CASES)
    def start(self, case):
        self.case = case
        self.g = case.new()
        self.start_cards = sorted(self.g.cards_in_play())
        self.applied = 0

    @precondition(lambda self: self.g.outcome is None)
    @rule(data=st.data())
    def legal(self, data):
        seat = data.draw(st.sampled_from(self.g.to_act), label="seat")
        action = data.draw(st.sampled_from(self.g.legal_actions(seat)), label="action")
        self.g.act(seat, action)
        self.applied += 1

    @precondition(lambda self: self.g.outcome is None)
    @rule(seat=st.integers(0, 5), penalty=st.booleans())
    def expire(self, seat, penalty):
        seat %= self.g.n
        ok = seat in expirable(self.g, self.case.table)
        before = snapshot(self.g)
        try:
            self.g.act(seat, {"type": "expire", "penalty": penalty})
        except IllegalAction:
            assert not ok, f"expire refused for seat {seat} with a timed window open"
            assert not changes(before, self.g), (
                f"a refused expire changed {changes(before, self.g)}"
            )
        else:
            assert ok, f"expire accepted for seat {seat} with no timed window"
            self.applied += 1

    @rule(
        seat=st.one_of(st.integers(-1, 6), st.none(), st.text(max_size=1)), action=_rule_garbage()
    )
    def garbage(self, seat, action):
        if equivalent_to_legal(self.g, seat, action):
            return
        if isinstance(action, dict) and action.get("type") == "expire":
            return  # covered by the expire rule
        before = snapshot(self.g)
        with pytest.raises(IllegalAction):
            self.g.act(seat, action)
        assert not changes(before, self.g), f"a refused action changed {changes(before, self.g)}"

    @invariant()
    def step_counts_applied_actions(self):
        assert self.g.step == self.applied

    @invariant()
    def cards_conserved(self):
        check_cards(self.g, self.case, self.start_cards)

    @invariant()
    def acting_seats_have_actions(self):
        check_to_act(self.g)


TestColorMatchWalk = ColorMatchWalk.TestCase
TestColorMatchWalk.settings = settings(
    max_examples=max(1, round(40 * SCALE)),
    stateful_step_count=40,
    deadline=None,
    # shrinking a failing walk runs into Hypothesis's 5-minute cap; the printed
    # walk (at most 40 steps) replays as it stands
    phases=(Phase.explicit, Phase.reuse, Phase.generate),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


# ------------------------------------------------------ the auditor can fail


def _leak_rival_hand_under_a_new_key(g, v):
    v["hint"] = list(g.hands[1])


def _leak_rival_hand_in_a_window(g, v):
    v["windows"] = [{"seat": 1, "call": True, "catch": False, "held": list(g.hands[1])}]


def _leak_a_rival_draw(g, v):
    v["events"] = [
        *v["events"],
        {"type": "draw", "seat": 1, "count": 1, "cards": [g.pile[-1]], "n": _next_n(v)},
    ]


def _leak_the_draw_pile_order(g, v):
    v["events"] = [*v["events"], {"type": "reshuffle", "draw_pile": list(g.pile), "n": _next_n(v)}]


def _show_the_wrong_hand(g, v):
    v["hand"] = list(g.hands[1])


def _show_the_seed(g, v):
    v["scores"] = [*v["scores"], LEAK_SEED]


def _show_own_far_faces(g, v):
    v["far"] = {**v["far"], 0: sorted(g.fars[0])}


def _show_a_tuple(g, v):
    v["windows"] = ()


def _show_a_float(g, v):
    v["pending"] = 0.0


def _show_a_two_faced_code(g, v):
    v["events"] = [
        *v["events"],
        {"type": "play", "seat": 1, "card": g.cards_in_play()[0], "n": _next_n(v)},
    ]


def _next_n(v):
    return v["events"][-1]["n"] + 1


LEAK_SEED = 2**40 + 7
LEAKS = [
    ("classic", _leak_rival_hand_under_a_new_key, "unexpected view keys"),
    ("standard", _leak_rival_hand_in_a_window, "equals the hand of seat 1"),
    ("cards", _leak_a_rival_draw, "shows another seat's draw"),
    ("toll", _leak_the_draw_pile_order, "equals the draw pile"),
    ("siege", _show_the_wrong_hand, "view hand"),
    ("classic", _show_the_seed, "the seed appears"),
    ("daynight", _show_own_far_faces, "far is not exactly"),
    ("standard", _show_a_tuple, "not plain data"),
    ("standard", _show_a_float, "not plain data"),
    ("daynight", _show_a_two_faced_code, "a two-faced card"),
]


@pytest.mark.parametrize(
    ("table", "leak", "reason"), LEAKS, ids=[f.__name__.strip("_") for _, f, _ in LEAKS]
)
def test_the_view_auditor_catches_a_leak(table, leak, reason):
    """The auditor is not vacuous: each planted leak in seat 0's view fails it."""
    case = Case(table, 3, LEAK_SEED)
    g = case.new()
    v = g.view(0)
    audit_view(g, 0, copy.deepcopy(v), Audit(case))  # the real view passes
    leak(g, v)
    with pytest.raises(AssertionError, match=reason):
        audit_view(g, 0, v, Audit(case))


@pytest.mark.parametrize("seed", range(12))
def test_a_view_carries_the_last_32_events_act_returned_whenever_it_is_taken(seed):
    """Views copy events with the help of a cache that follows the engine's
    trimming of old events; taken at random moments (sometimes after more
    than 64 new events), a view's events are the last 32 emitted (the deal's,
    then those `act` returned), plus the cards of its own seat's private events."""
    g = new_game("colormatch", table="classic", players=4, seed=seed, options={})
    rng = random.Random(seed)
    told = {e["n"]: e for e in g.view(3)["events"]}  # the deal (seat 3 holds nothing private in it)
    views = 0
    for _ in range(2000):
        if g.outcome is not None:
            break
        seat = g.to_act[0]
        told.update((e["n"], e) for e in g.act(seat, rng.choice(g.legal_actions(seat))))
        if rng.random() < 0.08:
            views += 1
            got = g.view(1)["events"]
            assert [e["n"] for e in got] == sorted(told)[-32:]
            for mine in got:
                public = told[mine["n"]]
                assert {k: v for k, v in mine.items() if k != "cards" or "cards" in public} == public
                for v in mine.values():
                    if type(v) is list:
                        v.append("scribbled")  # the caller's own lists: the next view must not show it
            assert "scribbled" not in repr(g.view(1)["events"])
    assert views >= 1 and max(told) > 64  # long enough for the engine to drop old events
