"""Opening, making and migrating the store's file; refusing what is not ours.

Real sqlite files in `tmp_path`, no mocks: a version-1 file is written with
the version-1 migration itself and the rows an older lanmatch would have
written, then upgraded.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
from pathlib import Path

import pytest

from lanmatch.store import (
    SCHEMA_VERSION,
    NoStore,
    NotAStore,
    SchemaTooNew,
    SeatSpec,
    Store,
    StoreBusy,
    db_path,
    default_data_dir,
)
from lanmatch.store.paths import config_dir
from lanmatch.store.schema import APPLICATION_ID, MIGRATIONS


def snapshot(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


def test_a_new_store_is_made_private_at_the_current_version_in_wal_mode(tmp_path):
    data = tmp_path / "data"
    with Store.open_dir(data) as store:
        assert store.version == SCHEMA_VERSION == len(MIGRATIONS)
        c = store.conn
        assert c.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert c.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        assert c.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        assert store.check() == []
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    assert stat.S_IMODE(db_path(data).stat().st_mode) == 0o600
    assert not list(data.glob("*.bak")), "a new store has nothing to back up"


def test_migrations_run_on_an_empty_file(tmp_path):
    path = tmp_path / "empty.sqlite3"
    path.write_bytes(b"")
    with Store.open(path) as store:
        assert store.version == SCHEMA_VERSION
        tables = {r[0] for r in store.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert {"profiles", "accounts", "ledger", "matches", "match_seats", "match_actions", "results"} <= tables


def test_reopening_a_current_store_changes_nothing(tmp_path):
    with Store.open_dir(tmp_path) as store:
        ann = store.profile("Ann", "a" * 32, 1.0)
    with Store.open_dir(tmp_path) as store:
        assert store.version == SCHEMA_VERSION
        assert store.balance(ann.id) == 1000
        assert store.check() == []


def write_v1_store(path: Path) -> None:
    """A store as a version-1 lanmatch left it: two profiles, a finished coin
    match (Ann beat Bob and a bot, stake 40), a live practice match."""
    c = sqlite3.connect(path, isolation_level=None)
    c.execute("PRAGMA journal_mode = WAL")
    c.execute("BEGIN")
    MIGRATIONS[0](c)
    c.execute("PRAGMA user_version = 1")
    for pid, name in ((1, "Ann"), (2, "Bob")):
        c.execute("INSERT INTO profiles VALUES (?, ?, 'x', 10.0)", (pid, name))
        c.execute("INSERT INTO accounts (kind, profile_id) VALUES ('player', ?)", (pid,))
        acct = c.execute("SELECT id FROM accounts WHERE profile_id = ?", (pid,)).fetchone()[0]
        c.execute("INSERT INTO ledger (key, src, dst, amount, reason, at) VALUES (?, 1, ?, 1000, 'grant', 10.0)",
                  (f"grant:{pid}", acct))
    outcome = {"winners": [0], "points": [30, 0, 0], "reason": "out", "turns": [9, 9, 8], "rounds": 1, "hands": [[], [], []]}
    c.execute(
        "INSERT INTO matches (id, room, game, tbl, players, options, seed, kind, stake, status, started, ended, outcome)"
        " VALUES (1, 'R', 'colormatch', 'classic', 3, '{}', '7', 'coins', 40, 'live', 20.0, NULL, NULL)"
    )
    for seat, kind, pid, name, level in ((0, "player", 1, "Ann", None), (1, "player", 2, "Bob", None), (2, "bot", None, "Bot", "hard")):
        c.execute("INSERT INTO match_seats (match_id, seat, kind, profile_id, name, bot_level) VALUES (1, ?, ?, ?, ?, ?)",
                  (seat, kind, pid, name, level))
    c.execute("INSERT INTO accounts (kind, match_id) VALUES ('pot', 1)")
    pot = c.execute("SELECT id FROM accounts WHERE match_id = 1").fetchone()[0]
    for seat, src in ((0, 3), (1, 4), (2, 2)):
        c.execute("INSERT INTO ledger (key, src, dst, amount, reason, match_id, seat, at) VALUES (?, ?, ?, 40, 'stake', 1, ?, 20.0)",
                  (f"stake:1:{seat}", src, pot, seat))
    c.execute("INSERT INTO ledger (key, src, dst, amount, reason, match_id, seat, at) VALUES ('win:1:0', ?, 3, 120, 'win', 1, 0, 30.0)",
              (pot,))
    c.execute("UPDATE matches SET status = 'finished', ended = 30.0, outcome = ? WHERE id = 1", (json.dumps(outcome),))
    c.execute(
        "INSERT INTO matches (id, game, tbl, players, options, seed, kind, started)"
        " VALUES (2, 'dominoes', NULL, 2, '{}', '5', 'practice', 40.0)"
    )
    c.execute("INSERT INTO match_seats (match_id, seat, kind, name) VALUES (2, 0, 'guest', 'Gus'), (2, 1, 'bot', 'Bot')")
    c.execute("COMMIT")
    c.close()


def test_a_version_1_store_is_upgraded_keeping_everything_and_a_backup(tmp_path):
    path = tmp_path / "old.sqlite3"
    write_v1_store(path)
    with Store.open(path) as store:
        assert store.version == SCHEMA_VERSION
        assert store.check() == []
        assert store.balance(1) == 1080 and store.balance(2) == 960
        assert store.house_balance() == -40
        # the finished match got its stats rows from the migration
        ann = store.stats("Ann")
        assert (ann.total.played, ann.total.won, ann.total.coins) == (1, 1, 80)
        assert ann.by_bots[0][0] == "hard"
        bob = store.stats("bob")
        assert (bob.total.lost, bob.total.coins) == (1, -40)
        assert [m.id for m in store.unfinished()] == [2]
    backup = Path(f"{path}.v1.bak")
    assert backup.exists()
    with sqlite3.connect(backup) as b:
        assert b.execute("PRAGMA user_version").fetchone()[0] == 1
    b.close()


def test_a_failed_migration_leaves_the_last_complete_version(tmp_path):
    path = tmp_path / "old.sqlite3"
    write_v1_store(path)
    c = sqlite3.connect(path, isolation_level=None)
    c.execute("DROP TRIGGER matches_close_once")  # only to plant a row the migration cannot read
    c.execute("UPDATE matches SET outcome = 'not json' WHERE id = 1")
    c.close()
    with pytest.raises(ValueError):
        Store.open(path)
    c = sqlite3.connect(path)
    assert c.execute("PRAGMA user_version").fetchone()[0] == 1
    assert c.execute("SELECT count(*) FROM sqlite_master WHERE name = 'results'").fetchone()[0] == 0
    c.close()


@pytest.mark.parametrize("journal", ["wal", "delete"])
def test_a_store_from_a_newer_version_is_refused_and_left_byte_identical(tmp_path, journal):
    data = tmp_path / "data"
    with Store.open_dir(data) as store:
        store.profile("Ann", "a" * 32, 1.0)
    c = sqlite3.connect(db_path(data), isolation_level=None)
    c.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    c.execute(f"PRAGMA journal_mode = {journal}")
    c.close()
    before = snapshot(data)
    with pytest.raises(SchemaTooNew) as e:
        Store.open_dir(data)
    message = str(e.value)
    assert str(db_path(data)) in message
    assert f"version {SCHEMA_VERSION + 1}" in message and f"version {SCHEMA_VERSION})" in message
    assert e.value.found == SCHEMA_VERSION + 1 and e.value.ours == SCHEMA_VERSION
    assert snapshot(data) == before


def test_a_newer_version_still_in_the_wal_is_seen_and_refused(tmp_path):
    """A newer host still running: its version bump sits in the WAL file, not
    yet in the main file's header."""
    data = tmp_path / "data"
    Store.open_dir(data).close()
    newer = sqlite3.connect(db_path(data), isolation_level=None)
    try:
        newer.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 3}")
        assert Path(f"{db_path(data)}-wal").stat().st_size > 0
        main_file = db_path(data).read_bytes()
        with pytest.raises(SchemaTooNew) as e:
            Store.open_dir(data)
        assert e.value.found == SCHEMA_VERSION + 3
        assert db_path(data).read_bytes() == main_file
        assert newer.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION + 3
    finally:
        newer.close()


def test_a_file_that_is_not_a_store_is_refused_untouched(tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("shopping list\n" * 100)
    other = tmp_path / "other.sqlite3"
    c = sqlite3.connect(other)
    c.execute("CREATE TABLE songs (title TEXT)")
    c.commit()
    c.close()
    for path in (text, other):
        before = path.read_bytes()
        with pytest.raises(NotAStore) as e:
            Store.open(path)
        assert str(path) in str(e.value)
        assert path.read_bytes() == before


def test_a_missing_store_is_not_made_when_create_is_false(tmp_path):
    with pytest.raises(NoStore) as e:
        Store.open_dir(tmp_path / "nowhere", create=False)
    assert "nowhere" in str(e.value)
    assert not (tmp_path / "nowhere").exists()


def test_the_host_lock_keeps_a_second_host_out_but_not_readers(tmp_path):
    host = Store.open_dir(tmp_path, lock=True)
    try:
        with pytest.raises(StoreBusy):
            Store.open_dir(tmp_path, lock=True)
        with Store.open_dir(tmp_path, create=False) as reader:
            assert reader.profiles() == []
    finally:
        host.close()
    Store.open_dir(tmp_path, lock=True).close()


def test_default_directories_follow_xdg(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    assert default_data_dir() == tmp_path / ".local/share/lanmatch"
    assert config_dir() == tmp_path / ".config/lanmatch"
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "d"))
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative/is/ignored")
    assert default_data_dir() == tmp_path / "d/lanmatch"
    assert config_dir() == tmp_path / ".config/lanmatch"


def test_seats_and_tokens_are_kept_for_a_resume(tmp_path):
    with Store.open_dir(tmp_path) as store:
        ann = store.profile("Ann", "a" * 32, 1.0)
        m = store.begin_match(
            game="colormatch", table="siege", seed=2**63 + 5, now=2.0,
            seats=[SeatSpec.player(ann, token="t0"), SeatSpec.guest("Gus", token="t1"), SeatSpec.bot("hard")],
            room="Kitchen", settings={"clock": 60, "bot_level": "hard"},
        )
    with Store.open_dir(tmp_path) as store:
        (r,) = store.unfinished()
        assert r.id == m and r.room == "Kitchen" and r.table == "siege" and r.seed == 2**63 + 5
        assert r.settings == {"clock": 60, "bot_level": "hard"}
        assert [(s.kind, s.name, s.token, s.bot_level) for s in r.seats] == [
            ("player", "Ann", "t0", None), ("guest", "Gus", "t1", None), ("bot", "Bot (hard)", None, "hard"),
        ]
    assert os.path.exists(db_path(tmp_path))
