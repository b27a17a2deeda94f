"""A hypothesis state machine over the coin ledger (join, leave, win, split,
draw, abandon, finish again) on a real sqlite file.

The test keeps its own model of every balance, computed here from SPEC
section 9 and docs/store.md (not from `settle.py`), and checks after every
step: the store agrees with the model, the coins in play (players + house +
pots) equal the coins the bank issued, no player or pot is below zero, and
`Store.check()` (every cached balance equals its ledger sum, ...) finds
nothing.
"""

from __future__ import annotations

import shutil
import tempfile

import hypothesis.strategies as st
from hypothesis import HealthCheck, settings
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from lanmatch.store import InsufficientCoins, SeatSpec, Store

MAX_PROFILES = 5


class LedgerMachine(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.dir = tempfile.mkdtemp(prefix="lanmatch-ledger-")
        self.store = Store.open_dir(self.dir, durable=False)
        self.profiles: list[int] = []
        self.coins: dict[object, int] = {"house": 0}  # the model: profile id or "house" -> coins
        self.issued = 0
        self.live: dict[int, dict] = {}  # match id -> {"stake", "seats": [pid or None], "left": set()}
        self.closed: dict[int, dict] = {}  # match id -> outcome it was finished with (None: abandoned)
        self.now = 1.0

    def teardown(self):
        self.store.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def tick(self) -> float:
        self.now += 1.0
        return self.now

    # ------------------------------------------------------------ rules

    @precondition(lambda self: len(self.profiles) < MAX_PROFILES)
    @rule()
    def new_profile(self):
        n = len(self.profiles)
        p = self.store.profile(f"P{n}", f"key-{n}".ljust(16, "."), self.tick())
        self.profiles.append(p.id)
        self.coins[p.id] = 1000
        self.issued += 1000

    @precondition(lambda self: self.profiles)
    @rule(data=st.data(), stake=st.integers(1, 700))
    def join(self, data, stake):
        bots = data.draw(st.integers(max(0, 2 - len(self.profiles)), 2), label="bots")
        k = data.draw(st.integers(max(1, 2 - bots), min(4 - bots, len(self.profiles))), label="players")
        players = data.draw(st.permutations(self.profiles), label="order")[:k]
        seats: list[int | None] = list(players) + [None] * bots
        seats = data.draw(st.permutations(seats), label="seats")
        specs = [SeatSpec.bot("easy") if p is None else SeatSpec("player", f"P{p}", p) for p in seats]
        ledger_rows = len(self.store.ledger())
        can = all(self.coins[p] >= stake for p in players)
        try:
            m = self.store.begin_match(game="dominoes", table=None, seats=specs, seed=1, now=self.tick(),
                                       kind="coins", stake=stake)
        except InsufficientCoins:
            assert not can, "refused although every player holds the stake"
            assert len(self.store.ledger()) == ledger_rows, "a refused join wrote to the ledger"
            return
        assert can, "joined with less than the stake"
        for p in seats:
            self.coins[p if p is not None else "house"] -= stake
        self.live[m] = {"stake": stake, "seats": seats, "left": set()}

    def _leavable(self):
        return [(m, s) for m, x in self.live.items() for s, p in enumerate(x["seats"]) if p is not None and s not in x["left"]]

    @precondition(lambda self: self._leavable())
    @rule(data=st.data())
    def leave(self, data):
        m, seat = data.draw(st.sampled_from(self._leavable()), label="who leaves")
        x = self.live[m]
        p = x["seats"][seat]
        fee = min(-(-x["stake"] // 10), self.coins[p])
        assert self.store.leave(m, seat, self.tick()) == fee
        self.coins[p] -= fee
        self.coins["house"] += fee
        x["left"].add(seat)

    def _payee(self, x, seat):
        p = x["seats"][seat]
        return "house" if p is None or seat in x["left"] else p

    def _close(self, m, winners, abandon=False):
        x = self.live.pop(m)
        n, stake = len(x["seats"]), x["stake"]
        if winners:
            share, odd = divmod(stake * n, len(winners))
            for w in winners:
                self.coins[self._payee(x, w)] += share
            self.coins["house"] += odd
        else:
            for s in range(n):
                self.coins[self._payee(x, s)] += stake
        outcome = {"winners": winners, "points": [0] * n, "reason": "out"}
        if abandon:
            self.store.abandon_match(m, self.tick())
            self.closed[m] = None
        else:
            self.store.finish_match(m, outcome, self.tick(), verify=False)
            self.closed[m] = outcome
        assert self.store.pot(m) == 0

    @precondition(lambda self: self.live)
    @rule(data=st.data())
    def win(self, data):
        m = data.draw(st.sampled_from(sorted(self.live)), label="match")
        w = data.draw(st.integers(0, len(self.live[m]["seats"]) - 1), label="winner")
        self._close(m, [w])

    @precondition(lambda self: self.live)
    @rule(data=st.data())
    def split(self, data):
        m = data.draw(st.sampled_from(sorted(self.live)), label="match")
        n = len(self.live[m]["seats"])
        winners = data.draw(st.sets(st.integers(0, n - 1), min_size=2, max_size=n), label="winners")
        self._close(m, sorted(winners))

    @precondition(lambda self: self.live)
    @rule(data=st.data())
    def draw(self, data):
        self._close(data.draw(st.sampled_from(sorted(self.live)), label="match"), [])

    @precondition(lambda self: self.live)
    @rule(data=st.data())
    def abandon(self, data):
        self._close(data.draw(st.sampled_from(sorted(self.live)), label="match"), [], abandon=True)

    @precondition(lambda self: any(o is not None for o in self.closed.values()))
    @rule(data=st.data())
    def finish_again(self, data):
        m = data.draw(st.sampled_from(sorted(m for m, o in self.closed.items() if o is not None)), label="match")
        rows = len(self.store.ledger())
        self.store.finish_match(m, self.closed[m], self.tick(), verify=False)
        assert len(self.store.ledger()) == rows, "a second finish moved coins"

    # ------------------------------------------------------------ invariants

    @invariant()
    def balances_follow_the_model(self):
        for p in self.profiles:
            assert self.store.balance(p) == self.coins[p], f"profile {p}"
        assert self.store.house_balance() == self.coins["house"]

    @invariant()
    def coins_are_conserved_and_never_negative(self):
        pots = sum(self.store.pot(m) for m in self.live)
        assert pots == sum(x["stake"] * len(x["seats"]) for x in self.live.values())
        players = [self.store.balance(p) for p in self.profiles]
        assert min(players, default=0) >= 0
        assert sum(players) + self.store.house_balance() + pots == self.issued == self.store.coins_issued()

    @invariant()
    def the_store_finds_nothing_wrong(self):
        assert self.store.check() == []


LedgerMachine.TestCase.settings = settings(
    max_examples=30,
    stateful_step_count=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
TestLedger = LedgerMachine.TestCase
