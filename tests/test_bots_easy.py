"""Easy as good company for a child: it forgets a last-card call now and
then, and it never bluffs a +4 where a challenge could catch it (`standard`,
`toll`: a +4 played while holding a card of the color in force). At tables
without a challenge a +4 is simply a card, and Easy plays it at random.

Scenario tests deal fixed hands with the engine's `deck=` argument."""

from __future__ import annotations

from typing import Any

import pytest
from _rig_classic import game as classic_game
from _rig_std import game as std_game
from _rig_std import shed_to_one

from lanmatch.bots import make_bot
from lanmatch.rules import cards as C
from lanmatch.rules import new_game
from lanmatch.sim import play_game

REST = [["Y1", "Y2", "Y3", "B4", "G5", "G6", "B7"], ["Y4", "Y5", "Y6", "B8", "G8", "G9", "B9"]]


def easy_choices(g, seat: int, seeds=range(80)) -> list[dict[str, Any]]:
    view, legal = g.view(seat), g.legal_actions(seat)
    table = view["table"]
    return [make_bot("easy", table=table, seat=seat, seed=s).choose(view, legal) for s in seeds]


@pytest.mark.parametrize("table", ["standard", "toll"])
def test_easy_never_bluffs_a_plus4_while_holding_the_color(table):
    # red is in force (R9) and seat 0 holds R1: a +4 now would be a bluff
    g = std_game(table, [["W+4", "R1", "B1", "G1", "B2", "G2", "Y7"], *REST], "R9")
    assert any(a.get("card") == "W+4" for a in g.legal_actions(0))  # the engine offers it
    picks = easy_choices(g, 0)
    assert not any(a.get("card") == "W+4" for a in picks)
    assert any(a.get("card") == "R1" for a in picks)  # still random among the rest


@pytest.mark.parametrize("table", ["standard", "toll"])
def test_easy_plays_an_honest_plus4(table):
    # nothing red in hand: the +4 is honest and Easy plays it now and then
    g = std_game(table, [["W+4", "B1", "B3", "G1", "B2", "G2", "Y7"], *REST], "R9")
    picks = easy_choices(g, 0)
    assert any(a.get("card") == "W+4" for a in picks)


def test_a_plus4_is_just_a_card_where_no_challenge_exists():
    # classic has no +4 challenge: no bluff to avoid, the +4 is one more play
    hands = [["W+4", "R1", "B1", "G1", "B2", "G2", "Y7"], *REST]
    g = classic_game("classic", hands, "R9")
    picks = easy_choices(g, 0)
    assert any(a.get("card") == "W+4" for a in picks)


@pytest.mark.parametrize("table", ["standard", "toll"])
def test_easy_never_bluffs_a_drawn_plus4(table):
    # seat 0 holds only red cards but no play on B9; it draws the +4, which plays
    hands = [["R1", "R2", "R3", "R4", "R5", "R6", "R7"], *REST]
    g = std_game(table, hands, "B9", ["W+4"])
    g.act(0, {"type": "draw"})
    view = g.view(0)
    assert view["phase"] == "drawn"
    picks = easy_choices(g, 0)
    # blue in force, no blue in hand: honest, so playable
    assert any(a.get("card") == "W+4" for a in picks)
    # red in force and seat 0 holds R1 (it may draw while holding a play at
    # these tables): the drawn +4 would be a bluff, so Easy keeps it
    g2 = std_game(table, [["R1", "B2", "B3", "B4", "B5", "B6", "B7"], *REST], "R9", ["W+4"])
    g2.act(0, {"type": "draw"})
    assert g2.view(0)["phase"] == "drawn"
    assert any(a.get("card") == "W+4" for a in g2.legal_actions(0))
    assert not any(a.get("card") == "W+4" for a in easy_choices(g2, 0))


class Honest:
    """Wraps an Easy bot: every +4 it plays in a turn must be honest."""

    def __init__(self, bot):
        self.bot, self.plus4, self.caught = bot, 0, set()

    def observe(self, view):
        for e in view.get("events", ()):
            if e["type"] == "challenge" and e.get("won") and e["of"] == view["seat"]:
                self.caught.add(e["n"])
        self.bot.observe(view)

    def declines(self, view, legal):
        return self.bot.declines(view, legal)

    def choose(self, view, legal):
        a = self.bot.choose(view, legal)
        assert a in legal
        if a.get("card") == "W+4" and view["phase"] in ("turn", "drawn"):
            hand = list(view["hand"])
            hand.remove("W+4")
            assert not any(C.color_of(c) == view["color"] for c in hand), f"a bluff: {view['hand']} on {view['color']}"
            self.plus4 += 1
        return a


@pytest.mark.parametrize("table", ["standard", "toll"])
def test_easy_games_hold_no_bluffed_plus4(table):
    """Whole games of four Easy bots: no challenge of an Easy +4 is ever won."""
    plus4 = 0
    for seed in range(12):
        g = new_game("colormatch", table=table, players=4, seed=seed)
        bots = [Honest(make_bot("easy", table=table, seat=s, seed=seed)) for s in range(4)]
        play_game(g, bots, table)
        plus4 += sum(b.plus4 for b in bots)
        assert not any(b.caught for b in bots)
    assert plus4 > 0  # the +4s were played, honestly


def test_easy_forgets_a_real_last_card_call_now_and_then():
    """Seat 0 is down to one card with its call open: some Easy seeds let it pass, most call."""
    g = shed_to_one("standard")
    legal = g.legal_actions(0)
    assert {"type": "call"} in legal
    view = g.view(0)
    forgot = [make_bot("easy", table="standard", seat=0, seed=s).declines(view, legal) for s in range(100)]
    assert 5 <= sum(forgot) <= 50
    # Medium and Hard never forget
    for level in ("medium", "hard"):
        assert not any(make_bot(level, table="standard", seat=0, seed=s).declines(view, legal) for s in range(20))
