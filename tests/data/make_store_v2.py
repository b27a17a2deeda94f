"""Write `store-v2.sqlite3`: a store made by the release whose schema is version 2.

The file in this directory was made by the code of commit ba1ae3f (the last
release of the version-2 schema), not by the code beside this script:

    git archive ba1ae3f | tar -x -C /tmp/lanmatch-ba1ae3f
    PYTHONPATH=/tmp/lanmatch-ba1ae3f:/tmp/lanmatch-ba1ae3f/tests \
        python tests/data/make_store_v2.py tests/data/store-v2.sqlite3

It holds what a host of that release leaves behind: four profiles (one
without a match), coin matches won outright, shared (with an odd coin) and
with a player who left (a fee), a Dominoes practice match with a guest, a
daily deal, an abandoned coin match (stakes back), and two live matches with
actions (a coin table at `siege` and a Dominoes one) for a resume.
`tests/test_store_release.py` upgrades a copy of it. Every time is fixed, so
running this again at ba1ae3f writes the same rows.
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

from _store_play import new_match, play_match, play_on

from lanmatch.store import SeatSpec, Store

T = 1_700_000_000.0


def fill(store: Store) -> None:
    ann = store.profile("Ann", "a" * 32, T)
    bob = store.profile("Bob", "b" * 32, T + 1)
    cy = store.profile("Cy", "c" * 32, T + 2)
    store.profile("Dee", "d" * 32, T + 3)  # never played
    play_match(store, [SeatSpec.player(ann, token="t-ann"), SeatSpec.player(bob), SeatSpec.bot("easy")],
               kind="coins", stake=50, seed=3, now=T + 100)
    play_match(store, [SeatSpec.player(ann), SeatSpec.player(bob), SeatSpec.player(cy), SeatSpec.bot("medium")],
               kind="coins", stake=30, seed=8, now=T + 200, leave=(6, 2))
    shared = store.begin_match(game="colormatch", table="standard", seed=11, now=T + 300, kind="coins", stake=7,
                               seats=[SeatSpec.player(ann), SeatSpec.player(cy), SeatSpec.bot("hard")])
    store.finish_match(shared, {"winners": [0, 1], "points": [0, 0, 0], "turns": [4, 4, 3]}, T + 310,
                       verify=False)
    play_match(store, [SeatSpec.player(bob), SeatSpec.guest("Gus")], game="dominoes", table=None, seed=4,
               now=T + 400)
    play_match(store, [SeatSpec.player(ann), SeatSpec.bot("medium"), SeatSpec.bot("medium")], table="cards",
               options={"mode": "daily", "date": "2025-03-02"}, now=T + 500)
    odd = store.begin_match(game="colormatch", table="standard", seed=12, now=T + 520, options={"target": 100},
                            seats=[SeatSpec.player(ann), SeatSpec.bot("easy"), SeatSpec.bot("hard"), SeatSpec.bot(None)])
    store.finish_match(odd, {"winners": [0], "points": [100, 20, True, 5], "turns": [7, 6, "x", 6]}, T + 530,
                       verify=False)  # mixed and remote bots; a point and a turn that are no whole numbers
    draw = store.begin_match(game="dominoes", table=None, seed=13, now=T + 540, kind="coins", stake=10,
                             seats=[SeatSpec.player(ann), SeatSpec.player(bob)])
    store.finish_match(draw, {"winners": [], "points": [0, 0]}, T + 550, verify=False)
    gone = store.begin_match(game="colormatch", table="toll", seed=6, now=T + 600, kind="coins", stake=20,
                             seats=[SeatSpec.player(bob), SeatSpec.player(cy)])
    store.abandon_match(gone, T + 610)
    live, ref = new_match(store, [SeatSpec.player(bob, token="t-bob"), SeatSpec.bot("hard")], table="siege",
                          seed=5, kind="coins", stake=25, now=T + 700)
    play_on(store, live, ref, 0, finish=False, max_actions=9)
    dom, ref = new_match(store, [SeatSpec.player(cy, token="t-cy"), SeatSpec.guest("Gus", token="t-gus")],
                         game="dominoes", table=None, seed=9, now=T + 800)
    play_on(store, dom, ref, 0, finish=False, max_actions=4)
    assert store.check() == [], store.check()


def main(target: str) -> None:
    path = Path(target)
    work = path.with_name(path.name + ".tmp")
    for p in (work, Path(f"{work}-wal"), Path(f"{work}-shm")):
        p.unlink(missing_ok=True)
    with Store.open(work, durable=False) as store:
        assert store.version == 2, f"run this with the code of ba1ae3f (schema 2), not {store.version}"
        fill(store)
    c = sqlite3.connect(work, isolation_level=None)
    c.execute("PRAGMA journal_mode = DELETE")  # one self-contained file, no -wal beside it
    c.execute("VACUUM")
    c.close()
    work.replace(path)


if __name__ == "__main__":
    main(sys.argv[1])
