"""A store made by the release (schema version 2) is upgraded keeping every
row, and then stores games and tables the release never heard of.

`data/store-v2.sqlite3` was written by the code of ba1ae3f
(`data/make_store_v2.py` says how). Each test upgrades a copy of it in
`tmp_path`. The third game here, Pebbles, is declared in this file alone.
"""

from __future__ import annotations

import shutil
import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from _store_play import play_on, resume

from lanmatch.report import history_text, stats_text
from lanmatch.rules import (
    Game,
    IllegalAction,
    TableInfo,
    register,
    register_table,
    unregister,
    unregister_table,
)
from lanmatch.rules.colormatch import TABLES
from lanmatch.store import SCHEMA_VERSION, MigrationFailed, SeatSpec, Store, StoreError

RELEASE_STORE = Path(__file__).parent / "data" / "store-v2.sqlite3"
TABLES_OF_THE_STORE = ("profiles", "accounts", "ledger", "matches", "match_seats", "match_actions", "results")
LIVE = [9, 10]  # the release store's live matches (a coin table at siege, a Dominoes one)


def release_copy(tmp_path: Path) -> Path:
    path = tmp_path / "lanmatch.sqlite3"
    shutil.copyfile(RELEASE_STORE, path)
    return path


def dump(path: Path) -> dict[str, list[tuple]]:
    c = sqlite3.connect(path)
    try:
        return {t: c.execute(f"SELECT * FROM {t} ORDER BY 1, 2").fetchall() for t in TABLES_OF_THE_STORE}
    finally:
        c.close()


def schema_of(conn: sqlite3.Connection) -> dict[str, str]:
    return dict(conn.execute("SELECT type || ' ' || name, sql FROM sqlite_master WHERE sql IS NOT NULL").fetchall())


# ---------------------------------------------------------------- Pebbles: a third game, declared here


class Pebbles:
    """Two players take one or two pebbles from a pile of 7 in turn; whoever takes the last wins."""

    def __init__(self, players: int, seed: int, options: dict[str, Any] | None):
        if players != 2:
            raise ValueError(f"Pebbles is for 2 players, not {players!r}")
        if options:
            raise ValueError(f"Pebbles has no options, not {sorted(options)}")
        self.pile, self.cur, self.step, self.turns = 7, seed % 2, 0, [0, 0]
        self.outcome: dict[str, Any] | None = None

    @property
    def to_act(self) -> list[int]:
        return [] if self.outcome else [self.cur]

    def legal_actions(self, seat: int) -> list[dict[str, Any]]:
        if seat not in self.to_act:
            return []
        return [{"type": "take", "n": n} for n in (1, 2) if n <= self.pile]

    def act(self, seat: int, action: dict[str, Any]) -> list[dict[str, Any]]:
        if {"type": action.get("type"), "n": action.get("n")} not in self.legal_actions(seat):
            raise IllegalAction(f"seat {seat} cannot {action!r} now")
        self.pile -= action["n"]
        self.step += 1
        self.turns[seat] += 1
        if self.pile == 0:
            self.outcome = {"winners": [seat], "points": [int(s == seat) for s in (0, 1)], "turns": self.turns[:]}
        self.cur = 1 - seat
        return [{"type": "take", "seat": seat, "n": action["n"], "left": self.pile}]

    def view(self, seat: int) -> dict[str, Any]:
        return {"game": "pebbles", "seat": seat, "players": 2, "step": self.step, "pile": self.pile,
                "to_act": self.to_act, "outcome": self.outcome, "events": []}


PEBBLES = Game(
    name="pebbles", title="Pebbles", min_players=2, max_players=2, guest_max_players=2,
    tables={"pebbles": TableInfo(name="pebbles", title="Pebbles")},
    make=lambda table, players, seed, options, deck, first_seat: Pebbles(players, seed, options),
    named_tables=False,
)


@pytest.fixture
def pebbles():
    register(PEBBLES)
    try:
        yield PEBBLES
    finally:
        unregister(PEBBLES.name)


def play_first_choices(store: Store, m: int, limit: int) -> Any:
    """Play match `m` from its deal, each time the first seat to act taking its
    last legal choice, recording every action; at most `limit` actions.
    Returns the live engine."""
    g = store.rebuild(m)
    for i in range(limit):
        if g.outcome is not None:
            break
        seat = g.to_act[0]
        action = g.legal_actions(seat)[-1]
        g.act(seat, action)
        store.record_action(m, i, seat, action)
    return g


def play_pebbles(store: Store, seats: list[SeatSpec], **kwargs: Any) -> int:
    m = store.begin_match(game="pebbles", table=None, seats=seats, **kwargs)
    assert play_first_choices(store, m, 20).outcome is not None
    store.finish_match(m, None, kwargs["now"] + 1)  # verified: the stored actions replay to the outcome
    return m


# ---------------------------------------------------------------- the upgrade


def test_the_release_store_is_upgraded_with_every_row_kept_and_a_backup(tmp_path):
    path = release_copy(tmp_path)
    before = dump(path)
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == 2
    assert sum(map(len, before.values())) > 100, "the release store holds real data"
    with Store.open(path) as store:
        assert store.version == SCHEMA_VERSION == 6
        assert store.check() == []
        assert dump(path) == before, "the upgrade changed a row"
        assert "game IN" not in schema_of(store.conn)["table matches"]
        assert [r.id for r in store.unfinished()] == LIVE
        for record in store.unfinished():
            assert len(record.actions) > 0
            assert store.rebuild(record.id).outcome is None
        ann = store.stats("Ann")
        assert (ann.total.played, ann.total.won, ann.total.lost, ann.total.drawn) == (6, 3, 2, 1)
        assert store.history(1)[0].id == 10
    backup = Path(f"{path}.v2.bak")
    assert dump(backup) == before
    assert sqlite3.connect(backup).execute("PRAGMA user_version").fetchone()[0] == 2


def test_the_upgraded_schema_is_the_schema_of_a_new_store_and_keeps_its_guards(tmp_path):
    with Store.open(release_copy(tmp_path)) as old, Store.open(tmp_path / "new.sqlite3") as new:
        assert schema_of(old.conn) == schema_of(new.conn)
        c = old.conn
        with pytest.raises(sqlite3.IntegrityError, match="stays closed"):
            c.execute("UPDATE matches SET status = 'live', ended = NULL WHERE id = 1")
        with pytest.raises(sqlite3.IntegrityError, match="never deleted"):
            c.execute("DELETE FROM matches WHERE id = 1")
        with pytest.raises(sqlite3.IntegrityError, match="only a live match"):
            c.execute("INSERT INTO match_actions (match_id, idx, seat, action) VALUES (1, 57, 0, '{}')")
        with pytest.raises(sqlite3.IntegrityError, match="FOREIGN KEY"):
            c.execute("INSERT INTO match_seats (match_id, seat, kind, name) VALUES (99, 0, 'guest', 'Gus')")
        with pytest.raises(sqlite3.IntegrityError, match="CHECK"):
            c.execute("INSERT INTO matches (game, players, seed, kind, stake, started) VALUES ('x', 2, '1', 'coins', 0, 1)")
        assert c.execute("SELECT name FROM sqlite_master WHERE tbl_name = 'matches' ORDER BY name").fetchall() == [
            ("matches",), ("matches_close_once",), ("matches_live",), ("matches_no_delete",),
        ]


def test_after_the_upgrade_the_live_matches_resume_and_settle(tmp_path):
    with Store.open(release_copy(tmp_path), durable=False) as store:
        for record in store.unfinished():
            ref, stored = resume(store, record)
            settlement = play_on(store, record.id, ref, stored, now=1_800_000_000.0)
            assert settlement is not None and settlement.status == "finished"
        assert store.unfinished() == [] and store.check() == []
        assert store.pot(9) == 0


def test_a_game_registered_after_the_release_is_stored_in_the_release_store(tmp_path, pebbles):
    with Store.open(release_copy(tmp_path), durable=False) as store:
        bob = store.find_profile("Bob")
        m = play_pebbles(store, [SeatSpec.player(bob), SeatSpec.bot("easy")], seed=2, now=1_800_000_000.0,
                         kind="coins", stake=5)
        record = store.match(m)
        assert (record.game, record.table, record.label, record.mode, record.status) == (
            "pebbles", None, "pebbles", "single", "finished")
        assert store.check() == []
        assert ("pebbles", "pebbles") in [(g, t) for g, t, _ in store.stats("Bob").by_table]
        assert "Pebbles" in stats_text(store, "Bob") and "Pebbles" in history_text(store, 1)
        with pytest.raises(ValueError, match="Pebbles has no table"):
            store.begin_match(game="pebbles", table="classic", seats=[SeatSpec.bot("easy")] * 2, seed=1, now=1.0)
        with pytest.raises(ValueError, match="for 2 players"):
            store.begin_match(game="pebbles", table=None, seats=[SeatSpec.bot("easy")] * 3, seed=1, now=1.0)
    unregister(PEBBLES.name)
    with Store.open(tmp_path / "lanmatch.sqlite3") as store:  # a game no longer installed is still read
        assert "pebbles" in history_text(store, 1).lower()
        with pytest.raises(StoreError, match="cannot be dealt again"):
            store.rebuild(m)


def test_a_game_the_registry_does_not_know_is_refused_in_code_and_nothing_is_written(tmp_path):
    path = release_copy(tmp_path)
    with Store.open(path) as store:
        before = dump(path)
        with pytest.raises(ValueError, match="unknown game 'chess'"):
            store.begin_match(game="chess", table=None, seats=[SeatSpec.bot("easy")] * 2, seed=1, now=1.0)
        with pytest.raises(ValueError, match="no table 'mytable'"):
            store.begin_match(game="colormatch", table="mytable", seats=[SeatSpec.bot("easy")] * 2, seed=1, now=1.0)
        with pytest.raises(ValueError, match="Dominoes has no table 'classic'"):
            store.begin_match(game="dominoes", table="classic", seats=[SeatSpec.bot("easy")] * 2, seed=1, now=1.0)
        assert dump(path) == before


def test_a_color_match_table_registered_later_is_stored_and_replayed(tmp_path):
    register_table("colormatch", replace(TABLES["classic"], name="mytable", title="My Table"))
    try:
        with Store.open(release_copy(tmp_path), durable=False) as store:
            m = store.begin_match(game="colormatch", table="mytable", seed=3, now=1_800_000_000.0,
                                  seats=[SeatSpec.guest("Gus"), SeatSpec.bot("easy")])
            live = play_first_choices(store, m, 40)
            record = store.match(m)
            assert (record.table, record.label, len(record.actions)) == ("mytable", "mytable", 40)
            again = store.rebuild(m)
            assert [again.view(s) for s in (0, 1)] == [live.view(s) for s in (0, 1)]
            assert "Color Match · My Table" in history_text(store, 1)
            assert store.check() == []
    finally:
        unregister_table("colormatch", "mytable")


# ---------------------------------------------------------------- the frozen migrations


def test_migration_2_is_frozen_it_writes_the_stats_rows_the_release_wrote(tmp_path):
    """The release wrote its `results` rows with its own Python; migration 2
    recomputes them in SQL from a version-1 file: the same rows."""
    path = release_copy(tmp_path)
    written_by_the_release = dump(path)["results"]
    c = sqlite3.connect(path, isolation_level=None)
    c.execute("DROP TABLE results")  # what version 2 added, so the file is as version 1 left it
    c.execute("PRAGMA user_version = 1")
    c.close()
    with Store.open(path) as store:
        assert store.version == SCHEMA_VERSION
        assert dump(path)["results"] == written_by_the_release
        assert store.check() == []


def test_the_migrations_call_no_live_code(tmp_path):
    """schema.py imports nothing of lanmatch: a shipped migration cannot change
    when the store's code does."""
    import ast

    import lanmatch.store.schema as schema

    tree = ast.parse(Path(schema.__file__).read_text())
    imported = {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert not [m for m in imported if m.startswith("lanmatch")], imported


def test_a_rebuild_that_would_break_foreign_keys_is_rolled_back(tmp_path):
    """Migration 3 follows sqlite's 12 steps, `foreign_key_check` before the
    commit included: a version-2 file with a seat of no match keeps its version
    and its `matches` table as they were."""
    path = release_copy(tmp_path)
    c = sqlite3.connect(path, isolation_level=None)
    c.execute("INSERT INTO match_seats (match_id, seat, kind, name) VALUES (99, 0, 'guest', 'Nobody')")
    old_schema = schema_of(c)
    c.close()
    with pytest.raises(MigrationFailed, match="from version 2 to 3") as e:
        Store.open(path)
    assert "left at version 2" in str(e.value) and ".v2.bak" in str(e.value)
    c = sqlite3.connect(path)
    assert c.execute("PRAGMA user_version").fetchone()[0] == 2
    assert schema_of(c) == old_schema
    c.close()
