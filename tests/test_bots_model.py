"""Hard's simulator plays by the engine's rules (issue 12, item 2).

The Hard bot's look-ahead (`lanmatch.bots.lookahead.World`) reads each
table's declaration from the game registry. These tests hold it to the
engine: seeded games at every table (and a table declared here only), with
2, 3, 4 and 6 seats and the house options the simulator models, are played
move by move through both the engine and a `World`, and after every move
both must be in the same state: every hand in order, the draw pile and its
order, the discards, the top, the color, the direction, whose turn, the
waiting pile and its kind, the Bomb fuse, the Midnight Clock, standing
Shields, the face up, the count of passes towards a blocked round, the
phase, and who won. At every decision the cards the simulator would let the
seat play must be the engine's legal plays, and whether it can draw must
agree. Every few moves the world is built afresh the way Hard builds it (the
`Dealer`'s template, read from the seat's view and its memory) and filled
with the engine's hidden cards, which checks that reading too.

What the simulator does not model is steered around, as Hard's rollouts do:
a playable drawn card is played (a wild names the color held most, a 7
under 7-0 swaps with the smallest hand), a lone +4 at a challenge table is
challenged by the seats the world says would (`World.challenges`: Medium
from 3 cards on, Hard's own seat from more) and accepted by the others, a
color to name is the color held most, every last-card call is made at
once, nobody catches or jumps in. The simulator shuffles with the
engine's own shuffle (from a copy of the engine's generator), so a reshuffle
deals the same cards in both when, and only when, the rules agree on when
it happens. A standing Shield that absorbs a pile goes under the top in the
engine; the simulator keeps no Shield's card (only who stands one), so the
discards are compared but for Shields and then taken from the engine.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest

import lanmatch.rules.colormatch as E
from lanmatch.bots import colormatch as CM
from lanmatch.bots import lookahead as L
from lanmatch.rules import get_game, new_game, register_table, unregister_table

MODELED_OPTIONS = ("stacking", "seven_o", "strict_wild4")  # house options the simulator plays
# Two tables declared here only: classic with Siege's ladder, and Color
# Cards that lets you draw while holding a play (so its piles run out and a
# blocked round, drawn at that table, comes).
TEST_TABLES = (
    replace(E.TABLES["classic"], name="testtable", title="Test", ladder=(("+2", ("+2", "+4")), ("+4", ("+4",)))),
    replace(E.TABLES["cards"], name="testcards", title="Test Cards", draw_with_play=True),
)
TABLES = [*get_game("colormatch").tables, *(t.name for t in TEST_TABLES)]


@pytest.fixture(autouse=True)
def test_tables():
    for table in TEST_TABLES:
        register_table("colormatch", table)
    yield
    for table in TEST_TABLES:
        unregister_table("colormatch", table.name)


class EngineShuffle:
    """The simulator's `rng` for these games: the engine's shuffle, drawn from a
    copy of the engine's generator taken before the move."""

    def __init__(self, g: E.ColorMatch):
        self.rng = random.Random()
        self.rng.setstate(g.rng.getstate())

    def shuffle(self, items: list) -> None:
        E.shuffle(self.rng, items)


def best_color(hand: list[str], colors: tuple[str, ...]) -> str:
    """The color held most (ties: palette order), as the simulator names it."""
    held = dict.fromkeys(colors, 0)
    for c in hand:
        col = E.COLOR_OF[c]
        if col in held:
            held[col] += 1
    return max(held, key=held.__getitem__)


def settle(g: E.ColorMatch, events: list, w: L.World | None = None) -> None:
    """Do at once what the simulator does without a move: call every last
    card, name the color held most, answer a lone +4 at a challenge table as
    the world's seats do (`w.challenges`, by the player's card count)."""
    for _ in range(12):
        if g.outcome is not None:
            return
        for s, (may_call, _catchable) in list(g.windows.items()):
            if may_call:
                events += g.act(s, {"type": "call"})
        if g.phase == E.COLOR:
            events += g.act(g.cur, {"type": "color", "color": best_color(g.hands[g.cur], g._colors())})
        elif g.phase == E.CHALLENGE and not g.queue:
            doubt = w is not None and w.challenges(g.cur, len(g.hands[g.w4["player"]]))
            events += g.act(g.cur, {"type": "challenge" if doubt else "accept"})
        else:
            return
    raise AssertionError("the engine did not settle")


def world_from(g: E.ColorMatch, bots: list[CM.HardBot]) -> L.World:
    """The world Hard would build at this decision (its `Dealer`'s template,
    from the view and its memory), holding the engine's hidden cards."""
    seat = g.cur
    view = g.view(seat)
    bot = bots[seat]
    bot.observe(view)
    w = CM.Dealer(bot, CM.Ctx(view, bot.rules)).template.copy()
    w.hands = [list(h) for h in g.hands]
    w.pile, w.disc = list(g.pile), list(g.disc)
    if g.fars is not None:
        w.fars = [list(h) for h in g.fars]
        w.pile_far, w.disc_far = list(g.pile_far), list(g.disc_far)
    w.idle = g.idle  # not in the view: Hard's worlds start from 0
    return w


def same_state(g: E.ColorMatch, w: L.World, where: str) -> None:
    if g.outcome is not None or w.over:
        assert g.outcome is not None and w.over, f"{where}: over in one only"
        assert w.winners == g.outcome["winners"], where
        return
    assert w.hands == g.hands, f"{where}: hands"
    assert w.pile == g.pile, f"{where}: draw pile"
    assert w.disc[-1] == g.disc[-1], f"{where}: top"
    assert not Counter(w.disc) - Counter(g.disc), f"{where}: discards"
    assert all(E.SYM_OF[c] == "H" for c in (Counter(g.disc) - Counter(w.disc)).elements()), f"{where}: discards"
    if g.fars is not None:
        assert (w.fars, w.pile_far, w.disc_far) == (g.fars, g.pile_far, g.disc_far), f"{where}: far faces"
    else:
        assert w.fars is None, where
    assert w.night == bool(g.face), f"{where}: face"
    assert (w.color, w.dir, w.cur) == (g.color, g.dir, g.cur), f"{where}: color, direction, turn"
    assert (w.pending, w.pkind) == (g.pending, g.pend_kind), f"{where}: waiting pile"
    assert (w.fuse, w.ffresh, w.blast) == (g.fuse, g.fuse_fresh, g.blast), f"{where}: Bomb fuse"
    assert (w.clock, w.cfresh) == (g.clock, g.clock_fresh), f"{where}: Midnight Clock"
    assert w.shields == set(g.shields), f"{where}: standing Shields"
    assert w.idle == g.idle, f"{where}: passes towards a blocked round"
    phase = (E.CHALLENGE if w.pkind == w.challenged else E.PILE) if w.pending else E.TURN
    assert g.phase == phase, f"{where}: phase {g.phase}, the simulator's {phase}"


def same_choices(g: E.ColorMatch, w: L.World, legal: list[dict], where: str) -> None:
    """The simulator's playable (or answering) cards are the engine's legal
    plays, and it can draw exactly when the engine lets the seat draw."""
    seat = g.cur
    plays = {a["card"] for a in legal if a["type"] == "play"}
    if w.pending:
        mine = {c for c in w.hands[seat] if w.answers(c)}
    else:
        mine = {c for c in w.hands[seat] if w.playable(seat, c)}
    assert mine == plays, f"{where}: the simulator plays {sorted(mine)}, the engine {sorted(plays)}"
    types = {a["type"] for a in legal}
    if g.phase == E.TURN and types & {"draw", "pass"}:
        assert ("pass" in types) == (not w.pile and len(w.disc) <= 1), f"{where}: draw or pass"


def move(g: E.ColorMatch, w: L.World, a: dict) -> list:
    """Play `a` (legal for the seat whose turn it is) in both."""
    seat, phase, events = g.cur, g.phase, []
    w.rng = EngineShuffle(g)
    if a["type"] == "play":
        index = g.hands[seat].index(a["card"])
        events += g.act(seat, a)
        w.play(seat, index, a.get("color"), a.get("swap_with"))
    elif phase == E.TURN:  # draw, or pass with nothing to draw; a playable drawn card is played
        events += g.act(seat, a)
        if g.phase == E.DRAWN and g.cur == seat:
            hand = g.hands[seat]
            card = hand[g.drawn]
            play = {"type": "play", "card": card}
            if card[0] == "W":
                play["color"] = best_color(hand[: g.drawn] + hand[g.drawn + 1 :], g._colors())
            elif g.seven_o and E.SYM_OF[card] == "7":
                play["swap_with"] = min((s for s in range(g.n) if s != seat), key=lambda s: len(g.hands[s]))
            assert play in g.legal_actions(seat), (play, g.legal_actions(seat))
            events += g.act(seat, play)
        w.draw_turn(seat)
    else:  # a waiting pile (or a +4 under `stacking`) taken
        events += g.act(seat, a)
        w.take_pile(seat)
    settle(g, events, w)
    return events


def play_both(table: str, players: int, seed: int, options: dict, seen: Counter) -> int:
    """One game through both (cut off after 600 moves); returns the moves
    compared, and counts the engine's events into `seen`."""
    g = new_game("colormatch", table=table, players=players, seed=seed, options=options)
    rng = random.Random(f"model:{table}:{players}:{seed}")
    bots = [CM.HardBot(table, s, seed) for s in range(players)]
    # how often a seat that may play plays rather than draws: games that end,
    # piles that run out, blocked rounds
    eager = (0.05, 0.9, 0.5, 0.9)[seed % 4]
    settle(g, [])
    w = world_from(g, bots)
    moves = 0
    for moves in range(1, 600):
        where = f"{table} {players} seats seed {seed} {options} move {moves}"
        same_state(g, w, where + " (before)")
        if g.outcome is not None:
            seen[g.outcome["reason"]] += 1
            return moves
        legal = g.legal_actions(g.cur)
        same_choices(g, w, legal, where)
        modeled = [a for a in legal if a["type"] in ("play", "draw", "pass", "accept")]
        plays = [a for a in modeled if a["type"] == "play"]
        others = [a for a in modeled if a["type"] != "play"]
        a = rng.choice(plays if plays and (not others or rng.random() < eager) else others)
        events = move(g, w, a)
        seen.update(e["type"] for e in events)
        if g.outcome is None and any(e["type"] == "shield_absorb" for e in events):
            same_state(g, w, where + " (a Shield absorbed a pile)")
            w.disc = list(g.disc)  # the simulator kept no Shield's card
        same_state(g, w, where + f" after {a}")
        if g.outcome is None and rng.random() < 0.1:
            w = world_from(g, bots)  # a fresh determinization, built as Hard builds it
    return moves


def _option_sets(table: str) -> list[dict]:
    spec = get_game("colormatch").table(table)
    modeled = [k for k in MODELED_OPTIONS if k in spec.options]
    sets: list[dict] = [{}]
    for k in modeled:
        sets.append({k: True})
    if len(modeled) > 1:
        sets.append(dict.fromkeys(modeled, True))
    return sets


@pytest.mark.parametrize("table", TABLES)
@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_the_simulator_finds_the_engines_states(table, players):
    moves, seen = 0, Counter()
    options = _option_sets(table)
    for seed in range(8):
        moves += play_both(table, players, 100 * players + seed, options[seed % len(options)], seen)
    assert moves > 300 and seen["out"]
    # what the table's rules make happen did happen (the games are seeded: this is fixed)
    rules = L.rules_of(table)
    expected = {"bombs": {"fuse", "blast"}, "shields": {"shield_stand", "shield_cancel"},
                "two_faced": {"flip", "hunt", "clock"}}
    for fact, kinds in expected.items():
        if getattr(rules, fact):
            assert all(seen[k] for k in kinds), (fact, seen)
    if rules.table.draw_with_play:
        assert seen["reshuffle"] and seen["pass"] and seen["blocked"], seen
    if rules.table.challenge:
        assert seen["accept"] and seen["challenge"], seen
    if rules.table.call:
        assert seen["call"], seen
    if "seven_o" in rules.table.options:
        assert seen["swap"] and seen["rotate"], seen


@pytest.mark.parametrize("table", TABLES)
def test_the_bots_deck_is_the_engines(table):
    """The faces, points and specials the bots know of a table's deck are the
    engine's: every card of a fresh deal, how the engine scores it, and the
    view keys the engine shows for Bombs, Shields and a two-faced deck."""
    rules = L.rules_of(table)
    g = new_game("colormatch", table=table, players=2, seed=3)
    cards = g.cards_in_play()
    if rules.two_faced:
        assert sorted(rules.faces) == sorted(c.split("/")[0] for c in cards)
        assert sorted(rules.far_faces) == sorted(c.split("/")[1] for c in cards)
    else:
        assert sorted(rules.faces) == sorted(cards) and rules.far_faces == ()
    for face in set(rules.faces) | set(rules.far_faces):
        assert rules.points[face] == g._points(face), face
    view = g.view(0)
    assert rules.bombs == ("blast" in view)
    assert rules.shields == ("shields" in view)
    assert rules.two_faced == ("face" in view)
    assert rules.clocks == any(c.split("/")[-1] == "WC" or c.split("/")[0] == "WC" for c in cards)
    assert rules.table is get_game("colormatch").table(table)  # the registry's declaration itself


def test_a_table_the_bots_cannot_read_is_refused_when_the_bot_is_made():
    with pytest.raises(ValueError, match="no table"):
        L.rules_of("nosuchtable")
    register_table("colormatch", replace(TEST_TABLES[0], name="oddtable", deck="mosaic"))
    try:
        with pytest.raises(ValueError, match="deck 'mosaic'"):
            CM.make("hard", "oddtable", 0, 1)
    finally:
        unregister_table("colormatch", "oddtable")


class _Recorder(L.World):
    """A world that notes the first move made in it: what the rollout policy chose."""

    __slots__ = ("first",)

    @classmethod
    def of(cls, w: L.World) -> _Recorder:
        r = cls.__new__(cls)
        for name in L.World.__slots__:
            setattr(r, name, getattr(w, name))
        r.first = None
        return r

    def play(self, seat: int, index: int, color: str | None = None, swap: int | None = None) -> None:
        if self.first is None:
            self.first = ("play", self.hands[seat][index])
        super().play(seat, index, color, swap)

    def draw_turn(self, seat: int) -> None:
        if self.first is None:
            self.first = ("draw", None)
        super().draw_turn(seat)

    def take_pile(self, seat: int) -> None:
        if self.first is None:
            self.first = ("draw", None)
        super().take_pile(seat)


def _simplified(rules: L.Rules, g: E.ColorMatch, hand: list[str]) -> bool:
    """A decision where the rollouts play Medium's sense reduced, as docs/bots.md
    says: Bomb sense ("a plain lap brings the blast back") and the value of
    turning a two-faced table over (a Turnover, the Clock, Color Hunt)."""
    if rules.bombs and (g.fuse is not None or any(E.SYM_OF[c] == "B" for c in hand)):
        return True
    return rules.two_faced and any(E.SYM_OF[c] == "T" or c in ("WC", "WH") for c in hand)


@pytest.mark.parametrize("table", TABLES)
@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_rollouts_play_mediums_own_moves(table, players):
    """Hard's rollouts model every seat as Medium (`lookahead.policy_step`, a
    second, quick copy of Medium's play): at every turn and every waiting pile
    of seeded Medium games, on the true world, it makes Medium's very move (the
    card, or a draw), and a wild names Medium's color, but where docs/bots.md
    says the rollouts simplify; and at a challenge table the world says a
    rival challenges a +4 exactly when Medium does (`World.doubt`)."""
    rules = L.rules_of(table)
    compared = Counter()
    for seed in range(6):
        g = new_game("colormatch", table=table, players=players, seed=1000 + seed)
        medium = [CM.MediumBot(table, s, seed) for s in range(players)]
        hard = [CM.HardBot(table, s, seed) for s in range(players)]
        for _ in range(600):
            if g.outcome is not None:
                break
            calls = [s for s, (may_call, _catch) in g.windows.items() if may_call]
            for s in calls:
                g.act(s, {"type": "call"})
            if calls:
                continue
            seat = g.cur
            legal = g.legal_actions(seat)
            a = medium[seat].choose(g.view(seat), legal)
            hand = list(g.hands[seat])
            if g.phase == E.CHALLENGE and not g.queue and {"accept", "challenge"} <= {b["type"] for b in legal}:
                # a +4 on a rival: the world the +4's player builds says
                # whether that rival challenges it, by its card count
                player = g.w4["player"]
                w = CM.Dealer(hard[player], CM.Ctx(g.view(player), hard[player].rules)).template
                assert w.challenges(seat, len(g.hands[player])) == (a["type"] == "challenge"), (
                    f"{table} {players} seats seed {seed}: Medium {a['type']}s a +4 from "
                    f"{len(g.hands[player])} cards, the world's doubt {w.doubt}")
                compared[E.CHALLENGE] += 1
            if g.phase in (E.TURN, E.PILE) and not _simplified(rules, g, hand):
                w = _Recorder.of(world_from(g, hard))
                w.rng = EngineShuffle(g)
                L.policy_step(w)
                mine = ("play", a["card"]) if a["type"] == "play" else ("draw", None)
                where = f"{table} {players} seats seed {seed}: {g.phase}, hand {hand}, top {g.disc[-1]} {g.color}"
                assert w.first == mine, f"{where}: Medium {mine}, the rollouts {w.first}"
                compared[g.phase] += 1
                if mine[0] == "play" and E.COLOR_OF[mine[1]] is None and not rules.two_faced:
                    assert w.color == a["color"], f"{where}: Medium names {a['color']}, the rollouts {w.color}"
                    compared["named"] += 1
            g.act(seat, a)
    assert compared[E.TURN] > 50 and (compared["named"] > 3 or rules.two_faced), compared
    if rules.table.queue:
        assert compared[E.PILE] > 3, compared
    if rules.table.challenge:
        assert compared[E.CHALLENGE] > 3, compared
