"""One error type at the store's boundary: whatever sqlite does to a real
file (locked by another connection, full, damaged, read-only, closed, an
interrupted statement), a caller that catches `StoreError` alone gets a
sentence naming the file, nothing was written, and sqlite's own exception
is only the `__cause__`. Real sqlite files in `tmp_path`, no mocks."""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from lanmatch.cli import main
from lanmatch.store import (
    SCHEMA_VERSION,
    MigrationFailed,
    SeatSpec,
    Store,
    StoreDatabaseError,
    StoreError,
    StoreFailed,
    StoreIntegrityError,
    StoreOperationalError,
    db_path,
)

RELEASE_STORE = Path(__file__).parent / "data" / "store-v2.sqlite3"  # see data/make_store_v2.py


def caught(call) -> StoreError:
    """What `call()` raises, caught the way a caller of the store catches: `except StoreError`."""
    try:
        call()
    except StoreError as e:
        return e
    raise AssertionError("the call did not fail")


def from_the_store(e: StoreError, path: Path, errorname: str | None) -> None:
    """`e` is the store's exception, not sqlite's: it names the file, and sqlite's is its cause."""
    assert isinstance(e, StoreFailed)
    assert type(e).__module__ == "lanmatch.store.errors", f"sqlite's own {type(e)!r} crossed the boundary"
    assert isinstance(e.__cause__, sqlite3.Error) and type(e.__cause__).__module__ == "sqlite3"
    assert str(path) in str(e) and "nothing was changed" in str(e)
    if errorname is not None:
        assert (e.sqlite_errorname or "").startswith(errorname), e.sqlite_errorname


def filled(path: Path) -> Store:
    store = Store.open(path, durable=False, busy_timeout=0.05)
    ann = store.profile("Ann", "a" * 32, 1.0)
    bob = store.profile("Bob", "b" * 32, 1.0)
    store.begin_match(game="colormatch", table="classic", seed=1, now=2.0, kind="coins", stake=10,
                      seats=[SeatSpec.player(ann), SeatSpec.player(bob)])
    return store


def rows(path: Path) -> dict[str, list[tuple]]:
    c = sqlite3.connect(path)
    try:
        return {t: c.execute(f"SELECT * FROM {t} ORDER BY 1, 2").fetchall()
                for t in ("profiles", "accounts", "ledger", "matches", "match_seats", "match_actions", "results")}
    finally:
        c.close()


def test_a_store_locked_by_another_connection_fails_as_a_store_error_and_writes_nothing(tmp_path):
    path = tmp_path / "s.sqlite3"
    store = filled(path)
    before = rows(path)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # an sqlite shell, say, in the middle of a transaction
    try:
        for call in (
            lambda: store.profile("Cy", "c" * 32, 3.0),
            lambda: store.record_action(1, 0, 0, {"type": "draw"}),
            lambda: store.leave(1, 1, 3.0),
            lambda: store.abandon_match(1, 3.0),
        ):
            e = caught(call)
            from_the_store(e, path, "SQLITE_BUSY")
            assert isinstance(e, StoreOperationalError) and "locked" in str(e)
        assert store.balance(1) == 990, "readers are not locked out in WAL mode"
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert rows(path) == before
    store.abandon_match(1, 4.0)  # and the store works again once the lock is gone
    assert store.balance(1) == 1000 and store.check() == []
    store.close()


@pytest.mark.parametrize("journal", ["delete", "wal"])
def test_an_old_store_locked_while_it_would_be_upgraded_fails_to_open_as_a_store_error(tmp_path, journal):
    """As the release left it (journal "delete"), the lock stops the switch to
    WAL; in WAL, it stops the migration itself (`MigrationFailed`)."""
    path = tmp_path / "s.sqlite3"
    shutil.copyfile(RELEASE_STORE, path)  # schema version 2: opening it upgrades it
    other = sqlite3.connect(path, isolation_level=None)
    other.execute(f"PRAGMA journal_mode = {journal}")
    other.execute("BEGIN IMMEDIATE")
    try:
        e = caught(lambda: Store.open(path, busy_timeout=0.05))
        assert type(e).__module__ == "lanmatch.store.errors", f"sqlite's own {type(e)!r} crossed the boundary"
        assert str(path) in str(e) and "locked" in str(e)
        assert isinstance(e.__cause__, sqlite3.OperationalError)
        if journal == "wal":
            assert isinstance(e, MigrationFailed) and "left at version 2" in str(e)
        assert other.execute("PRAGMA user_version").fetchone()[0] == 2
    finally:
        other.execute("ROLLBACK")
        other.close()
    with Store.open(path) as store:  # nothing was left half done
        assert store.version == SCHEMA_VERSION and store.check() == []


def test_a_full_store_fails_as_a_store_error_and_writes_nothing(tmp_path):
    """sqlite's own limit on the file's size stands in for a full disk: the
    same SQLITE_FULL, raised by the same code path in sqlite."""
    path = tmp_path / "s.sqlite3"
    store = filled(path)
    pages = store.conn.execute("PRAGMA page_count").fetchone()[0]
    store.conn.execute(f"PRAGMA max_page_count = {pages}")
    before = rows(path)
    failures = []
    for i in range(200):  # profiles until a page is needed that the file may not grow by
        try:
            store.profile(f"Player {i}", "p" * 32, 5.0)
        except StoreError as e:
            failures.append(e)
            break
    assert failures, "the file never filled up"
    from_the_store(failures[0], path, "SQLITE_FULL")
    assert "disk is full" in str(failures[0])
    assert store.find_profile(f"Player {i}") is None, "the profile that did not fit was rolled back whole"
    assert store.check() == []
    store.conn.execute("PRAGMA max_page_count = 1073741823")
    store.profile(f"Player {i}", "p" * 32, 6.0)
    assert rows(path)["profiles"][: len(before["profiles"])] == before["profiles"]
    store.close()


def test_a_damaged_store_fails_as_a_store_error_and_lanmatch_stats_says_so_in_one_line(tmp_path, capsys):
    data = tmp_path / "data"
    store = filled(db_path(data))
    root = store.conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'profiles'").fetchone()[0]
    size = store.conn.execute("PRAGMA page_size").fetchone()[0]
    store.close()  # checkpointed: everything is in the main file
    raw = bytearray(db_path(data).read_bytes())
    raw[(root - 1) * size:root * size] = bytes((7 * i) & 0xFF for i in range(size))  # the profiles' page
    db_path(data).write_bytes(bytes(raw))
    with Store.open_dir(data) as damaged:
        for call in (damaged.profiles, lambda: damaged.stats("Ann"), damaged.check,
                     lambda: damaged.profile("Cy", "c" * 32, 3.0)):
            e = caught(call)
            from_the_store(e, db_path(data), "SQLITE_CORRUPT")
            assert isinstance(e, StoreDatabaseError) and "damaged" in str(e)
    assert main(["stats", "--data", str(data)]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "damaged" in err and "Traceback" not in err


@contextlib.contextmanager
def read_only(path: Path) -> Iterator[None]:
    """`path` cannot be written while inside: mode 0400, or for root (whom
    modes do not stop) the file system's immutable attribute."""
    if os.geteuid() != 0:
        os.chmod(path, 0o400)
        try:
            yield
        finally:
            os.chmod(path, 0o600)
        return
    if shutil.which("chattr") is None or subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode:
        pytest.skip("root, and this file system has no immutable attribute: nothing makes a file read-only")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)


def test_a_read_only_store_fails_as_a_store_error(tmp_path):
    path = tmp_path / "s.sqlite3"
    filled(path).close()
    before = rows(path)
    with read_only(path):
        try:
            store = Store.open(path, busy_timeout=0.05)
        except StoreError as e:  # sqlite may refuse already at opening (the journal mode is a write)
            assert type(e).__module__ == "lanmatch.store.errors" and str(path) in str(e)
        else:
            with store:
                from_the_store(caught(lambda: store.profile("Cy", "c" * 32, 3.0)), path, None)
    assert rows(path) == before


def test_an_interrupted_or_refused_write_and_a_closed_store_fail_as_store_errors(tmp_path):
    path = tmp_path / "s.sqlite3"
    store = filled(path)
    store.conn.set_progress_handler(lambda: 1, 1)  # interrupt at once
    try:
        e = caught(lambda: store.finish_match(1, {"winners": [0]}, 3.0, verify=False))
    finally:
        store.conn.set_progress_handler(None, 0)
    from_the_store(e, path, "SQLITE_INTERRUPT")
    assert store.match(1).status == "live"
    # a payout the schema refuses (a row planted by hand takes its key): the schema held, the code is told
    store.conn.execute("INSERT INTO ledger (key, src, dst, amount, reason, match_id, seat, at)"
                       " VALUES ('win:1:0', 1, 2, 1, 'win', 1, 0, 1.0)")
    e = caught(lambda: store.finish_match(1, {"winners": [0]}, 3.0, verify=False))
    from_the_store(e, path, "SQLITE_CONSTRAINT")
    assert isinstance(e, StoreIntegrityError)
    assert store.match(1).status == "live" and store.pot(1) == 20
    store.close()
    for call in (lambda: store.balance(1), lambda: store.profile("Cy", "c" * 32, 3.0), lambda: store.version):
        from_the_store(caught(call), path, None)


def test_store_failures_are_still_the_sqlite_errors_older_callers_caught(tmp_path):
    """Extended, not renamed: code written when sqlite's errors crossed the
    boundary (`except sqlite3.OperationalError`) still catches them."""
    path = tmp_path / "s.sqlite3"
    store = filled(path)
    store.close()
    with pytest.raises(sqlite3.Error):
        store.balance(1)
    assert issubclass(StoreOperationalError, sqlite3.OperationalError)
    assert issubclass(StoreIntegrityError, sqlite3.IntegrityError)
    assert issubclass(StoreDatabaseError, sqlite3.DatabaseError)
