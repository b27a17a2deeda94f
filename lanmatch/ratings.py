"""Glicko-2 ratings, pure (no I/O, no clock): Glickman's "Example of the Glicko-2 system".

    r = Rating()                                  # 1500, RD 350, volatility 0.06
    r2 = update(r, [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0)])
    placement_results([0, None, None])             # seat -> [(other seat, score)], pairwise

How this works
--------------
`update` is the paper's steps 1-8 for one rating period: the player's rating
is moved by the results of the games in that period against opponents as they
stood before it. lanmatch makes every finished match one rating period for
each rated seat: a multi-player match counts as one game against each other
seat, won (1), lost (0) or drawn (0.5) by placement (`placement_results`;
the games end with winners and the rest, so two seats that both lost played
no game). A
player with no games in a period only grows its deviation (step 6); lanmatch
does not run empty periods (a rating is only touched when a match ends).

`TAU` (the system constant, 0.5) limits how fast the volatility moves. The
deviation is capped at `START_RD` so a long absence never makes a rating
less certain than a new one. docs/store.md ("Ratings") records the choices.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

SCALE = 173.7178
"""Glicko-2's ratio between the Glicko scale (1500-centred) and its own."""

START_RATING = 1500.0
START_RD = 350.0
START_VOLATILITY = 0.06
TAU = 0.5
EPSILON = 0.000001
"""The convergence tolerance of the volatility iteration (the paper's)."""


@dataclass(frozen=True)
class Rating:
    """A Glicko-2 rating on the Glicko scale: `rating` (r), `rd` (RD), `volatility` (sigma)."""

    rating: float = START_RATING
    rd: float = START_RD
    volatility: float = START_VOLATILITY

    def shown(self) -> int:
        """The rating as people see it: rounded to a whole number."""
        return int(round(self.rating))


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _e(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def expected(player: Rating, opponent: Rating) -> float:
    """The chance (0..1) that `player` beats `opponent`, as Glicko-2 reckons it."""
    mu = (player.rating - START_RATING) / SCALE
    mu_j = (opponent.rating - START_RATING) / SCALE
    return _e(mu, mu_j, opponent.rd / SCALE)


def update(player: Rating, results: list[tuple[Rating, float]], tau: float = TAU) -> Rating:
    """`player`'s rating after one rating period with these `results`
    (opponent as rated before the period, score 1 win / 0.5 draw / 0 loss).

    Raises:
        ValueError: a score outside 0..1.
    """
    mu = (player.rating - START_RATING) / SCALE
    phi = player.rd / SCALE
    sigma = player.volatility
    if not results:  # step 6 alone: the deviation grows
        phi_star = math.sqrt(phi * phi + sigma * sigma)
        return Rating(player.rating, min(phi_star * SCALE, START_RD), sigma)
    v_inv = 0.0
    delta_sum = 0.0
    for opponent, score in results:
        if not 0.0 <= score <= 1.0:
            raise ValueError(f"a game's score is 0, 0.5 or 1, not {score!r}")
        mu_j = (opponent.rating - START_RATING) / SCALE
        phi_j = opponent.rd / SCALE
        g = _g(phi_j)
        e = _e(mu, mu_j, phi_j)
        v_inv += g * g * e * (1.0 - e)
        delta_sum += g * (score - e)
    v = 1.0 / v_inv
    delta = v * delta_sum

    # Step 5: the new volatility (the Illinois algorithm of the paper).
    a = math.log(sigma * sigma)
    phi2 = phi * phi

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi2 - v - ex) / (2.0 * (phi2 + v + ex) ** 2) - (x - a) / (tau * tau)

    big_a = a
    if delta * delta > phi2 + v:
        big_b = math.log(delta * delta - phi2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    for _ in range(100):  # bounded; converges in a handful
        if abs(big_b - big_a) <= EPSILON:
            break
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    sigma_new = math.exp(big_a / 2.0)

    # Steps 6-8: the new deviation and rating.
    phi_star = math.sqrt(phi2 + sigma_new * sigma_new)
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_new = mu + phi_new * phi_new * delta_sum
    return Rating(mu_new * SCALE + START_RATING, min(phi_new * SCALE, START_RD), sigma_new)


def placement_results(places: list[int | None]) -> dict[int, list[tuple[int, float]]]:
    """Pairwise results of one match from each seat's place: seat -> [(other
    seat, 1 ahead of it / 0.5 level / 0 behind)]. Places count from 0 (best);
    equal places are level. `None` is "behind every placed seat, unranked
    among the others": two `None` seats played no game (a match that only
    names its winners gives the rest `None`)."""
    out: dict[int, list[tuple[int, float]]] = {}
    for i, pi in enumerate(places):
        games = []
        for j, pj in enumerate(places):
            if i == j or (pi is None and pj is None):
                continue
            if pi is None:
                score = 0.0
            elif pj is None:
                score = 1.0
            else:
                score = 1.0 if pi < pj else 0.5 if pi == pj else 0.0
            games.append((j, score))
        out[i] = games
    return out
