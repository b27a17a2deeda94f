"""An evening's tournament: N matches over one or several rooms, standings
by placement (pure: no I/O, no clock).

    t = Tournament("Friday", matches=5, rooms=("R", "R-2"))
    t.record("R", names, outcome, match_id=12)   # a game of an attached room ended
    t.public()                                   # the room message's `tournament`

How this works. Every game an attached room deals while a match is left (the
matches played and those in play stay within `matches`: `deal`) is one
match of the tournament; a room with no match left deals no game by itself
(its director may still deal a friendly one, which does not count). Its seats are placed
(`places`): the winners first (they share first place), then the others by
their `points` in the outcome, highest first (ties share a place). Place k
of n seats earns n - k points (four seats: 3, 2, 1, 0; a shared place earns
the points of the best place it covers). Standings are by the name a seat
played under (people and bots alike: "Bot 2 (hard)"), sorted by points,
then wins, then name. The host keeps every result in the store
(`StoreKeeper.tournament_result`), so `lanmatch history` lists the
tournament and its standings.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

MAX_MATCHES = 99  # an evening, not a season
MAX_ROOMS = 8


def places(outcome: dict[str, Any], n: int) -> list[int]:
    """Each seat's place (1 = first; ties share the best place they cover):
    the winners first, then the others by their `points`, highest first."""
    winners = set(outcome.get("winners") or [])
    points = list(outcome.get("points") or [0] * n) + [0] * n

    def key(s: int) -> tuple[int, int]:
        return (0 if s in winners else 1, -int(points[s]))

    order = sorted(range(n), key=key)
    place = [0] * n
    for k, s in enumerate(order):
        place[s] = k + 1 if k == 0 or key(order[k - 1]) != key(s) else place[order[k - 1]]
    return place


def place_points(place: int, n: int) -> int:
    """What a place earns at a table of `n` seats."""
    return max(0, n - place)


@dataclass
class Standing:
    name: str
    points: int = 0
    wins: int = 0
    played: int = 0


@dataclass
class Tournament:
    """A tournament attached to rooms (see the module docstring)."""

    name: str
    matches: int
    rooms: tuple[str, ...]
    played: int = 0
    standings: dict[str, Standing] = field(default_factory=dict)
    results: list[dict[str, Any]] = field(default_factory=list)
    id: int | None = None  # the store's, when kept
    in_play: set[str] = field(default_factory=set)  # rooms playing a game that counts

    def __post_init__(self) -> None:
        if not 1 <= self.matches <= MAX_MATCHES:
            raise ValueError(f"a tournament plays 1 to {MAX_MATCHES} matches, not {self.matches}")
        if not 1 <= len(self.rooms) <= MAX_ROOMS:
            raise ValueError(f"a tournament spans 1 to {MAX_ROOMS} rooms")

    @property
    def over(self) -> bool:
        return self.played >= self.matches

    def deal(self, room: str) -> bool:
        """`room` deals a game: True if it counts (a match is left for it: the
        matches played and those in play stay within `matches`)."""
        if room not in self.rooms or room in self.in_play or self.played + len(self.in_play) >= self.matches:
            return False
        self.in_play.add(room)
        return True

    def may_deal(self, room: str) -> bool:
        """Would a game `room` deals now count?"""
        return room in self.rooms and room not in self.in_play and self.played + len(self.in_play) < self.matches

    def abandoned(self, room: str) -> None:
        """`room`'s counting game ended without an outcome: its match is free again."""
        self.in_play.discard(room)

    def record(self, room: str, names: list[str], outcome: dict[str, Any],
               match_id: int | None = None) -> dict[str, Any] | None:
        """A game of `room` ended with `outcome` (its seats called `names`):
        the result it adds (None when the tournament is over or the room is
        not one of its own)."""
        if room not in self.in_play:
            return None  # not a game that counts (dealt after the last match was taken, or before the tournament)
        self.in_play.discard(room)
        n = len(names)
        where = places(outcome, n)
        self.played += 1
        result = {"match": self.played, "room": room, "match_id": match_id,
                  "seats": [{"name": names[s], "place": where[s], "points": place_points(where[s], n)}
                            for s in range(n)]}
        self.results.append(result)
        for row in result["seats"]:
            self.add(row["name"], row["points"], row["place"] == 1)
        return result

    def add(self, name: str, points: int, won: bool) -> None:
        st = self.standings.setdefault(name, Standing(name))
        st.points += points
        st.wins += int(won)
        st.played += 1

    def table(self) -> list[Standing]:
        """The standings, best first."""
        return sorted(self.standings.values(), key=lambda s: (-s.points, -s.wins, s.name.casefold()))

    def public(self) -> dict[str, Any]:
        """What every seat of an attached room is told (docs/protocol.md, `room`'s `tournament`)."""
        return {"name": self.name, "played": self.played, "matches": self.matches, "over": self.over,
                "rooms": list(self.rooms),
                "standings": [{"name": s.name, "points": s.points, "wins": s.wins, "played": s.played}
                              for s in self.table()]}


__all__ = ["MAX_MATCHES", "MAX_ROOMS", "Standing", "Tournament", "place_points", "places"]
