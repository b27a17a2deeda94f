"""Profiles and play coins (SPEC section 9): grants, stakes, pots, fees, refunds.

Every scenario runs on a real sqlite file. Outcomes are either played by bots
through a `Referee` (and checked against the replay), or written by hand with
`verify=False` where a test needs a result bots rarely produce (a shared win,
a draw).
"""

from __future__ import annotations

import sqlite3

import pytest
from _store_play import new_match, play_on

from lanmatch.store import (
    BadName,
    InsufficientCoins,
    LogMismatch,
    MatchClosed,
    SeatSpec,
    Store,
    WrongKey,
    leaving_fee,
)

KEY = "k" * 32


@pytest.fixture
def store(tmp_path):
    s = Store.open_dir(tmp_path)
    yield s
    s.close()


def people(store, *names):
    return [store.profile(n, f"key-of-{n}".ljust(20, "."), 1.0) for n in names]


def coin_match(store, profiles, bots=0, stake=10, game="colormatch", table="classic", **kw):
    seats = [SeatSpec.player(p) for p in profiles] + [SeatSpec.bot("medium") for _ in range(bots)]
    return store.begin_match(game=game, table=table, seats=seats, seed=3, now=2.0, kind="coins", stake=stake, **kw)


def outcome(winners, n):
    return {"winners": winners, "points": [0] * n, "reason": "out"}


def state(store):
    """Everything money and results touch, to compare before and after."""
    c = store.conn
    return {t: c.execute(f"SELECT * FROM {t} ORDER BY 1, 2").fetchall()
            for t in ("ledger", "accounts", "matches", "match_seats", "results", "profiles")}


# ---------------------------------------------------------------- profiles


def test_a_profile_is_made_on_first_use_with_1000_coins_from_the_bank(store):
    ann = store.profile("Ann", KEY, 5.0)
    assert store.balance(ann.id) == 1000
    (grant,) = store.ledger(profile_id=ann.id)
    assert (grant.key, grant.reason, grant.src, grant.dst, grant.amount) == (f"grant:{ann.id}", "grant", "bank", ann.id, 1000)
    assert store.coins_issued() == 1000
    assert store.check() == []


def test_a_profile_is_recognised_on_return_by_its_key_in_any_case(store):
    ann = store.profile("Ann", KEY, 5.0)
    again = store.profile("  ann ", KEY, 9.0)
    assert again == ann
    assert store.coins_issued() == 1000, "no second grant"


def test_a_taken_name_with_another_key_is_refused(store):
    store.profile("Ann", KEY, 5.0)
    with pytest.raises(WrongKey) as e:
        store.profile("ANN", "x" * 32, 6.0)
    assert "'Ann'" in str(e.value) and "another name" in str(e.value)
    assert len(store.profiles()) == 1


def test_a_profile_made_from_its_verifier_is_the_one_its_key_makes(store):
    from lanmatch.store.db import key_hash

    assert store.verifier_of("Ann") is None
    ann = store.profile_from_verifier("Ann", key_hash(KEY), 5.0)
    assert store.balance(ann.id) == 1000 and store.check() == []
    assert store.verifier_of(" ann ") == (ann, key_hash(KEY))
    assert store.profile("ANN", KEY, 6.0) == ann == store.profile_from_verifier("ann", key_hash(KEY), 7.0)
    with pytest.raises(WrongKey):
        store.profile_from_verifier("Ann", key_hash("x" * 32), 8.0)
    with pytest.raises(ValueError):
        store.profile_from_verifier("Bob", KEY, 8.0)  # the key itself is not a verifier
    assert store.coins_issued() == 1000 and len(store.profiles()) == 1


@pytest.mark.parametrize("name", ["", "   ", "x" * 25, "nul\x00", "bell\x07", "zero\u200bwidth"])
def test_unusable_names_are_refused(store, name):
    with pytest.raises(BadName):
        store.profile(name, KEY, 1.0)
    assert store.profiles() == []


def test_spaces_in_a_name_are_tidied(store):
    assert store.profile("  Ann \t  Lee ", KEY, 1.0).name == "Ann Lee"


def test_the_store_keeps_only_a_hash_of_the_key(store):
    store.profile("Ann", KEY, 1.0)
    (stored,) = store.conn.execute("SELECT key_hash FROM profiles").fetchone()
    assert KEY not in stored and len(stored) == 64


# ---------------------------------------------------------------- coin rooms


def test_every_seat_posts_the_stake_and_the_house_posts_for_bots(store):
    ann, bob = people(store, "Ann", "Bob")
    m = coin_match(store, [ann, bob], bots=2, stake=25)
    assert store.balance(ann.id) == store.balance(bob.id) == 975
    assert store.house_balance() == -50
    assert store.pot(m) == 100
    stakes = [r for r in store.ledger(match_id=m) if r.reason == "stake"]
    assert [(r.seat, r.src, r.amount) for r in stakes] == [(0, ann.id, 25), (1, bob.id, 25), (2, "house", 25), (3, "house", 25)]
    assert store.check() == []


def test_the_winner_takes_the_pot(store):
    ann, bob = people(store, "Ann", "Bob")
    m, ref = new_match(store, [SeatSpec.player(ann), SeatSpec.player(bob), SeatSpec.bot("easy")],
                       kind="coins", stake=40, seed=11)
    settlement = play_on(store, m, ref, 0, now=3.0)
    (w,) = ref.outcome["winners"]
    payee = [ann.id, bob.id, "house"][w]
    assert [(t.reason, t.dst, t.amount) for t in settlement.transfers] == [("win", payee, 120)]
    balances = {ann.id: 960, bob.id: 960, "house": -40}
    balances[payee] += 120
    assert (store.balance(ann.id), store.balance(bob.id), store.house_balance()) == (balances[ann.id], balances[bob.id], balances["house"])
    assert store.pot(m) == 0
    assert store.check() == []


def test_a_shared_win_splits_the_pot_and_the_house_keeps_the_odd_coins(store):
    ann, bob, cy = people(store, "Ann", "Bob", "Cy")
    m = coin_match(store, [ann, bob, cy], bots=1, stake=7)  # pot 28
    s = store.finish_match(m, outcome([0, 1, 2], 4), 3.0, verify=False)
    assert sorted((t.reason, str(t.dst), t.amount) for t in s.transfers) == sorted(
        [("win", str(ann.id), 9), ("win", str(bob.id), 9), ("win", str(cy.id), 9), ("odd", "house", 1)]
    )
    assert [store.balance(p.id) for p in (ann, bob, cy)] == [1002, 1002, 1002]
    assert store.house_balance() == -7 + 1
    assert store.check() == []


def test_a_shared_win_with_a_bot_pays_the_bots_share_to_the_house(store):
    (ann,) = people(store, "Ann")
    m = coin_match(store, [ann], bots=1, stake=5)
    store.finish_match(m, outcome([0, 1], 2), 3.0, verify=False)
    assert store.balance(ann.id) == 1000 and store.house_balance() == 0


def test_a_dominoes_draw_returns_every_stake(store):
    ann, bob = people(store, "Ann", "Bob")
    m = coin_match(store, [ann, bob], bots=1, stake=30, game="dominoes", table=None)
    s = store.finish_match(m, {"winners": [], "points": [104, 104, 12], "reason": "out"}, 3.0, verify=False)
    assert sorted(t.reason for t in s.transfers) == ["refund"] * 3
    assert store.balance(ann.id) == store.balance(bob.id) == 1000 and store.house_balance() == 0
    assert [r[0] for r in store.conn.execute("SELECT result FROM results")] == ["draw"] * 3
    assert store.check() == []


def test_leaving_forfeits_the_stake_and_costs_a_10_percent_fee_rounded_up(store):
    ann, bob = people(store, "Ann", "Bob")
    assert leaving_fee(55) == 6 and leaving_fee(50) == 5 and leaving_fee(1) == 1
    m = coin_match(store, [ann, bob], bots=1, stake=55)
    assert store.leave(m, 1, 4.0) == 6
    assert store.leave(m, 1, 5.0) == 6, "leaving again charges nothing more"
    assert store.balance(bob.id) == 1000 - 55 - 6
    assert store.house_balance() == -55 + 6
    # Bob's seat (now a house bot) wins: the pot goes to the house, not to Bob
    store.finish_match(m, outcome([1], 3), 6.0, verify=False)
    assert store.balance(bob.id) == 939 and store.house_balance() == -49 + 165
    rows = dict(store.conn.execute("SELECT seat, result FROM results WHERE match_id = ?", (m,)).fetchall())
    assert rows == {0: "loss", 1: "left", 2: "loss"}
    assert store.stats("Bob").total.left == 1 and store.stats("Bob").total.coins == -61
    assert store.check() == []


def test_a_leavers_stake_stays_forfeit_in_a_draw(store):
    ann, bob = people(store, "Ann", "Bob")
    m = coin_match(store, [ann, bob], stake=20, game="dominoes", table=None)
    store.leave(m, 0, 3.0)
    store.finish_match(m, {"winners": [], "points": [0, 0], "reason": "blocked"}, 4.0, verify=False)
    assert store.balance(ann.id) == 1000 - 20 - 2 and store.balance(bob.id) == 1000
    assert store.house_balance() == 22


def test_the_fee_takes_at_most_what_is_left_so_no_balance_goes_negative(store):
    ann, bob = people(store, "Ann", "Bob")
    m = coin_match(store, [ann, bob], stake=5)
    store.finish_match(m, outcome([0], 2), 3.0, verify=False)
    assert store.balance(ann.id) == 1005
    m = coin_match(store, [ann, bob], stake=995)  # Ann keeps 10; Bob exactly 0
    assert store.leave(m, 0, 4.0) == 10  # the fee would be 100
    assert store.leave(m, 1, 4.0) == 0
    assert store.balance(ann.id) == 0 and store.balance(bob.id) == 0
    assert not [r for r in store.ledger(match_id=m) if r.key == f"fee:{m}:1"], "no zero-coin rows"
    assert store.check() == []


def test_a_player_with_less_than_the_stake_cannot_join_and_nothing_is_written(store):
    ann, bob = people(store, "Ann", "Bob")
    m = coin_match(store, [ann, bob], stake=600)
    store.finish_match(m, outcome([0], 2), 3.0, verify=False)
    assert store.balance(bob.id) == 400
    before = state(store)
    with pytest.raises(InsufficientCoins) as e:
        coin_match(store, [ann, bob], bots=1, stake=401)  # Ann's stake is posted first, then Bob fails
    assert "Bob holds 400 coins" in str(e.value) and "401" in str(e.value)
    assert state(store) == before
    coin_match(store, [ann, bob], stake=400)
    assert store.balance(bob.id) == 0


def test_guests_play_practice_rooms_only_and_practice_moves_no_coin(store):
    (ann,) = people(store, "Ann")
    with pytest.raises(ValueError):
        store.begin_match(game="colormatch", table="toll", seats=[SeatSpec.player(ann), SeatSpec.guest("Gus")],
                          seed=1, now=1.0, kind="coins", stake=5)
    with pytest.raises(ValueError):
        store.begin_match(game="colormatch", table="toll", seats=[SeatSpec.player(ann), SeatSpec.guest("Gus")],
                          seed=1, now=1.0, kind="practice", stake=5)
    m, ref = new_match(store, [SeatSpec.player(ann), SeatSpec.guest("Gus")], table="toll")
    play_on(store, m, ref, 0)
    assert store.ledger(match_id=m) == [] and store.balance(ann.id) == 1000
    assert store.stats("Ann").total.played == 1


def test_abandoning_a_match_returns_the_stakes_and_counts_nothing(store):
    ann, bob = people(store, "Ann", "Bob")
    m = coin_match(store, [ann, bob], bots=1, stake=9)
    store.leave(m, 1, 2.0)
    s = store.abandon_match(m, 3.0)
    assert store.abandon_match(m, 4.0) == s
    assert store.balance(ann.id) == 1000 and store.balance(bob.id) == 1000 - 9 - 1
    assert store.stats("Ann").total.played == 0
    with pytest.raises(MatchClosed):
        store.finish_match(m, outcome([0], 3), 5.0, verify=False)
    assert store.check() == []


# ---------------------------------------------------------------- never twice


def test_finishing_twice_pays_once(store):
    ann, bob = people(store, "Ann", "Bob")
    m = coin_match(store, [ann, bob], stake=50)
    first = store.finish_match(m, outcome([1], 2), 3.0, verify=False)
    before = state(store)
    assert store.finish_match(m, outcome([1], 2), 4.0, verify=False) == first
    assert store.finish_match(m, None, 4.0) == first
    with pytest.raises(LogMismatch):
        store.finish_match(m, outcome([0], 2), 5.0, verify=False)
    assert state(store) == before
    assert store.balance(bob.id) == 1050


def test_a_second_payout_is_refused_by_the_database_itself(store):
    ann, bob = people(store, "Ann", "Bob")
    m = coin_match(store, [ann, bob], stake=50)
    store.finish_match(m, outcome([0], 2), 3.0, verify=False)
    c = store.conn
    ann_acct = c.execute("SELECT id FROM accounts WHERE profile_id = ?", (ann.id,)).fetchone()[0]
    pot = c.execute("SELECT id FROM accounts WHERE match_id = ?", (m,)).fetchone()[0]
    before = state(store)
    insert = "INSERT INTO ledger (key, src, dst, amount, reason, match_id, seat, at) VALUES (?, ?, ?, ?, 'win', ?, ?, 9.0)"
    with pytest.raises(sqlite3.IntegrityError, match="UNIQUE"):  # the same payout key
        c.execute(insert, (f"win:{m}:0", 2, ann_acct, 100, m, 0))
    with pytest.raises(sqlite3.IntegrityError, match="UNIQUE"):  # another key, same (match, seat, reason)
        c.execute(insert, (f"win:{m}:0:again", 2, ann_acct, 100, m, 0))
    with pytest.raises(sqlite3.IntegrityError, match="CHECK"):  # more than the pot holds
        c.execute(insert, (f"win:{m}:1", pot, ann_acct, 1, m, 1))
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        c.execute("UPDATE ledger SET amount = amount + 1")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        c.execute("DELETE FROM ledger")
    with pytest.raises(sqlite3.IntegrityError, match="stays closed"):
        c.execute("UPDATE matches SET status = 'live', ended = NULL WHERE id = ?", (m,))
    assert state(store) == before


def test_a_balance_cannot_go_below_zero_even_by_hand(store):
    (ann,) = people(store, "Ann")
    acct = store.conn.execute("SELECT id FROM accounts WHERE profile_id = ?", (ann.id,)).fetchone()[0]
    with pytest.raises(sqlite3.IntegrityError, match="CHECK"):
        store.conn.execute("INSERT INTO ledger (key, src, dst, amount, reason, match_id, seat, at)"
                           " VALUES ('x', ?, 2, 1001, 'fee', NULL, NULL, 1.0)", (acct,))
    assert store.balance(ann.id) == 1000


# ---------------------------------------------------------------- all or nothing


def test_finish_is_all_or_nothing_wherever_it_is_interrupted(store):
    """sqlite's progress handler interrupts the finishing transaction after k
    steps, for k = 1, 2, ...: each interrupted attempt leaves every table as it
    was; the first attempt that is not interrupted pays everything once."""
    ann, bob, cy = people(store, "Ann", "Bob", "Cy")
    m = coin_match(store, [ann, bob, cy], bots=1, stake=7)
    store.leave(m, 2, 2.5)
    before = state(store)
    interrupted = 0
    for k in range(1, 2000):
        calls = 0

        def handler(k=k):
            nonlocal calls
            calls += 1
            return 1 if calls == k else 0

        store.conn.set_progress_handler(handler, 20)
        try:
            store.finish_match(m, outcome([0, 1, 2], 4), 3.0, verify=False)
        except sqlite3.OperationalError as e:
            assert "interrupt" in str(e)
            assert state(store) == before, f"half written after an interrupt at step {k}"
            interrupted += 1
            continue
        finally:
            store.conn.set_progress_handler(None, 0)
        break
    assert interrupted >= 5, "the handler never interrupted the transaction"
    assert store.balance(ann.id) == 1002 and store.balance(bob.id) == 1002
    assert store.balance(cy.id) == 1000 - 7 - 1
    assert store.house_balance() == -7 + 1 + 1 + 9
    assert store.conn.execute("SELECT count(*) FROM results WHERE match_id = ?", (m,)).fetchone()[0] == 4
    assert store.check() == []


def test_a_payout_that_fails_midway_rolls_the_whole_finish_back(store):
    """A planted ledger row makes the second payout collide: the first payout,
    the outcome and the stats rows of the same transaction are undone."""
    ann, bob = people(store, "Ann", "Bob")
    m = coin_match(store, [ann, bob], stake=11)
    store.conn.execute(
        "INSERT INTO ledger (key, src, dst, amount, reason, match_id, seat, at) VALUES (?, 1, 2, 1, 'win', ?, 1, 1.0)",
        (f"win:{m}:1", m),
    )
    before = state(store)
    with pytest.raises(sqlite3.IntegrityError):
        store.finish_match(m, outcome([0, 1], 2), 3.0, verify=False)
    assert state(store) == before
    assert store.match(m).status == "live" and store.pot(m) == 22


def test_an_outcome_the_actions_do_not_give_is_refused(store):
    ann, bob = people(store, "Ann", "Bob")
    m, ref = new_match(store, [SeatSpec.player(ann), SeatSpec.player(bob)], kind="coins", stake=10, seed=4)
    play_on(store, m, ref, 0, finish=False, max_actions=5)
    with pytest.raises(LogMismatch, match="do not end the game"):
        store.finish_match(m, None, 3.0)
    play_on(store, m, ref, 5, finish=False)
    wrong = dict(ref.outcome, winners=[1 - ref.outcome["winners"][0]])
    before = state(store)
    with pytest.raises(LogMismatch, match="replays to"):
        store.finish_match(m, wrong, 3.0)
    assert state(store) == before
    store.finish_match(m, ref.outcome, 3.0)
    assert store.check() == []


def test_actions_are_recorded_once_in_order(store):
    (ann,) = people(store, "Ann")
    m = store.begin_match(game="dominoes", table=None, seats=[SeatSpec.player(ann), SeatSpec.bot("easy")], seed=1, now=1.0)
    g = store.rebuild(m)
    seat = g.to_act[0]
    action = g.legal_actions(seat)[0]
    assert store.record_action(m, 0, seat, action) is True
    assert store.record_action(m, 0, seat, dict(action)) is False, "the same action again is a no-op"
    with pytest.raises(LogMismatch):
        store.record_action(m, 0, 1 - seat, action)
    with pytest.raises(LogMismatch):
        store.record_action(m, 2, seat, action)
    with pytest.raises(ValueError):
        store.record_action(m, 1, 7, action)
    assert len(store.match(m).actions) == 1
    with pytest.raises(sqlite3.IntegrityError, match="in order"):
        store.conn.execute("INSERT INTO match_actions (match_id, idx, seat, action) VALUES (?, 5, 0, '{}')", (m,))
    store.abandon_match(m, 2.0)
    with pytest.raises(MatchClosed):
        store.record_action(m, 1, seat, action)
