"""Random legal playouts at the six Color Match tables, 4 players: `python bench/playouts.py N`.

Prints the steps played. Time it as a whole process beside another tree, e.g.
`/usr/bin/time -v env PYTHONPATH=OTHER python bench/playouts.py 20` (bench/README.md, "Before and after the registry").
"""

from __future__ import annotations

import random
import sys

from lanmatch.rules import new_game

rng = random.Random(1)
steps = 0
for seed in range(int(sys.argv[1])):
    for table in ("standard", "classic", "daynight", "siege", "toll", "cards"):
        g = new_game("colormatch", table=table, players=4, seed=seed)
        while g.outcome is None and steps < 10**7:
            seat = g.to_act[0]
            legal = g.legal_actions(seat) or g.legal_actions(g.view(0)["turn"])
            if not g.legal_actions(seat):
                seat = g.view(0)["turn"]
            g.act(seat, rng.choice(legal))
            steps += 1
print(steps)
