"""A stand-in host for the crash test: plays bot matches into a store until killed.

    python tests/_store_crash_writer.py DATA_DIR SEED [loop|drain]

It opens the store with the host lock, prints `ready`, first resumes every
unfinished match the way a restarted host does (rebuild from seed + actions,
play on, finish), then (`loop`) begins, plays and finishes matches one after
another, coin rooms and practice rooms, with people who sometimes leave,
until it has played 500 matches or run 30 s. `drain` stops after resuming.
Every action is one transaction, every payout is part of the finishing one.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _store_play import new_match, play_on, resume  # noqa: E402

from lanmatch.rules import GAMES  # noqa: E402
from lanmatch.store import SeatSpec, Store  # noqa: E402

TABLES = tuple(GAMES["colormatch"].tables)  # every Color Match table the registry declares
PROFILES = 5


def finish_or_abandon(store: Store, match_id: int, settlement) -> None:
    if settlement is None:  # cut off after too many actions
        store.abandon_match(match_id, time.time())


def main(data: str, seed: int, mode: str) -> int:
    store = Store.open_dir(data, lock=True)
    print("ready", flush=True)
    rng = random.Random(seed)
    people = [store.profile(f"P{i}", f"crash-test-key-{i}".ljust(20, "."), time.time()) for i in range(PROFILES)]
    for record in store.unfinished():
        ref, stored = resume(store, record)
        people_seats = [s.seat for s in record.seats if s.kind == "player" and not s.left]
        leave = (stored + rng.randrange(1, 20), rng.choice(people_seats)) if people_seats and rng.random() < 0.3 else None
        finish_or_abandon(store, record.id, play_on(store, record.id, ref, stored, now=time.time(), leave=leave))
        print("resumed", record.id, flush=True)
    if mode == "drain":
        print("drained", flush=True)
        return 0
    deadline = time.monotonic() + 30
    for _ in range(500):
        if time.monotonic() > deadline:
            break
        game = "dominoes" if rng.random() < 0.25 else "colormatch"
        table = None if game == "dominoes" else rng.choice(TABLES)
        n = rng.randint(2, 4)
        kind = "coins" if rng.random() < 0.7 else "practice"
        stake = rng.randint(1, 150) if kind == "coins" else 0
        can = [p for p in people if kind == "practice" or store.balance(p.id) >= stake]
        sitting = rng.sample(can, min(len(can), rng.randint(0, n)))
        seats = [SeatSpec.player(p) for p in sitting] + [SeatSpec.bot(rng.choice(("easy", "medium"))) for _ in range(n - len(sitting))]
        rng.shuffle(seats)
        m, ref = new_match(store, seats, game=game, table=table, seed=rng.getrandbits(63), kind=kind, stake=stake,
                           now=time.time())
        people_seats = [i for i, s in enumerate(seats) if s.kind == "player"]
        leave = (rng.randrange(1, 40), rng.choice(people_seats)) if people_seats and rng.random() < 0.3 else None
        finish_or_abandon(store, m, play_on(store, m, ref, 0, now=time.time(), leave=leave))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], int(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else "loop"))
