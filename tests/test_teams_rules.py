"""Partners (2 against 2): the team rules at every Color Match table and at
Dominoes, on rigged decks; the hidden-information contract over random
partner games; partner-aware bots in real scenarios.

Partners sit opposite: seats 0 and 2 against 1 and 3 (rules/teams.py).
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import _rig_classic as RC  # noqa: E402
import _rig_std as RS  # noqa: E402
from test_dominoes import blocked_deal, play_to_block, rig, run  # noqa: E402

from lanmatch.bots import make_bot  # noqa: E402
from lanmatch.bots.partners import partner_legal  # noqa: E402
from lanmatch.rules import GAMES, IllegalAction, new_game  # noqa: E402
from lanmatch.rules import cards as C  # noqa: E402
from lanmatch.rules import teams as T  # noqa: E402
from lanmatch.rules.colormatch import TABLES  # noqa: E402
from lanmatch.rules.dominoes import pip_count  # noqa: E402

CM_TABLES = list(TABLES)
PARTNERS = {"teams": True}

# ------------------------------------------------------------------ the option


@pytest.mark.parametrize(("game", "table"), [(g.name, t) for g in GAMES.values() for t in g.tables])
def test_every_table_declares_partners_and_seats_them_four(game, table):
    spec = GAMES[game].table(table)
    assert T.teams_ok(spec)
    g = new_game(game, table=table, players=4, seed=1, options=PARTNERS)
    assert g.view(1)["teams"] == [[0, 2], [1, 3]] == g.watch_view()["teams"]
    assert "teams" not in new_game(game, table=table, players=4, seed=1).view(0)
    for players in (2, 3):
        with pytest.raises(ValueError, match="exactly 4 players"):
            new_game(game, table=table, players=players, seed=1, options=PARTNERS)
    with pytest.raises(ValueError, match="true or false"):
        new_game(game, table=table, players=4, seed=1, options={"teams": 1})


# ----------------------------------------------------- Color Match: going out

# A chain of number cards every table's deck holds, each matching the one
# before: R1 R1 R2 R2 ... R9 R9 Y9 Y9 Y8 Y8 Y7 Y7 Y6 Y6. The first is the
# starter; seat 2 moves first and plays chain[1], chain[5], ... (seat s plays
# chain[i + 1] for i = (s - 2) % 4, +4, ...), so it sheds its seventh card on
# the 25th play, before anyone else is out. The others keep one card each.
CHAIN = [f"R{k}" for k in range(1, 10) for _ in (0, 1)] + [f"Y{k}" for k in range(9, 5, -1) for _ in (0, 1)]
KEPT = {3: "G5", 0: "B5", 1: "G6"}  # the card each other seat never plays


def chain_hands(kept: dict[int, str] | None = None) -> list[list[str]]:
    kept = {**KEPT, **(kept or {})}
    hands: list[list[str]] = [[], [], [], []]
    for i in range(25):
        hands[(2 + i) % 4].append(CHAIN[i + 1])
    for s, card in kept.items():
        hands[s].append(card)
    return hands


def chain_game(table: str, options: dict | None = None, kept: dict[int, str] | None = None):
    hands = chain_hands(kept)
    if RC.rigs(table):
        nights = C.night_faces()
        if GAMES["colormatch"].table(table).deck == "daynight":
            pairs = iter(nights)
            hands = [[f"{c}/{next(pairs)}" for c in h] for h in hands]
            starter = f"{CHAIN[0]}/{next(pairs)}"
        else:
            starter = CHAIN[0]
        deck = RC.rig(table, hands, starter)
    else:
        deck = RS.rig(table, hands, CHAIN[0])
    return new_game("colormatch", table=table, players=4, seed=1, options={**PARTNERS, **(options or {})},
                    deck=deck, first_seat=2)


def day(card: str) -> str:
    return card.split("/")[0]


def play_chain(g, plays: int = 25, call: bool = True) -> None:
    """Play the chain's first `plays` cards (calling last card where the table asks)."""
    for i in range(plays):
        seat = (2 + i) % 4
        card = CHAIN[i + 1]
        legal = [a for a in g.legal_actions(seat) if a["type"] == "play" and day(a["card"]) == card]
        assert legal, (i, seat, card, g.legal_actions(seat))
        calling = [a for a in legal if a.get("call")]
        g.act(seat, (calling if call and calling else [a for a in legal if not a.get("call")] or legal)[0])


def held(table: str, hand: list[str]) -> int:
    return sum(TABLES[table].card_points(c) for c in hand)


@pytest.mark.parametrize("table", CM_TABLES)
def test_going_out_wins_for_the_team_and_the_team_scores(table):
    g = chain_game(table)
    play_chain(g)
    o = g.outcome
    assert o is not None and o["reason"] == "out"
    assert o["winners"] == [0, 2], "seat 2 went out: its partner wins with it"
    hands = o["hands"]
    assert hands[2] == [] and [len(h) for h in hands] == [1, 1, 0, 1]
    team_a, team_b = held(table, hands[0]) + held(table, hands[2]), held(table, hands[1]) + held(table, hands[3])
    if TABLES[table].each_seat_scores:  # each team scores what the other team holds
        assert o["points"] == [team_b, team_a, team_b, team_a]
    else:  # the winning team scores the opponents' cards (not the partner's)
        assert o["points"] == [team_b, 0, team_b, 0]
    assert o["teams"] == [[0, 2], [1, 3]]
    over = [e for e in g.view(3)["events"] if e["type"] == "round_over"][-1]
    assert over["winners"] == [0, 2] and over["points"] == o["points"]


@pytest.mark.parametrize("table", ["standard", "cards"])
def test_a_match_is_won_by_both_partners_on_the_team_score(table):
    g = chain_game(table, {"mode": "match", "target": 10})
    play_chain(g)
    o = g.outcome
    team_b = held(table, o["hands"][1]) + held(table, o["hands"][3])
    assert team_b >= 10
    assert o["winners"] == [0, 2] and o["points"] == [team_b, 0, team_b, 0]
    assert g.view(0)["scores"] == [team_b, 0, team_b, 0]


def test_without_partners_the_same_deal_is_won_by_seat_2_alone():
    hands = chain_hands()
    g = new_game("colormatch", table="standard", players=4, seed=1, deck=RS.rig("standard", hands, CHAIN[0]),
                 first_seat=2)
    play_chain(g)
    assert g.outcome["winners"] == [2]


def test_a_blocked_round_goes_to_the_team_holding_fewer_points_together():
    """Standard, blocked: seat 0 holds the fewest points alone (48) but its
    partner holds 780, so seats 1 and 3 (412 together) win and score the 828
    seats 0 and 2 hold."""
    deck = RS.standard_deck()
    deck.remove("R0")  # the starter
    zeros = [c for c in deck if c.endswith("0")]
    low = [c for c in deck if c[1:] in ("1", "2", "3")]
    heavy = [c for c in deck if c.startswith("W")] + [c for c in deck if c[1:] in ("S", "R", "+2")][:19]
    rest = [c for c in deck if c not in zeros + low and c not in heavy]
    rest_actions = [c for c in deck if c[1:] in ("S", "R", "+2")][19:]
    rest = [c for c in rest if c[1:] not in ("S", "R", "+2")] + rest_actions
    seat0 = zeros + low
    assert (len(seat0), len(heavy), len(rest)) == (27, 27, 53)
    sets = [seat0, rest[:27], heavy, rest[27:]]
    g = RS.blocked_deal("standard", sets, 0, "R0", options=PARTNERS)
    RS.draw_out(g)
    first = g.view(0)["turn"]
    for k in range(4):
        assert g.outcome is None
        RS.do(g, (first + k) % 4, "pass")
    o = g.outcome
    pts = [held("standard", h) for h in o["hands"]]
    assert pts[0] == 48 and pts[0] == min(pts) and pts[0] + pts[2] == 828 and pts[1] + pts[3] == 412
    assert o["reason"] == "blocked" and o["winners"] == [1, 3]
    assert o["points"] == [0, 828, 0, 828]


# ---------------------------------------------------------------- Dominoes

# Seat 1 leads 6-6; each seat then plays its last legal action (scripted
# below as it went); seat 2 goes out on the 26th move.
DOM_HANDS = [["5-0", "4-0", "3-0", "2-0", "1-1"], ["6-6", "6-5", "5-4", "4-3", "3-2"],
             ["6-0", "5-1", "4-1", "3-1", "2-1"], ["6-1", "5-2", "4-2", "6-2", "1-0"]]


def _p(tile, end="left"):
    return {"type": "play", "tile": tile, "end": end}


DRAW = {"type": "draw"}
DOM_MOVES = [
    (1, _p("6-6")), (2, _p("6-0")), (3, _p("6-2", "right")), (0, _p("5-0")), (1, _p("6-5")),
    (2, _p("2-1", "right")), (3, _p("6-1", "right")), (0, DRAW), (0, _p("6-4")), (1, _p("5-4")),
    (2, _p("5-1")), (3, _p("1-0")), (0, _p("4-0")), (1, _p("4-3")), (2, _p("3-1")), (3, DRAW),
    (3, _p("6-3", "right")), (0, _p("3-0", "right")), *[(1, DRAW)] * 6, (1, _p("0-0", "right")),
    (2, _p("4-1")),
]


def test_dominoes_going_out_wins_for_the_team_and_scores_the_opponents_pips():
    g = new_game("dominoes", players=4, seed=1, options=PARTNERS, deck=rig(*DOM_HANDS))
    events = run(g, *DOM_MOVES)
    end = next(e for e in events if e["type"] == "round_end")
    assert end["reason"] == "out" and end["winner"] == 2 and end["winners"] == [0, 2]
    assert end["pips"] == [4, 41, 0, 13]
    assert end["points"] == 41 + 13, "the opponents' pips, not the partner's"
    assert end["scores"] == [54, 0, 54, 0] == g.view(1)["scores"]
    assert g.outcome is None  # to 100


def test_dominoes_match_is_won_by_both_partners():
    g = new_game("dominoes", players=4, seed=1, options={**PARTNERS, "target": 50}, deck=rig(*DOM_HANDS))
    run(g, *DOM_MOVES)
    assert {k: v for k, v in g.outcome.items() if k != "hands"} == {"winners": [0, 2], "points": [54, 0, 54, 0],
                                                                   "reason": "out"}
    assert g.outcome["hands"][0 if g.outcome["hands"][0] == [] else 2] == []  # the racks revealed; one is empty
    assert g.to_act == []


def test_dominoes_blocked_round_counts_the_partners_pips_together():
    # pips [9, 11, 85, 21]: seat 0 is lowest alone, but 9 + 85 > 11 + 21
    g = new_game("dominoes", players=4, seed=1, options={**PARTNERS, "target": 500},
                 deck=blocked_deal(["3-1", "3-2"], ["4-1", "4-2"]))
    events = play_to_block(g)
    end = next(e for e in events if e["type"] == "round_end")
    assert end["reason"] == "blocked" and end["pips"] == [9, 11, 85, 21]
    assert end["winners"] == [1, 3] and end["winner"] == 1
    assert end["points"] == 9 + 85 and end["scores"] == [0, 94, 0, 94]


def test_equal_team_totals_give_no_team_and_the_lowest_team_otherwise():
    assert T.lowest_team([9, 11, 85, 21]) == 1
    assert T.lowest_team([10, 5, 10, 15]) is None
    assert T.spread([7, 3]) == [7, 3, 7, 3] and T.winners_of(3) == [1, 3] and T.partner(1) == 3


# ------------------------------------------------------- hidden information


def _check_hidden(g, game: str) -> None:
    w = g.watch_view()
    for seat in range(4):
        v = g.view(seat)
        mate = T.partner(seat)
        assert set(v) <= set(w) | {"drawn", "shown"}, "a key only a seat sees"
        for key in w.keys() - {"seat", "hand", "far", "pips", "events", "drawn", "shown"}:
            assert v[key] == w[key], (key, seat)
        if game == "colormatch":
            assert v["hand"] == g.hands[seat]
            if "drawn" in v:
                assert v["drawn"] in g.hands[seat]
            if "shown" in v:
                assert v["shown"]["seat"] != mate
            for e in v["events"]:
                if "cards" in e:
                    assert g._private[e["n"]][0] == seat, "a private draw shown to another seat"
            if "far" in v:
                assert seat not in v["far"] and sorted(v["far"]) == sorted(w["far"].keys() - {seat})
        else:
            rack = g._hands[seat]
            assert v["hand"] == [g.dset.tiles[i] for i in g.dset.hand_order if rack >> i & 1]
            assert v["pips"] == pip_count(rack, g.dset.pips)
            assert v["events"] == w["events"], "a Dominoes event is public"


@pytest.mark.parametrize(("game", "table"), [(g.name, t) for g in GAMES.values() for t in g.tables])
def test_partners_see_nothing_of_each_others_hands(game, table):
    for seed in range(6):
        rng = random.Random(seed)
        g = new_game(game, table=table, players=4, seed=seed, options=PARTNERS)
        for _ in range(300):
            _check_hidden(g, game)
            if g.outcome is not None:
                break
            seat = rng.choice(g.to_act)
            legal = g.legal_actions(seat)
            if not legal:
                seat = g.view(0)["turn"]
                legal = g.legal_actions(seat)
            g.act(seat, rng.choice(legal))


# ------------------------------------------------------------------- bots


def test_a_bot_does_not_catch_its_partner_but_catches_an_opponent():
    """Standard: seat 2 sheds to one card without calling; seat 0's bot lets
    its partner's missed call pass, where without partners it catches."""
    for partners in (True, False):
        g = chain_game("standard") if partners else new_game(
            "colormatch", table="standard", players=4, seed=1, deck=RS.rig("standard", chain_hands(), CHAIN[0]),
            first_seat=2)
        play_chain(g, plays=21, call=False)  # seat 2 played chain[21] and holds one card
        assert g.view(0)["counts"][2] == 1
        legal = g.legal_actions(0)
        assert {"type": "catch", "seat": 2} in legal
        for level in ("easy", "medium", "hard"):
            bot = make_bot(level, game="colormatch", table="standard", seat=0, seed=3)
            view = g.view(0)
            bot.observe(view)
            if partners:
                assert bot.declines(view, legal) is True, level
            elif level != "easy":
                assert bot.declines(view, legal) is False and bot.choose(view, legal)["type"] == "catch"
        if partners:
            with pytest.raises(IllegalAction):
                g.act(0, {"type": "play", "card": "B5"})  # not its turn: the catch was its only chance


@pytest.mark.parametrize("level", ["medium", "hard"])
def test_a_bot_skips_the_opponent_to_hand_the_turn_to_its_partner_about_to_go_out(level):
    """Seat 2 holds one card; seat 0 holds Y7 and a yellow Skip on a yellow
    top: with partners the bot plays the Skip over seat 1, and the turn goes
    straight to seat 2 (a Y7 would hand it to the opponent)."""
    kept = {0: "YS"}
    g = chain_game("standard", kept=kept)
    play_chain(g, plays=22)
    v = g.view(0)
    assert v["turn"] == 0 and v["counts"][2] == 1 and sorted(v["hand"]) == ["Y7", "YS"]
    legal = g.legal_actions(0)
    assert partner_legal(v, legal) == [a for a in legal if a.get("card") == "YS"]
    bot = make_bot(level, game="colormatch", table="standard", seat=0, seed=5)
    bot.observe(v)
    choice = bot.choose(v, legal)
    assert choice["card"] == "YS"
    g.act(0, choice)
    assert g.view(0)["turn"] == 2


def test_partner_legal_drops_attacks_on_the_partner_when_there_is_another_choice():
    view = {"teams": [[0, 2], [1, 3]], "seat": 1, "players": 4, "direction": 1, "counts": [5, 5, 5, 5],
            "hand": ["R7", "R5"], "turn": 1, "top": "R3", "game": "colormatch", "table": "standard"}
    swap_mate = {"type": "play", "card": "R7", "swap_with": 3}
    swap_rival = {"type": "play", "card": "R7", "swap_with": 0}
    plain = {"type": "play", "card": "R5"}
    assert partner_legal(view, [swap_mate, swap_rival, plain]) == [swap_rival, plain]
    assert partner_legal(view, [swap_mate]) == [swap_mate], "no other choice: the only move stays"
    assert partner_legal({**view, "teams": None}, [swap_mate, plain]) == [swap_mate, plain]
    # a penalty whose victim is the next seat: in 4 seats that is an opponent either way round
    for d in (1, -1):
        plus2 = {"type": "play", "card": "R+2"}
        assert partner_legal({**view, "direction": d}, [plus2, plain]) == [plus2, plain]


def test_a_dominoes_bot_leaves_an_end_its_partner_can_follow():
    """The partner (seat 2, one tile) passed facing 3 and 5: the bot prefers
    a play that leaves an end other than 3 or 5."""
    view = {"teams": [[0, 2], [1, 3]], "seat": 0, "players": 4, "counts": [3, 4, 1, 4], "turn": 0,
            "hand": ["5-1", "3-3", "6-6"], "ends": [3, 5], "line": ["3-5"],
            "events": [{"n": 1, "type": "pass", "seat": 2, "ends": [3, 5]}], "game": "dominoes", "set": 6}
    legal = [{"type": "play", "tile": "3-3", "end": "left"}, {"type": "play", "tile": "5-1", "end": "right"}]
    assert partner_legal(view, legal) == [legal[1]]
    bot = make_bot("medium", game="dominoes", seat=0, seed=1)
    assert bot.choose(view, legal) == legal[1]


def test_hards_look_ahead_counts_a_world_its_partner_wins_as_a_team_win():
    from types import SimpleNamespace

    bot = make_bot("hard", game="colormatch", table="standard", seat=0, seed=1)
    won_by_mate = SimpleNamespace(n=4, over=True, winners=[2])
    bot.mate = 2  # what `choose` sets from a partners view
    assert bot.judge(won_by_mate, 0) == 1.0
    assert bot.judge(SimpleNamespace(n=4, over=True, winners=[1]), 0) == 0.0
    bot.mate = None  # a view without `teams`
    assert bot.judge(won_by_mate, 0) == 0.0


def test_choose_reads_the_partner_from_the_view():
    g = chain_game("standard")
    play_chain(g, plays=2)  # seat 0 to act
    bot = make_bot("medium", game="colormatch", table="standard", seat=0, seed=1)
    bot.choose(g.view(0), g.legal_actions(0))
    assert bot.mate == 2
    plain = new_game("colormatch", table="standard", players=4, seed=1)
    s = plain.view(0)["turn"]
    other = make_bot("medium", game="colormatch", table="standard", seat=s, seed=1)
    other.choose(plain.view(s), plain.legal_actions(s))
    assert other.mate is None
