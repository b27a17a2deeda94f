"""How fast a room bot acts where people play (pure: the rng is passed in).

Two figures, both drawn from a seeded `random.Random` the caller owns (the
referee keeps one per decision, so the same game gives the same times):

- `move_delay`: a bot's time for a move or an out-of-turn chance. In a room
  with people it takes a varied, natural time (about 0.6-1.5 s, 0.3-0.6 s
  when forced: one legal action); rooms of bots alone keep the room's
  `bot_delay` as it is (0 in `lanmatch sim` and `--fast`).
- `reaction`: how long a bot needs to notice that a *person* forgot a
  last-card call before it may catch them (Easy 2.5-4 s, Medium 1.5-3 s,
  Hard 1-2 s). A person who calls within a second is never caught. It holds
  whatever the room's `bot_delay` (a `--fast` room included): it is the
  person's grace, not the bots' pace.

No clock is read here and nothing random is global (tests/test_purity.py).
"""

from __future__ import annotations

import random

MOVE = (0.6, 1.5)  # seconds a bot takes for a move where people play
FORCED = (0.3, 0.6)  # ... when it has only one legal action
OWN_CALL = (0.15, 0.4)  # ... to call its own last card (it says it as it plays)
REACTION = {  # seconds before a bot may catch a person who forgot the call
    "easy": (2.5, 4.0),
    "medium": (1.5, 3.0),
    "hard": (1.0, 2.0),
}
GRACE = min(low for low, _ in REACTION.values())  # no bot catches a person sooner


def _between(rng: random.Random, span: tuple[float, float]) -> float:
    low, high = span
    return round(low + (high - low) * rng.random(), 3)


def move_delay(rng: random.Random, bot_delay: float, people: bool, forced: bool = False, own_call: bool = False) -> float:
    """A room bot's time for this move or chance.

    `bot_delay` is the room's figure: 0 keeps every bot instant (a room of
    bots, the simulator, `--fast`); else, where `people` sit, a natural time
    is drawn; without people the room's figure stands.
    """
    if bot_delay <= 0 or not people:
        return bot_delay
    if own_call:
        return _between(rng, OWN_CALL)
    return _between(rng, FORCED if forced else MOVE)


def reaction(rng: random.Random, level: str) -> float:
    """A bot of `level`'s reaction time to a person's forgotten call."""
    return _between(rng, REACTION.get(level, REACTION["medium"]))
