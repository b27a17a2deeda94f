"""What the store costs the host, per action and per match.

    python bench/store.py [--matches 40] [--data DIR] [--table classic] [--players 3]

Plays bot matches through a `Referee` the way the host's room task does
(`net/host.py`): `begin_match` (a coin room: the stakes posted, a FULL-sync
commit), then after every applied action one `record_actions` call with the
referee's new log entries (a NORMAL-sync commit), then `finish_match` (the
actions replayed and checked, the pot paid, the stats written: FULL sync).
Each store call is timed with `time.perf_counter`; the referee's own work is
timed beside it, so the store's share of a host action shows. The store is a
real file in a fresh temporary directory (or `--data DIR`), durable as the
host opens it. See bench/README.md, section "Store".
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lanmatch.store import SeatSpec, Store  # noqa: E402
from lanmatch.table import Referee  # noqa: E402


def pct(samples: list[float], p: float) -> float:
    s = sorted(samples)
    return s[min(len(s) - 1, int(p / 100 * len(s)))]


def line(label: str, samples: list[float]) -> str:
    us = [x * 1e6 for x in samples]
    return (f"{label:<28} n={len(us):6d}  mean {statistics.fmean(us):8.1f} µs  p50 {pct(us, 50):8.1f}  "
            f"p99 {pct(us, 99):8.1f}  max {max(us):8.1f}")


def run(store: Store, args: argparse.Namespace) -> None:
    profiles = [store.profile(f"P{i}", f"{i:032x}", time.time()) for i in range(args.players)]
    record: list[float] = []
    referee: list[float] = []
    begin: list[float] = []
    finish: list[float] = []
    for k in range(args.matches):
        seats = [SeatSpec.player(p, token=f"{k:016x}{i:016x}") for i, p in enumerate(profiles)]
        t0 = time.perf_counter()
        mid = store.begin_match(game="colormatch", table=args.table, seats=seats, seed=k, now=time.time(),
                                kind="coins", stake=1, room="bench", settings={"clock": 30})
        begin.append(time.perf_counter() - t0)
        ref = Referee("colormatch", args.table, args.players, k, now=0.0,
                      bots={s: "medium" for s in range(args.players)}, bot_delay=1.0, clock=30)
        stored, now = 0, 0.0
        while not ref.over and stored < 4000:
            now = max(now, ref.next_deadline())
            t0 = time.perf_counter()
            ref.tick(now)
            t1 = time.perf_counter()
            new = ref.log[stored:]
            if new:
                store.record_actions(mid, stored, [e[1:] for e in new])
                stored += len(new)
                record.append(time.perf_counter() - t1)
                referee.append(t1 - t0)
        t0 = time.perf_counter()
        store.finish_match(mid, ref.outcome, time.time())
        finish.append(time.perf_counter() - t0)
    print(line("record_actions (per action)", record))
    print(line("referee tick + bot (beside)", referee))
    print(line("begin_match (coins)", begin))
    print(line("finish_match (coins)", finish))
    print(f"store share of a host action (mean): {statistics.fmean(record) / (statistics.fmean(record) + statistics.fmean(referee)):.0%}")
    problems = store.check()
    print("check():", problems or "clean")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--matches", type=int, default=40)
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--table", default="classic")
    ap.add_argument("--data", default=None, help="data directory (default: a fresh temporary one)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="lanmatch-bench-store-") as tmp, \
            Store.open_dir(args.data or tmp, lock=True) as store:
        print(f"store {store.path} (durable: FULL sync for coins, NORMAL for actions)")
        run(store, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
