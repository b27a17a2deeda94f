"""Matches stored as seed + actions replay to the live game, resume after a
"crash", and count in the stats once, at their end."""

from __future__ import annotations

import pytest
from _store_play import new_match, play_match, play_on, referee_for, resume

from lanmatch.store import ReplayError, SeatSpec, Store, rebuild_game

CASES = [
    ("colormatch", "classic", 3, 1, None),
    ("colormatch", "classic", 5, 2, None),
    ("colormatch", "standard", 4, 3, None),
    ("colormatch", "standard", 3, 4, {"stacking": True, "jump_in": True, "seven_o": True}),
    ("colormatch", "toll", 2, 5, None),
    ("colormatch", "toll", 4, 6, None),
    ("colormatch", "daynight", 3, 7, None),
    ("colormatch", "daynight", 6, 8, None),
    ("colormatch", "siege", 4, 9, None),
    ("colormatch", "siege", 2, 10, None),
    ("colormatch", "cards", 3, 11, {"stacking": True}),
    ("colormatch", "cards", 4, 12, {"mode": "match", "target": 150}),
    ("colormatch", "cards", 3, 13, {"mode": "daily", "date": "2025-03-01"}),
    ("dominoes", None, 2, 14, None),
    ("dominoes", None, 4, 15, {"target": 60}),
]


def case_id(case):
    game, table, n, seed, options = case
    return f"{table or game}-{n}p-{seed}" + ("-" + "-".join(sorted(options)) if options else "")


@pytest.fixture
def store(tmp_path):
    s = Store.open_dir(tmp_path)
    yield s
    s.close()


def seats_for(store, n):
    """Ann (played by a Medium bot), one Easy bot (it forgets calls), Medium bots."""
    ann = store.profile("Ann", "a" * 20, 1.0)
    return [SeatSpec.player(ann), SeatSpec.bot("easy")] + [SeatSpec.bot("medium") for _ in range(n - 2)]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_a_stored_match_replays_to_the_live_game(store, case):
    """Bots (one Easy seat for forgotten calls, Medium elsewhere) play through
    a Referee, every action is recorded as it happens, the match is finished;
    the replay ends in the same outcome and the same view for every seat."""
    game, table, n, seed, options = case
    m, ref, settlement = play_match(store, seats_for(store, n), game=game, table=table, seed=seed, options=options)
    assert ref.over, "the bots did not finish the match"
    assert settlement.outcome == store.match(m).outcome
    check_replay(store, m, ref, n)


def test_the_hosts_own_actions_replay_too(store):
    """At `cards` the host's clock closes call and catch windows with `expire`
    (an Easy bot forgets to call in this deal): those actions are stored and
    replayed like any other."""
    ann = store.profile("Ann", "a" * 20, 1.0)
    seats = [SeatSpec.player(ann), SeatSpec.bot("easy"), SeatSpec.bot("easy")]
    m, ref, _ = play_match(store, seats, table="cards", seed=190)
    kinds = {a["type"] for _, _, a, _ in ref.log}
    assert {"expire", "catch", "call"} <= kinds
    assert {by for *_, by in ref.log} >= {"bot", "chance", "call"}
    assert [a.by for a in store.match(m).actions] == [by for *_, by in ref.log]
    check_replay(store, m, ref, 3)


def check_replay(store, m, ref, n):
    live = ref.g
    steps = list(store.replay(m))
    assert len(steps) == len(ref.log) + 1
    assert [(s.seat, s.action) for s in steps[1:]] == [(seat, a) for _, seat, a, _ in ref.log]
    last = steps[-1]
    assert last.outcome == live.outcome
    for seat in range(n):
        assert last.views[seat] == live.view(seat)
        assert steps[0].views[seat]["step"] == 0
    rebuilt = rebuild_game(store.match(m))
    assert [rebuilt.view(s) for s in range(n)] == [live.view(s) for s in range(n)]


@pytest.mark.parametrize("case", [CASES[2], CASES[6], CASES[11], CASES[13]], ids=case_id)
def test_an_unfinished_match_resumes_where_it_stood(tmp_path, case):
    """The host stops mid-match (the store is closed without finishing);
    reopened, the match is unfinished, its rebuilt game stands exactly where
    the live one stood, and it plays on to a paid, counted end."""
    game, table, n, seed, options = case
    with Store.open_dir(tmp_path) as store:
        ann = store.profile("Ann", "a" * 20, 1.0)
        seats = [SeatSpec.player(ann)] + [SeatSpec.bot("medium") for _ in range(n - 1)]
        m, ref = new_match(store, seats, game=game, table=table, seed=seed, options=options, kind="coins", stake=20)
        play_on(store, m, ref, 0, max_actions=25, finish=False)
        assert not ref.over
        views = [ref.g.view(s) for s in range(n)]
    with Store.open_dir(tmp_path) as store:
        (record,) = store.unfinished()
        assert record.id == m and len(record.actions) == 25
        ref2, stored = resume(store, record)
        assert [ref2.g.view(s) for s in range(n)] == views
        play_on(store, m, ref2, stored)
        assert ref2.over and store.unfinished() == []
        assert store.pot(m) == 0 and store.check() == []


def test_a_log_that_the_engine_refuses_is_reported_not_replayed(store):
    m = store.begin_match(game="dominoes", table=None, seats=seats_for(store, 2), seed=3, now=1.0)
    g = store.rebuild(m)
    seat = g.to_act[0]
    store.record_action(m, 0, 1 - seat, {"type": "pass"})  # stored, but not this seat's to take
    with pytest.raises(ReplayError, match="action 0"):
        store.rebuild(m)
    with pytest.raises(ReplayError):
        list(store.replay(m))


def test_a_first_to_n_match_counts_once_at_its_end(store):
    ann = store.profile("Ann", "a" * 20, 1.0)
    bob = store.profile("Bob", "b" * 20, 1.0)
    seats = [SeatSpec.player(ann), SeatSpec.player(bob), SeatSpec.bot("medium")]
    m, ref, _ = play_match(store, seats, table="cards", seed=21, options={"mode": "match", "target": 200})
    assert ref.outcome["rounds"] > 1, "pick a seed whose match takes several rounds"
    rows = store.conn.execute("SELECT seat, mode, result FROM results WHERE match_id = ?", (m,)).fetchall()
    assert len(rows) == 3 and {r[1] for r in rows} == {"match"}
    for p in (ann, bob):
        assert store.stats(p).total.played == 1
    (w,) = ref.outcome["winners"]
    assert store.stats(ann).total.won == (w == 0) and store.stats(bob).total.won == (w == 1)
    # a Dominoes match to 100 is one match too, however many rounds
    m2, ref2, _ = play_match(store, seats, game="dominoes", table=None, seed=5)
    assert store.stats(ann).total.played == 2
    assert [t for t in store.stats(ann).by_table] == sorted(store.stats(ann).by_table)


def test_stats_count_by_table_bot_level_and_opponents(store):
    ann = store.profile("Ann", "a" * 20, 1.0)
    bob = store.profile("Bob", "b" * 20, 1.0)

    def finish(table, seats, winners):
        m = store.begin_match(game="colormatch", table=table, seats=seats, seed=1, now=1.0)
        store.finish_match(m, {"winners": winners, "points": [0] * len(seats), "reason": "out"}, 2.0, verify=False)

    A, B = SeatSpec.player(ann), SeatSpec.player(bob)
    finish("classic", [A, SeatSpec.bot("easy")], [0])
    finish("classic", [A, SeatSpec.bot("easy"), SeatSpec.bot("hard")], [1])
    finish("siege", [A, B, SeatSpec.bot("hard")], [0, 1])
    finish("siege", [B, A], [0])
    st = store.stats(ann)
    assert (st.total.played, st.total.won, st.total.lost) == (4, 2, 2)
    assert [(tb, t.played, t.won) for _, tb, t in st.by_table] == [("classic", 2, 1), ("siege", 2, 1)]
    assert [(lv, t.played, t.won) for lv, t in st.by_bots] == [("easy", 1, 1), ("hard", 1, 1), ("mixed", 1, 0), ("none", 1, 0)]
    assert [(n, t.played, t.won) for n, t in st.by_opponents] == [(1, 2, 1), (2, 2, 1)]
    assert store.stats("bob").total.won == 2


def test_daily_best_is_the_fewest_turns_among_daily_wins(store):
    ann = store.profile("Ann", "a" * 20, 1.0)
    bob = store.profile("Bob", "b" * 20, 1.0)

    def daily(date, profile, won, turns):
        seats = [SeatSpec.player(profile), SeatSpec.bot("medium"), SeatSpec.bot("medium")]
        m = store.begin_match(game="colormatch", table="cards", seats=seats, seed=0, now=1.0,
                              options={"mode": "daily", "date": date})
        out = {"winners": [0] if won else [1], "points": [0, 0, 0], "reason": "out", "turns": [turns, 30, 30]}
        store.finish_match(m, out, 2.0, verify=False)

    daily("2025-03-01", ann, True, 19)
    daily("2025-03-01", ann, True, 14)
    daily("2025-03-01", ann, False, 9)  # a loss, however short, is no best
    daily("2025-03-02", ann, True, 22)
    daily("2025-03-01", bob, True, 17)
    st = store.stats(ann)
    assert st.daily == [("2025-03-02", 22), ("2025-03-01", 14)]
    assert st.daily_best == 14
    assert store.daily_best("2025-03-01") == [("Ann", 14), ("Bob", 17)]
    assert store.stats(bob).daily_best == 17
    # a real daily deal, played by bots, counts with its seat's turns
    m, ref, _ = play_match(store, [SeatSpec.player(bob), SeatSpec.bot("medium"), SeatSpec.bot("medium")],
                           table="cards", options={"mode": "daily", "date": "2025-03-03"})
    (turns,) = store.conn.execute("SELECT turns FROM results WHERE match_id = ? AND seat = 0", (m,)).fetchone()
    assert turns == ref.outcome["turns"][0]


def test_the_referee_used_for_a_record_deals_the_same_game(store):
    m = store.begin_match(game="colormatch", table="daynight", seats=seats_for(store, 4), seed=99, now=1.0)
    record = store.match(m)
    assert referee_for(record).g.view(2) == rebuild_game(record).view(2)
