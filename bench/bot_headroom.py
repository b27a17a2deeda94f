"""What the hidden cards cost the Hard bot: its win share when its sampled worlds are told the truth.

    /work/venv/bin/python bench/bot_headroom.py --tell all --players 4 --games 4000 --seed 11
    /work/venv/bin/python bench/bot_headroom.py --tell colors --table standard --players 3

A diagnostic, never a bot: Hard (seat 0) against Medium, through
`lanmatch.sim.simulate`, with the Hard bot's `Dealer.deal` wrapped so that
after each determinized world is dealt, part of it is replaced by what the
engine really holds (the running game's `hands`, reached by wrapping
`lanmatch.sim.referee_for`; workers are forked, so the wrapping reaches them):

- `none`: nothing told (the bot as shipped, for the same run's comparison);
- `all`: every rival's hand is its true hand;
- `next`: only the next seat's hand (in the bot's direction of play);
- `others`: every rival's but the next seat's;
- `colors`: every rival's hand has its true hand's colors, each card drawn
  at random from the sampled world's unseen cards of that color (the
  symbols stay a guess).

A told hand's true cards leave the sampled draw pile where they are in it,
the replaced cards go in, and the pile is shuffled and cut back to its size.
The gap between `none` and a told row is what better inference of that
part could win at most (docs/bots.md, "What the hidden cards cost").
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lanmatch import sim as S  # noqa: E402
from lanmatch.bots import colormatch as CM  # noqa: E402

TELL = ("none", "all", "next", "others", "colors")
RUNNING: dict[str, object] = {}  # the game the worker plays now


def _referee_for(config, index, _orig=S.referee_for):
    ref = _orig(config, index)
    RUNNING["game"] = ref.g
    return ref


def _told(tell: str):
    deal = CM.Dealer.deal

    def told_deal(self, rng):
        w = deal(self, rng)
        true_hands = RUNNING["game"].hands
        size = len(w.pile)
        if tell == "colors":
            for s in self.rivals:
                w.pile.extend(w.hands[s])
                hand = []
                for c in true_hands[s]:
                    same = [i for i, p in enumerate(w.pile) if CM.COLOR[p] == CM.COLOR[c]]
                    hand.append(w.pile.pop(same[int(rng.random() * len(same))]) if same else c)
                w.hands[s] = hand
        else:
            told = {"all": self.rivals, "next": [self.x.nxt],
                    "others": [s for s in self.rivals if s != self.x.nxt]}.get(tell, [])
            for s in told:
                old, w.hands[s] = w.hands[s], list(true_hands[s])
                for c in w.hands[s]:
                    if c in w.pile:
                        w.pile.remove(c)
                w.pile.extend(old)
        if tell != "none":
            rng.shuffle(w.pile)
            del w.pile[size:]
        return w

    return told_deal


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tell", choices=TELL, default="all")
    ap.add_argument("--table", default="classic")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    S.referee_for = _referee_for
    CM.Dealer.deal = _told(args.tell)
    bots = ("hard",) + ("medium",) * (args.players - 1)
    t = time.time()
    r = S.simulate(S.SimConfig(table=args.table, players=args.players, bots=bots, games=args.games, seed=args.seed),
                   jobs=args.jobs)
    s = r["seats"][0]
    lo, hi = s["ci95"]
    print(f"{args.table}, {args.players} seats, {args.games} games, --seed {args.seed}, told {args.tell}: "
          f"Hard {100 * s['win_share']:.1f}% [{100 * lo:.1f}-{100 * hi:.1f}] ({time.time() - t:.0f} s)")


if __name__ == "__main__":
    main()
