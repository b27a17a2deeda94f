"""A fair last-card call: play-and-call in the engine, and the grace bots
respect in the referee (docs/rules/standard.md, docs/rules/cards.md "Last card").

Scenario tests with rigged decks (tests/_rig_std.py); referee tests on a plain
number clock (`now` passed in), so no real time passes."""

from __future__ import annotations

import pytest
from _rig_std import HAND1, HAND2, QUIET, SHED, SHED_TOP, do, game, play, shed_to_one

from lanmatch.bots import pace
from lanmatch.rules import IllegalAction
from lanmatch.rules.colormatch import TABLES
from lanmatch.table import Referee

CALL_TABLES = [name for name, spec in TABLES.items() if spec.call]


def two_left(table: str):
    """Seat 0 holds R8 and R7, its turn, top R4 (red): each play leaves one card."""
    g = game(table, [SHED + ["R7"], list(HAND1), list(HAND2)], SHED_TOP, QUIET)
    for card in SHED[:-1]:
        play(g, 0, card)
        do(g, 1, "draw")
        do(g, 2, "draw")
    assert g.view(0)["hand"] == ["R8", "R7"] and g.view(0)["turn"] == 0
    return g


def test_call_tables_are_standard_and_cards():
    assert sorted(CALL_TABLES) == ["cards", "standard"]


@pytest.mark.parametrize("table", CALL_TABLES)
def test_the_play_that_leaves_one_card_is_offered_with_the_call(table):
    g = two_left(table)
    legal = g.legal_actions(0)
    assert {"type": "play", "card": "R8"} in legal and {"type": "play", "card": "R8", "call": True} in legal
    plain = [a for a in legal if "call" not in a]
    assert legal[: len(plain)] == plain  # the call variants come after every plain action
    events = g.act(0, {"type": "play", "card": "R8", "call": True})
    assert [e["type"] for e in events][:3] == ["play", "last_card", "call"]
    assert g.view(0)["windows"] == []  # called already: nobody can catch it
    assert all(a["type"] != "catch" for s in (1, 2) for a in g.legal_actions(s))


@pytest.mark.parametrize("table", CALL_TABLES)
def test_a_plain_play_still_opens_the_window(table):
    g = two_left(table)
    g.act(0, {"type": "play", "card": "R8", "call": False})  # "call": false is the plain play
    assert g.view(0)["windows"][0]["seat"] == 0


@pytest.mark.parametrize("table", CALL_TABLES)
def test_a_call_before_the_play_says_how_to_call(table):
    g = two_left(table)
    with pytest.raises(IllegalAction, match="call it with the play itself"):
        g.act(0, {"type": "call"})
    with pytest.raises(IllegalAction):
        g.act(0, {"type": "play", "card": "R8", "call": 1})  # ints are not true
    step = g.step
    with pytest.raises(IllegalAction, match="leaves you one card"):
        g2 = shed_to_one(table)  # one card left: no play leaves one
        g2.act(0, {"type": "play", "card": "R7", "call": True})
    assert g.step == step


def test_tables_without_a_call_offer_no_play_and_call():
    for table in ("toll",):
        g = game(table, [SHED + ["R7"], list(HAND1), list(HAND2)], SHED_TOP, QUIET)
        for card in SHED[:-1]:
            play(g, 0, card)
            do(g, 1, "draw")
            do(g, 2, "draw")
        assert all("call" not in a for a in g.legal_actions(0))
        with pytest.raises(IllegalAction):
            g.act(0, {"type": "play", "card": "R8", "call": True})


def test_seven_o_swaps_are_not_offered_with_a_call():
    g = game("standard", [SHED[:5] + ["R7", "R9"], list(HAND1), list(HAND2)], SHED_TOP, QUIET,
             options={"seven_o": True})
    for card in SHED[:5]:
        play(g, 0, card)
        do(g, 1, "draw")
        do(g, 2, "draw")
    legal = g.legal_actions(0)
    assert {"type": "play", "card": "R9", "call": True} in legal
    assert not any(a.get("call") and a["card"] == "R7" for a in legal)


# ------------------------------------------------------------------ the referee's grace


def _standard_person_forgets(bot_delay: float):
    """Seat 0 (a person) has just played down to one card without calling;
    seats 1 and 2 are Medium room bots; seat 1 is to act."""
    g = shed_to_one("standard")
    return Referee("colormatch", "standard", 3, seed=4, now=0.0, engine=g,
                   bots={1: "medium", 2: "medium"}, bot_delay=bot_delay)


@pytest.mark.parametrize("bot_delay", [0.0, 0.67])
def test_no_bot_catches_a_person_within_the_grace(bot_delay):
    ref = _standard_person_forgets(bot_delay)
    assert ref.next_deadline() >= pace.REACTION["medium"][0]
    assert ref.tick(1.0) is None  # nothing due within a second
    ref.act(0, {"type": "call"}, ref.state_id, 1.0)  # a person who calls within a second
    assert ref.view(0)["windows"] == [] and ref.view(0)["counts"][0] == 1
    for _ in range(5):  # the bots play on until the person's turn
        if ref._decision[0] == 0:
            break
        ref.tick(ref.next_deadline())
    assert all(a["type"] != "catch" for _, _, a, _ in ref.log)  # never caught
    assert ref.view(0)["counts"][0] == 1


def test_a_person_who_never_calls_is_caught_after_the_reaction_time():
    ref = _standard_person_forgets(0.67)
    due = ref.next_deadline()
    assert pace.REACTION["medium"][0] <= due <= pace.REACTION["medium"][1]
    seat, action, _ = ref.tick(due)
    assert action == {"type": "catch", "seat": 0}
    assert ref.view(0)["counts"][0] == 3


def test_the_grace_is_the_same_for_the_same_seed():
    a, b = _standard_person_forgets(0.67), _standard_person_forgets(0.67)
    assert a.next_deadline() == b.next_deadline()


def test_a_virtual_clock_has_no_grace():
    """The simulator and line mode (call_window 0): each seat's chance in order, at once."""
    g = shed_to_one("standard")
    ref = Referee("colormatch", "standard", 3, seed=4, now=0.0, engine=g, bots={1: "medium", 2: "medium"},
                  call_window=0.0)
    assert ref.next_deadline() == 0.0


def test_human_pace_where_people_sit_and_instant_bots_alone():
    people = Referee("colormatch", "classic", 3, seed=5, now=0.0, bots={1: "easy", 2: "easy"}, bot_delay=0.67,
                     first_seat=1)
    d = people.next_deadline()
    assert pace.FORCED[0] <= d <= pace.MOVE[1]
    alone = Referee("colormatch", "classic", 3, seed=5, now=0.0, bots={0: "easy", 1: "easy", 2: "easy"},
                    bot_delay=0.67, first_seat=1)
    assert alone.next_deadline() == pytest.approx(0.67)
    fast = Referee("colormatch", "classic", 3, seed=5, now=0.0, bots={1: "easy", 2: "easy"}, bot_delay=0.0,
                   first_seat=1)
    assert fast.next_deadline() == 0.0


def test_pace_draws_are_seeded_and_in_their_spans():
    import random
    rng = random.Random(3)
    moves = [pace.move_delay(rng, 0.67, True) for _ in range(200)]
    assert all(pace.MOVE[0] <= d <= pace.MOVE[1] for d in moves) and len(set(moves)) > 50
    assert all(pace.FORCED[0] <= pace.move_delay(rng, 0.67, True, forced=True) <= pace.FORCED[1] for _ in range(50))
    assert pace.move_delay(rng, 0.0, True) == 0.0 and pace.move_delay(rng, 0.5, False) == 0.5
    for level, (low, high) in pace.REACTION.items():
        assert all(low <= pace.reaction(rng, level) <= high for _ in range(50))
    assert pace.GRACE >= 1.0
    r1, r2 = random.Random(9), random.Random(9)
    assert [pace.reaction(r1, "hard") for _ in range(5)] == [pace.reaction(r2, "hard") for _ in range(5)]


def test_room_bots_choose_from_the_plain_actions_unless_they_know_play_and_call():
    """Bots keep calling after the play (so seeded games and the bots' figures
    stay as they were); a bot with `calls_with_play` gets the variants."""
    from lanmatch.bots import make_bot

    g = two_left("standard")
    ref = Referee("colormatch", "standard", 3, seed=4, now=0.0, engine=g, bots={0: "medium"})
    job = ref.due(ref.next_deadline())
    assert job.legal and all("call" not in a for a in job.legal)

    class Caller:
        calls_with_play = True
        level = "medium"

        def __init__(self):
            self.bot = make_bot("medium", table="standard", seat=0)

        def observe(self, view):
            self.bot.observe(view)

        def declines(self, view, legal):
            return False

        def choose(self, view, legal):
            return next(a for a in legal if a.get("call"))

    g2 = two_left("standard")
    ref2 = Referee("colormatch", "standard", 3, seed=4, now=0.0, engine=g2, bots={0: Caller()})
    seat, action, _ = ref2.tick(ref2.next_deadline())
    assert seat == 0 and action.get("call") is True
    assert ref2.view(1)["windows"] == [] and ref2.view(1)["counts"][0] == 1


def _person_game(seed: int) -> list[tuple]:
    """Classic, a person at seat 0 who moves at once, Medium room bots at human pace."""
    ref = Referee("colormatch", "classic", 3, seed=seed, now=0.0, bots={1: "medium", 2: "medium"}, bot_delay=0.67)
    now = 0.0
    for _ in range(400):
        if ref.over:
            break
        if ref._decision and ref._decision[0] == 0:
            ref.act(0, ref.legal(0)[0], ref.state_id, now)
        else:
            now = ref.next_deadline()
            ref.tick(now)
    return list(ref.log)


def test_bots_take_a_varied_natural_time_where_a_person_plays_and_the_same_seed_gives_the_same_times():
    log = _person_game(6)
    gaps = [t - before for (before, *_), (t, _, _, by) in zip(log, log[1:], strict=False) if by == "bot"]
    assert gaps and all(pace.FORCED[0] - 1e-9 <= g <= pace.MOVE[1] + 1e-9 for g in gaps)
    assert len({round(g, 3) for g in gaps}) > len(gaps) // 2  # varied, not one fixed pause
    assert log == _person_game(6)
