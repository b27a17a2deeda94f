"""A process writing matches, actions and payouts is SIGKILLed at random
moments, again and again; the store it leaves is always whole.

`_store_crash_writer.py` plays bot matches into a store the way a host does
(an action per transaction, payouts inside the finishing transaction) and,
each time it starts, first resumes the unfinished matches from seed +
actions. It is killed 20 times, 20-200 ms after it says `ready`; then one
last run resumes what is left and exits. The store must pass every check:
sqlite's integrity, balances equal to the ledger, coins conserved, every
finished match paid exactly once, nothing left unfinished, and every
finished match replaying to its stored outcome. The same checks (but
"nothing unfinished") run on the store as each kill left it.
"""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lanmatch.store import NEW_PROFILE_COINS, Store, rebuild_game
from lanmatch.store.records import dumps

WRITER = Path(__file__).resolve().parent / "_store_crash_writer.py"
KILLS = 20


def start(data: Path, seed: int, mode: str = "loop") -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(WRITER), str(data), str(seed), mode],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.mark.slow
def test_a_store_killed_at_random_moments_stays_whole_and_resumes(tmp_path):
    rng = random.Random(20240611)
    data = tmp_path / "data"
    killed_while_running = 0
    for i in range(KILLS):
        proc = start(data, i)
        try:
            line = proc.stdout.readline()  # bounded: the writer prints it at once, or dies
            assert line.strip() == "ready", f"writer {i} did not start: {line!r} {proc.stderr.read()}"
            time.sleep(rng.uniform(0.02, 0.2))
            if proc.poll() is None:
                killed_while_running += 1
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(timeout=30)
            proc.stdout.close()
            proc.stderr.close()
        assert proc.returncode in (-signal.SIGKILL, 0), proc.returncode
        with Store.open_dir(data, create=False) as store:  # as the kill left it
            assert store.check() == [], f"after kill {i}"
            live_pots = sum(store.pot(r.id) for r in store.unfinished())
            held = sum(store.balance(p.id) for p in store.profiles()) + store.house_balance() + live_pots
            assert held == store.coins_issued(), f"after kill {i}: coins were made or lost"
    assert killed_while_running == KILLS, "a writer ended by itself before its kill"

    final = subprocess.run([sys.executable, str(WRITER), str(data), "999", "drain"],
                           capture_output=True, text=True, timeout=120)
    assert final.returncode == 0, final.stderr
    assert "drained" in final.stdout

    with Store.open_dir(data, create=False) as store:
        assert store.check() == []
        assert store.unfinished() == []
        profiles = store.profiles()
        assert len(profiles) == 5
        issued = store.coins_issued()
        assert issued == 5 * NEW_PROFILE_COINS
        players = sum(store.balance(p.id) for p in profiles)
        assert players + store.house_balance() == issued, "coins were made or lost"
        c = store.conn
        matches = c.execute("SELECT id, kind, stake, players, status FROM matches").fetchall()
        assert matches, "the writers stored no match at all"
        for mid, kind, stake, players_n, _status in matches:
            rows = c.execute("SELECT reason, seat, amount FROM ledger WHERE match_id = ?", (mid,)).fetchall()
            if kind == "practice":
                assert rows == []
                continue
            assert sorted(s for r, s, _ in rows if r == "stake") == list(range(players_n))
            paid = [(r, s) for r, s, _ in rows if r in ("win", "refund", "odd")]
            assert len(paid) == len(set(paid)), f"match {mid} paid a seat twice"
            assert sum(a for r, _, a in rows if r in ("win", "refund", "odd")) == stake * players_n
            assert store.pot(mid) == 0
        finished = [m for m in matches if m[4] == "finished"]
        for mid, *_ in rng.sample(finished, min(25, len(finished))):
            record = store.match(mid)
            assert dumps(rebuild_game(record).outcome) == dumps(record.outcome)
