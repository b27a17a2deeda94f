"""Ratings in the store: a Glicko-2 rating per profile and game (docs/store.md, "Ratings").

How this works. When a match is finished (`Store.finish_match`, in the same
transaction as its stats rows) `rate_match` reads the match's `results` rows
and makes the match one Glicko-2 rating period for every profile seated in
it: one game against each other seat, scored by placement (`pairwise`). The
other seats are played as they stood before the match: a profile at its
stored rating, a guest at the start rating, a bot at its level's fixed rating
at that game (`BOT_RATINGS_BY_GAME`, measured by `lanmatch sim`, docs/store.md). Bots and guests
are never rated themselves. `rating_changes` holds one row per rated match
and profile, so a match is rated at most once.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass

from lanmatch.ratings import Rating, placement_results, update
from lanmatch.rules import teams as T

#: Fixed ratings of the room bots by game and level (deviation 60: well
#: measured), from `bench/bot_ratings.py --games 400` over heads-up
#: `lanmatch sim` runs, medium anchored at 1500 (docs/store.md has the win
#: shares). A game not measured uses the average of the measured ones; a bot
#: of unknown level (a remote node) is rated as a medium one.
BOT_RATINGS_BY_GAME: dict[str, dict[str, Rating]] = {
    "colormatch": {"easy": Rating(837.0, 60.0), "medium": Rating(1500.0, 60.0), "hard": Rating(1591.0, 60.0)},
    "dominoes": {"easy": Rating(1318.0, 60.0), "medium": Rating(1500.0, 60.0), "hard": Rating(1709.0, 60.0)},
}
BOT_RATINGS: dict[str, Rating] = {
    "easy": Rating(1078.0, 60.0),
    "medium": Rating(1500.0, 60.0),
    "hard": Rating(1650.0, 60.0),
}


def bot_rating(level: str | None, game: str | None = None) -> Rating:
    """The fixed rating a bot of `level` is played at, at `game`."""
    table = BOT_RATINGS_BY_GAME.get(game or "", BOT_RATINGS)
    return table.get(level or "medium", table["medium"])


@dataclass(frozen=True)
class StoredRating:
    """A profile's rating at one game, as the store keeps it."""

    game: str
    rating: Rating
    matches: int
    updated: float

    @property
    def shown(self) -> int:
        return self.rating.shown()


def pairwise(results: list[str], partners: bool = False) -> dict[int, list[tuple[int, float]]]:
    """Each seat's games of one match from its `results` row ("win", "loss",
    "draw", "left"). The winners (or every seat of a drawn match) share the
    first place and the seats that lost are behind them, unranked among
    themselves (`ratings.placement_results`): a winner beats every seat that
    did not win, winners sharing a win are level, two seats that both lost
    played no game. A seat whose player left forfeits: it loses to every seat
    still played by its person (two leavers played no game). With `partners`
    (a `teams` match, rules/teams.py) partners play no game with each other:
    a team win is each partner beating each opponent."""
    out = placement_results([None if r == "left" else 0 if r in ("win", "draw") else None for r in results])
    left = {i for i, r in enumerate(results) if r == "left"}
    for i in out:
        games = [(j, score) for j, score in out[i] if i not in left and j not in left]
        if i in left:
            games = [(j, 0.0) for j in range(len(results)) if j not in left]
        else:
            games += [(j, 1.0) for j in sorted(left)]
        if partners:
            games = [(j, score) for j, score in games if T.team_of(j) != T.team_of(i)]
        out[i] = sorted(games)
    return out


def _json_dict(text: str | None) -> dict:
    try:
        value = json.loads(text or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def read_rating(conn: sqlite3.Connection, profile_id: int, game: str) -> StoredRating | None:
    row = conn.execute(
        "SELECT rating, rd, volatility, matches, updated FROM ratings WHERE profile_id = ? AND game = ?",
        (profile_id, game),
    ).fetchone()
    if row is None:
        return None
    return StoredRating(game, Rating(row[0], row[1], row[2]), row[3], row[4])


def ratings_of(conn: sqlite3.Connection, profile_id: int) -> list[StoredRating]:
    return [
        StoredRating(g, Rating(r, rd, v), n, u)
        for g, r, rd, v, n, u in conn.execute(
            "SELECT game, rating, rd, volatility, matches, updated FROM ratings WHERE profile_id = ? ORDER BY game",
            (profile_id,),
        )
    ]


def rate_match(conn: sqlite3.Connection, match_id: int, now: float) -> list[tuple[int, Rating, Rating]]:
    """Rate a finished match (inside the caller's transaction): returns
    `[(profile_id, before, after)]`. A match already rated is left alone."""
    if conn.execute("SELECT 1 FROM rating_changes WHERE match_id = ? LIMIT 1", (match_id,)).fetchone():
        return []
    rows = conn.execute(
        "SELECT r.seat, r.profile_id, r.result, r.game, s.kind, s.bot_level FROM results r"
        " JOIN match_seats s ON s.match_id = r.match_id AND s.seat = r.seat"
        " WHERE r.match_id = ? ORDER BY r.seat",
        (match_id,),
    ).fetchall()
    if len(rows) < 2:
        return []
    game = rows[0][3]
    before: list[Rating] = []
    for _seat, pid, _result, _game, kind, level in rows:
        if pid is not None:
            stored = read_rating(conn, pid, game)
            before.append(stored.rating if stored is not None else Rating())
        elif kind == "bot":
            before.append(bot_rating(level, game))
        else:
            before.append(Rating())
    opts = conn.execute("SELECT options FROM matches WHERE id = ?", (match_id,)).fetchone()
    partners = len(rows) == T.SEATS and opts is not None and T.of_options(_json_dict(opts[0]))
    games = pairwise([r[2] for r in rows], partners)
    changed = []
    for i, (seat, pid, _result, _game, _kind, _level) in enumerate(rows):
        if pid is None:
            continue
        after = update(before[i], [(before[j], score) for j, score in games[i]])
        conn.execute(
            "INSERT INTO ratings (profile_id, game, rating, rd, volatility, matches, updated) VALUES (?, ?, ?, ?, ?, 1, ?)"
            " ON CONFLICT (profile_id, game) DO UPDATE SET rating = excluded.rating, rd = excluded.rd,"
            " volatility = excluded.volatility, matches = matches + 1, updated = excluded.updated",
            (pid, game, after.rating, after.rd, after.volatility, now),
        )
        conn.execute(
            "INSERT INTO rating_changes (match_id, profile_id, game, seat, before, after, rd_after) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (match_id, pid, game, seat, before[i].rating, after.rating, after.rd),
        )
        changed.append((pid, before[i], after))
    return changed
