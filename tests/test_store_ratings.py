"""Ratings in the store (schema v4): a Glicko-2 rating per profile and game,
moved when a match is finished, on real sqlite files."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from _store_play import play_match

from lanmatch.ratings import Rating, update
from lanmatch.report import stats_text
from lanmatch.store import BOT_RATINGS_BY_GAME, SCHEMA_VERSION, SeatSpec, Store

RELEASE_STORE = Path(__file__).parent / "data" / "store-v2.sqlite3"


@pytest.fixture
def store(tmp_path):
    s = Store.open_dir(tmp_path)
    yield s
    s.close()


def people(store, *names):
    return [store.profile(n, f"key-of-{n}".ljust(20, "."), 1.0) for n in names]


def begin(store, seats, game="colormatch", table="classic", kind="practice", stake=0):
    return store.begin_match(game=game, table=table, seats=seats, seed=3, now=2.0, kind=kind, stake=stake)


def outcome(winners, n):
    return {"winners": winners, "points": [0] * n, "reason": "out"}


def test_a_finished_match_moves_the_winners_rating_up_and_the_losers_down_as_glicko2_says(store):
    ann, bob = people(store, "Ann", "Bob")
    m = begin(store, [SeatSpec.player(ann), SeatSpec.player(bob)])
    store.finish_match(m, outcome([0], 2), 3.0, verify=False)
    a, b = store.rating(ann, "colormatch"), store.rating(bob, "colormatch")
    want = update(Rating(), [(Rating(), 1.0)])
    assert a.rating == pytest.approx(want) and a.matches == 1 and a.updated == 3.0
    assert b.rating == pytest.approx(update(Rating(), [(Rating(), 0.0)]))
    assert a.shown > 1500 > b.shown and a.shown + b.shown == 3000
    assert store.rating(ann, "dominoes") is None
    assert store.rating_changes(m) == [(ann.id, 1500.0, pytest.approx(a.rating.rating)),
                                       (bob.id, 1500.0, pytest.approx(b.rating.rating))]
    # finishing it again changes nothing
    store.finish_match(m, outcome([0], 2), 4.0, verify=False)
    assert store.rating(ann, "colormatch") == a
    assert store.check() == []


def test_a_multi_player_match_counts_as_pairwise_games_bots_at_their_levels_rating(store):
    ann, bob, cy = people(store, "Ann", "Bob", "Cy")
    seats = [SeatSpec.player(ann), SeatSpec.player(bob), SeatSpec.player(cy), SeatSpec.bot("hard"), SeatSpec.guest("Gus")]
    m = begin(store, seats)
    store.finish_match(m, outcome([1], 5), 3.0, verify=False)
    start, hard = Rating(), BOT_RATINGS_BY_GAME["colormatch"]["hard"]
    # Bob beat everyone; Ann and Cy lost to Bob only (two seats that lost played no game)
    assert store.rating(bob, "colormatch").rating == pytest.approx(
        update(start, [(start, 1.0), (start, 1.0), (hard, 1.0), (start, 1.0)]))
    assert store.rating(ann, "colormatch").rating == pytest.approx(update(start, [(start, 0.0)]))
    assert store.rating(ann, "colormatch").rating == store.rating(cy, "colormatch").rating
    # a draw: everyone level with everyone, each against the other as rated before
    m2 = begin(store, [SeatSpec.player(ann), SeatSpec.player(cy)])
    ann_before, cy_before = store.rating(ann, "colormatch").rating, store.rating(cy, "colormatch").rating
    store.finish_match(m2, outcome([], 2), 5.0, verify=False)
    assert store.rating(ann, "colormatch").rating == pytest.approx(update(ann_before, [(cy_before, 0.5)]))
    assert store.rating(cy, "colormatch").rating == pytest.approx(update(cy_before, [(ann_before, 0.5)]))
    assert store.rating(ann, "colormatch").matches == 2


def test_a_leaver_forfeits_to_every_seat_still_played(store):
    ann, bob = people(store, "Ann", "Bob")
    m = begin(store, [SeatSpec.player(ann), SeatSpec.player(bob), SeatSpec.bot("easy")])
    store.leave(m, 0, 2.5)
    store.finish_match(m, outcome([0], 3), 3.0, verify=False)  # the bot in Ann's seat won it
    start, easy = Rating(), BOT_RATINGS_BY_GAME["colormatch"]["easy"]
    assert store.rating(ann, "colormatch").rating == pytest.approx(update(start, [(start, 0.0), (easy, 0.0)]))
    assert store.rating(bob, "colormatch").rating == pytest.approx(update(start, [(start, 1.0)]))


def test_practice_ratings_off_leaves_practice_matches_unrated_but_coin_matches_count(store):
    store.practice_ratings = False
    ann, bob = people(store, "Ann", "Bob")
    m = begin(store, [SeatSpec.player(ann), SeatSpec.player(bob)])
    store.finish_match(m, outcome([0], 2), 3.0, verify=False)
    assert store.rating(ann, "colormatch") is None and store.rating_changes(m) == []
    c = begin(store, [SeatSpec.player(ann), SeatSpec.player(bob)], kind="coins", stake=10)
    store.finish_match(c, outcome([0], 2), 4.0, verify=False)
    assert store.rating(ann, "colormatch").matches == 1
    assert store.check() == []


def test_played_matches_rate_each_game_apart_and_stats_show_the_ratings(store):
    ann = people(store, "Ann")[0]
    play_match(store, [SeatSpec.player(ann), SeatSpec.bot("easy")], game="dominoes", table=None, seed=4, now=10.0)
    play_match(store, [SeatSpec.player(ann), SeatSpec.bot("medium"), SeatSpec.bot("easy")], seed=3, now=20.0)
    play_match(store, [SeatSpec.player(ann), SeatSpec.bot("easy"), SeatSpec.bot("easy")], game="dominoes",
               table="double-nine", seed=5, now=30.0)
    ratings = {r.game: r for r in store.ratings(ann)}
    assert set(ratings) == {"colormatch", "dominoes"} and ratings["dominoes"].matches == 2
    st = store.stats("Ann")
    assert [r.game for r in st.ratings] == ["colormatch", "dominoes"]
    text = stats_text(store, "Ann")
    assert "Ratings (Glicko-2" in text
    lines = text.splitlines()
    at = next(k for k, line in enumerate(lines) if line.startswith("Ratings (Glicko-2"))
    row = next(line for line in lines[at:] if line.startswith("Dominoes"))
    assert str(ratings["dominoes"].shown) in row and str(round(2 * ratings["dominoes"].rating.rd)) in row


def test_the_release_store_upgrades_to_v4_with_empty_ratings_and_rates_from_then_on(tmp_path):
    path = tmp_path / "store.sqlite3"
    shutil.copy(RELEASE_STORE, path)
    with Store.open(path, durable=False) as s:
        assert s.version == SCHEMA_VERSION >= 4
        assert s.conn.execute("SELECT count(*) FROM ratings").fetchone() == (0,)
        assert s.conn.execute("SELECT count(*) FROM rating_changes").fetchone() == (0,)
        bob = s.find_profile("Bob")
        m = s.begin_match(game="dominoes", table=None, seats=[SeatSpec.player(bob), SeatSpec.bot("easy")],
                          seed=1, now=1.0)
        s.finish_match(m, outcome([0], 2), 2.0, verify=False)
        assert s.rating(bob, "dominoes").matches == 1
        assert s.check() == []
    c = sqlite3.connect(path)
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        c.execute("DELETE FROM rating_changes")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        c.execute("UPDATE rating_changes SET after = 0")


# ------------------------------------------------------------------ the host: seat rows carry the rating


async def test_a_host_rates_a_double_nine_match_and_the_seat_rows_show_the_ratings(nursery, tmp_path):
    import trio
    from _net import LOOPBACK, start_host
    from test_host_store import Player, profile, until

    store = Store.open_dir(tmp_path / "data", lock=True, durable=False)
    try:
        host = await start_host(nursery, store=store)
        host.create_room("p", game="dominoes", table="double-nine", seats=3, auto_start=True, start_after=0.3,
                         bot_level="easy")
        ann, bob = (Player("medium", room="p", profile=profile(n), name=n) for n in ("Ann", "Bob"))
        async with trio.open_nursery() as n:
            for node in (ann, bob):
                n.start_soon(node.run, (LOOPBACK, host.port))
            await until(lambda: ann.outcome() is not None and bob.outcome() is not None, timeout=60)
            await until(lambda: store.history() and store.history()[0].status == "finished")
            await until(lambda: any(m["type"] == "room" and any("rating" in x for x in m["room"]["seats"])
                                    for m in ann.got), timeout=10)
            n.cancel_scope.cancel()
        (m,) = store.history()
        assert store.match(m.id).table == "double-nine"
        rated = {name: store.rating(store.find_profile(name), "dominoes") for name in ("Ann", "Bob")}
        assert all(r is not None and r.matches == 1 for r in rated.values())
        rooms = [msg["room"] for msg in ann.got if msg["type"] == "room"]
        assert all("rating" not in seat for seat in rooms[0]["seats"]), "no rating before the first rated match"
        last = rooms[-1]
        shown = {seat["name"]: seat.get("rating") for seat in last["seats"]}
        assert shown["Ann"] == rated["Ann"].shown and shown["Bob"] == rated["Bob"].shown
        assert [name for name, r in shown.items() if r is None] == [n for n in shown if n not in ("Ann", "Bob")]
    finally:
        store.close()


def test_the_host_flag_no_practice_ratings_reaches_the_store(tmp_path):
    from lanmatch.cli import build_parser
    from lanmatch.net.nodes import open_store

    parser = build_parser()
    for argv, want in ((["host", "--data", str(tmp_path / "a")], True),
                       (["host", "--data", str(tmp_path / "b"), "--no-practice-ratings"], False)):
        args = parser.parse_args(argv)
        store = open_store(args)
        try:
            assert store.practice_ratings is want
        finally:
            store.close()
