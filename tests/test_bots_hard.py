"""Hard's newer parts: the judge of 3 seats or more (a conditional logit over
`table_features`), epsilon-greedy rollouts (`World.eps`), and what it keeps
of how each seat answers a +4 (`Memory.answers_w4`)."""

from __future__ import annotations

import math
import random
from collections import Counter

from _rig_classic import game as classic_game
from _rig_std import game as std_game

from lanmatch.bots import colormatch as CM
from lanmatch.bots import lookahead as L
from lanmatch.bots import make_bot
from lanmatch.rules import get_game


def world(hands: list[list[str]], cur: int = 0) -> L.World:
    w = L.World("classic")
    w.n, w.cur, w.color, w.disc = len(hands), cur, "G", ["G5"]
    w.pile = ["R9", "Y9", "B9", "G9"] * 5
    w.hands = [list(h) for h in hands]
    w.greedy = frozenset(range(w.n))
    return w


def test_the_table_judge_is_a_share_that_falls_with_cards():
    bot = CM.HardBot("classic", 0, 1)
    bot.table_weights = (0.36, 0.77, 0.19, 0.29, 0.56)
    w = world([["R1", "R2"], ["Y1", "Y2", "G3"], ["B1", "B2", "B3"], ["R3", "R4", "R5", "R6"]], cur=1)
    shares = [bot.judge(w, s) for s in range(4)]
    assert abs(sum(shares) - 1.0) < 1e-9
    assert shares[0] > shares[2] > shares[3]  # fewer cards, a better chance
    assert shares[1] > shares[2]  # the same count, but to move with a play (G3 on G5)
    w.hands[2] = ["B1", "B2", "W"]  # a wild for a number: worth more than a card's worth
    assert bot.judge(w, 2) > shares[2]


def test_the_judge_at_four_seats_weighs_as_fitted_for_the_tables_deck():
    """Each table's judge is its deck's fit (`HardBot.deck_weights`), else the
    classic fit (`table_weights`); three seats keep `trio_weights`. Which deck
    a table has is read from its declaration: no table by its name here."""
    tables = get_game("colormatch").tables
    assert set(CM.HardBot.deck_weights) <= set(L.DECKS)
    assert all(len(ks) == 5 for ks in CM.HardBot.deck_weights.values())
    hands = [["R1", "R2"], ["Y1", "Y2", "G3"], ["B1", "B2", "B3", "W"], ["R3", "R4", "R5", "R+2"]]
    seen = set()
    for name, spec in tables.items():
        bot = CM.HardBot(name, 0, 1)
        ks = CM.HardBot.deck_weights.get(spec.deck, CM.HardBot.table_weights)
        w = world(hands, cur=1)
        zs = [math.exp(sum(k * f for k, f in zip(ks, CM.table_features(w, s), strict=True))) for s in range(4)]
        assert abs(bot.judge(w, 2) - zs[2] / sum(zs)) < 1e-12, name
        seen.add(ks)
        w3 = world(hands[:3], cur=1)
        z3 = [math.exp(sum(k * f for k, f in zip(bot.trio_weights, CM.table_features(w3, s), strict=True)))
              for s in range(3)]
        assert abs(bot.judge(w3, 2) - z3[2] / sum(z3)) < 1e-12, name
    assert len(seen) == 1 + len(CM.HardBot.deck_weights)  # every fit in use, and the classic one too


def test_epsilon_rollouts_play_only_what_the_rules_allow():
    rng = random.Random(3)
    for k in range(40):
        deck = L.full_deck("classic")
        rng.shuffle(deck)
        w = world([deck[i * 7:(i + 1) * 7] for i in range(4)], cur=k % 4)
        w.pile = deck[28:-1]
        w.disc = [deck[-1]] if L.COLOR[deck[-1]] else ["G5"]
        w.color = L.COLOR[w.disc[-1]]
        w.eps, w.rng = 0.5, random.Random(k)
        for _ in range(300):
            if w.over:
                break
            seat, before = w.cur, Counter(w.hands[w.cur])
            ok = {c for c in before if w.playable(seat, c)}
            pending = w.pending
            L.policy_step(w)
            gone = before - Counter(w.hands[seat])
            if not pending:
                assert set(gone) <= ok, (sorted(gone), sorted(ok))
            assert len(gone) <= 1


def test_hard_remembers_who_challenges_a_plus4():
    hands = [["W+4", "B1", "B3", "G1", "B2", "G2", "Y7"], ["Y1", "Y2", "Y3", "B4", "G5", "G6", "B7"],
             ["Y4", "Y5", "Y6", "B8", "G8", "G9", "B9"]]
    g = std_game("standard", hands, "R9")
    hard = make_bot("hard", table="standard", seat=2, seed=1)
    g.act(0, {"type": "play", "card": "W+4", "color": "G"})
    g.act(1, {"type": "challenge"})
    hard.observe(g.view(2))
    assert hard.memory.answers_w4[1] == [1, 1]
    assert hard.challenge_rate(1) > hard.challenge_rate(0) == hard.trap_prior


def test_hard_searches_each_number_of_a_color_as_its_own_move():
    """With 3 seats or more, as with two, two numbers of one color are two
    moves to search (the number left on top is what the next seat may
    match); without `cards_apart` they count as one."""
    hands = [["R3", "R7", "G7", "B1", "B2", "Y4", "Y5"], ["G1", "G2", "G3", "G4", "G5", "G6", "G8"],
             ["Y1", "Y2", "Y3", "Y6", "Y7", "Y8", "Y9"]]
    g = classic_game("classic", hands, "R5", first=0)
    bot = CM.HardBot("classic", 0, 1)
    x = CM.Ctx(g.view(0), bot.rules)
    legal = g.legal_actions(0)
    default = CM.MediumBot.turn(bot, x, legal)
    cards = [a.get("card") for a in bot.moves(x, legal, default)]
    assert cards[0] == default["card"] and {"R3", "R7"} <= set(cards)
    assert len(cards) == len(set(cards))
    bot.cards_apart = False
    cards = [a.get("card") for a in bot.moves(x, legal, default)]
    assert cards[0] == default["card"] and len({"R3", "R7"} & set(cards)) == 1


def test_a_two_faced_deck_spends_three_fifths_of_the_budget_at_every_seat_count(monkeypatch):
    """A simulated move of a two-faced deck costs more: its searches stop at
    3/5 of the budget with 3 seats as with 2. Counted from below (deals,
    copies and rollout moves, not repair swaps): before each search's last
    deal, less than 3/5 of the budget was spent."""
    from lanmatch.rules import get_game, new_game
    from lanmatch.sim import play_game

    table = next(t for t in get_game("colormatch").tables if L.rules_of(t).two_faced)
    log: list[list[int]] = []  # per search: the moves counted by the end of each deal's work
    deal, rollout = CM.Dealer.deal, L.rollout

    def counted_deal(self, rng):
        log[-1].append((log[-1][-1] if log[-1] else 0) + 12)
        return deal(self, rng)

    def counted_rollout(w, steps):
        moves = rollout(w, steps)
        log[-1][-1] += 3 + moves
        return moves

    search = CM.HardBot.search

    def logged_search(self, x, legal, default):
        log.append([])
        return search(self, x, legal, default)

    monkeypatch.setattr(CM.Dealer, "deal", counted_deal)
    monkeypatch.setattr(L, "rollout", counted_rollout)
    monkeypatch.setattr(CM.HardBot, "search", logged_search)
    budget = CM.HardBot.budget * 3 // 5
    for seed in range(2):
        g = new_game("colormatch", table=table, players=3, seed=seed)
        play_game(g, [make_bot("hard", table=table, seat=0, seed=seed)]
                  + [make_bot("medium", table=table, seat=s, seed=seed) for s in (1, 2)], table, max_steps=3000)
    searched = [m for m in log if len(m) > CM.HardBot.min_samples]
    assert len(searched) > 20
    for moves in searched:
        assert moves[-2] < budget, moves
    assert max(m[-1] for m in searched) > budget // 2  # the searches do spend most of it


def _dealt(table: str, seed: int) -> L.World:
    """A world of `table` a few moves into a seeded deal (two faces at Day & Night)."""
    rng = random.Random(seed)
    rules = L.rules_of(table)
    act = list(rules.faces)
    far = list(rules.far_faces)
    rng.shuffle(act)
    rng.shuffle(far)
    w = L.World(table)
    w.n, w.greedy = 4, frozenset(range(4))
    w.hands = [act[i * 7:(i + 1) * 7] for i in range(4)]
    if rules.two_faced:
        w.fars = [far[i * 7:(i + 1) * 7] for i in range(4)]
        w.pile_far, w.disc_far = far[29:], [far[28]]
    w.pile, w.disc = act[29:], [act[28] if L.COLOR[act[28]] else "G5"]
    w.color = L.COLOR[w.disc[-1]]
    w.shields = {1}
    for _ in range(rng.randrange(6)):
        if not w.over:
            L.policy_step(w)
    return w


def test_a_copied_world_holds_every_field_and_shares_no_list():
    mutable = (list, set, dict)
    for table in get_game(L.GAME).tables:
        for seed in range(6):
            w = _dealt(table, seed)
            c = w.copy()
            for name in L.World.__slots__:
                a, b = getattr(w, name), getattr(c, name)
                if name == "winners":
                    assert b == []
                    continue
                assert a == b, (table, name)
                if isinstance(a, mutable) and name not in ("ladder", "points"):
                    assert a is not b, (table, name)  # what play changes is the copy's own
                if name in ("hands", "fars") and a is not None:
                    assert all(x is not y for x, y in zip(a, b, strict=True)), (table, name)
            before = {n: repr(getattr(w, n)) for n in L.World.__slots__ if n != "rng"}
            c.reseed(seed)
            L.rollout(c, 200)
            assert {n: repr(getattr(w, n)) for n in L.World.__slots__ if n != "rng"} == before, table


def test_a_reseeded_world_draws_the_stream_of_its_seed_and_only_when_it_needs_one():
    for table in get_game(L.GAME).tables:
        w = _dealt(table, 1)
        w.pile, w.pile_far = w.pile[:3], (w.pile_far[:3] if w.pile_far is not None else None)  # reshuffles soon
        ends = set()
        for _ in range(2):
            c = w.copy()
            c.reseed(0.25)
            assert c.rng is None  # nothing built yet
            L.rollout(c, 300)
            ends.add(repr((c.hands, c.pile, c.disc, c.winners)))
        eager = w.copy()
        eager.rng = random.Random(0.25)  # the stream built at once, as before `reseed`
        L.rollout(eager, 300)
        assert ends == {repr((eager.hands, eager.pile, eager.disc, eager.winners))}, table
